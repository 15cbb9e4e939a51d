//! Zero-copy export: one heap allocation holds the managed struct, the owner, and the shape and
//! strides, and a deleter monomorphised for the owner's type frees it.
//!
//! ```text
//! +--------------------------+--------+-------+------------------+--------------------+
//! | DLManagedTensorVersioned | layout | owner | shape[ndim] i64  | strides[ndim] i64  |
//! | (or DLManagedTensor)     | Layout |   O   |                  |                    |
//! +--------------------------+--------+-------+------------------+--------------------+
//!  ^ the pointer handed out; `manager_ctx` points here too
//! ```
//!
//! The owner describes its data after it has reached its final place in the allocation, so the
//! pointer it gives stays valid until the deleter drops it; a first description, made before
//! the move, only sizes the allocation.
//!
//! The shape and strides are written straight into the allocation, converted to `int64_t` and
//! checked on the way ([`Describe::dims`]); what that leaves of the rules an importer applies
//! ([`validate`](crate::tensor::import::validate)) is checked on the values written ([`Describe::check`]),
//! rather than by validating the finished tensor again. `from_vec` and friends ([`Shaped`])
//! write the shape and compact strides in one pass that also checks the shape against the
//! data's length, and have nothing left to check (see [`describe`](super::describe)). An owner
//! that describes itself with a [`CheckedLayout`](crate::tensor::CheckedLayout) had its values checked
//! when the layout was made, by the same functions, so the export copies them and checks
//! nothing more. Debug builds (the test suite, Miri) still validate every finished export as an
//! importer would, and assert that it passes; `tests/prop_export.rs` holds every description
//! to the importer's rules.

use alloc::alloc::{self as heap, Layout};
use core::ffi::c_void;
use core::mem::MaybeUninit;
use core::ptr::{self, NonNull};

use super::describe::Describe;
use super::dims::Dims64;
use crate::ffi::DLTensor;
use crate::tensor::TensorError;
use crate::tensor::import::abi::{Abi, Owned};

#[repr(C)]
struct Header<M, O> {
    managed: M,
    /// The allocation's layout, for the deleter.
    layout: Layout,
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
            heap::dealloc(self.header.cast(), self.layout);
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
    // allocated with the layout it holds, and the DLPack contract has the consumer call the
    // deleter once, after which nothing uses the allocation.
    unsafe {
        let layout = (*header).layout;
        ptr::drop_in_place(&raw mut (*header).owner);
        heap::dealloc(header.cast(), layout);
    }
}

/// Exports `owner` as `M`, described by `how`.
#[inline]
pub(crate) fn export<M: Abi, O: Send + 'static, D: Describe<O>>(
    mut owner: O,
    how: &D,
) -> Result<Owned<M>, TensorError> {
    let ndim = how.describe(&mut owner).rank()?;
    let (layout, dims_offset) = header_layout::<M, O>(ndim);
    // SAFETY: the layout has a non-zero size: it holds an `M`.
    let base = unsafe { heap::alloc(layout) };
    if base.is_null() {
        heap::handle_alloc_error(layout);
    }
    let header = base.cast::<Header<M, O>>();
    // SAFETY: fresh memory, aligned for the header; each field is written in place once.
    unsafe {
        (&raw mut (*header).layout).write(layout);
        (&raw mut (*header).owner).write(owner);
    }
    let pending = Pending { header, layout };

    // SAFETY: the owner is initialised and nothing else refers to it; the reference covers
    // the owner's bytes only, not the header or the dims written below.
    let owner = unsafe { &mut (*header).owner };
    let parts = how.describe(owner);
    let after = parts.rank()?;
    if after != ndim {
        return Err(TensorError::OwnerChanged {
            before: ndim,
            after,
        });
    }
    // SAFETY: `dims_offset` is inside the allocation, aligned for i64 and followed by room
    // for 2 * ndim values (`header_layout`), which overlap neither the header nor the owner
    // that `parts` borrows.
    let dims = unsafe { base.add(dims_offset).cast::<i64>() };
    // SAFETY: the 2 * ndim values above, as `MaybeUninit` (no value need be initialised);
    // nothing else refers to them while the slice lives.
    let uninit =
        unsafe { core::slice::from_raw_parts_mut(dims.cast::<MaybeUninit<i64>>(), 2 * ndim) };
    // A checked layout was checked when it was made, by the default `dims` and `check` (the
    // strictest: an implementation may only relax them); its values are copied as they are.
    let checked = parts
        .checked()
        .filter(|checked| checked.dims.len() == uninit.len());
    // From here on every value is initialised (the copy, or `Describe::dims`'s contract).
    let count = match checked {
        Some(checked) => {
            for (slot, &value) in uninit.iter_mut().zip(checked.dims) {
                slot.write(value);
            }
            checked.len
        }
        None => how.dims(&parts, uninit)?,
    };
    if count > 0 && parts.data().is_null() {
        return Err(TensorError::NullData { elements: count });
    }
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
    // SAFETY: the shape and strides `how.dims` wrote, all of them; only read from here on.
    let written = unsafe {
        Dims64 {
            shape: core::slice::from_raw_parts(dl_tensor.shape, ndim),
            strides: core::slice::from_raw_parts(dl_tensor.strides, ndim),
            count,
        }
    };
    // The rules an importer applies that `dims` did not check, with the flags the struct
    // carries (none for a legacy tensor).
    if checked.is_none() {
        how.check(&dl_tensor, managed.flags(), &written)?;
    }
    // SAFETY: the header's first field, written once; the owner borrow (`parts`) and the
    // dims slices have ended.
    unsafe { (&raw mut (*header).managed).write(managed) };
    core::mem::forget(pending);

    // SAFETY: a complete header whose deleter frees exactly this allocation; we own it.
    let owned = unsafe { Owned::from_raw(NonNull::new_unchecked(header.cast::<M>())) };
    #[cfg(debug_assertions)]
    {
        let managed = owned.get();
        // SAFETY: shape and strides point into the allocation, which lives as long as `owned`.
        let checked = unsafe {
            crate::tensor::import::validate::layout(
                managed.dl_tensor(),
                managed.flags(),
                crate::tensor::import::abi::strides_rule(managed),
            )
        };
        debug_assert!(
            checked.is_ok(),
            "an export an importer would refuse: {checked:?}"
        );
    }
    Ok(owned)
}
