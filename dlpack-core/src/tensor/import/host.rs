//! The checks made when host memory is about to be read as Rust values: alignment for the
//! type, for `bool` that every byte is 0 or 1, and for mutable access that each element is
//! reached from one index only.

use super::iter::Offsets;
use super::overlap::{self, Overlap};
use crate::element::Element;
use crate::ffi::DLDataTypeCode;
use crate::tensor::TensorError;

/// Refuses an address not aligned for `T`.
pub(crate) fn check_align<T>(first: *mut u8) -> Result<(), TensorError> {
    if first.cast::<T>().is_aligned() {
        Ok(())
    } else {
        Err(TensorError::Misaligned {
            address: first.addr(),
            align: align_of::<T>(),
            type_name: core::any::type_name::<T>(),
        })
    }
}

/// The elements [`check_bools`] reads.
pub(crate) enum Walk {
    /// `count` elements back to back.
    Compact(usize),
    /// The elements at these offsets.
    Strided(Offsets),
}

/// For `bool`-coded types, refuses an element with a byte other than 0 or 1: reading one as a
/// Rust `bool` would be undefined behaviour, and foreign producers do not all normalise.
///
/// # Safety
///
/// The bytes of the elements `walk` names, from `first`, must be readable. `walk` is called
/// only for `bool`-coded types, so other types pay nothing for it.
pub(crate) unsafe fn check_bools<T: Element>(
    first: *const u8,
    walk: impl FnOnce() -> Walk,
) -> Result<(), TensorError> {
    if T::DATA_TYPE.code != DLDataTypeCode::BOOL {
        return Ok(());
    }
    let size = size_of::<T>();
    let check = |index: usize, bytes: &[u8]| match bytes.iter().find(|&&b| b > 1) {
        Some(&byte) => Err(TensorError::InvalidBool { index, byte }),
        None => Ok(()),
    };
    match walk() {
        Walk::Compact(count) => {
            // SAFETY: `count` elements back to back, readable by the caller's contract.
            let bytes = unsafe { core::slice::from_raw_parts(first, count * size) };
            for (index, element) in bytes.chunks_exact(size).enumerate() {
                check(index, element)?;
            }
        }
        Walk::Strided(offsets) => {
            for (index, offset) in offsets.enumerate() {
                // SAFETY: each element's bytes are readable by the caller's contract.
                let bytes =
                    unsafe { core::slice::from_raw_parts(first.wrapping_offset(offset), size) };
                check(index, bytes)?;
            }
        }
    }
    Ok(())
}

/// Refuses mutable access to a layout that reaches some element from two indices, or that
/// [`overlap::decide`] leaves undecided.
pub(crate) fn check_distinct(shape: &[i64], strides: &[i64]) -> Result<(), TensorError> {
    match overlap::decide(shape, strides) {
        Overlap::Disjoint => Ok(()),
        Overlap::Overlapping => Err(TensorError::Overlapping {
            shape: shape.into(),
            strides: strides.into(),
        }),
        Overlap::Undecided => Err(TensorError::OverlapUndecided {
            shape: shape.into(),
            strides: strides.into(),
        }),
    }
}

/// Refuses a mutable `ndarray` view of strides that do not nest: `ndarray` requires it of
/// mutable views (its constructor asserts it in debug builds), although disjoint layouts that
/// do not nest exist. The error says which: overlapping, or only not nesting.
#[cfg(feature = "ndarray")]
pub(crate) fn check_nested(shape: &[i64], strides: &[i64]) -> Result<(), TensorError> {
    if overlap::strides_nest(shape, strides) {
        return Ok(());
    }
    match overlap::decide(shape, strides) {
        Overlap::Overlapping => Err(TensorError::Overlapping {
            shape: shape.into(),
            strides: strides.into(),
        }),
        Overlap::Disjoint | Overlap::Undecided => Err(TensorError::NotNested {
            shape: shape.into(),
            strides: strides.into(),
        }),
    }
}
