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
//! [`DLDataType`] and [`DLDevice`] are the same types as [`DataType`](crate::DataType) and
//! [`Device`](crate::Device): the value types *are* the ABI structs.
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

use dlpack_grammar::{code, device_type};

/// `DLDataType`: the same type as [`DataType`](crate::DataType).
///
/// ```
/// use dlpack_core::{DataType, ffi::DLDataType};
///
/// let dtype: DLDataType = DataType::F32; // the same type: no conversion at the boundary
/// assert_eq!((dtype.code.0, dtype.bits, dtype.lanes), (2, 32, 1));
/// ```
pub type DLDataType = crate::DataType;

/// `DLDevice`: the same type as [`Device`](crate::Device).
///
/// ```
/// use dlpack_core::{Device, ffi::DLDevice};
///
/// let device: DLDevice = Device::cuda(1); // the same type: no conversion at the boundary
/// assert_eq!((device.device_type.0, device.device_id), (2, 1));
/// ```
pub type DLDevice = crate::Device;

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

/// Declares the named constants of a code newtype, each with its C value written out (checked
/// against the grammar's table at compile time) and a doctest showing its value and name.
macro_rules! named_values {
    ($ty:ident, $table:ident, $int:ty, { $($(#[$doc:meta])* $name:ident = $value:literal, $str:literal;)* }) => {
        impl $ty {
            $(
                $(#[$doc])*
                ///
                #[doc = concat!(
                    "```\n",
                    "use dlpack_core::ffi::", stringify!($ty), ";\n",
                    "assert_eq!(", stringify!($ty), "::", stringify!($name), ".0, ", stringify!($value), ");\n",
                    "assert_eq!(", stringify!($ty), "::", stringify!($name), ".name(), Some(\"", $str, "\"));\n",
                    "```",
                )]
                pub const $name: Self = Self($table::$name);
            )*
        }
        const _: () = {
            $(assert!($table::$name == $value as $int);)*
        };
    };
}

/// `DLDeviceType`: a C `int32_t` enum, kept as a newtype so that any value a producer sends can
/// be read.
///
/// ```
/// use dlpack_core::ffi::DLDeviceType;
/// assert_eq!(DLDeviceType::CPU, DLDeviceType(1));
/// assert_eq!(DLDeviceType(21).name(), Some("ascend"));
/// assert_eq!(DLDeviceType(99).name(), None);
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DLDeviceType(pub i32);

named_values!(DLDeviceType, device_type, i32, {
    /// `kDLCPU`.
    CPU = 1, "cpu";
    /// `kDLCUDA`.
    CUDA = 2, "cuda";
    /// `kDLCUDAHost`: pinned host memory from `cudaMallocHost`.
    CUDA_HOST = 3, "cuda_host";
    /// `kDLOpenCL`.
    OPENCL = 4, "opencl";
    /// `kDLVulkan`.
    VULKAN = 7, "vulkan";
    /// `kDLMetal`.
    METAL = 8, "metal";
    /// `kDLVPI`: Verilog simulator buffer.
    VPI = 9, "vpi";
    /// `kDLROCM`.
    ROCM = 10, "rocm";
    /// `kDLROCMHost`: pinned host memory from `hipMallocHost`.
    ROCM_HOST = 11, "rocm_host";
    /// `kDLExtDev`: reserved extension device.
    EXT_DEV = 12, "ext_dev";
    /// `kDLCUDAManaged`: unified memory from `cudaMallocManaged`.
    CUDA_MANAGED = 13, "cuda_managed";
    /// `kDLOneAPI`: oneAPI unified shared memory.
    ONEAPI = 14, "oneapi";
    /// `kDLWebGPU`.
    WEBGPU = 15, "webgpu";
    /// `kDLHexagon`: Qualcomm Hexagon DSP.
    HEXAGON = 16, "hexagon";
    /// `kDLMAIA`: Microsoft MAIA.
    MAIA = 17, "maia";
    /// `kDLTrn`: AWS Trainium.
    TRN = 18, "trn";
    /// `kDLTPU` (upstream after 1.3).
    TPU = 19, "tpu";
    /// `kDLTPUHost` (upstream after 1.3).
    TPU_HOST = 20, "tpu_host";
    /// `kDLAscend` (upstream after 1.3).
    ASCEND = 21, "ascend";
});

impl DLDeviceType {
    /// The canonical name (`"cuda"`), or `None` for a device type this crate does not know.
    ///
    /// ```
    /// use dlpack_core::ffi::DLDeviceType;
    /// assert_eq!(DLDeviceType::CUDA_MANAGED.name(), Some("cuda_managed"));
    /// assert_eq!(DLDeviceType(5).name(), None); // 5 and 6 were never assigned
    /// ```
    pub const fn name(self) -> Option<&'static str> {
        match dlpack_grammar::device_info(self.0) {
            Some(info) => Some(info.name),
            None => None,
        }
    }

    /// Whether this crate knows the device type.
    ///
    /// ```
    /// use dlpack_core::ffi::DLDeviceType;
    /// assert!(DLDeviceType::TRN.is_known());
    /// assert!(!DLDeviceType(-1).is_known());
    /// ```
    pub const fn is_known(self) -> bool {
        dlpack_grammar::device_info(self.0).is_some()
    }
}

/// `DLDataTypeCode`: a C `uint8_t` code, kept as a newtype so that any value a producer sends
/// can be read.
///
/// ```
/// use dlpack_core::ffi::DLDataTypeCode;
/// assert_eq!(DLDataTypeCode::FLOAT8_E4M3FN.name(), Some("float8_e4m3fn"));
/// assert!(!DLDataTypeCode(200).is_known());
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DLDataTypeCode(pub u8);

named_values!(DLDataTypeCode, code, u8, {
    /// `kDLInt`: signed integer.
    INT = 0, "int";
    /// `kDLUInt`: unsigned integer.
    UINT = 1, "uint";
    /// `kDLFloat`: IEEE 754 floating point.
    FLOAT = 2, "float";
    /// `kDLOpaqueHandle`: opaque handle.
    OPAQUE_HANDLE = 3, "handle";
    /// `kDLBfloat`: bfloat16.
    BFLOAT = 4, "bfloat";
    /// `kDLComplex`: complex, two floats of `bits / 2`.
    COMPLEX = 5, "complex";
    /// `kDLBool`: boolean, one byte.
    BOOL = 6, "bool";
    /// `kDLFloat8_e3m4`.
    FLOAT8_E3M4 = 7, "float8_e3m4";
    /// `kDLFloat8_e4m3`.
    FLOAT8_E4M3 = 8, "float8_e4m3";
    /// `kDLFloat8_e4m3b11fnuz`.
    FLOAT8_E4M3B11FNUZ = 9, "float8_e4m3b11fnuz";
    /// `kDLFloat8_e4m3fn`.
    FLOAT8_E4M3FN = 10, "float8_e4m3fn";
    /// `kDLFloat8_e4m3fnuz`.
    FLOAT8_E4M3FNUZ = 11, "float8_e4m3fnuz";
    /// `kDLFloat8_e5m2`.
    FLOAT8_E5M2 = 12, "float8_e5m2";
    /// `kDLFloat8_e5m2fnuz`.
    FLOAT8_E5M2FNUZ = 13, "float8_e5m2fnuz";
    /// `kDLFloat8_e8m0fnu`.
    FLOAT8_E8M0FNU = 14, "float8_e8m0fnu";
    /// `kDLFloat6_e2m3fn`.
    FLOAT6_E2M3FN = 15, "float6_e2m3fn";
    /// `kDLFloat6_e3m2fn`.
    FLOAT6_E3M2FN = 16, "float6_e3m2fn";
    /// `kDLFloat4_e2m1fn`.
    FLOAT4_E2M1FN = 17, "float4_e2m1fn";
    /// `kDLBcomplex`: complex of two bfloat16 (upstream after 1.3).
    BCOMPLEX = 18, "bcomplex";
});

impl DLDataTypeCode {
    /// The canonical name stem (`"float"`, `"bool"`), or `None` for an unknown code. A stem
    /// takes the bit width after it where the width varies (`float` → `float32`).
    ///
    /// ```
    /// use dlpack_core::ffi::DLDataTypeCode;
    /// assert_eq!(DLDataTypeCode::FLOAT.name(), Some("float"));
    /// assert_eq!(DLDataTypeCode::OPAQUE_HANDLE.name(), Some("handle"));
    /// assert_eq!(DLDataTypeCode(200).name(), None);
    /// ```
    pub const fn name(self) -> Option<&'static str> {
        match dlpack_grammar::code_info(self.0) {
            Some(info) => Some(info.name),
            None => None,
        }
    }

    /// Whether this crate knows the code.
    ///
    /// ```
    /// use dlpack_core::ffi::DLDataTypeCode;
    /// assert!(DLDataTypeCode::FLOAT4_E2M1FN.is_known());
    /// assert!(!DLDataTypeCode(99).is_known());
    /// ```
    pub const fn is_known(self) -> bool {
        dlpack_grammar::code_info(self.0).is_some()
    }
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

mod exchange;
mod tensor;

pub use exchange::*;
pub use tensor::*;

assert_layout!(DLPackVersion, size 8 / 8, align 4 / 4, { major: 0 / 0, minor: 4 / 4 });
assert_layout!(DLDevice, size 8 / 8, align 4 / 4, { device_type: 0 / 0, device_id: 4 / 4 });
assert_layout!(DLDataType, size 4 / 4, align 2 / 2, { code: 0 / 0, bits: 1 / 1, lanes: 2 / 2 });
const _: () = assert!(size_of::<DLDeviceType>() == 4 && size_of::<DLDataTypeCode>() == 1);
