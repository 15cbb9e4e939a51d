//! Data type names: the validity rules of a (code, bits, lanes) triple, its canonical name and
//! the parser of names and aliases.

use core::fmt;

use crate::aliases::{ForeignName, data_type_meaning};
use crate::tables::{Bits, CODES, CodeInfo, NAMED_DATA_TYPES, code_info};
use crate::{parse_decimal, suggest::suggest_data_type};

/// A data type as its three ABI integers: what [`parse_data_type`] reads from a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DataTypeParts {
    /// The `DLDataTypeCode`.
    pub code: u8,
    /// Bits of one lane.
    pub bits: u8,
    /// Number of lanes.
    pub lanes: u16,
}

/// Why a (code, bits, lanes) triple is not a valid data type. Non-exhaustive: a later DLPack
/// version may add a rule, so a `match` needs a `_` arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
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

/// An error of its own, for code that checks a triple without building a `DataType`. The
/// message is the whole story: there is no underlying [`source`](core::error::Error::source).
///
/// ```
/// use dlpack_grammar::{InvalidDataType, check_data_type};
///
/// fn check(code: u8, bits: u8) -> Result<(), Box<dyn std::error::Error>> {
///     check_data_type(code, bits, 1)?;
///     Ok(())
/// }
/// let err = check(4, 32).unwrap_err(); // bfloat takes 16 bits
/// assert_eq!(err.to_string(), "bfloat takes 16 bits, not 32");
/// assert!(err.source().is_none());
/// assert!(err.downcast_ref::<InvalidDataType>().is_some());
/// ```
impl core::error::Error for InvalidDataType {}

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

/// Why a string is not a data type name. Non-exhaustive: a later grammar may refuse a name for
/// a new reason, so a `match` needs a `_` arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DataTypeNameError {
    /// The string is empty.
    Empty,
    /// No known name or alias; `suggestion` is the closest canonical name, if one is close.
    UnknownName {
        /// The closest canonical name.
        suggestion: Option<&'static str>,
    },
    /// The name needs a bit width (`int` alone).
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

/// An error of its own, for code that parses names without building a `DataType`. An
/// [`Invalid`](DataTypeNameError::Invalid) name's message is its reason's, so the reason is
/// not repeated as a [`source`](core::error::Error::source).
///
/// ```
/// use dlpack_grammar::{DataTypeNameError, parse_data_type};
///
/// fn parse(name: &str) -> Result<u8, Box<dyn std::error::Error>> {
///     Ok(parse_data_type(name)?.bits)
/// }
/// assert_eq!(parse("bf16")?, 16);
/// let err = parse("flaot32").unwrap_err();
/// assert!(err.to_string().starts_with("unknown data type name; did you mean `float32`?"));
/// assert!(err.source().is_none());
/// assert!(err.downcast_ref::<DataTypeNameError>().is_some());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl core::error::Error for DataTypeNameError {}

/// The first named data type of `code` (`int8` for `int`), or the bare stem.
fn example_name(code: &CodeInfo) -> &'static str {
    NAMED_DATA_TYPES
        .iter()
        .find(|named| named.code == code.code)
        .map_or(code.name, |named| named.name)
}

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

/// The code whose name stem is `stem` (`"float"`, `"bool"`, `"float8_e4m3fn"`), aliases
/// included (`"f"`, `"fp8_e4m3fn"`).
pub fn code_by_name(stem: &str) -> Option<&'static CodeInfo> {
    let stem = resolve_stem_alias(stem);
    CODES.iter().find(|info| info.name == stem)
}

/// The canonical stem of an alias (`f` → `float`, `fp8_e4m3fn` → `float8_e4m3fn`), or `stem`.
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
                if info.name.strip_prefix(canonical) == Some(rest) {
                    return info.name;
                }
            }
        }
    }
    stem
}

/// Parses a data type name (canonical or alias, with optional lanes as `float32x4`).
pub fn parse_data_type(s: &str) -> Result<DataTypeParts, DataTypeNameError> {
    parse_with(s, suggest_data_type)
}

/// The parts of a data type name, as [`parse_data_type`] reads it, or `None` without saying
/// why: no "did you mean" is looked for, which costs more than the parse (an edit distance to
/// every name). For a caller that tries a name as one thing and then as another, as
/// `from_dlpack` tries a data type and then a device.
///
/// ```
/// assert_eq!(dlpack_grammar::data_type_parts("bf16").map(|p| p.bits), Some(16));
/// assert_eq!(dlpack_grammar::data_type_parts("cuda:1"), None);
/// ```
pub fn data_type_parts(s: &str) -> Option<DataTypeParts> {
    parse_with(s, |_| None).ok()
}

/// [`parse_data_type`], with `suggest` making the "did you mean" of an unknown name.
fn parse_with(
    s: &str,
    suggest: fn(&str) -> Option<&'static str>,
) -> Result<DataTypeParts, DataTypeNameError> {
    if s.is_empty() {
        return Err(DataTypeNameError::Empty);
    }
    // The whole string first: `complex64` ends in `x64` but has one lane. Its suggestion, if
    // it is unknown, is made below, once the lanes are known not to be the trouble.
    match parse_base(s, |_| None) {
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
            suggestion: suggest(s),
        });
    };
    let lanes = parse_decimal(lanes)
        .and_then(|n| u16::try_from(n).ok())
        .filter(|&n| n != 0)
        .ok_or(DataTypeNameError::BadLanes)?;
    let (code, bits) = parse_base(base, suggest)?;
    finish(code, bits, lanes)
}

/// What a data type spelling from another framework means in DLPack: `None` for a name
/// [`parse_data_type`] accepts (canonical or alias), and for a spelling no framework uses.
///
/// ```
/// let half = dlpack_grammar::foreign_data_type("torch.half").unwrap();
/// assert_eq!(half.dlpack, ["float16"]);
/// assert_eq!(dlpack_grammar::foreign_data_type("F8_E4M3").unwrap().dlpack, ["float8_e4m3fn"]);
/// assert_eq!(dlpack_grammar::foreign_data_type("BFloat16").unwrap().dlpack, ["bfloat16"]);
/// assert_eq!(dlpack_grammar::foreign_data_type("bfloat16"), None);
/// ```
pub fn foreign_data_type(spelling: &str) -> Option<ForeignName> {
    if parse_data_type(spelling).is_ok() {
        return None;
    }
    data_type_meaning(spelling)
}

fn finish(code: u8, bits: u8, lanes: u16) -> Result<DataTypeParts, DataTypeNameError> {
    match check_data_type(code, bits, lanes) {
        Ok(_) => Ok(DataTypeParts { code, bits, lanes }),
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

/// Parses a name without lanes into (code, bits).
fn parse_base(
    s: &str,
    suggest: fn(&str) -> Option<&'static str>,
) -> Result<(u8, u8), DataTypeNameError> {
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
    let unknown = || DataTypeNameError::UnknownName {
        suggestion: suggest(s),
    };
    if digits.is_empty() || stem.is_empty() {
        return Err(unknown());
    }
    let info = code_by_name(stem).ok_or_else(unknown)?;
    if !info.spelt_with_bits() {
        return Err(DataTypeNameError::UnexpectedBits { code: info });
    }
    let bits = parse_decimal(digits)
        .and_then(|n| u8::try_from(n).ok())
        .ok_or(DataTypeNameError::BadBits { code: info })?;
    Ok((info.code, bits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::code;
    use crate::tests::Buf;

    fn parts(code: u8, bits: u8, lanes: u16) -> Result<DataTypeParts, DataTypeNameError> {
        Ok(DataTypeParts { code, bits, lanes })
    }

    #[test]
    fn named_types_parse_to_themselves() {
        for named in NAMED_DATA_TYPES {
            assert_eq!(
                parse_data_type(named.name),
                parts(named.code, named.bits, 1),
                "{}",
                named.name
            );
            let mut written = Buf::new();
            write_data_type(&mut written, named.code, named.bits, 1).unwrap();
            assert_eq!(written.as_str(), named.name);
        }
    }

    #[test]
    fn lanes_and_aliases() {
        assert_eq!(parse_data_type("float32x4"), parts(code::FLOAT, 32, 4));
        assert_eq!(parse_data_type("complex64"), parts(code::COMPLEX, 64, 1));
        assert_eq!(parse_data_type("complex64x2"), parts(code::COMPLEX, 64, 2));
        assert_eq!(
            parse_data_type("float8_e4m3fnuzx4"),
            parts(code::FLOAT8_E4M3FNUZ, 8, 4)
        );
        assert_eq!(parse_data_type("i32"), parts(code::INT, 32, 1));
        assert_eq!(parse_data_type("u8"), parts(code::UINT, 8, 1));
        assert_eq!(parse_data_type("bf16"), parts(code::BFLOAT, 16, 1));
        assert_eq!(
            parse_data_type("fp8_e4m3fn"),
            parts(code::FLOAT8_E4M3FN, 8, 1)
        );
        assert_eq!(parse_data_type("handle"), parts(code::OPAQUE_HANDLE, 64, 1));
        assert_eq!(
            parse_data_type("handle32"),
            parts(code::OPAQUE_HANDLE, 32, 1)
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
    fn names_of_invalid_triples() {
        assert_eq!(data_type_name(99, 8, 1), None);
        let mut written = Buf::new();
        write_data_type(&mut written, 99, 8, 1).unwrap();
        assert_eq!(written.as_str(), "unknown(code=99, bits=8, lanes=1)");
        let mut written = Buf::new();
        write_data_type(&mut written, code::BOOL, 1, 1).unwrap();
        assert_eq!(written.as_str(), "invalid(code=6, bits=1, lanes=1)");
        assert_eq!(
            data_type_name(code::OPAQUE_HANDLE, 64, 2),
            Some(DataTypeName {
                stem: "handle",
                bits: None,
                lanes: Some(2)
            })
        );
    }
}
