//! The DLPack 1.3 ABI, written in plain Rust (no bindgen, no build script).
//!
//! Every struct is `#[repr(C)]` with the layout of `dlpack.h` 1.3; the sizes, alignments and
//! field offsets are asserted at compile time below, and `tests/abi.rs` compares them with a
//! C program compiled against the real header.
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

use core::ffi::{c_char, c_int, c_void};
use core::mem::{align_of, offset_of, size_of};

use dlpack_grammar::{code, device_type};

/// `DLDataType`: the same type as [`DataType`](crate::DataType).
pub type DLDataType = crate::DataType;
/// `DLDevice`: the same type as [`Device`](crate::Device).
pub type DLDevice = crate::Device;

/// The DLPack major version this crate implements (`DLPACK_MAJOR_VERSION`).
pub const DLPACK_MAJOR_VERSION: u32 = 1;
/// The DLPack minor version this crate implements (`DLPACK_MINOR_VERSION`).
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
    /// The version this crate implements: 1.3.
    pub const CURRENT: Self = Self {
        major: DLPACK_MAJOR_VERSION,
        minor: DLPACK_MINOR_VERSION,
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

impl DLDeviceType {
    /// `kDLCPU`.
    pub const CPU: Self = Self(device_type::CPU);
    /// `kDLCUDA`.
    pub const CUDA: Self = Self(device_type::CUDA);
    /// `kDLCUDAHost`: pinned host memory from `cudaMallocHost`.
    pub const CUDA_HOST: Self = Self(device_type::CUDA_HOST);
    /// `kDLOpenCL`.
    pub const OPENCL: Self = Self(device_type::OPENCL);
    /// `kDLVulkan`.
    pub const VULKAN: Self = Self(device_type::VULKAN);
    /// `kDLMetal`.
    pub const METAL: Self = Self(device_type::METAL);
    /// `kDLVPI`: Verilog simulator buffer.
    pub const VPI: Self = Self(device_type::VPI);
    /// `kDLROCM`.
    pub const ROCM: Self = Self(device_type::ROCM);
    /// `kDLROCMHost`: pinned host memory from `hipMallocHost`.
    pub const ROCM_HOST: Self = Self(device_type::ROCM_HOST);
    /// `kDLExtDev`: reserved extension device.
    pub const EXT_DEV: Self = Self(device_type::EXT_DEV);
    /// `kDLCUDAManaged`: unified memory from `cudaMallocManaged`.
    pub const CUDA_MANAGED: Self = Self(device_type::CUDA_MANAGED);
    /// `kDLOneAPI`: oneAPI unified shared memory.
    pub const ONEAPI: Self = Self(device_type::ONEAPI);
    /// `kDLWebGPU`.
    pub const WEBGPU: Self = Self(device_type::WEBGPU);
    /// `kDLHexagon`: Qualcomm Hexagon DSP.
    pub const HEXAGON: Self = Self(device_type::HEXAGON);
    /// `kDLMAIA`: Microsoft MAIA.
    pub const MAIA: Self = Self(device_type::MAIA);
    /// `kDLTrn`: AWS Trainium.
    pub const TRN: Self = Self(device_type::TRN);
    /// `kDLTPU` (upstream after 1.3).
    pub const TPU: Self = Self(device_type::TPU);
    /// `kDLTPUHost` (upstream after 1.3).
    pub const TPU_HOST: Self = Self(device_type::TPU_HOST);
    /// `kDLAscend` (upstream after 1.3).
    pub const ASCEND: Self = Self(device_type::ASCEND);

    /// The canonical name (`"cuda"`), or `None` for a device type this crate does not know.
    pub const fn name(self) -> Option<&'static str> {
        match dlpack_grammar::device_info(self.0) {
            Some(info) => Some(info.name),
            None => None,
        }
    }

    /// Whether this crate knows the device type.
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

impl DLDataTypeCode {
    /// `kDLInt`: signed integer.
    pub const INT: Self = Self(code::INT);
    /// `kDLUInt`: unsigned integer.
    pub const UINT: Self = Self(code::UINT);
    /// `kDLFloat`: IEEE 754 floating point.
    pub const FLOAT: Self = Self(code::FLOAT);
    /// `kDLOpaqueHandle`: opaque handle.
    pub const OPAQUE_HANDLE: Self = Self(code::OPAQUE_HANDLE);
    /// `kDLBfloat`: bfloat16.
    pub const BFLOAT: Self = Self(code::BFLOAT);
    /// `kDLComplex`: complex, two floats of `bits / 2`.
    pub const COMPLEX: Self = Self(code::COMPLEX);
    /// `kDLBool`: boolean, one byte.
    pub const BOOL: Self = Self(code::BOOL);
    /// `kDLFloat8_e3m4`.
    pub const FLOAT8_E3M4: Self = Self(code::FLOAT8_E3M4);
    /// `kDLFloat8_e4m3`.
    pub const FLOAT8_E4M3: Self = Self(code::FLOAT8_E4M3);
    /// `kDLFloat8_e4m3b11fnuz`.
    pub const FLOAT8_E4M3B11FNUZ: Self = Self(code::FLOAT8_E4M3B11FNUZ);
    /// `kDLFloat8_e4m3fn`.
    pub const FLOAT8_E4M3FN: Self = Self(code::FLOAT8_E4M3FN);
    /// `kDLFloat8_e4m3fnuz`.
    pub const FLOAT8_E4M3FNUZ: Self = Self(code::FLOAT8_E4M3FNUZ);
    /// `kDLFloat8_e5m2`.
    pub const FLOAT8_E5M2: Self = Self(code::FLOAT8_E5M2);
    /// `kDLFloat8_e5m2fnuz`.
    pub const FLOAT8_E5M2FNUZ: Self = Self(code::FLOAT8_E5M2FNUZ);
    /// `kDLFloat8_e8m0fnu`.
    pub const FLOAT8_E8M0FNU: Self = Self(code::FLOAT8_E8M0FNU);
    /// `kDLFloat6_e2m3fn`.
    pub const FLOAT6_E2M3FN: Self = Self(code::FLOAT6_E2M3FN);
    /// `kDLFloat6_e3m2fn`.
    pub const FLOAT6_E3M2FN: Self = Self(code::FLOAT6_E3M2FN);
    /// `kDLFloat4_e2m1fn`.
    pub const FLOAT4_E2M1FN: Self = Self(code::FLOAT4_E2M1FN);
    /// `kDLBcomplex`: complex of two bfloat16 (upstream after 1.3).
    pub const BCOMPLEX: Self = Self(code::BCOMPLEX);

    /// The canonical name stem (`"float"`, `"bool"`), or `None` for an unknown code.
    pub const fn name(self) -> Option<&'static str> {
        match dlpack_grammar::code_info(self.0) {
            Some(info) => Some(info.name),
            None => None,
        }
    }

    /// Whether this crate knows the code.
    pub const fn is_known(self) -> bool {
        dlpack_grammar::code_info(self.0).is_some()
    }
}

/// `DLPACK_FLAG_BITMASK_READ_ONLY`: the consumer must not write through the tensor.
pub const DLPACK_FLAG_BITMASK_READ_ONLY: u64 = 1 << 0;
/// `DLPACK_FLAG_BITMASK_IS_COPIED`: the producer made a copy the consumer owns alone.
pub const DLPACK_FLAG_BITMASK_IS_COPIED: u64 = 1 << 1;
/// `DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED`: sub-byte elements are padded to a byte each.
pub const DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED: u64 = 1 << 2;

/// `DLTensor`: a plain, non-owning tensor descriptor.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLTensor {
    /// The data pointer (a device pointer or handle on non-CPU devices).
    pub data: *mut c_void,
    /// Where the data lives.
    pub device: DLDevice,
    /// Number of dimensions.
    pub ndim: i32,
    /// Element type.
    pub dtype: DLDataType,
    /// `ndim` extents; may be null when `ndim == 0`.
    pub shape: *mut i64,
    /// `ndim` strides in elements; may be null when `ndim == 0` (and, before 1.2, for compact
    /// row-major data).
    pub strides: *mut i64,
    /// Offset in bytes from `data` to the first element.
    pub byte_offset: u64,
}

/// `DLManagedTensor`: the legacy (pre-1.0, unversioned) managed tensor.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    /// The tensor.
    pub dl_tensor: DLTensor,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Releases the tensor and `self`; may be null.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// `DLManagedTensorVersioned`: the managed tensor of DLPack ≥ 1.0.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The ABI version the producer used; check `major` before reading anything past `deleter`.
    pub version: DLPackVersion,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Releases the tensor and `self`; may be null.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    /// `DLPACK_FLAG_BITMASK_*` bits.
    pub flags: u64,
    /// The tensor.
    pub dl_tensor: DLTensor,
}

/// The `SetError` callback of [`DLPackManagedTensorAllocator`].
pub type DLPackSetError =
    unsafe extern "C" fn(error_ctx: *mut c_void, kind: *const c_char, message: *const c_char);

/// `DLPackManagedTensorAllocator`: allocate a tensor like a prototype.
pub type DLPackManagedTensorAllocator = unsafe extern "C" fn(
    prototype: *mut DLTensor,
    out: *mut *mut DLManagedTensorVersioned,
    error_ctx: *mut c_void,
    set_error: Option<DLPackSetError>,
) -> c_int;

/// `DLPackManagedTensorFromPyObjectNoSync`: export a Python tensor.
pub type DLPackManagedTensorFromPyObjectNoSync =
    unsafe extern "C" fn(py_object: *mut c_void, out: *mut *mut DLManagedTensorVersioned) -> c_int;

/// `DLPackDLTensorFromPyObjectNoSync`: fill a borrowed `DLTensor` from a Python tensor.
pub type DLPackDLTensorFromPyObjectNoSync =
    unsafe extern "C" fn(py_object: *mut c_void, out: *mut DLTensor) -> c_int;

/// `DLPackCurrentWorkStream`: the producer's current stream for a device.
pub type DLPackCurrentWorkStream = unsafe extern "C" fn(
    device_type: DLDeviceType,
    device_id: i32,
    out_current_stream: *mut *mut c_void,
) -> c_int;

/// `DLPackManagedTensorToPyObjectNoSync`: wrap a managed tensor as a Python tensor.
pub type DLPackManagedTensorToPyObjectNoSync = unsafe extern "C" fn(
    tensor: *mut DLManagedTensorVersioned,
    out_py_object: *mut *mut c_void,
) -> c_int;

/// `DLPackExchangeAPIHeader`: the stable head of the C exchange API table.
#[repr(C)]
#[derive(Debug)]
pub struct DLPackExchangeAPIHeader {
    /// The version of the table; check `major` before using it.
    pub version: DLPackVersion,
    /// An older table in the chain, or null.
    pub prev_api: *mut DLPackExchangeAPIHeader,
}

/// `DLPackExchangeAPI`: the function table behind `__dlpack_c_exchange_api__`.
#[repr(C)]
#[derive(Debug)]
pub struct DLPackExchangeAPI {
    /// Version and chain.
    pub header: DLPackExchangeAPIHeader,
    /// Must not be null.
    pub managed_tensor_allocator: Option<DLPackManagedTensorAllocator>,
    /// Must not be null.
    pub managed_tensor_from_py_object_no_sync: Option<DLPackManagedTensorFromPyObjectNoSync>,
    /// Must not be null.
    pub managed_tensor_to_py_object_no_sync: Option<DLPackManagedTensorToPyObjectNoSync>,
    /// May be null.
    pub dltensor_from_py_object_no_sync: Option<DLPackDLTensorFromPyObjectNoSync>,
    /// Must not be null.
    pub current_work_stream: Option<DLPackCurrentWorkStream>,
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

assert_layout!(DLPackVersion, size 8 / 8, align 4 / 4, { major: 0 / 0, minor: 4 / 4 });
assert_layout!(DLDevice, size 8 / 8, align 4 / 4, { device_type: 0 / 0, device_id: 4 / 4 });
assert_layout!(DLDataType, size 4 / 4, align 2 / 2, { code: 0 / 0, bits: 1 / 1, lanes: 2 / 2 });
// On 32-bit targets `int64_t` aligns to 8 on most ABIs (4 on i386 System V): the 32-bit
// figures below are those of the former; `tests/abi.rs` checks the host against the C header.
#[cfg(not(all(target_arch = "x86", not(target_os = "windows"))))]
assert_layout!(DLTensor, size 48 / 40, align 8 / 8, {
    data: 0 / 0, device: 8 / 4, ndim: 16 / 12, dtype: 20 / 16,
    shape: 24 / 20, strides: 32 / 24, byte_offset: 40 / 32,
});
#[cfg(not(all(target_arch = "x86", not(target_os = "windows"))))]
assert_layout!(DLManagedTensor, size 64 / 48, align 8 / 8, {
    dl_tensor: 0 / 0, manager_ctx: 48 / 40, deleter: 56 / 44,
});
#[cfg(not(all(target_arch = "x86", not(target_os = "windows"))))]
assert_layout!(DLManagedTensorVersioned, size 80 / 64, align 8 / 8, {
    version: 0 / 0, manager_ctx: 8 / 8, deleter: 16 / 12, flags: 24 / 16, dl_tensor: 32 / 24,
});
assert_layout!(DLPackExchangeAPIHeader, size 16 / 12, align 8 / 4, { version: 0 / 0, prev_api: 8 / 8 });
assert_layout!(DLPackExchangeAPI, size 56 / 32, align 8 / 4, {
    header: 0 / 0,
    managed_tensor_allocator: 16 / 12,
    managed_tensor_from_py_object_no_sync: 24 / 16,
    managed_tensor_to_py_object_no_sync: 32 / 20,
    dltensor_from_py_object_no_sync: 40 / 24,
    current_work_stream: 48 / 28,
});
const _: () = assert!(size_of::<DLDeviceType>() == 4 && size_of::<DLDataTypeCode>() == 1);
