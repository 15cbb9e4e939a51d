//! The tables: every data type code, every device type and every named data type, each written
//! once as the body of a callback macro.
//!
//! A DLPack code has several uses: the grammar looks names up by it, `dlpack_core::ffi` names it
//! as an associated constant of its newtype (`DLDataTypeCode::FLOAT`), `DataType` and `Device`
//! name their values after it (`DataType::F32`, `Device::cuda(id)`). Each of those is generated
//! from the macros below, which hand the rows to a macro of the caller, so a value is typed
//! once and nothing needs cross-checking.

/// Calls `$callback! { rows }` with one row per `DLDataTypeCode`, in code order:
///
/// ```text
/// /// `kDLInt`: signed integer.
/// INT = 0, "int", "kDLInt", Any;
/// ```
///
/// that is the doc comment, the Rust name, the code, the canonical name stem, the C enumerator
/// and the widths it allows (a [`Bits`](crate::Bits) variant, with its width where it has one:
/// `Fixed(8)`).
///
/// ```
/// macro_rules! c_names {
///     ($($(#[$doc:meta])* $name:ident = $value:literal, $stem:literal, $c_name:literal, $bits:ident $(($n:literal))?;)*) => {
///         [$($c_name),*]
///     };
/// }
/// let c_names = dlpack_grammar::for_each_code!(c_names);
/// assert_eq!(c_names[..3], ["kDLInt", "kDLUInt", "kDLFloat"]);
/// ```
#[macro_export]
macro_rules! for_each_code {
    ($callback:ident) => {
        $callback! {
            /// `kDLInt`: signed integer.
            INT = 0, "int", "kDLInt", Any;
            /// `kDLUInt`: unsigned integer.
            UINT = 1, "uint", "kDLUInt", Any;
            /// `kDLFloat`: IEEE 754 binary floating point.
            FLOAT = 2, "float", "kDLFloat", Any;
            /// `kDLOpaqueHandle`: an opaque handle, 64 bits unless the name says otherwise.
            OPAQUE_HANDLE = 3, "handle", "kDLOpaqueHandle", AnyOrBare(64);
            /// `kDLBfloat`: bfloat16.
            BFLOAT = 4, "bfloat", "kDLBfloat", Only(16);
            /// `kDLComplex`: complex, two floats of `bits / 2` each.
            COMPLEX = 5, "complex", "kDLComplex", Even;
            /// `kDLBool`: boolean, one byte holding 0 or 1.
            BOOL = 6, "bool", "kDLBool", Fixed(8);
            /// `kDLFloat8_e3m4`: 8-bit float, 3 exponent and 4 mantissa bits.
            FLOAT8_E3M4 = 7, "float8_e3m4", "kDLFloat8_e3m4", Fixed(8);
            /// `kDLFloat8_e4m3`: 8-bit float, 4 exponent and 3 mantissa bits.
            FLOAT8_E4M3 = 8, "float8_e4m3", "kDLFloat8_e4m3", Fixed(8);
            /// `kDLFloat8_e4m3b11fnuz`: 8-bit float, 4 exponent bits with bias 11, finite, one
            /// unsigned zero.
            FLOAT8_E4M3B11FNUZ = 9, "float8_e4m3b11fnuz", "kDLFloat8_e4m3b11fnuz", Fixed(8);
            /// `kDLFloat8_e4m3fn`: 8-bit float, 4 exponent and 3 mantissa bits, finite.
            FLOAT8_E4M3FN = 10, "float8_e4m3fn", "kDLFloat8_e4m3fn", Fixed(8);
            /// `kDLFloat8_e4m3fnuz`: 8-bit float, 4 exponent and 3 mantissa bits, finite, one
            /// unsigned zero.
            FLOAT8_E4M3FNUZ = 11, "float8_e4m3fnuz", "kDLFloat8_e4m3fnuz", Fixed(8);
            /// `kDLFloat8_e5m2`: 8-bit float, 5 exponent and 2 mantissa bits.
            FLOAT8_E5M2 = 12, "float8_e5m2", "kDLFloat8_e5m2", Fixed(8);
            /// `kDLFloat8_e5m2fnuz`: 8-bit float, 5 exponent and 2 mantissa bits, finite, one
            /// unsigned zero.
            FLOAT8_E5M2FNUZ = 13, "float8_e5m2fnuz", "kDLFloat8_e5m2fnuz", Fixed(8);
            /// `kDLFloat8_e8m0fnu`: 8 exponent bits and nothing else (a power of two, the
            /// scale of the microscaling formats).
            FLOAT8_E8M0FNU = 14, "float8_e8m0fnu", "kDLFloat8_e8m0fnu", Fixed(8);
            /// `kDLFloat6_e2m3fn`: 6-bit float, 2 exponent and 3 mantissa bits, finite.
            FLOAT6_E2M3FN = 15, "float6_e2m3fn", "kDLFloat6_e2m3fn", Fixed(6);
            /// `kDLFloat6_e3m2fn`: 6-bit float, 3 exponent and 2 mantissa bits, finite.
            FLOAT6_E3M2FN = 16, "float6_e3m2fn", "kDLFloat6_e3m2fn", Fixed(6);
            /// `kDLFloat4_e2m1fn`: 4-bit float, 2 exponent bits and 1 mantissa bit, finite.
            FLOAT4_E2M1FN = 17, "float4_e2m1fn", "kDLFloat4_e2m1fn", Fixed(4);
            /// `kDLBcomplex`: complex of two bfloat16 (added upstream after 1.3).
            BCOMPLEX = 18, "bcomplex", "kDLBcomplex", Only(32);
        }
    };
}

/// Calls `$callback! { rows }` with one row per `DLDeviceType`, in device-type order:
///
/// ```text
/// /// memory on a CUDA GPU
/// CUDA = 2, "cuda", "kDLCUDA", indexed cuda;
/// ```
///
/// that is a description as doc comment lines (a phrase without the name, for each caller to
/// put after a name of its own: match it as `$(#[doc = $desc:literal])*` and `concat!` it),
/// the Rust name, the device type, the canonical name, the C enumerator, and the kind:
/// `indexed` with the name of its constructor (the id selects one of several devices and is
/// always shown), `host` (host-side memory: the id is 0 by convention and equality ignores
/// it) or `plain` (the id counts but is shown only when it is not 0).
///
/// ```
/// macro_rules! constructors {
///     ($($(#[doc = $desc:literal])* $name:ident = $value:literal, $str:literal, $c:literal, $kind:ident $($ctor:ident)?;)*) => {
///         [$($(stringify!($ctor),)?)*]
///     };
/// }
/// let names = dlpack_grammar::for_each_device_type!(constructors);
/// assert_eq!(names[..3], ["cuda", "opencl", "vulkan"]);
/// ```
#[macro_export]
macro_rules! for_each_device_type {
    ($callback:ident) => {
        $callback! {
            /// host memory
            CPU = 1, "cpu", "kDLCPU", host;
            /// memory on a CUDA GPU
            CUDA = 2, "cuda", "kDLCUDA", indexed cuda;
            /// pinned host memory from `cudaMallocHost`, readable by the CPU and every CUDA
            /// device
            CUDA_HOST = 3, "cuda_host", "kDLCUDAHost", host;
            /// OpenCL device memory
            OPENCL = 4, "opencl", "kDLOpenCL", indexed opencl;
            /// Vulkan device memory
            VULKAN = 7, "vulkan", "kDLVulkan", indexed vulkan;
            /// Metal device memory
            METAL = 8, "metal", "kDLMetal", indexed metal;
            /// a Verilog simulator buffer
            VPI = 9, "vpi", "kDLVPI", plain;
            /// memory on an AMD GPU
            ROCM = 10, "rocm", "kDLROCM", indexed rocm;
            /// pinned host memory from `hipMallocHost`
            ROCM_HOST = 11, "rocm_host", "kDLROCMHost", host;
            /// the reserved extension device
            EXT_DEV = 12, "ext_dev", "kDLExtDev", plain;
            /// unified memory from `cudaMallocManaged`
            CUDA_MANAGED = 13, "cuda_managed", "kDLCUDAManaged", host;
            /// oneAPI unified shared memory
            ONEAPI = 14, "oneapi", "kDLOneAPI", indexed oneapi;
            /// WebGPU memory
            WEBGPU = 15, "webgpu", "kDLWebGPU", plain;
            /// a Qualcomm Hexagon DSP
            HEXAGON = 16, "hexagon", "kDLHexagon", plain;
            /// a Microsoft MAIA accelerator
            MAIA = 17, "maia", "kDLMAIA", plain;
            /// an AWS Trainium accelerator
            TRN = 18, "trn", "kDLTrn", indexed trn;
            /// a Google TPU (device type added upstream after 1.3)
            TPU = 19, "tpu", "kDLTPU", indexed tpu;
            /// TPU host memory (device type added upstream after 1.3)
            TPU_HOST = 20, "tpu_host", "kDLTPUHost", host;
            /// a Huawei Ascend NPU (device type added upstream after 1.3)
            ASCEND = 21, "ascend", "kDLAscend", indexed ascend;
        }
    };
}

/// Calls `$callback! { rows }` with one row per data type that has a name of its own, in the
/// order a listing shows them:
///
/// ```text
/// /// `bfloat16`.
/// BF16 = "bfloat16", BFLOAT, 16;
/// ```
///
/// that is the doc comment, the Rust name, the canonical name, the code (a name from
/// [`for_each_code!`](crate::for_each_code)) and the bit width; one lane.
#[macro_export]
macro_rules! for_each_named_data_type {
    ($callback:ident) => {
        $callback! {
            /// `bool`: one byte per element.
            BOOL = "bool", BOOL, 8;
            /// `int8`.
            I8 = "int8", INT, 8;
            /// `int16`.
            I16 = "int16", INT, 16;
            /// `int32`.
            I32 = "int32", INT, 32;
            /// `int64`.
            I64 = "int64", INT, 64;
            /// `uint8`.
            U8 = "uint8", UINT, 8;
            /// `uint16`.
            U16 = "uint16", UINT, 16;
            /// `uint32`.
            U32 = "uint32", UINT, 32;
            /// `uint64`.
            U64 = "uint64", UINT, 64;
            /// `float16` (IEEE 754 binary16).
            F16 = "float16", FLOAT, 16;
            /// `bfloat16`.
            BF16 = "bfloat16", BFLOAT, 16;
            /// `float32`.
            F32 = "float32", FLOAT, 32;
            /// `float64`.
            F64 = "float64", FLOAT, 64;
            /// `complex64`: two `float32`.
            C64 = "complex64", COMPLEX, 64;
            /// `complex128`: two `float64`.
            C128 = "complex128", COMPLEX, 128;
            /// `float8_e3m4`.
            FLOAT8_E3M4 = "float8_e3m4", FLOAT8_E3M4, 8;
            /// `float8_e4m3`.
            FLOAT8_E4M3 = "float8_e4m3", FLOAT8_E4M3, 8;
            /// `float8_e4m3b11fnuz`.
            FLOAT8_E4M3B11FNUZ = "float8_e4m3b11fnuz", FLOAT8_E4M3B11FNUZ, 8;
            /// `float8_e4m3fn`.
            FLOAT8_E4M3FN = "float8_e4m3fn", FLOAT8_E4M3FN, 8;
            /// `float8_e4m3fnuz`.
            FLOAT8_E4M3FNUZ = "float8_e4m3fnuz", FLOAT8_E4M3FNUZ, 8;
            /// `float8_e5m2`.
            FLOAT8_E5M2 = "float8_e5m2", FLOAT8_E5M2, 8;
            /// `float8_e5m2fnuz`.
            FLOAT8_E5M2FNUZ = "float8_e5m2fnuz", FLOAT8_E5M2FNUZ, 8;
            /// `float8_e8m0fnu`.
            FLOAT8_E8M0FNU = "float8_e8m0fnu", FLOAT8_E8M0FNU, 8;
            /// `float6_e2m3fn`: 6 bits, packed unless the tensor says it is padded.
            FLOAT6_E2M3FN = "float6_e2m3fn", FLOAT6_E2M3FN, 6;
            /// `float6_e3m2fn`: 6 bits, packed unless the tensor says it is padded.
            FLOAT6_E3M2FN = "float6_e3m2fn", FLOAT6_E3M2FN, 6;
            /// `float4_e2m1fn`: 4 bits, packed unless the tensor says it is padded.
            FLOAT4_E2M1FN = "float4_e2m1fn", FLOAT4_E2M1FN, 4;
            /// `bcomplex32`: two `bfloat16` (code added upstream after DLPack 1.3).
            BCOMPLEX32 = "bcomplex32", BCOMPLEX, 32;
            /// `handle`: an opaque 64-bit handle.
            HANDLE = "handle", OPAQUE_HANDLE, 64;
        }
    };
}

/// Which bit widths a data type code allows, and how its name carries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bits {
    /// Spelt stem + bits (`int4`, `float16`); any non-zero width.
    Any,
    /// Spelt stem + bits; the width must be even (two equal halves).
    Even,
    /// Spelt stem + bits; the only valid width is this one (`bfloat16`).
    Only(u8),
    /// Spelt by the stem alone; the width is fixed by the format (`bool`, `float8_e5m2`).
    Fixed(u8),
    /// Spelt stem + bits, or the bare stem for this default width (`handle` is 64 bits).
    AnyOrBare(u8),
}

/// One `DLDataTypeCode`: its value, its name stem and the widths it allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeInfo {
    /// The code.
    pub code: u8,
    /// The canonical name stem (`int`, `float8_e4m3fn`).
    pub name: &'static str,
    /// The C enumerator in `dlpack.h` (`kDLInt`).
    pub c_name: &'static str,
    /// The widths it allows.
    pub bits: Bits,
}

impl CodeInfo {
    /// Whether `bits` is a valid width for this code.
    pub const fn allows(&self, bits: u8) -> bool {
        match self.bits {
            Bits::Any | Bits::AnyOrBare(_) => bits != 0,
            Bits::Even => bits != 0 && bits % 2 == 0,
            Bits::Only(n) | Bits::Fixed(n) => bits == n,
        }
    }

    /// Whether the name carries the bit width (`int8`), rather than the stem alone (`bool`).
    pub const fn spelt_with_bits(&self) -> bool {
        !matches!(self.bits, Bits::Fixed(_))
    }
}

macro_rules! code_table {
    ($($(#[$doc:meta])* $name:ident = $value:literal, $stem:literal, $c_name:literal, $bits:ident $(($n:literal))?;)*) => {
        /// The code values by their Rust names, for the tables and tests of this crate.
        #[allow(dead_code)]
        pub(crate) mod code {
            $(pub(crate) const $name: u8 = $value;)*
        }

        /// Every known data type code, in code order (so indexed by code: checked by a test).
        pub const CODES: &[CodeInfo] = &[$(CodeInfo {
            code: $value,
            name: $stem,
            c_name: $c_name,
            bits: Bits::$bits $(($n))?,
        }),*];
    };
}
crate::for_each_code!(code_table);

/// The entry of `code`, if it is known.
pub const fn code_info(code: u8) -> Option<&'static CodeInfo> {
    if (code as usize) < CODES.len() {
        Some(&CODES[code as usize])
    } else {
        None
    }
}

/// One `DLDeviceType`: its value and names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device type.
    pub device_type: i32,
    /// The canonical name (`cuda`).
    pub name: &'static str,
    /// The C enumerator in `dlpack.h` (`kDLCUDA`).
    pub c_name: &'static str,
    /// Whether the id selects one of several devices, so the canonical form always shows it
    /// (`cuda:0`). The others print the bare name when the id is 0 (`cpu`, `webgpu`).
    pub indexed: bool,
    /// Whether this is host-side memory (`cpu`, `cuda_host`, `cuda_managed`, `rocm_host`,
    /// `tpu_host`): the CPU addresses it directly, and `dlpack.h` says its `device_id` "is set to
    /// 0", so the id carries no meaning and equality ignores it.
    pub host_side: bool,
}

macro_rules! device_table {
    ($($(#[$doc:meta])* $name:ident = $value:literal, $str:literal, $c_name:literal, $kind:ident $($ctor:ident)?;)*) => {
        /// The device type values by their Rust names, for the tests of this crate.
        #[cfg(test)]
        #[allow(dead_code)]
        pub(crate) mod device_type {
            $(pub(crate) const $name: i32 = $value;)*
        }

        /// Every known device type, in device-type order.
        pub const DEVICES: &[DeviceInfo] = &[$(DeviceInfo {
            device_type: $value,
            name: $str,
            c_name: $c_name,
            indexed: device_table!(@indexed $kind),
            host_side: device_table!(@host $kind),
        }),*];
    };
    (@indexed indexed) => { true };
    (@indexed $other:ident) => { false };
    (@host host) => { true };
    (@host $other:ident) => { false };
}
crate::for_each_device_type!(device_table);

/// The entry of `device_type`, if it is known.
pub const fn device_info(device_type: i32) -> Option<&'static DeviceInfo> {
    let mut i = 0;
    while i < DEVICES.len() {
        if DEVICES[i].device_type == device_type {
            return Some(&DEVICES[i]);
        }
        i += 1;
    }
    None
}

/// The device type called `name` (`"cuda"`), without an id.
pub fn device_by_name(name: &str) -> Option<&'static DeviceInfo> {
    DEVICES.iter().find(|info| info.name == name)
}

/// A data type with a name of its own (one lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedDataType {
    /// The canonical name (`float32`).
    pub name: &'static str,
    /// The code.
    pub code: u8,
    /// The bit width.
    pub bits: u8,
}

macro_rules! named_table {
    ($($(#[$doc:meta])* $name:ident = $str:literal, $code:ident, $bits:literal;)*) => {
        /// Every data type with a name of its own: the scalar types that frameworks name, in
        /// the order a listing shows them.
        pub const NAMED_DATA_TYPES: &[NamedDataType] = &[$(NamedDataType {
            name: $str,
            code: code::$code,
            bits: $bits,
        }),*];
    };
}
crate::for_each_named_data_type!(named_table);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_indexed_by_value() {
        for (i, info) in CODES.iter().enumerate() {
            assert_eq!(usize::from(info.code), i, "{}", info.name);
        }
        assert_eq!(code_info(code::BCOMPLEX).map(|c| c.name), Some("bcomplex"));
        assert_eq!(code_info(CODES.len() as u8), None);
    }

    #[test]
    fn devices_are_sorted_and_unique() {
        for pair in DEVICES.windows(2) {
            assert!(pair[0].device_type < pair[1].device_type, "{:?}", pair);
        }
        assert_eq!(device_info(device_type::CUDA).map(|d| d.name), Some("cuda"));
        assert_eq!(device_info(5), None);
    }

    #[test]
    fn kinds() {
        let host: [&str; 5] = ["cpu", "cuda_host", "rocm_host", "cuda_managed", "tpu_host"];
        for info in DEVICES {
            assert_eq!(info.host_side, host.contains(&info.name), "{}", info.name);
            assert!(!(info.host_side && info.indexed), "{}", info.name);
        }
        let indexed = DEVICES.iter().filter(|d| d.indexed).map(|d| d.name);
        assert!(indexed.eq([
            "cuda", "opencl", "vulkan", "metal", "rocm", "oneapi", "trn", "tpu", "ascend"
        ]));
    }

    #[test]
    fn named_types_are_unique_and_valid() {
        for (i, a) in NAMED_DATA_TYPES.iter().enumerate() {
            let info = code_info(a.code).expect("a known code");
            assert!(info.allows(a.bits), "{}", a.name);
            for b in &NAMED_DATA_TYPES[i + 1..] {
                assert!(a.name != b.name && (a.code, a.bits) != (b.code, b.bits));
            }
        }
    }
}
