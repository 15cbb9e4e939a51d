//! What an export exports: [`Describe`], the description of an owner of type `O` (by the owner
//! itself, or by the caller that holds the shape), and which of the checks of
//! [`dims`](super::dims) it needs. [`export`](super::allocation::export) lays it out in the
//! allocation.
//!
//! Every description is checked against the rules an importer applies ([`validate`]), each rule
//! once, on the values as they are written. The defaults of [`Describe::dims`] and
//! [`Describe::check`] check everything; [`Shaped`] (`from_vec`, `from_boxed`, `from_arc`)
//! overrides them, since its shape, checked against the length of a Rust buffer of an
//! [`Element`] type in the same pass that writes it, leaves nothing else to check.

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::mem::MaybeUninit;
use core::ptr;

use super::dims::{self, Dims64};
use super::{owner::TensorOwner, parts::TensorParts};
use crate::element::Element;
use crate::ffi::DLTensor;
use crate::tensor::Flags;
use crate::tensor::TensorError;
use crate::tensor::import::abi::{Abi, Owned};
use crate::tensor::import::validate;
use crate::tensor::limits::MAX_NDIM;

/// How an export learns what it exports, for an owner of type `O`: from the owner itself
/// ([`ByOwner`]), or from the caller that holds the shape (`from_vec` and friends).
///
/// # Safety
///
/// The pair (`self`, owner) must meet the contract of [`TensorOwner`]: the same answer each
/// time, memory valid from the last call until the owner is dropped, exclusive unless
/// `READ_ONLY`.
///
/// [`dims`](Self::dims) and [`check`](Self::check) together must refuse every description
/// whose export an importer's validation ([`validate::layout`]) would refuse; their defaults
/// check everything, and an implementation may override them only with checks that its
/// construction has made redundant.
pub(crate) unsafe trait Describe<O> {
    fn describe<'a>(&'a self, owner: &'a mut O) -> TensorParts<'a>;

    /// Writes the shape and then the strides of `parts` (this description's answer) as
    /// `int64_t` into `dims`, compact row-major strides when it gives none, and returns the
    /// number of elements. Refuses a dimension that does not fit, a negative one, and a shape
    /// whose non-zero dimensions multiply past `isize::MAX`. `dims` has two entries per
    /// dimension of `parts` (a rank that [`dims::check_rank`] accepted), uninitialised: on
    /// `Ok`, every one of them must have been written.
    #[inline]
    fn dims(
        &self,
        parts: &TensorParts<'_>,
        dims: &mut [MaybeUninit<i64>],
    ) -> Result<usize, TensorError> {
        let dims = zeroed(dims);
        let (shape, strides) = dims.split_at_mut(parts.shape().len());
        dims::write_dims(parts.shape(), parts.strides(), shape, strides)
    }

    /// Checks what [`dims`](Self::dims) does not, on the values written: the data type, and
    /// the bytes the elements reach from the data pointer and the byte offset.
    #[inline]
    fn check(&self, tensor: &DLTensor, flags: Flags, dims: &Dims64<'_>) -> Result<(), TensorError> {
        dims::check_written(tensor.dtype, flags, tensor.byte_offset, dims)
    }
}

/// `dims` with every entry written 0.
fn zeroed(dims: &mut [MaybeUninit<i64>]) -> &mut [i64] {
    for d in dims.iter_mut() {
        d.write(0);
    }
    // SAFETY: every entry is initialised, and `MaybeUninit<i64>` has the layout of `i64`.
    unsafe { &mut *(ptr::from_mut(dims) as *mut [i64]) }
}

/// The owner describes itself.
pub(crate) struct ByOwner;

// SAFETY: forwards to `TensorOwner`, whose implementations promise the same contract.
unsafe impl<O: TensorOwner> Describe<O> for ByOwner {
    fn describe<'a>(&'a self, owner: &'a mut O) -> TensorParts<'a> {
        owner.describe()
    }
}

/// The owner describes itself, and the export adds flags (`IS_COPIED` for a fresh copy).
#[cfg(feature = "ndarray")]
pub(crate) struct Flagged(pub(crate) Flags);

#[cfg(feature = "ndarray")]
// SAFETY: forwards to `TensorOwner`; the caller adds only flags that are true of the owner.
unsafe impl<O: TensorOwner> Describe<O> for Flagged {
    fn describe<'a>(&'a self, owner: &'a mut O) -> TensorParts<'a> {
        owner.describe().with_flags(self.0)
    }
}

/// One buffer of `len` elements whose shape the caller holds: `from_vec`, `from_boxed`,
/// `from_arc`. The export writes the shape and compact strides in one pass, checking on the
/// way that they hold exactly `len` elements, and checks nothing more: the elements are the
/// buffer's own.
pub(crate) struct Shaped<'s> {
    shape: &'s [usize],
    /// The number of elements of the buffer.
    len: usize,
    flags: Flags,
}

impl<'s> Shaped<'s> {
    /// A description of a buffer of `len` elements with `shape`. The export refuses a shape
    /// that does not hold exactly `len` elements, or does not fit DLPack: a dimension past
    /// `int64_t`, non-zero dimensions multiplying past `isize::MAX` (even when another is
    /// zero), a rank above [`MAX_NDIM`]. The rank is checked here, so that a length mismatch
    /// is still the first error reported.
    #[inline]
    pub(crate) fn new(shape: &'s [usize], len: usize) -> Result<Self, TensorError> {
        if shape.len() > MAX_NDIM {
            return Err(Self::refuse(shape, len));
        }
        Ok(Self {
            shape,
            len,
            flags: Flags::EMPTY,
        })
    }

    /// The error for a shape the export of a buffer of `len` elements refuses: a length
    /// mismatch first, then the rank, then the first dimension past `int64_t`, then the
    /// element count.
    #[cold]
    #[inline(never)]
    fn refuse(shape: &[usize], len: usize) -> TensorError {
        // A zero dimension makes the product 0, however large the others.
        let product = if shape.contains(&0) {
            Some(0)
        } else {
            shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
        };
        if product != Some(len) {
            return TensorError::ShapeMismatch {
                shape: shape.into(),
                len,
            };
        }
        if shape.len() > MAX_NDIM {
            return TensorError::Ndim {
                ndim: i64::try_from(shape.len()).unwrap_or(i64::MAX),
            };
        }
        let converted = match dims::shape_to_i64(shape) {
            Ok(converted) => converted,
            Err(err) => return err,
        };
        // What is left: the non-zero dimensions multiply past isize::MAX.
        validate::check_shape(&converted)
            .err()
            .unwrap_or(TensorError::TooManyElements {
                shape: converted.into(),
            })
    }

    /// With these flags added.
    pub(crate) fn with_flags(self, flags: Flags) -> Self {
        Self {
            flags: self.flags | flags,
            ..self
        }
    }

    /// [`Describe::dims`]: the shape and compact row-major strides in one pass from the
    /// last axis (a zero dimension counts as 1 in the strides, as in
    /// [`validate::write_compact_strides`]), and the number of elements, which must be
    /// `len`. `dims` has two entries per dimension of `self.shape`; on `Ok`, all of them are
    /// written.
    #[inline]
    fn write(&self, dims: &mut [MaybeUninit<i64>]) -> Result<usize, TensorError> {
        debug_assert_eq!(dims.len(), 2 * self.shape.len());
        let (shape, strides) = dims.split_at_mut(self.shape.len());
        // The product of the non-zero dimensions after this axis, which is this axis's
        // stride; at most isize::MAX, so every value written fits an i64.
        let mut step: usize = 1;
        let mut empty = false;
        for ((out, stride), &d) in shape.iter_mut().zip(strides).zip(self.shape).rev() {
            out.write(d as i64);
            stride.write(step as i64);
            empty |= d == 0;
            step = match step.checked_mul(d.max(1)) {
                Some(n) if n <= isize::MAX as usize => n,
                _ => return Err(Self::refuse(self.shape, self.len)),
            };
        }
        let count = if empty { 0 } else { step };
        if count != self.len {
            return Err(Self::refuse(self.shape, self.len));
        }
        Ok(count)
    }
}

/// Implements [`Describe::dims`] and [`Describe::check`] for a [`Shaped`] description of a
/// buffer of `T`.
macro_rules! trusted_shape {
    () => {
        #[inline]
        fn dims(
            &self,
            _: &TensorParts<'_>,
            dims: &mut [MaybeUninit<i64>],
        ) -> Result<usize, TensorError> {
            self.write(dims)
        }

        /// The data type is `T`'s, checked at compile time; the extent is the buffer's, at
        /// most `isize::MAX` bytes (a Rust allocation of `len` values of `T`, whose size is
        /// its data type's, so never sub-byte), from offset 0.
        #[inline]
        fn check(&self, tensor: &DLTensor, _: Flags, _: &Dims64<'_>) -> Result<(), TensorError> {
            if const { validate::dtype_is_valid(T::DATA_TYPE) } {
                Ok(())
            } else {
                validate::check_dtype(tensor.dtype)
            }
        }
    };
}

// SAFETY: every `Shaped` is made with the length of the buffer it describes, so the Vec
// holds `len` initialised elements, which `dims` checks the shape covers exactly; its buffer
// does not move with the Vec, `as_mut_ptr` does not materialise a reference to it, and only
// the Vec's drop frees it. The Vec is ours alone. On `Ok`, `dims` has written every entry
// (the export passes two per dimension of `self.shape`, the shape `describe` gives):
// dimensions that fit `int64_t` with at most `isize::MAX` elements, and compact strides.
// `check` refuses an invalid data type, and the extent is `len` values of `T`, whose size is
// its data type's, inside the Vec's allocation: all that `validate::layout` checks.
unsafe impl<T: Element> Describe<Vec<T>> for Shaped<'_> {
    #[inline]
    fn describe<'a>(&'a self, owner: &'a mut Vec<T>) -> TensorParts<'a> {
        TensorParts::host(owner.as_mut_ptr(), self.shape).with_flags(self.flags)
    }

    trusted_shape!();
}

// SAFETY: as for Vec, except that other clones of the Arc may read the slice, so the export is
// READ_ONLY; no clone can write it while this one lives (`Arc::get_mut` fails). The pointer
// comes from `Arc::as_ptr`, which does not go through a reference.
unsafe impl<T: Element> Describe<Arc<[T]>> for Shaped<'_> {
    #[inline]
    fn describe<'a>(&'a self, owner: &'a mut Arc<[T]>) -> TensorParts<'a> {
        TensorParts::host(Arc::as_ptr(owner).cast::<T>().cast_mut(), self.shape)
            .with_flags(self.flags | Flags::READ_ONLY)
    }

    trusted_shape!();
}

/// An imported tensor exported again (versioned as legacy, or the reverse): the original is the
/// owner, and its metadata, validated before the export, is the description.
pub(crate) struct Reexport {
    /// The rank, validated.
    pub(crate) ndim: usize,
    /// The flags to export.
    pub(crate) flags: Flags,
}

// SAFETY: the original's producer guarantees its data for as long as it is not released, and
// the original is released only when the re-export's owner is dropped. Its shape and strides
// arrays, validated for `ndim` entries, stay unchanged meanwhile (`from_raw`'s contract).
unsafe impl<M: Abi> Describe<Owned<M>> for Reexport {
    fn describe<'a>(&'a self, owner: &'a mut Owned<M>) -> TensorParts<'a> {
        let t = owner.get().dl_tensor();
        let (shape, strides): (&[i64], Option<&[i64]>) = if self.ndim == 0 {
            (&[], None)
        } else {
            // SAFETY: validated non-null and aligned, `ndim` entries, unchanged for 'a.
            unsafe {
                (
                    core::slice::from_raw_parts(t.shape, self.ndim),
                    (!t.strides.is_null())
                        .then(|| core::slice::from_raw_parts(t.strides, self.ndim)),
                )
            }
        };
        let parts = TensorParts::new(t.data, t.device, t.dtype, shape)
            .with_byte_offset(t.byte_offset)
            .with_flags(self.flags);
        match strides {
            Some(strides) => parts.with_strides(strides),
            None => parts,
        }
    }
}
