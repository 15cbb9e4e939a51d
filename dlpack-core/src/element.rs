//! [`Element`]: Rust scalar types and their DLPack data types.

use crate::DataType;

/// A Rust type whose values are stored exactly as DLPack's [`DATA_TYPE`](Element::DATA_TYPE)
/// describes: typed tensor access (`as_slice::<T>()`) and `#[dlpack(element = T)]` rely on it.
///
/// Implemented for every primitive integer and float, `bool`, and behind features
/// `half::{f16, bf16}` (`half`) and `num_complex::Complex<f32 | f64>` (`num-complex`).
///
/// # Safety
///
/// `size_of::<Self>() * 8` must equal `DATA_TYPE.bits * DATA_TYPE.lanes`, and every bit
/// pattern DLPack allows for that data type must be a valid `Self` (for `bool`, DLPack allows
/// only 0 and 1 per byte, the same as Rust). Typed views reinterpret foreign memory as
/// `&[Self]` on the strength of this promise.
///
/// ```
/// use dlpack_core::{DataType, Element};
/// assert_eq!(f32::DATA_TYPE, DataType::F32);
/// assert_eq!(<bool as Element>::DATA_TYPE, DataType::BOOL);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a DLPack element type",
    label = "`{Self}` does not implement `Element`",
    note = "`Element` is implemented for the primitive integers and floats, `bool`, `half::f16`/`half::bf16` (feature `half`) and `num_complex::Complex<f32 | f64>` (feature `num-complex`)"
)]
pub unsafe trait Element: Copy + Send + Sync + 'static {
    /// The DLPack data type of one value.
    ///
    /// ```
    /// use dlpack_core::{DataType, Element};
    /// fn dtype_of<T: Element>(_: &[T]) -> DataType {
    ///     T::DATA_TYPE
    /// }
    /// assert_eq!(dtype_of(&[1u16, 2, 3]), DataType::U16);
    /// ```
    const DATA_TYPE: DataType;
}

macro_rules! elements {
    ($($ty:ty => $dt:ident),* $(,)?) => {
        $(
            #[doc = concat!(
                "`", stringify!($ty), "` is DLPack's [`DataType::", stringify!($dt), "`].\n\n",
                "```\n",
                "use dlpack_core::{DataType, Element};\n",
                "assert_eq!(<", stringify!($ty), " as Element>::DATA_TYPE, DataType::", stringify!($dt), ");\n",
                "```",
            )]
            // SAFETY: the size matches the data type's width (checked below at compile time),
            // and every bit pattern of that width is a valid value of the type.
            unsafe impl Element for $ty {
                const DATA_TYPE: DataType = DataType::$dt;
            }
            const _: () = assert!(size_of::<$ty>() * 8 == <$ty as Element>::DATA_TYPE.size_in_bits() as usize);
        )*
    };
}

elements! {
    i8 => I8, i16 => I16, i32 => I32, i64 => I64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    f32 => F32, f64 => F64,
}

/// `bool` is DLPack's [`DataType::BOOL`]: one byte holding 0 or 1.
///
/// ```
/// use dlpack_core::{DataType, Element};
/// assert_eq!(<bool as Element>::DATA_TYPE, DataType::BOOL);
/// assert_eq!(size_of::<bool>(), DataType::BOOL.itemsize());
/// ```
// SAFETY: `bool` is one byte and DLPack's `kDLBool` stores 0 or 1 per byte, the only values
// a Rust `bool` may hold. Importers of foreign memory must still not assume other producers
// honour this: tensor views check every byte of a `bool`-coded tensor before handing out
// `&[bool]`, an iterator or an `ndarray` view, and refuse any other byte.
unsafe impl Element for bool {
    const DATA_TYPE: DataType = DataType::BOOL;
}

/// `isize`/`usize` and 128-bit integers take the data type of their width on this target.
macro_rules! sized_elements {
    ($($ty:ty => $signed:literal, $stem:literal);* $(;)?) => {
        $(
            #[doc = concat!(
                "`", stringify!($ty), "` is the `", $stem, "` of its width on the target.\n\n",
                "```\n",
                "use dlpack_core::Element;\n",
                "let dtype = <", stringify!($ty), " as Element>::DATA_TYPE;\n",
                "assert_eq!(u32::from(dtype.bits), ", stringify!($ty), "::BITS);\n",
                "assert_eq!(dtype.to_string(), format!(\"", $stem, "{}\", ", stringify!($ty), "::BITS));\n",
                "```",
            )]
            // SAFETY: the width is the type's own (`size_of * 8`), and every bit pattern of
            // that width is a valid integer.
            unsafe impl Element for $ty {
                const DATA_TYPE: DataType = DataType::new(
                    if $signed { crate::ffi::DLDataTypeCode::INT } else { crate::ffi::DLDataTypeCode::UINT },
                    (size_of::<$ty>() * 8) as u8,
                    1,
                );
            }
        )*
    };
}

sized_elements! { isize => true, "int"; usize => false, "uint"; i128 => true, "int"; u128 => false, "uint" }

/// `half::f16` is DLPack's [`DataType::F16`] (feature `half`).
///
/// ```
/// use dlpack_core::{DataType, Element};
/// assert_eq!(<half::f16 as Element>::DATA_TYPE, DataType::F16);
/// ```
#[cfg(feature = "half")]
// SAFETY: `half::f16` is a `repr(transparent)` u16 holding IEEE binary16, as `float16` is.
unsafe impl Element for half::f16 {
    const DATA_TYPE: DataType = DataType::F16;
}

/// `half::bf16` is DLPack's [`DataType::BF16`] (feature `half`).
///
/// ```
/// use dlpack_core::{DataType, Element};
/// assert_eq!(<half::bf16 as Element>::DATA_TYPE, DataType::BF16);
/// ```
#[cfg(feature = "half")]
// SAFETY: `half::bf16` is a `repr(transparent)` u16 holding bfloat16, as `bfloat16` is.
unsafe impl Element for half::bf16 {
    const DATA_TYPE: DataType = DataType::BF16;
}

/// `Complex<f32>` is DLPack's [`DataType::C64`] (feature `num-complex`).
///
/// ```
/// use dlpack_core::{DataType, Element};
/// assert_eq!(<num_complex::Complex<f32> as Element>::DATA_TYPE, DataType::C64);
/// ```
#[cfg(feature = "num-complex")]
// SAFETY: `Complex<f32>` is `repr(C)` { re: f32, im: f32 }: the compact layout `complex64` has.
unsafe impl Element for num_complex::Complex<f32> {
    const DATA_TYPE: DataType = DataType::C64;
}

/// `Complex<f64>` is DLPack's [`DataType::C128`] (feature `num-complex`).
///
/// ```
/// use dlpack_core::{DataType, Element};
/// assert_eq!(<num_complex::Complex<f64> as Element>::DATA_TYPE, DataType::C128);
/// ```
#[cfg(feature = "num-complex")]
// SAFETY: `Complex<f64>` is `repr(C)` { re: f64, im: f64 }: the compact layout `complex128` has.
unsafe impl Element for num_complex::Complex<f64> {
    const DATA_TYPE: DataType = DataType::C128;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<T: Element>() {
        assert_eq!(
            size_of::<T>() * 8,
            T::DATA_TYPE.size_in_bits() as usize,
            "{}",
            T::DATA_TYPE
        );
        assert!(T::DATA_TYPE.check().is_ok());
    }

    #[test]
    fn widths_match() {
        check::<usize>();
        check::<isize>();
        check::<u128>();
        check::<bool>();
        #[cfg(feature = "half")]
        {
            check::<half::f16>();
            check::<half::bf16>();
        }
        #[cfg(feature = "num-complex")]
        {
            check::<num_complex::Complex<f32>>();
            check::<num_complex::Complex<f64>>();
        }
    }
}
