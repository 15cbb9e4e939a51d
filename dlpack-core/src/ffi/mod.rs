//! The DLPack 1.3 ABI, written in plain Rust (no bindgen, no build script).
//!
//! Every struct is `#[repr(C)]` with the layout of `dlpack.h` 1.3; the sizes, alignments and
//! field offsets are asserted at compile time, and the `abi` test of the workspace
//! (`tests/tests/abi/`) compares them with a C program compiled against the real header.
//!
//! The code fields, [`DLDeviceType`] and [`DLDataTypeCode`], are newtypes over integers rather
//! than Rust enums: a producer may send a code newer than this crate (upstream already has
//! `kDLBcomplex`, `kDLTPU`, `kDLTPUHost` and `kDLAscend`, which are not in the 1.3 release), and
//! reading an unknown value must be defined behaviour. The named constants cover 1.3 and the
//! codes added upstream since.
//!
//! # `DLDataType` and `DLDevice` are `DataType` and `Device`
//!
//! The two small structs that describe a tensor's elements and memory are also this crate's
//! value types: [`DataType`](crate::DataType) *is* `DLDataType` and [`Device`](crate::Device)
//! *is* `DLDevice` (`#[repr(C)]`, the same fields), so a value crosses the ABI with no
//! conversion. They are defined here, in the ABI layer, under the names users know them by;
//! [`DLDataType`] and [`DLDevice`] are aliases for readers of `dlpack.h`. Their methods,
//! constants and trait implementations (names, validation, equality) are written in the value
//! modules above this one; this module depends on nothing else in the crate.
//!
//! The named constants of the code newtypes, like those of `DataType` and `Device`, are
//! generated from the one table of `dlpack-grammar`, so each value is written once.
//!
//! ```
//! use dlpack_core::ffi::{DLDataTypeCode, DLDeviceType, DLTensor};
//!
//! assert_eq!(DLDeviceType::CUDA.0, 2);
//! assert_eq!(DLDataTypeCode::BFLOAT.0, 4);
//! assert_eq!(core::mem::size_of::<DLTensor>(), 48);
//! ```
#![allow(non_camel_case_types)]

use core::mem::{align_of, offset_of, size_of};

/// `DLDataType`: the same type as [`DataType`](crate::DataType).
///
/// ```
/// use dlpack_core::{DataType, ffi::DLDataType};
///
/// let dtype: DLDataType = DataType::F32; // the same type: no conversion at the boundary
/// assert_eq!((dtype.code.0, dtype.bits, dtype.lanes), (2, 32, 1));
/// ```
pub type DLDataType = value::DataType;

/// `DLDevice`: the same type as [`Device`](crate::Device).
///
/// ```
/// use dlpack_core::{Device, ffi::DLDevice};
///
/// let device: DLDevice = Device::cuda(1); // the same type: no conversion at the boundary
/// assert_eq!((device.device_type.0, device.device_id), (2, 1));
/// ```
pub type DLDevice = value::Device;

/// The DLPack major version this crate implements (`DLPACK_MAJOR_VERSION`). A managed tensor of
/// another major version has a different layout past its `deleter`.
///
/// ```
/// use dlpack_core::ffi::{DLPACK_MAJOR_VERSION, DLPackVersion};
///
/// let from_producer = DLPackVersion { major: 1, minor: 0 };
/// assert_eq!(from_producer.major, DLPACK_MAJOR_VERSION); // safe to read the rest
/// ```
pub const DLPACK_MAJOR_VERSION: u32 = 1;

/// The DLPack minor version this crate implements (`DLPACK_MINOR_VERSION`). Minor versions add
/// enumeration values and keep the layout.
///
/// ```
/// use dlpack_core::ffi::{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
/// assert_eq!((DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION), (1, 3));
/// ```
pub const DLPACK_MINOR_VERSION: u32 = 3;

/// `DLPackVersion`: the ABI version a managed tensor was made with.
///
/// ```
/// use dlpack_core::ffi::DLPackVersion;
/// assert_eq!(DLPackVersion::CURRENT, DLPackVersion { major: 1, minor: 3 });
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DLPackVersion {
    /// Major version: a change means the layout of `DLManagedTensorVersioned` changed.
    pub major: u32,
    /// Minor version: a change means new enumeration values, same layout.
    pub minor: u32,
}

impl DLPackVersion {
    /// The version this crate implements: 1.3. Versions order as (major, minor).
    ///
    /// ```
    /// use dlpack_core::ffi::DLPackVersion;
    /// assert!(DLPackVersion { major: 1, minor: 0 } < DLPackVersion::CURRENT);
    /// assert!(DLPackVersion::CURRENT < DLPackVersion { major: 2, minor: 0 });
    /// ```
    pub const CURRENT: Self = Self {
        major: DLPACK_MAJOR_VERSION,
        minor: DLPACK_MINOR_VERSION,
    };
}

/// Asserts a struct's size and alignment and each field's offset, for 64-bit and 32-bit
/// targets (pointers are the only fields whose size varies).
macro_rules! assert_layout {
    ($ty:ty, size $s64:literal / $s32:literal, align $a64:literal / $a32:literal, { $($field:ident: $o64:literal / $o32:literal),* $(,)? }) => {
        const _: () = {
            let wide = size_of::<usize>() == 8;
            assert!(size_of::<$ty>() == if wide { $s64 } else { $s32 });
            assert!(align_of::<$ty>() == if wide { $a64 } else { $a32 });
            $(assert!(offset_of!($ty, $field) == if wide { $o64 } else { $o32 });)*
        };
    };
}

mod code;
mod exchange;
mod tensor;
pub(crate) mod value;

pub use code::{DLDataTypeCode, DLDeviceType};
pub use exchange::*;
pub use tensor::*;

assert_layout!(DLPackVersion, size 8 / 8, align 4 / 4, { major: 0 / 0, minor: 4 / 4 });
assert_layout!(DLDevice, size 8 / 8, align 4 / 4, { device_type: 0 / 0, device_id: 4 / 4 });
assert_layout!(DLDataType, size 4 / 4, align 2 / 2, { code: 0 / 0, bits: 1 / 1, lanes: 2 / 2 });
const _: () = assert!(size_of::<DLDeviceType>() == 4 && size_of::<DLDataTypeCode>() == 1);
