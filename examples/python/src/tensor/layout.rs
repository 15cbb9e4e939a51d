//! The layout side of a tensor: element offsets, row-major strides, nesting into lists, and
//! the description an export keeps.

use std::sync::Arc;

use dlpack_core::tensor::{CheckedLayout, Flags, TensorOwner, TensorParts};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::device::Device;
use crate::dtype::DType;
use crate::live::Live;
use crate::memory::{Memory, Ptr};

/// Offsets in elements of every element of a strided array, in row-major order.
pub(super) fn offsets<'a>(shape: &'a [i64], strides: &'a [i64]) -> impl Iterator<Item = i64> + 'a {
    let count: i64 = shape.iter().product();
    let mut index = vec![0_i64; shape.len()];
    (0..count.max(0)).map(move |_| {
        let offset = index.iter().zip(strides).map(|(i, s)| i * s).sum();
        for axis in (0..shape.len()).rev() {
            index[axis] += 1;
            if index[axis] < shape[axis] {
                break;
            }
            index[axis] = 0;
        }
        offset
    })
}

/// Compact row-major strides for `shape`.
#[cfg(feature = "cuda")]
pub(super) fn row_major(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1_i64; shape.len()];
    for axis in (0..shape.len().saturating_sub(1)).rev() {
        strides[axis] = strides[axis + 1] * shape[axis + 1].max(1);
    }
    strides
}

/// A tensor's memory and its description, which never change after the tensor is made:
/// shared by the `Tensor` and its exports (an export, one on every `__dlpack__` call, takes a
/// reference, not a copy of the shape and strides).
pub(super) struct Shared {
    /// Where the elements live; freed (or released to its producer) with the last tensor or
    /// export that uses it.
    pub(super) _memory: Memory,
    /// The data pointer as DLPack has it: the first element is `layout.byte_offset()` bytes
    /// past it.
    pub(super) data: Ptr,
    /// The shape, strides (in elements) and byte offset, checked once when the tensor is made
    /// as an export checks them: each export copies them without checking them again.
    pub(super) layout: CheckedLayout,
    pub(super) dtype: DType,
    pub(super) device: Device,
    /// Whether consumers must not write (the producer it was imported from said so).
    pub(super) read_only: bool,
}

/// What an export keeps alive: the tensor's memory and description, and the flags it was
/// exported with.
pub(super) struct Exported {
    pub(super) tensor: Arc<Shared>,
    pub(super) flags: Flags,
    pub(super) _live: Live,
}

// SAFETY: the description never changes, and the memory in `tensor` (kept alive by the Arc
// until the deleter drops this) holds every element it addresses: our own buffer, or a foreign
// tensor whose layout was validated on import. The memory is shared rather than exclusive — that
// is the contract of Python's DLPack (NumPy shares its arrays the same way): this crate
// reads and writes it only through raw pointers while attached to the interpreter, and
// exports read-only data with READ_ONLY.
unsafe impl TensorOwner for Exported {
    fn describe(&mut self) -> TensorParts<'_> {
        let tensor = &*self.tensor;
        TensorParts::from_layout(
            tensor.data.0.cast(),
            tensor.device.dl_device(),
            &tensor.layout,
        )
        .with_flags(self.flags)
    }
}

/// How many lists [`nest`] makes for `shape`: the outer one and every list inside it but
/// the innermost level's elements (`1 + d0 + d0*d1 + …`); `None` when that overflows. A zero
/// extent after large ones makes a tensor of no elements whose nested list is vast
/// (`(2**40, 0)` is 2**40 empty lists).
pub(super) fn list_count(shape: &[i64]) -> Option<usize> {
    let Some((_, outer)) = shape.split_last() else {
        return Some(0);
    };
    let (mut lists, mut level) = (1usize, 1usize);
    for &extent in outer {
        level = level.checked_mul(usize::try_from(extent).ok()?)?;
        lists = lists.checked_add(level)?;
    }
    Some(lists)
}

/// Nested lists of `shape` from the flat values.
pub(super) fn nest<'py>(
    py: Python<'py>,
    shape: &[i64],
    flat: &mut impl Iterator<Item = Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let Some((&extent, rest)) = shape.split_first() else {
        return flat
            .next()
            .ok_or_else(|| PyTypeError::new_err("ran out of elements"));
    };
    let items = (0..extent)
        .map(|_| nest(py, rest, flat))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, items)?.into_any())
}
