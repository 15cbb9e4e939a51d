//! [`Dims`]: dimensions as an owner stores them, and how an export writes them as `int64_t` and
//! checks them. Every export's description and every [`CheckedLayout`](crate::tensor::CheckedLayout)
//! goes through these functions, so that both accept and write exactly the same values.

use crate::DataType;
use crate::tensor::Flags;
use crate::tensor::TensorError;
use crate::tensor::import::validate;
use crate::tensor::limits::MAX_NDIM;
use alloc::{vec, vec::Vec};

/// Dimensions as an owner stores them: `i64` (DLPack), `usize` (Rust shapes) or `isize`
/// (`ndarray` strides). Exports convert them to `int64_t`, refusing values that do not fit.
///
/// ```
/// use dlpack_core::tensor::Dims;
/// use dlpack_core::tensor::TensorParts;
///
/// let shape: &[usize] = &[2, 3];
/// assert_eq!(Dims::from(shape), Dims::Usize(&[2, 3]));
/// // Any of the three is accepted wherever dimensions are given.
/// let mut data = [0_u8; 6];
/// let parts = TensorParts::host(data.as_mut_ptr(), shape).with_strides(&[1_isize, 2]);
/// # let _ = parts;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dims<'a> {
    /// `int64_t`, as DLPack stores them.
    I64(&'a [i64]),
    /// `usize`, as Rust shapes are.
    Usize(&'a [usize]),
    /// `isize`, as `ndarray` strides are.
    Isize(&'a [isize]),
}

impl Dims<'_> {
    /// The number of entries.
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::I64(d) => d.len(),
            Self::Usize(d) => d.len(),
            Self::Isize(d) => d.len(),
        }
    }

    /// Writes the entries as `int64_t` into `out` (of the same length), refusing a value that
    /// does not fit: the first such entry of `field` (`"shape"` or `"strides"`) is the error.
    fn write_i64(self, field: &'static str, out: &mut [i64]) -> Result<(), TensorError> {
        /// Each value narrowed to `int64_t`, or the error for the first that does not fit.
        /// `widen` gives the refused value for the message (`usize`/`isize` have no
        /// `Into<i128>`).
        fn each<V: Copy>(
            given: &[V],
            out: &mut [i64],
            field: &'static str,
            widen: fn(V) -> i128,
        ) -> Result<(), TensorError>
        where
            i64: TryFrom<V>,
        {
            for (axis, (slot, &v)) in out.iter_mut().zip(given).enumerate() {
                *slot = i64::try_from(v).map_err(|_| TensorError::DimOutOfRange {
                    field,
                    axis,
                    value: widen(v),
                })?;
            }
            Ok(())
        }
        match self {
            Self::I64(given) => {
                for (slot, &v) in out.iter_mut().zip(given) {
                    *slot = v;
                }
                Ok(())
            }
            Self::Usize(given) => each(given, out, field, |v| v as i128),
            Self::Isize(given) => each(given, out, field, |v| v as i128),
        }
    }
}

macro_rules! dims_from {
    ($($ty:ty => $variant:ident),*) => {$(
        #[doc = concat!("A slice of `", stringify!($ty), "`: `Dims::", stringify!($variant), "`.")]
        ///
        #[doc = concat!(
            "```\n",
            "use dlpack_core::tensor::Dims;\n",
            "let shape: &[", stringify!($ty), "] = &[2, 3];\n",
            "assert_eq!(Dims::from(shape), Dims::", stringify!($variant), "(&[2, 3]));\n",
            "```",
        )]
        impl<'a> From<&'a [$ty]> for Dims<'a> {
            #[inline]
            fn from(d: &'a [$ty]) -> Self {
                Self::$variant(d)
            }
        }
        #[doc = concat!("An array of `", stringify!($ty), "`: `Dims::", stringify!($variant), "`.")]
        ///
        #[doc = concat!(
            "```\n",
            "use dlpack_core::tensor::Dims;\n",
            "let dims = Dims::from(&[2 as ", stringify!($ty), ", 3]);\n",
            "assert_eq!(dims, Dims::", stringify!($variant), "(&[2, 3]));\n",
            "```",
        )]
        impl<'a, const N: usize> From<&'a [$ty; N]> for Dims<'a> {
            #[inline]
            fn from(d: &'a [$ty; N]) -> Self {
                Self::$variant(d)
            }
        }
        #[doc = concat!("A `Vec<", stringify!($ty), ">`: `Dims::", stringify!($variant), "`.")]
        ///
        #[doc = concat!(
            "```\n",
            "use dlpack_core::tensor::Dims;\n",
            "let shape: Vec<", stringify!($ty), "> = vec![2, 3];\n",
            "assert_eq!(Dims::from(&shape), Dims::", stringify!($variant), "(&[2, 3]));\n",
            "```",
        )]
        impl<'a> From<&'a Vec<$ty>> for Dims<'a> {
            #[inline]
            fn from(d: &'a Vec<$ty>) -> Self {
                Self::$variant(d)
            }
        }
    )*};
}

dims_from!(i64 => I64, usize => Usize, isize => Isize);

/// The rank of a description with `shape` and `strides`, if it is at most [`MAX_NDIM`] and the
/// strides have one entry per dimension.
pub(crate) fn check_rank(shape: Dims<'_>, strides: Option<Dims<'_>>) -> Result<usize, TensorError> {
    let ndim = shape.len();
    if ndim > MAX_NDIM {
        return Err(TensorError::Ndim {
            ndim: i64::try_from(ndim).unwrap_or(i64::MAX),
        });
    }
    if let Some(strides) = strides {
        if strides.len() != ndim {
            return Err(TensorError::StridesLength {
                ndim,
                strides: strides.len(),
            });
        }
    }
    Ok(ndim)
}

/// Writes `shape` and `strides` as `int64_t` (compact row-major strides when there are none)
/// into `out_shape` and `out_strides`, one entry per dimension, and checks the shape (see
/// [`validate::check_shape`]). Returns the number of elements.
pub(crate) fn write_dims(
    shape: Dims<'_>,
    strides: Option<Dims<'_>>,
    out_shape: &mut [i64],
    out_strides: &mut [i64],
) -> Result<usize, TensorError> {
    shape.write_i64("shape", out_shape)?;
    match strides {
        Some(given) => {
            given.write_i64("strides", out_strides)?;
            validate::check_shape(out_shape)
        }
        None => {
            let count = validate::check_shape(out_shape)?;
            validate::write_compact_strides(out_shape, out_strides);
            Ok(count)
        }
    }
}

/// [`write_dims`] for a Rust shape, into a fresh vector: the values an export would write, or
/// its error.
pub(crate) fn shape_to_i64(shape: &[usize]) -> Result<Vec<i64>, TensorError> {
    let mut converted = vec![0; shape.len()];
    Dims::Usize(shape).write_i64("shape", &mut converted)?;
    Ok(converted)
}

/// The shape and strides an export wrote, and its number of elements.
pub(crate) struct Dims64<'a> {
    pub(crate) shape: &'a [i64],
    pub(crate) strides: &'a [i64],
    pub(crate) count: usize,
}

/// What the written values leave of the rules an importer applies: the data type, and the
/// bytes the elements reach from the byte offset.
#[inline]
pub(crate) fn check_written(
    dtype: DataType,
    flags: Flags,
    byte_offset: u64,
    dims: &Dims64<'_>,
) -> Result<(), TensorError> {
    validate::check_dtype(dtype)?;
    validate::extent(
        dims.shape,
        dims.strides,
        dims.count,
        dtype,
        flags,
        byte_offset,
    )?;
    Ok(())
}

/// The values of a description checked beforehand (by [`CheckedLayout::new`]), which its export
/// copies instead of checking again: the shape then the strides as written, the number of
/// elements, and whether the check read sub-byte elements as padded.
///
/// [`CheckedLayout::new`]: crate::tensor::CheckedLayout::new
#[derive(Clone, Copy, Debug)]
pub(crate) struct Checked<'a> {
    pub(crate) dims: &'a [i64],
    pub(crate) len: usize,
    pub(crate) padded: bool,
}
