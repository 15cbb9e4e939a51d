//! Zero-copy export: one heap allocation holds the managed struct, the owner, and the shape and
//! strides, and a deleter monomorphised for the owner's type frees it.
//!
//! ```text
//! +--------------------------+-------+-------+------------------+--------------------+
//! | DLManagedTensorVersioned | ndim  | owner | shape[ndim] i64  | strides[ndim] i64  |
//! | (or DLManagedTensor)     | usize |   O   |                  |                    |
//! +--------------------------+-------+-------+------------------+--------------------+
//!  ^ the pointer handed out; `manager_ctx` points here too
//! ```
//!
//! The owner describes its data after it has reached its final place in the allocation, so the
//! pointer it gives stays valid until the deleter drops it; a first description, made before
//! the move, only sizes the allocation.

use core::ffi::c_void;
use core::ptr::{self, NonNull};
use std::alloc::{self, Layout};
use std::sync::Arc;

use super::MAX_NDIM;
use super::error::TensorError;
use super::flags::Flags;
use super::owner::{Dims, TensorOwner, TensorParts};
use super::raw::{Abi, Owned};
use super::validate;
use crate::element::Element;
use crate::ffi::DLTensor;

/// How an export learns what it exports, for an owner of type `O`: from the owner itself
/// ([`ByOwner`]), or from the caller that holds the shape (`from_vec` and friends).
///
/// # Safety
///
/// The pair (`self`, owner) must meet the contract of [`TensorOwner`]: the same answer each
/// time, memory valid from the last call until the owner is dropped, exclusive unless
/// `READ_ONLY`.
pub(crate) unsafe trait Describe<O> {
    fn describe<'a>(&'a self, owner: &'a mut O) -> TensorParts<'a>;
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

#[repr(C)]
struct Header<M, O> {
    managed: M,
    ndim: usize,
    owner: O,
}

/// The allocation's layout for `ndim` dimensions and the offset of the dims.
fn header_layout<M, O>(ndim: usize) -> (Layout, usize) {
    // Cannot fail: `ndim <= MAX_NDIM`, and `O` is a value that exists, so far below isize::MAX.
    let dims = Layout::array::<i64>(2 * ndim).expect("at most 2 * MAX_NDIM int64_t");
    let (layout, offset) = Layout::new::<Header<M, O>>()
        .extend(dims)
        .expect("a header, an owner that exists, and 1 KiB of dims fit in isize");
    (layout.pad_to_align(), offset)
}

/// Frees a half-built export: drops the owner and releases the memory.
struct Pending<M, O> {
    header: *mut Header<M, O>,
    layout: Layout,
}

impl<M, O> Drop for Pending<M, O> {
    fn drop(&mut self) {
        // SAFETY: the owner was written before the guard was made and nothing else drops it;
        // the memory came from `alloc` with this layout.
        unsafe {
            ptr::drop_in_place(&raw mut (*self.header).owner);
            alloc::dealloc(self.header.cast(), self.layout);
        }
    }
}

/// The deleter of an export of `O` as `M`.
unsafe extern "C" fn delete<M: Abi, O>(managed: *mut M) {
    if managed.is_null() {
        return;
    }
    let header = managed.cast::<Header<M, O>>();
    // SAFETY: `managed` is the pointer `export` handed out: the start of a live `Header<M, O>`
    // allocated with `header_layout::<M, O>(ndim)`, and the DLPack contract has the consumer
    // call the deleter once, after which nothing uses the allocation.
    unsafe {
        let ndim = (*header).ndim;
        ptr::drop_in_place(&raw mut (*header).owner);
        alloc::dealloc(header.cast(), header_layout::<M, O>(ndim).0);
    }
}

/// Exports `owner` as `M`, described by `how`.
pub(crate) fn export<M: Abi, O: Send + 'static, D: Describe<O>>(
    mut owner: O,
    how: &D,
) -> Result<Owned<M>, TensorError> {
    let ndim = check_rank(&how.describe(&mut owner))?;
    let (layout, dims_offset) = header_layout::<M, O>(ndim);
    // SAFETY: the layout has a non-zero size: it holds an `M`.
    let base = unsafe { alloc::alloc(layout) };
    if base.is_null() {
        alloc::handle_alloc_error(layout);
    }
    let header = base.cast::<Header<M, O>>();
    // SAFETY: fresh memory, aligned for the header; each field is written in place once.
    unsafe {
        (&raw mut (*header).ndim).write(ndim);
        (&raw mut (*header).owner).write(owner);
    }
    let pending = Pending { header, layout };

    // SAFETY: the owner is initialised and nothing else refers to it; the reference covers
    // the owner's bytes only, not the header or the dims written below.
    let owner = unsafe { &mut (*header).owner };
    let parts = how.describe(owner);
    let after = check_rank(&parts)?;
    if after != ndim {
        return Err(TensorError::OwnerChanged {
            before: ndim,
            after,
        });
    }
    let mut buf = [0i64; 2 * MAX_NDIM];
    let (shape, strides) = buf.split_at_mut(ndim);
    fill_dims(&parts, shape, &mut strides[..ndim])?;
    let elements = validate::check_shape(shape)?;
    if elements > 0 && parts.data().is_null() {
        return Err(TensorError::NullData { elements });
    }
    // SAFETY: `dims_offset` is inside the allocation, aligned for i64 and followed by room for
    // 2 * ndim values (`header_layout`); `buf` holds them.
    let dims = unsafe {
        let dims = base.add(dims_offset).cast::<i64>();
        ptr::copy_nonoverlapping(buf.as_ptr(), dims, 2 * ndim);
        dims
    };
    let dl_tensor = DLTensor {
        data: parts.data(),
        device: parts.device(),
        ndim: ndim as i32, // ndim <= MAX_NDIM
        dtype: parts.dtype(),
        shape: dims,
        // SAFETY: within the dims area (one past the shape).
        strides: unsafe { dims.add(ndim) },
        byte_offset: parts.byte_offset(),
    };
    let managed = M::exported(
        dl_tensor,
        parts.flags(),
        base.cast::<c_void>(),
        delete::<M, O>,
    )?;
    // SAFETY: the header's first field, written once; the owner borrow (`parts`) has ended.
    unsafe { (&raw mut (*header).managed).write(managed) };
    core::mem::forget(pending);

    // SAFETY: a complete header whose deleter frees exactly this allocation; we own it.
    let owned = unsafe { Owned::from_raw(NonNull::new_unchecked(header.cast::<M>())) };
    let managed = owned.get();
    // Check the result with the rules an importer applies; on failure `owned` is dropped,
    // and its deleter drops the owner and frees the memory.
    // SAFETY: shape and strides point into the allocation, which lives as long as `owned`.
    unsafe {
        validate::layout(managed.dl_tensor(), managed.flags(), managed.strides_rule())?;
    }
    Ok(owned)
}

/// The rank a description gives, if it is at most [`MAX_NDIM`] and the strides match it.
fn check_rank(parts: &TensorParts<'_>) -> Result<usize, TensorError> {
    let ndim = parts.shape().len();
    if ndim > MAX_NDIM {
        return Err(TensorError::Ndim {
            ndim: i64::try_from(ndim).unwrap_or(i64::MAX),
        });
    }
    if let Some(strides) = parts.strides() {
        if strides.len() != ndim {
            return Err(TensorError::StridesLength {
                ndim,
                strides: strides.len(),
            });
        }
    }
    Ok(ndim)
}

/// Converts the description's shape and strides to `int64_t`; compact strides when it has
/// none.
fn fill_dims(
    parts: &TensorParts<'_>,
    shape: &mut [i64],
    strides: &mut [i64],
) -> Result<(), TensorError> {
    convert(parts.shape(), "shape", shape)?;
    match parts.strides() {
        Some(given) => convert(given, "strides", strides),
        None => {
            validate::check_shape(shape)?;
            validate::write_compact_strides(shape, strides);
            Ok(())
        }
    }
}

fn convert(dims: Dims<'_>, field: &'static str, out: &mut [i64]) -> Result<(), TensorError> {
    for (axis, slot) in out.iter_mut().enumerate() {
        let value = dims.get(axis).unwrap_or_default();
        *slot =
            i64::try_from(value).map_err(|_| TensorError::DimOutOfRange { field, axis, value })?;
    }
    Ok(())
}

/// One buffer whose shape the caller holds: `from_vec`, `from_boxed`, `from_arc`.
pub(crate) struct Shaped<'s> {
    shape: &'s [usize],
    flags: Flags,
}

impl<'s> Shaped<'s> {
    /// Refuses a shape that does not hold exactly `len` elements.
    pub(crate) fn new(shape: &'s [usize], len: usize) -> Result<Self, TensorError> {
        let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        if count == Some(len) {
            Ok(Self {
                shape,
                flags: Flags::EMPTY,
            })
        } else {
            Err(TensorError::ShapeMismatch {
                shape: shape.into(),
                len,
            })
        }
    }

    /// With these flags added.
    pub(crate) fn with_flags(self, flags: Flags) -> Self {
        Self {
            flags: self.flags | flags,
            ..self
        }
    }
}

// SAFETY: the Vec holds `len` initialised elements, which `new` checked the shape covers
// exactly; its buffer does not move with the Vec, `as_mut_ptr` does not materialise a
// reference to it, and only the Vec's drop frees it. The Vec is ours alone.
unsafe impl<T: Element> Describe<Vec<T>> for Shaped<'_> {
    fn describe<'a>(&'a self, owner: &'a mut Vec<T>) -> TensorParts<'a> {
        TensorParts::host(owner.as_mut_ptr(), self.shape).with_flags(self.flags)
    }
}

// SAFETY: as for Vec, except that other clones of the Arc may read the slice, so the export is
// READ_ONLY; no clone can write it while this one lives (`Arc::get_mut` fails). The pointer
// comes from `Arc::as_ptr`, which does not go through a reference.
unsafe impl<T: Element> Describe<Arc<[T]>> for Shaped<'_> {
    fn describe<'a>(&'a self, owner: &'a mut Arc<[T]>) -> TensorParts<'a> {
        TensorParts::host(Arc::as_ptr(owner).cast::<T>().cast_mut(), self.shape)
            .with_flags(self.flags)
            .read_only()
    }
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
