//! The layout side of a tensor: element offsets, row-major strides, nesting into lists, and
//! the description an export keeps.

use std::sync::Arc;

use dlpack_core::tensor::{Flags, TensorOwner, TensorParts};
use dlpack_core::{DataType, Device as DlDevice};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyList;

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
pub(super) fn row_major(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1_i64; shape.len()];
    for axis in (0..shape.len().saturating_sub(1)).rev() {
        strides[axis] = strides[axis + 1] * shape[axis + 1].max(1);
    }
    strides
}

/// What an export keeps alive: the memory, and the description it was exported with (the
/// shape and strides shared with the tensor, not copied: exporting is on every `__dlpack__`
/// call).
pub(super) struct Exported {
    pub(super) _memory: Arc<Memory>,
    pub(super) data: Ptr,
    pub(super) byte_offset: u64,
    pub(super) shape: Arc<[i64]>,
    pub(super) strides: Arc<[i64]>,
    pub(super) dtype: DataType,
    pub(super) device: DlDevice,
    pub(super) flags: Flags,
    pub(super) _live: Live,
}

// SAFETY: the description never changes, and `_memory` (kept alive by the Arc until the
// deleter drops this) holds every element it addresses: our own buffer, or a foreign tensor
// whose layout was validated on import. The memory is shared rather than exclusive — that
// is the contract of Python's DLPack (NumPy shares its arrays the same way): this crate
// reads and writes it only through raw pointers while attached to the interpreter, and
// exports read-only data with READ_ONLY.
unsafe impl TensorOwner for Exported {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(self.data.0.cast(), self.device, self.dtype, &self.shape[..])
            .with_strides(&self.strides[..])
            .with_byte_offset(self.byte_offset)
            .with_flags(self.flags)
    }
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
