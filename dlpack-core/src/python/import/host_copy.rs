//! A compact host copy of a tensor, for `import_tensor(..., copy=True)` when the producer did
//! not copy: the crate's one host copy, with its refusals as Python's `BufferError`.

use pyo3::prelude::*;

use crate::ManagedTensor;
use crate::python::error::buffer_error;
use crate::tensor::TensorView;
use crate::tensor::managed::compact_copy;

/// Copies the elements of `view` into a new compact host tensor flagged `IS_COPIED` (and
/// `IS_SUBBYTE_TYPE_PADDED` for padded sub-byte elements, which stay padded).
///
/// A `BufferError` for memory the host cannot read (a CUDA tensor needs the CUDA backend) or a
/// copy that cannot be allocated.
pub(crate) fn copy(view: &TensorView<'_>) -> PyResult<ManagedTensor> {
    compact_copy(view).map_err(|err| buffer_error(err.into()))
}
