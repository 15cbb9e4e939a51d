//! The one grammar of DLPack data type and device names.
//!
//! This crate is an implementation detail of [`dlpack-core`] and [`dlpack-derive`]: a
//! procedural macro crate cannot export functions, and the derive must reject a misspelt
//! `#[dlpack("bfloat61")]` with the *same* rules that `"bfloat61".parse::<DataType>()` uses at
//! run time. Both crates therefore call the tables and functions here, and nothing else spells a
//! DLPack name. Use `dlpack-core`; this crate's API follows it in lock-step and may change in
//! any release.
//!
//! Everything works on the raw integers of the ABI (`code`, `bits`, `lanes` and
//! `device_type`, `device_id`), is `no_std`, and never allocates.
//!
//! # Data types
//!
//! Canonical names are those TVM FFI prints: `bool`, `int8`, `uint16`, `float32`, `bfloat16`,
//! `complex64`, `float8_e4m3fn`, `float6_e2m3fn`, `float4_e2m1fn`, `handle`, with lanes as a
//! suffix (`float32x4`). Codes whose width varies are spelt stem + bits (`int4`, `float16`);
//! codes whose width is fixed by the format are spelt by the stem alone (`bool` is 8 bits,
//! `float8_e5m2` is 8). Accepted aliases: `i`, `u`, `f`, `bf`, `c` for the stems `int`, `uint`,
//! `float`, `bfloat`, `complex` (`i32`, `u8`, `f32`, `bf16`, `c64`), and `fp8_`, `fp6_`, `fp4_`
//! for `float8_`, `float6_`, `float4_` (`fp8_e4m3fn`).
//!
//! # Devices
//!
//! `name` or `name:id` with a non-negative decimal id. Device types whose id selects one of
//! several devices (`cuda`, `rocm`, `opencl`, `vulkan`, `metal`, `oneapi`, `trn`, `tpu`,
//! `ascend`) always print the id (`cuda:0`); the others print the bare name when the id is 0
//! (`cpu`, `cuda_host`) and `name:id` otherwise. A bare indexed name parses as id 0, as in
//! TVM FFI.
//!
//! [`dlpack-core`]: https://docs.rs/dlpack-core
//! [`dlpack-derive`]: https://docs.rs/dlpack-derive
#![no_std]

mod aliases;
pub use aliases::{ForeignName, foreign_data_type, foreign_device};

use core::fmt;

/// `DLDataTypeCode` values: every code of DLPack 1.3 and the ones added upstream after it.
pub mod code {
    /// `kDLInt`: signed integer.
    pub const INT: u8 = 0;
    /// `kDLUInt`: unsigned integer.
    pub const UINT: u8 = 1;
    /// `kDLFloat`: IEEE 754 binary floating point.
    pub const FLOAT: u8 = 2;
    /// `kDLOpaqueHandle`: an opaque pointer-sized handle.
    pub const OPAQUE_HANDLE: u8 = 3;
    /// `kDLBfloat`: bfloat16.
    pub const BFLOAT: u8 = 4;
    /// `kDLComplex`: complex number, two floats of `bits / 2` each.
    pub const COMPLEX: u8 = 5;
    /// `kDLBool`: boolean stored in one byte.
    pub const BOOL: u8 = 6;
    /// `kDLFloat8_e3m4`.
    pub const FLOAT8_E3M4: u8 = 7;
    /// `kDLFloat8_e4m3`.
    pub const FLOAT8_E4M3: u8 = 8;
    /// `kDLFloat8_e4m3b11fnuz`.
    pub const FLOAT8_E4M3B11FNUZ: u8 = 9;
    /// `kDLFloat8_e4m3fn`.
    pub const FLOAT8_E4M3FN: u8 = 10;
    /// `kDLFloat8_e4m3fnuz`.
    pub const FLOAT8_E4M3FNUZ: u8 = 11;
    /// `kDLFloat8_e5m2`.
    pub const FLOAT8_E5M2: u8 = 12;
    /// `kDLFloat8_e5m2fnuz`.
    pub const FLOAT8_E5M2FNUZ: u8 = 13;
    /// `kDLFloat8_e8m0fnu`.
    pub const FLOAT8_E8M0FNU: u8 = 14;
    /// `kDLFloat6_e2m3fn`.
    pub const FLOAT6_E2M3FN: u8 = 15;
    /// `kDLFloat6_e3m2fn`.
    pub const FLOAT6_E3M2FN: u8 = 16;
    /// `kDLFloat4_e2m1fn`.
    pub const FLOAT4_E2M1FN: u8 = 17;
    /// `kDLBcomplex`: complex of two bfloat16 (added upstream after 1.3).
    pub const BCOMPLEX: u8 = 18;
}

/// `DLDeviceType` values: every device type of DLPack 1.3 and the ones added upstream after it.
pub mod device_type {
    /// `kDLCPU`.
    pub const CPU: i32 = 1;
    /// `kDLCUDA`.
    pub const CUDA: i32 = 2;
    /// `kDLCUDAHost`: pinned host memory from `cudaMallocHost`.
    pub const CUDA_HOST: i32 = 3;
    /// `kDLOpenCL`.
    pub const OPENCL: i32 = 4;
    /// `kDLVulkan`.
    pub const VULKAN: i32 = 7;
    /// `kDLMetal`.
    pub const METAL: i32 = 8;
    /// `kDLVPI`: Verilog simulator buffer.
    pub const VPI: i32 = 9;
    /// `kDLROCM`.
    pub const ROCM: i32 = 10;
    /// `kDLROCMHost`: pinned host memory from `hipMallocHost`.
    pub const ROCM_HOST: i32 = 11;
    /// `kDLExtDev`: reserved extension device.
    pub const EXT_DEV: i32 = 12;
    /// `kDLCUDAManaged`: unified memory from `cudaMallocManaged`.
    pub const CUDA_MANAGED: i32 = 13;
    /// `kDLOneAPI`: oneAPI unified shared memory.
    pub const ONEAPI: i32 = 14;
    /// `kDLWebGPU`.
    pub const WEBGPU: i32 = 15;
    /// `kDLHexagon`: Qualcomm Hexagon DSP.
    pub const HEXAGON: i32 = 16;
    /// `kDLMAIA`: Microsoft MAIA.
    pub const MAIA: i32 = 17;
    /// `kDLTrn`: AWS Trainium.
    pub const TRN: i32 = 18;
    /// `kDLTPU`: Google TPU (added upstream after 1.3).
    pub const TPU: i32 = 19;
    /// `kDLTPUHost`: TPU host memory (added upstream after 1.3).
    pub const TPU_HOST: i32 = 20;
    /// `kDLAscend`: Huawei Ascend NPU (added upstream after 1.3).
    pub const ASCEND: i32 = 21;
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

/// Every known data type code, in code order.
pub const CODES: &[CodeInfo] = &[
    c(code::INT, "int", "kDLInt", Bits::Any),
    c(code::UINT, "uint", "kDLUInt", Bits::Any),
    c(code::FLOAT, "float", "kDLFloat", Bits::Any),
    c(
        code::OPAQUE_HANDLE,
        "handle",
        "kDLOpaqueHandle",
        Bits::AnyOrBare(64),
    ),
    c(code::BFLOAT, "bfloat", "kDLBfloat", Bits::Only(16)),
    c(code::COMPLEX, "complex", "kDLComplex", Bits::Even),
    c(code::BOOL, "bool", "kDLBool", Bits::Fixed(8)),
    c(
        code::FLOAT8_E3M4,
        "float8_e3m4",
        "kDLFloat8_e3m4",
        Bits::Fixed(8),
    ),
    c(
        code::FLOAT8_E4M3,
        "float8_e4m3",
        "kDLFloat8_e4m3",
        Bits::Fixed(8),
    ),
    c(
        code::FLOAT8_E4M3B11FNUZ,
        "float8_e4m3b11fnuz",
        "kDLFloat8_e4m3b11fnuz",
        Bits::Fixed(8),
    ),
    c(
        code::FLOAT8_E4M3FN,
        "float8_e4m3fn",
        "kDLFloat8_e4m3fn",
        Bits::Fixed(8),
    ),
    c(
        code::FLOAT8_E4M3FNUZ,
        "float8_e4m3fnuz",
        "kDLFloat8_e4m3fnuz",
        Bits::Fixed(8),
    ),
    c(
        code::FLOAT8_E5M2,
        "float8_e5m2",
        "kDLFloat8_e5m2",
        Bits::Fixed(8),
    ),
    c(
        code::FLOAT8_E5M2FNUZ,
        "float8_e5m2fnuz",
        "kDLFloat8_e5m2fnuz",
        Bits::Fixed(8),
    ),
    c(
        code::FLOAT8_E8M0FNU,
        "float8_e8m0fnu",
        "kDLFloat8_e8m0fnu",
        Bits::Fixed(8),
    ),
    c(
        code::FLOAT6_E2M3FN,
        "float6_e2m3fn",
        "kDLFloat6_e2m3fn",
        Bits::Fixed(6),
    ),
    c(
        code::FLOAT6_E3M2FN,
        "float6_e3m2fn",
        "kDLFloat6_e3m2fn",
        Bits::Fixed(6),
    ),
    c(
        code::FLOAT4_E2M1FN,
        "float4_e2m1fn",
        "kDLFloat4_e2m1fn",
        Bits::Fixed(4),
    ),
    c(code::BCOMPLEX, "bcomplex", "kDLBcomplex", Bits::Only(32)),
];

const fn c(code: u8, name: &'static str, c_name: &'static str, bits: Bits) -> CodeInfo {
    CodeInfo {
        code,
        name,
        c_name,
        bits,
    }
}

/// The entry of `code`, if it is known.
pub const fn code_info(code: u8) -> Option<&'static CodeInfo> {
    // CODES is indexed by code: checked by a test.
    if (code as usize) < CODES.len() {
        Some(&CODES[code as usize])
    } else {
        None
    }
}

/// The code whose name stem is `stem` (`"float"`, `"bool"`, `"float8_e4m3fn"`), aliases included.
pub fn code_by_name(stem: &str) -> Option<&'static CodeInfo> {
    let stem = resolve_stem_alias(stem);
    CODES.iter().find(|info| info.name == stem)
}

/// Every data type with a name of its own, with its (code, bits): the scalar types that
/// frameworks name, in the order a listing shows them. `DataType`'s associated constants
/// and the `Display` tests are built from this table.
pub const NAMED_DATA_TYPES: &[(&str, u8, u8)] = &[
    ("bool", code::BOOL, 8),
    ("int8", code::INT, 8),
    ("int16", code::INT, 16),
    ("int32", code::INT, 32),
    ("int64", code::INT, 64),
    ("uint8", code::UINT, 8),
    ("uint16", code::UINT, 16),
    ("uint32", code::UINT, 32),
    ("uint64", code::UINT, 64),
    ("float16", code::FLOAT, 16),
    ("bfloat16", code::BFLOAT, 16),
    ("float32", code::FLOAT, 32),
    ("float64", code::FLOAT, 64),
    ("complex64", code::COMPLEX, 64),
    ("complex128", code::COMPLEX, 128),
    ("float8_e3m4", code::FLOAT8_E3M4, 8),
    ("float8_e4m3", code::FLOAT8_E4M3, 8),
    ("float8_e4m3b11fnuz", code::FLOAT8_E4M3B11FNUZ, 8),
    ("float8_e4m3fn", code::FLOAT8_E4M3FN, 8),
    ("float8_e4m3fnuz", code::FLOAT8_E4M3FNUZ, 8),
    ("float8_e5m2", code::FLOAT8_E5M2, 8),
    ("float8_e5m2fnuz", code::FLOAT8_E5M2FNUZ, 8),
    ("float8_e8m0fnu", code::FLOAT8_E8M0FNU, 8),
    ("float6_e2m3fn", code::FLOAT6_E2M3FN, 6),
    ("float6_e3m2fn", code::FLOAT6_E3M2FN, 6),
    ("float4_e2m1fn", code::FLOAT4_E2M1FN, 4),
    ("bcomplex32", code::BCOMPLEX, 32),
    ("handle", code::OPAQUE_HANDLE, 64),
];

/// Stem aliases: (alias, canonical stem).
const STEM_ALIASES: &[(&str, &str)] = &[
    ("i", "int"),
    ("u", "uint"),
    ("f", "float"),
    ("bf", "bfloat"),
    ("c", "complex"),
];

/// Prefix aliases of the sub-byte float names: (alias prefix, canonical prefix).
const PREFIX_ALIASES: &[(&str, &str)] = &[
    ("fp8_", "float8_"),
    ("fp6_", "float6_"),
    ("fp4_", "float4_"),
];

fn resolve_stem_alias(stem: &str) -> &str {
    for (alias, canonical) in STEM_ALIASES {
        if stem == *alias {
            return canonical;
        }
    }
    for (alias, canonical) in PREFIX_ALIASES {
        if let Some(rest) = stem.strip_prefix(alias) {
            // Look the canonical spelling up so the returned stem borrows 'static data.
            for info in CODES {
                if let Some(tail) = info.name.strip_prefix(canonical) {
                    if tail == rest {
                        return info.name;
                    }
                }
            }
        }
    }
    stem
}

/// Why a (code, bits, lanes) triple is not a valid data type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InvalidDataType {
    /// The code is not one this version knows.
    UnknownCode(u8),
    /// `bits` is 0 for a code that takes any width (a code with a fixed or even width reports
    /// [`WrongBits`](Self::WrongBits) instead, naming the width it takes).
    ZeroBits,
    /// `lanes` is 0.
    ZeroLanes,
    /// The width does not suit the code.
    WrongBits {
        /// The code's entry.
        code: &'static CodeInfo,
        /// The width given.
        bits: u8,
    },
}

impl fmt::Display for InvalidDataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::UnknownCode(code) => write!(
                f,
                "unknown data type code {code} (known codes are 0 to {})",
                CODES.len() - 1
            ),
            Self::ZeroBits => f.write_str("bits must be from 1 to 255, not 0"),
            Self::ZeroLanes => {
                f.write_str("lanes must be from 1 to 65535, not 0 (a scalar has 1 lane)")
            }
            Self::WrongBits { code, bits } => match code.bits {
                Bits::Even => write!(
                    f,
                    "{} takes an even number of bits from 2 to 254 (two equal halves), not {bits}",
                    code.name
                ),
                Bits::Only(n) | Bits::Fixed(n) => {
                    write!(f, "{} takes {n} bits, not {bits}", code.name)
                }
                Bits::Any | Bits::AnyOrBare(_) => {
                    write!(f, "bits must be from 1 to 255, not {bits}")
                }
            },
        }
    }
}

/// Checks a (code, bits, lanes) triple against the rules of its code.
pub const fn check_data_type(
    code: u8,
    bits: u8,
    lanes: u16,
) -> Result<&'static CodeInfo, InvalidDataType> {
    let Some(info) = code_info(code) else {
        return Err(InvalidDataType::UnknownCode(code));
    };
    if !info.allows(bits) {
        // A code of any width refuses only 0; the others name the width they take.
        return Err(match info.bits {
            Bits::Any | Bits::AnyOrBare(_) => InvalidDataType::ZeroBits,
            _ => InvalidDataType::WrongBits { code: info, bits },
        });
    }
    if lanes == 0 {
        return Err(InvalidDataType::ZeroLanes);
    }
    Ok(info)
}

/// The parts of a data type's canonical name: the stem, the bit width when the name carries
/// it, and the lane count when it is not 1 (`float32x4` is `float`, `Some(32)`, `Some(4)`).
/// A `const fn`, so that compile-time messages (`assert_convertible!`) spell names exactly as
/// [`write_data_type`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataTypeName {
    /// The code's name stem.
    pub stem: &'static str,
    /// The width, when the name shows it.
    pub bits: Option<u8>,
    /// The lanes, when more than one.
    pub lanes: Option<u16>,
}

/// The parts of the canonical name of a (code, bits, lanes) triple, or `None` for a triple
/// that [`check_data_type`] refuses.
pub const fn data_type_name(code: u8, bits: u8, lanes: u16) -> Option<DataTypeName> {
    let Ok(info) = check_data_type(code, bits, lanes) else {
        return None;
    };
    let bits = match info.bits {
        Bits::Fixed(_) => None,
        Bits::AnyOrBare(default) if default == bits => None,
        _ => Some(bits),
    };
    let lanes = if lanes == 1 { None } else { Some(lanes) };
    Some(DataTypeName {
        stem: info.name,
        bits,
        lanes,
    })
}

/// Writes the canonical name of a data type. A triple that [`check_data_type`] refuses is
/// written as `unknown(code=…, bits=…, lanes=…)` or `invalid(…)`, which no parser accepts.
pub fn write_data_type(f: &mut dyn fmt::Write, code: u8, bits: u8, lanes: u16) -> fmt::Result {
    match data_type_name(code, bits, lanes) {
        Some(name) => {
            f.write_str(name.stem)?;
            if let Some(bits) = name.bits {
                write!(f, "{bits}")?;
            }
            if let Some(lanes) = name.lanes {
                write!(f, "x{lanes}")?;
            }
            Ok(())
        }
        None if code_info(code).is_none() => {
            write!(f, "unknown(code={code}, bits={bits}, lanes={lanes})")
        }
        None => write!(f, "invalid(code={code}, bits={bits}, lanes={lanes})"),
    }
}

/// Why a string is not a data type name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataTypeNameError {
    /// The string is empty.
    Empty,
    /// No known name or alias; `suggestion` is the closest canonical name, if one is close.
    UnknownName {
        /// The closest canonical name.
        suggestion: Option<&'static str>,
    },
    /// The name needs a bit width (`int` alone); `example` is a valid spelling.
    MissingBits {
        /// The code's entry.
        code: &'static CodeInfo,
    },
    /// The bit width after the stem is not a number from 1 to 255.
    BadBits {
        /// The code's entry.
        code: &'static CodeInfo,
    },
    /// The name has a width but the format fixes it (`bool8`).
    UnexpectedBits {
        /// The code's entry.
        code: &'static CodeInfo,
    },
    /// The lane count after `x` is not a number from 1 to 65535.
    BadLanes,
    /// The name is well formed but the triple is invalid (`bfloat32`, `int0`).
    Invalid(InvalidDataType),
}

impl fmt::Display for DataTypeNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Empty => {
                f.write_str("expected a data type name such as `float32`, found an empty string")
            }
            Self::UnknownName { suggestion } => {
                f.write_str("unknown data type name")?;
                if let Some(s) = suggestion {
                    write!(f, "; did you mean `{s}`?")?;
                }
                f.write_str(" (expected a name such as `float32`, `bfloat16`, `int8`, `bool`, `float8_e4m3fn`, optionally with lanes as `float32x4`)")
            }
            Self::MissingBits { code } => write!(
                f,
                "`{}` needs a bit width, as in `{}`",
                code.name,
                example_name(code)
            ),
            Self::BadBits { code } => write!(
                f,
                "the bit width after `{}` must be a number from 1 to 255, as in `{}`",
                code.name,
                example_name(code)
            ),
            Self::UnexpectedBits { code } => write!(
                f,
                "`{}` has a fixed width and takes no bit count (write `{}`)",
                code.name, code.name
            ),
            Self::BadLanes => f.write_str(
                "the lane count after `x` must be a number from 1 to 65535, as in `float32x4`",
            ),
            Self::Invalid(reason) => fmt::Display::fmt(&reason, f),
        }
    }
}

fn example_name(code: &CodeInfo) -> &'static str {
    for (name, c, _) in NAMED_DATA_TYPES {
        if *c == code.code {
            return name;
        }
    }
    code.name
}

/// Parses a data type name (canonical or alias) into (code, bits, lanes).
pub fn parse_data_type(s: &str) -> Result<(u8, u8, u16), DataTypeNameError> {
    if s.is_empty() {
        return Err(DataTypeNameError::Empty);
    }
    // The whole string first: `complex64` ends in `x64` but has one lane.
    match parse_base(s) {
        Ok((code, bits)) => return finish(code, bits, 1),
        Err(DataTypeNameError::UnknownName { .. }) => {}
        Err(e) => {
            if split_lanes(s).is_none() {
                return Err(e);
            }
        }
    }
    let Some((base, lanes)) = split_lanes(s) else {
        return Err(DataTypeNameError::UnknownName {
            suggestion: suggest_data_type(s),
        });
    };
    let lanes = parse_decimal(lanes)
        .and_then(|n| u16::try_from(n).ok())
        .filter(|&n| n != 0)
        .ok_or(DataTypeNameError::BadLanes)?;
    let (code, bits) = parse_base(base)?;
    finish(code, bits, lanes)
}

fn finish(code: u8, bits: u8, lanes: u16) -> Result<(u8, u8, u16), DataTypeNameError> {
    match check_data_type(code, bits, lanes) {
        Ok(_) => Ok((code, bits, lanes)),
        Err(e) => Err(DataTypeNameError::Invalid(e)),
    }
}

/// Splits `float32x4` into (`float32`, `4`) at the last `x` followed by digits only.
fn split_lanes(s: &str) -> Option<(&str, &str)> {
    let at = s.rfind('x')?;
    let (base, lanes) = (&s[..at], &s[at + 1..]);
    (!base.is_empty() && !lanes.is_empty() && lanes.bytes().all(|b| b.is_ascii_digit()))
        .then_some((base, lanes))
}

fn parse_decimal(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 19 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut n: u64 = 0;
    for b in s.bytes() {
        n = n * 10 + u64::from(b - b'0');
    }
    Some(n)
}

/// Parses a name without lanes into (code, bits).
fn parse_base(s: &str) -> Result<(u8, u8), DataTypeNameError> {
    // Fixed-width names are whole words: `bool`, `float8_e4m3fn`.
    if let Some(info) = code_by_name(s) {
        return match info.bits {
            Bits::Fixed(n) | Bits::AnyOrBare(n) => Ok((info.code, n)),
            _ => Err(DataTypeNameError::MissingBits { code: info }),
        };
    }
    // Otherwise stem + digits.
    let digits_at = s
        .bytes()
        .rposition(|b| !b.is_ascii_digit())
        .map_or(0, |i| i + 1);
    let (stem, digits) = (&s[..digits_at], &s[digits_at..]);
    if digits.is_empty() || stem.is_empty() {
        return Err(DataTypeNameError::UnknownName {
            suggestion: suggest_data_type(s),
        });
    }
    let Some(info) = code_by_name(stem) else {
        return Err(DataTypeNameError::UnknownName {
            suggestion: suggest_data_type(s),
        });
    };
    if !info.spelt_with_bits() {
        return Err(DataTypeNameError::UnexpectedBits { code: info });
    }
    let bits = parse_decimal(digits)
        .and_then(|n| u8::try_from(n).ok())
        .ok_or(DataTypeNameError::BadBits { code: info })?;
    Ok((info.code, bits))
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

/// Every known device type, in device-type order.
pub const DEVICES: &[DeviceInfo] = &[
    d(device_type::CPU, "cpu", "kDLCPU", false, true),
    d(device_type::CUDA, "cuda", "kDLCUDA", true, false),
    d(
        device_type::CUDA_HOST,
        "cuda_host",
        "kDLCUDAHost",
        false,
        true,
    ),
    d(device_type::OPENCL, "opencl", "kDLOpenCL", true, false),
    d(device_type::VULKAN, "vulkan", "kDLVulkan", true, false),
    d(device_type::METAL, "metal", "kDLMetal", true, false),
    d(device_type::VPI, "vpi", "kDLVPI", false, false),
    d(device_type::ROCM, "rocm", "kDLROCM", true, false),
    d(
        device_type::ROCM_HOST,
        "rocm_host",
        "kDLROCMHost",
        false,
        true,
    ),
    d(device_type::EXT_DEV, "ext_dev", "kDLExtDev", false, false),
    d(
        device_type::CUDA_MANAGED,
        "cuda_managed",
        "kDLCUDAManaged",
        false,
        true,
    ),
    d(device_type::ONEAPI, "oneapi", "kDLOneAPI", true, false),
    d(device_type::WEBGPU, "webgpu", "kDLWebGPU", false, false),
    d(device_type::HEXAGON, "hexagon", "kDLHexagon", false, false),
    d(device_type::MAIA, "maia", "kDLMAIA", false, false),
    d(device_type::TRN, "trn", "kDLTrn", true, false),
    d(device_type::TPU, "tpu", "kDLTPU", true, false),
    d(device_type::TPU_HOST, "tpu_host", "kDLTPUHost", false, true),
    d(device_type::ASCEND, "ascend", "kDLAscend", true, false),
];

const fn d(
    device_type: i32,
    name: &'static str,
    c_name: &'static str,
    indexed: bool,
    host_side: bool,
) -> DeviceInfo {
    DeviceInfo {
        device_type,
        name,
        c_name,
        indexed,
        host_side,
    }
}

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

/// Why a (device_type, device_id) pair is not a valid device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InvalidDevice {
    /// The device type is not one this version knows.
    UnknownType(i32),
    /// The id is negative.
    NegativeId(i32),
}

impl fmt::Display for InvalidDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::UnknownType(t) => write!(
                f,
                "unknown device type {t} (known types are {})",
                KnownDeviceTypes
            ),
            Self::NegativeId(id) => write!(f, "device id {id} is negative; ids start at 0"),
        }
    }
}

struct KnownDeviceTypes;

impl fmt::Display for KnownDeviceTypes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // 1-4 and 7-21: written from the table so a new entry updates the message.
        let mut first = true;
        let mut i = 0;
        while i < DEVICES.len() {
            let start = DEVICES[i].device_type;
            let mut end = start;
            while i + 1 < DEVICES.len() && DEVICES[i + 1].device_type == end + 1 {
                i += 1;
                end += 1;
            }
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            if start == end {
                write!(f, "{start}")?
            } else {
                write!(f, "{start} to {end}")?
            }
            i += 1;
        }
        Ok(())
    }
}

/// Checks a (device_type, device_id) pair.
pub const fn check_device(
    device_type: i32,
    device_id: i32,
) -> Result<&'static DeviceInfo, InvalidDevice> {
    let Some(info) = device_info(device_type) else {
        return Err(InvalidDevice::UnknownType(device_type));
    };
    if device_id < 0 {
        return Err(InvalidDevice::NegativeId(device_id));
    }
    Ok(info)
}

/// The canonical name of a device and the id it shows (`cuda:0` is `("cuda", Some(0))`, `cpu`
/// is `("cpu", None)`), or `None` for a pair that [`check_device`] refuses. A `const fn` for
/// compile-time messages; [`write_device`] is built on it.
pub const fn device_name(device_type: i32, device_id: i32) -> Option<(&'static str, Option<i32>)> {
    match check_device(device_type, device_id) {
        Ok(info) if info.indexed || device_id != 0 => Some((info.name, Some(device_id))),
        Ok(info) => Some((info.name, None)),
        Err(_) => None,
    }
}

/// Writes the canonical name of a device. A pair that [`check_device`] refuses is written as
/// `unknown(device_type=…, device_id=…)` or `invalid(…)`, which no parser accepts.
pub fn write_device(f: &mut dyn fmt::Write, device_type: i32, device_id: i32) -> fmt::Result {
    match device_name(device_type, device_id) {
        Some((name, Some(id))) => write!(f, "{name}:{id}"),
        Some((name, None)) => f.write_str(name),
        None if device_info(device_type).is_none() => {
            write!(
                f,
                "unknown(device_type={device_type}, device_id={device_id})"
            )
        }
        None => {
            write!(
                f,
                "invalid(device_type={device_type}, device_id={device_id})"
            )
        }
    }
}

/// Why a string is not a device name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceNameError {
    /// The string is empty.
    Empty,
    /// No known device name; `suggestion` is the closest one, if one is close.
    UnknownName {
        /// The closest device name.
        suggestion: Option<&'static str>,
    },
    /// The id after `:` is not a number from 0 to 2147483647.
    BadId,
}

impl fmt::Display for DeviceNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Empty => {
                f.write_str("expected a device such as `cpu` or `cuda:0`, found an empty string")
            }
            Self::UnknownName { suggestion } => {
                f.write_str("unknown device name")?;
                if let Some(s) = suggestion {
                    write!(f, "; did you mean `{s}`?")?;
                }
                f.write_str(" (expected `cpu`, `cuda:0`, `cuda_host`, `rocm:1`, … : a device name, optionally followed by `:` and an id)")
            }
            Self::BadId => f.write_str(
                "the device id after `:` must be a number from 0 to 2147483647, as in `cuda:0`",
            ),
        }
    }
}

/// Parses a device (`cpu`, `cuda:1`) into (device_type, device_id).
pub fn parse_device(s: &str) -> Result<(i32, i32), DeviceNameError> {
    if s.is_empty() {
        return Err(DeviceNameError::Empty);
    }
    let (name, id) = match s.split_once(':') {
        Some((name, id)) => {
            let id = parse_decimal(id)
                .and_then(|n| i32::try_from(n).ok())
                .ok_or(DeviceNameError::BadId)?;
            (name, id)
        }
        None => (s, 0),
    };
    let info = device_by_name(name).ok_or(DeviceNameError::UnknownName {
        suggestion: suggest_device(name),
    })?;
    Ok((info.device_type, id))
}

/// The canonical data type name closest to `s`, if one is within a small edit distance.
pub fn suggest_data_type(s: &str) -> Option<&'static str> {
    closest(s, NAMED_DATA_TYPES.iter().map(|(name, _, _)| *name))
}

/// The device name closest to `s`, if one is within a small edit distance.
pub fn suggest_device(s: &str) -> Option<&'static str> {
    closest(s, DEVICES.iter().map(|info| info.name))
}

/// The candidate closest to `s`, if one is within a small edit distance: the rule behind
/// [`suggest_data_type`] and [`suggest_device`], for other word lists (a derive's option names).
pub fn suggest(s: &str, candidates: &[&'static str]) -> Option<&'static str> {
    closest(s, candidates.iter().copied())
}

fn closest(s: &str, candidates: impl Iterator<Item = &'static str>) -> Option<&'static str> {
    // Within a third of the word, at least 1: `flaot32` finds `float32`, `xyz` finds nothing.
    let limit = (s.len() / 3).max(1);
    candidates
        .map(|c| (edit_distance(s, c), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions) over bytes,
/// without allocating: names are short, so three rows on the stack suffice.
fn edit_distance(a: &str, b: &str) -> usize {
    const MAX: usize = 64;
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() >= MAX || b.len() >= MAX {
        return usize::MAX;
    }
    let mut prev2 = [0usize; MAX];
    let mut prev: [usize; MAX] = core::array::from_fn(|j| j);
    let mut cur = [0usize; MAX];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(prev2[j - 2] + 1);
            }
            cur[j] = best;
        }
        prev2 = prev;
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_indexed_by_value() {
        for (i, info) in CODES.iter().enumerate() {
            assert_eq!(usize::from(info.code), i, "{}", info.name);
        }
    }

    #[test]
    fn devices_are_sorted_and_unique() {
        for pair in DEVICES.windows(2) {
            assert!(pair[0].device_type < pair[1].device_type, "{:?}", pair);
        }
    }

    #[test]
    fn named_types_parse_to_themselves() {
        for &(name, code, bits) in NAMED_DATA_TYPES {
            assert_eq!(parse_data_type(name), Ok((code, bits, 1)), "{name}");
        }
    }

    #[test]
    fn lanes_and_aliases() {
        assert_eq!(parse_data_type("float32x4"), Ok((code::FLOAT, 32, 4)));
        assert_eq!(parse_data_type("complex64"), Ok((code::COMPLEX, 64, 1)));
        assert_eq!(parse_data_type("complex64x2"), Ok((code::COMPLEX, 64, 2)));
        assert_eq!(
            parse_data_type("float8_e4m3fnuzx4"),
            Ok((code::FLOAT8_E4M3FNUZ, 8, 4))
        );
        assert_eq!(parse_data_type("i32"), Ok((code::INT, 32, 1)));
        assert_eq!(parse_data_type("u8"), Ok((code::UINT, 8, 1)));
        assert_eq!(parse_data_type("bf16"), Ok((code::BFLOAT, 16, 1)));
        assert_eq!(
            parse_data_type("fp8_e4m3fn"),
            Ok((code::FLOAT8_E4M3FN, 8, 1))
        );
        assert_eq!(parse_data_type("handle"), Ok((code::OPAQUE_HANDLE, 64, 1)));
        assert_eq!(
            parse_data_type("handle32"),
            Ok((code::OPAQUE_HANDLE, 32, 1))
        );
    }

    #[test]
    fn errors_say_what_was_wrong() {
        assert_eq!(
            parse_data_type("flaot32"),
            Err(DataTypeNameError::UnknownName {
                suggestion: Some("float32")
            })
        );
        assert!(matches!(
            parse_data_type("bfloat32"),
            Err(DataTypeNameError::Invalid(InvalidDataType::WrongBits {
                bits: 32,
                ..
            }))
        ));
        assert!(matches!(
            parse_data_type("int"),
            Err(DataTypeNameError::MissingBits { .. })
        ));
        assert!(matches!(
            parse_data_type("bool8"),
            Err(DataTypeNameError::UnexpectedBits { .. })
        ));
        assert!(matches!(
            parse_data_type("int256"),
            Err(DataTypeNameError::BadBits { .. })
        ));
        assert!(matches!(
            parse_data_type("float32x0"),
            Err(DataTypeNameError::BadLanes)
        ));
        assert!(matches!(
            parse_data_type("float32x65536"),
            Err(DataTypeNameError::BadLanes)
        ));
        assert!(matches!(
            parse_data_type("int0"),
            Err(DataTypeNameError::Invalid(InvalidDataType::ZeroBits))
        ));
        assert!(matches!(
            parse_data_type("bfloat0"),
            Err(DataTypeNameError::Invalid(InvalidDataType::WrongBits {
                bits: 0,
                ..
            }))
        ));
        assert!(matches!(
            parse_data_type("complex33"),
            Err(DataTypeNameError::Invalid(
                InvalidDataType::WrongBits { .. }
            ))
        ));
        assert_eq!(parse_data_type(""), Err(DataTypeNameError::Empty));
    }

    #[test]
    fn devices() {
        assert_eq!(parse_device("cpu"), Ok((device_type::CPU, 0)));
        assert_eq!(parse_device("cuda:3"), Ok((device_type::CUDA, 3)));
        assert_eq!(parse_device("cuda"), Ok((device_type::CUDA, 0)));
        assert_eq!(parse_device("cuda:-1"), Err(DeviceNameError::BadId));
        assert_eq!(parse_device("cuda:2147483648"), Err(DeviceNameError::BadId));
        assert_eq!(parse_device("cuda:"), Err(DeviceNameError::BadId));
        assert_eq!(
            parse_device("cdua:0"),
            Err(DeviceNameError::UnknownName {
                suggestion: Some("cuda")
            })
        );
        assert_eq!(check_device(99, 0), Err(InvalidDevice::UnknownType(99)));
    }

    #[test]
    fn edit_distance_basics() {
        assert_eq!(edit_distance("float", "float"), 0);
        assert_eq!(edit_distance("flaot", "float"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
