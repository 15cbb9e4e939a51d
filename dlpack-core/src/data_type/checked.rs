//! What of [`DataType`] returns the crate's [`Error`]: the checked constructor, the check, and
//! parsing a name. Apart from the rest of `DataType` because [`Error`] names data type sets,
//! whose members are made with `DataType`'s own methods: kept here, the circle through the
//! error type stays open.

use core::str::FromStr;

use dlpack_grammar::DataTypeParts;

use crate::DataType;
use crate::error::Error;
use crate::ffi::DLDataTypeCode;

impl DataType {
    /// A triple that DLPack allows, or an error saying why it is not: an unknown code, 0 bits,
    /// 0 lanes, a width the code does not take (fp8 ≠ 8, fp6 ≠ 6, fp4 ≠ 4, bool ≠ 8,
    /// bfloat ≠ 16, odd complex).
    ///
    /// ```
    /// use dlpack_core::{DataType, ffi::DLDataTypeCode};
    /// assert_eq!(DataType::checked(DLDataTypeCode::FLOAT, 16, 1)?, DataType::F16);
    /// let err = DataType::checked(DLDataTypeCode::FLOAT8_E5M2, 16, 1).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid(code=12, bits=16, lanes=1) is not a valid data type: float8_e5m2 takes 8 bits, not 16"
    /// );
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub const fn checked(code: DLDataTypeCode, bits: u8, lanes: u16) -> Result<Self, Error> {
        let data_type = Self::new(code, bits, lanes);
        match dlpack_grammar::check_data_type(code.0, bits, lanes) {
            Ok(_) => Ok(data_type),
            Err(reason) => Err(Error::InvalidDataType { data_type, reason }),
        }
    }

    /// Whether this value is a data type DLPack allows; the error names the reason.
    ///
    /// ```
    /// use dlpack_core::{DataType, ffi::DLDataTypeCode};
    /// assert!(DataType::F32.check().is_ok());
    /// assert!(DataType::new(DLDataTypeCode(99), 8, 1).check().is_err());
    /// assert!(DataType::F32.with_lanes(0).check().is_err());
    /// ```
    pub const fn check(&self) -> Result<(), Error> {
        match dlpack_grammar::check_data_type(self.code.0, self.bits, self.lanes) {
            Ok(_) => Ok(()),
            Err(reason) => Err(Error::InvalidDataType {
                data_type: *self,
                reason,
            }),
        }
    }
}

/// Parses a canonical name or an alias (`i32`, `u8`, `f32`, `bf16`, `c64`, `fp8_e4m3fn`), with
/// optional lanes (`float32x4`).
///
/// The aliases are one rule, not a list of words: DLPack's names as TVM FFI prints them, and
/// the Rust spellings of the same types (a stem's abbreviation before its width: `i`, `u`, `f`,
/// `bf`, `c`; `fp8_`, `fp6_`, `fp4_` before a small float's format, as the OCP formats are
/// written). Other frameworks' words for a type (`half`, `fp16`, `double`, `long`, `float`
/// alone) are refused with DLPack's name as the suggestion, never guessed: the same word means
/// different types in different places (`float` is 32 bits in C and PyTorch, 64 in Python and
/// NumPy). The derives read names with the same grammar.
///
/// ```
/// use dlpack_core::DataType;
/// assert_eq!("bf16".parse::<DataType>()?, DataType::BF16);
/// assert_eq!("fp8_e4m3fnx2".parse::<DataType>()?, DataType::FLOAT8_E4M3FN.with_lanes(2));
/// assert!("float".parse::<DataType>().is_err()); // needs a width
/// let half = "half".parse::<DataType>().unwrap_err().to_string();
/// assert!(half.contains("did you mean `float16`?"), "{half}");
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl FromStr for DataType {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match dlpack_grammar::parse_data_type(s) {
            Ok(DataTypeParts { code, bits, lanes }) => {
                Ok(Self::new(DLDataTypeCode(code), bits, lanes))
            }
            Err(reason) => Err(Error::ParseDataType {
                input: s.into(),
                reason,
            }),
        }
    }
}
