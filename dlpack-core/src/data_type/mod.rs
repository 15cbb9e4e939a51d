//! [`DataType`]'s constants, methods and names. The struct itself is the ABI's `DLDataType`,
//! defined in [`ffi`](crate::ffi); it is re-exported here beside its methods.

use core::fmt;
use core::str::FromStr;

use dlpack_grammar::DataTypeParts;

use crate::DataType;
use crate::error::Error;
use crate::ffi::DLDataTypeCode;

mod packed;

/// The named constants, from the grammar's table: `F32 = float, 32 bits` and so on.
macro_rules! named {
    ($($(#[$doc:meta])* $name:ident = $str:literal, $code:ident, $bits:literal;)*) => {
        impl DataType {
    /// The data type as one integer, `code | bits << 8 | lanes << 16`: a derived import and a
    /// dispatch are one `match` on it.
    #[inline(always)]
    pub(crate) const fn key(self) -> u32 {
        self.code.0 as u32 | (self.bits as u32) << 8 | (self.lanes as u32) << 16
    }

            $(
                // The row's doc line alone: every constant's value, name and parse are checked
                // by one table test over the grammar's rows (tests/generated_constants.rs).
                $(#[$doc])*
                pub const $name: Self = Self::new(DLDataTypeCode::$code, $bits, 1);
            )*
        }
        #[cfg(test)]
        const NAMED_CONSTS: &[DataType] = &[$(DataType::$name),*];
    };
}
dlpack_grammar::for_each_named_data_type!(named);

impl DataType {
    /// Any (code, bits, lanes) triple, unchecked: for tables and for values whose validity is
    /// checked elsewhere. See [`DataType::checked`] for the validating constructor.
    ///
    /// ```
    /// use dlpack_core::{DataType, ffi::DLDataTypeCode};
    /// const F32X4: DataType = DataType::new(DLDataTypeCode::FLOAT, 32, 4);
    /// assert_eq!(F32X4.to_string(), "float32x4");
    /// ```
    #[inline]
    pub const fn new(code: DLDataTypeCode, bits: u8, lanes: u16) -> Self {
        Self { code, bits, lanes }
    }

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

    /// The type code.
    ///
    /// ```
    /// use dlpack_core::{DataType, ffi::DLDataTypeCode};
    /// assert_eq!(DataType::BF16.code(), DLDataTypeCode::BFLOAT);
    /// ```
    #[inline]
    pub const fn code(&self) -> DLDataTypeCode {
        self.code
    }

    /// Bits of one lane.
    ///
    /// ```
    /// use dlpack_core::DataType;
    /// assert_eq!(DataType::F32.with_lanes(4).bits(), 32);
    /// ```
    #[inline]
    pub const fn bits(&self) -> u8 {
        self.bits
    }

    /// Number of lanes.
    ///
    /// ```
    /// use dlpack_core::DataType;
    /// assert_eq!(DataType::F32.lanes(), 1);
    /// assert_eq!("int8x16".parse::<DataType>()?.lanes(), 16);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    pub const fn lanes(&self) -> u16 {
        self.lanes
    }

    /// The same type with `lanes` lanes (`float32` → `float32x4`).
    ///
    /// ```
    /// use dlpack_core::DataType;
    /// assert_eq!(DataType::F32.with_lanes(4).to_string(), "float32x4");
    /// ```
    #[inline]
    #[must_use]
    pub const fn with_lanes(self, lanes: u16) -> Self {
        Self { lanes, ..self }
    }

    /// Size of one element in bits: `bits * lanes`. Sub-byte types are honest here: a
    /// `float4_e2m1fn` is 4 bits.
    ///
    /// ```
    /// use dlpack_core::DataType;
    /// assert_eq!(DataType::C64.size_in_bits(), 64);
    /// assert_eq!(DataType::F16.with_lanes(3).size_in_bits(), 48);
    /// assert_eq!(DataType::FLOAT6_E2M3FN.size_in_bits(), 6);
    /// ```
    #[inline]
    pub const fn size_in_bits(&self) -> u32 {
        self.bits as u32 * self.lanes as u32
    }

    /// Bytes one element occupies when elements are byte-aligned: `ceil(bits * lanes / 8)`, as
    /// `dlpack.h` computes it (a padded `float4_e2m1fn` takes 1 byte). For the byte size of a
    /// packed sub-byte array, use [`DataType::packed_size`].
    ///
    /// ```
    /// use dlpack_core::DataType;
    /// assert_eq!(DataType::F32.itemsize(), 4);
    /// assert_eq!(DataType::BOOL.itemsize(), 1);
    /// assert_eq!(DataType::FLOAT4_E2M1FN.itemsize(), 1);
    /// assert_eq!(DataType::F16.with_lanes(4).itemsize(), 8);
    /// ```
    #[inline]
    pub const fn itemsize(&self) -> usize {
        (self.size_in_bits() as usize).div_ceil(8)
    }

    /// Whether an element is smaller than a byte (fp4, fp6, `int4`, `uint1`, …), so that its
    /// storage depends on `DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED`.
    #[inline]
    pub(crate) const fn is_sub_byte(&self) -> bool {
        self.size_in_bits() < 8
    }

    /// Bytes that `count` elements take packed back to back (sub-byte types share bytes, the
    /// last one rounded up): `⌈count · bits · lanes / 8⌉`, or `None` when that exceeds
    /// `usize::MAX`. Exact for every count, though `count · bits` itself may not fit.
    ///
    /// ```
    /// use dlpack_core::DataType;
    /// assert_eq!(DataType::FLOAT4_E2M1FN.packed_size(3), Some(2));
    /// assert_eq!(DataType::FLOAT6_E3M2FN.packed_size(4), Some(3));
    /// assert_eq!(DataType::F64.packed_size(5), Some(40));
    /// assert_eq!(DataType::F64.packed_size(usize::MAX), None);
    /// // usize::MAX four-bit elements fit in half the address space, rounded up.
    /// assert_eq!(DataType::FLOAT4_E2M1FN.packed_size(usize::MAX), Some(usize::MAX / 2 + 1));
    /// ```
    pub const fn packed_size(&self, count: usize) -> Option<usize> {
        packed::packed_bytes(count, self.size_in_bits())
    }

    /// Whether values of this type are integers (signed, unsigned, or bool).
    ///
    /// ```
    /// use dlpack_core::DataType;
    /// assert!(DataType::U8.is_integer() && DataType::BOOL.is_integer());
    /// assert!(!DataType::F16.is_integer());
    /// ```
    #[inline]
    pub const fn is_integer(&self) -> bool {
        matches!(
            self.code,
            DLDataTypeCode::INT | DLDataTypeCode::UINT | DLDataTypeCode::BOOL
        )
    }

    /// Whether values of this type are real floating point (IEEE, bfloat, fp8/fp6/fp4).
    ///
    /// ```
    /// use dlpack_core::DataType;
    /// assert!(DataType::BF16.is_float() && DataType::FLOAT8_E5M2.is_float());
    /// assert!(!DataType::C64.is_float());
    /// ```
    #[inline]
    pub const fn is_float(&self) -> bool {
        // The fp8, fp6 and fp4 codes are numbered consecutively.
        let code = self.code.0;
        matches!(self.code, DLDataTypeCode::FLOAT | DLDataTypeCode::BFLOAT)
            || (DLDataTypeCode::FLOAT8_E3M4.0 <= code && code <= DLDataTypeCode::FLOAT4_E2M1FN.0)
    }

    /// Whether values of this type are complex.
    ///
    /// ```
    /// use dlpack_core::DataType;
    /// assert!(DataType::C128.is_complex() && DataType::BCOMPLEX32.is_complex());
    /// assert!(!DataType::F64.is_complex());
    /// ```
    #[inline]
    pub const fn is_complex(&self) -> bool {
        matches!(
            self.code,
            DLDataTypeCode::COMPLEX | DLDataTypeCode::BCOMPLEX
        )
    }
}

/// The canonical name, as TVM FFI prints it; a value [`DataType::check`] refuses prints as
/// `unknown(…)` or `invalid(…)`, which no parser accepts.
///
/// ```
/// use dlpack_core::{DataType, ffi::DLDataTypeCode};
/// assert_eq!(DataType::F32.with_lanes(4).to_string(), "float32x4");
/// assert_eq!(DataType::new(DLDataTypeCode(99), 8, 1).to_string(), "unknown(code=99, bits=8, lanes=1)");
/// ```
impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        dlpack_grammar::write_data_type(f, self.code.0, self.bits, self.lanes)
    }
}

impl fmt::Debug for DataType {
    /// `DataType(float32)`, or the raw fields for a value that is not valid.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if dlpack_grammar::check_data_type(self.code.0, self.bits, self.lanes).is_ok() {
            write!(f, "DataType({self})")
        } else {
            f.debug_struct("DataType")
                .field("code", &self.code.0)
                .field("bits", &self.bits)
                .field("lanes", &self.lanes)
                .finish()
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

/// The `(code, bits, lanes)` tuple that `__dlpack_data_type__` returns.
///
/// ```
/// use dlpack_core::DataType;
/// assert_eq!(<(u8, u8, u16)>::from(DataType::BF16), (4, 16, 1));
/// ```
impl From<DataType> for (u8, u8, u16) {
    /// The `(code, bits, lanes)` tuple that `__dlpack_data_type__` returns.
    fn from(value: DataType) -> Self {
        (value.code.0, value.bits, value.lanes)
    }
}

/// From a `(code, bits, lanes)` tuple, unchecked like [`DataType::new`].
///
/// ```
/// use dlpack_core::DataType;
/// assert_eq!(DataType::from((2, 16, 1)), DataType::F16);
/// assert!(DataType::from((2, 0, 1)).check().is_err()); // unchecked: validate foreign values
/// ```
impl From<(u8, u8, u16)> for DataType {
    /// From a `(code, bits, lanes)` tuple, unchecked like [`DataType::new`].
    fn from((code, bits, lanes): (u8, u8, u16)) -> Self {
        Self::new(DLDataTypeCode(code), bits, lanes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::prelude::rust_2024::*;

    #[test]
    fn every_named_type_has_a_constant() {
        assert_eq!(NAMED_CONSTS.len(), dlpack_grammar::NAMED_DATA_TYPES.len());
        for (c, named) in NAMED_CONSTS.iter().zip(dlpack_grammar::NAMED_DATA_TYPES) {
            let name = named.name;
            assert_eq!(
                (c.code.0, c.bits, c.lanes),
                (named.code, named.bits, 1),
                "{name}"
            );
            assert_eq!(c.to_string(), name);
            assert_eq!(name.parse::<DataType>(), Ok(*c));
            assert!(c.check().is_ok(), "{name}");
        }
    }

    #[test]
    fn invalid_values_display_their_fields() {
        assert_eq!(
            DataType::new(DLDataTypeCode(99), 8, 1).to_string(),
            "unknown(code=99, bits=8, lanes=1)"
        );
        assert_eq!(
            DataType::new(DLDataTypeCode::BOOL, 1, 1).to_string(),
            "invalid(code=6, bits=1, lanes=1)"
        );
        assert_eq!(
            format!("{:?}", DataType::new(DLDataTypeCode::BOOL, 1, 1)),
            "DataType { code: 6, bits: 1, lanes: 1 }"
        );
        assert_eq!(format!("{:?}", DataType::BF16), "DataType(bfloat16)");
    }

    #[test]
    fn classification() {
        assert!(DataType::BOOL.is_integer());
        assert!(DataType::FLOAT8_E8M0FNU.is_float() && DataType::FLOAT4_E2M1FN.is_float());
        assert!(DataType::BCOMPLEX32.is_complex() && !DataType::F32.is_complex());
        assert!(DataType::FLOAT4_E2M1FN.is_sub_byte() && !DataType::BOOL.is_sub_byte());
        assert!(!DataType::HANDLE.is_float() && !DataType::HANDLE.is_integer());
    }
}
