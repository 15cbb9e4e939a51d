//! `DLDataType` and `DLDevice`, under the names of the value types they are: [`DataType`] and
//! [`Device`]. Their methods and trait implementations are in the value modules
//! (`data_type.rs`, `device.rs`).

use super::code::{DLDataTypeCode, DLDeviceType};

/// A DLPack data type: the C struct `DLDataType` itself (`#[repr(C)]`, 4 bytes), so it crosses
/// the ABI with no conversion.
///
/// A value read from foreign memory may hold any code, width and lane count; [`DataType::check`]
/// says whether it is a data type this crate knows and, if not, why. Constructors come in two
/// kinds: [`DataType::new`] builds any triple (a `const fn` for tables), and
/// [`DataType::checked`] refuses what DLPack does not allow, with the reason.
///
/// The names follow TVM FFI: [`Display`](core::fmt::Display) prints the canonical name and
/// [`FromStr`](core::str::FromStr) parses it back, along with the aliases `i32`, `u8`, `f32`,
/// `bf16`, `c64` and `fp8_e4m3fn`.
///
/// ```
/// use dlpack_core::DataType;
///
/// assert_eq!(DataType::BF16.to_string(), "bfloat16");
/// assert_eq!("f32".parse::<DataType>()?, DataType::F32);
/// assert_eq!("float32x4".parse::<DataType>()?, DataType::F32.with_lanes(4));
/// assert_eq!(DataType::FLOAT4_E2M1FN.size_in_bits(), 4);
/// let err = "bfloat32".parse::<DataType>().unwrap_err();
/// assert_eq!(err.to_string(), "`bfloat32` is not a data type: bfloat takes 16 bits, not 32");
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DataType {
    /// Type code (`kDLFloat`, …).
    pub code: DLDataTypeCode,
    /// Bits of one lane.
    pub bits: u8,
    /// Number of lanes; 1 for a scalar.
    pub lanes: u16,
}

/// A DLPack device: the C struct `DLDevice` itself (`#[repr(C)]`, 8 bytes), so it crosses the
/// ABI with no conversion.
///
/// Equality is (type, id) equality after canonicalisation: for host-side memory (`cpu`,
/// `cuda_host`, `cuda_managed`, `rocm_host`, `tpu_host`) `dlpack.h` says the id "is set to 0",
/// so the id is ignored there and `cpu:1 == cpu`. For every other type (accelerators such as
/// `maia` or `hexagon` too, where a machine may have several), and for device types this crate
/// does not know, the id counts. [`Hash`] agrees with this.
///
/// Names follow TVM FFI: [`Display`](core::fmt::Display) prints `cpu`, `cuda:0`, `cuda_host`,
/// `rocm:1`, and [`FromStr`](core::str::FromStr) parses them back; a bare indexed name (`cuda`)
/// means id 0, and a negative id (`cuda:-1`) is an error.
///
/// ```
/// use dlpack_core::Device;
///
/// assert_eq!(Device::cuda(1).to_string(), "cuda:1");
/// assert_eq!("rocm:2".parse::<Device>()?, Device::rocm(2));
/// assert_eq!("cpu".parse::<Device>()?, Device::CPU);
/// assert_eq!(Device::new(Device::CPU.device_type, 1), Device::CPU);
/// assert_ne!(Device::cuda(0), Device::cuda(1));
/// assert_eq!(
///     "cuda:-1".parse::<Device>().unwrap_err().to_string(),
///     "`cuda:-1` is not a device: the device id after `:` must be a number from 0 to 2147483647, as in `cuda:0`"
/// );
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Device {
    /// The kind of device (`kDLCUDA`, …).
    pub device_type: DLDeviceType,
    /// Which device of that kind; 0 for host-side memory.
    pub device_id: i32,
}
