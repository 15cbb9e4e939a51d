//! A compact host copy of a tensor, for `from_dlpack(..., copy=True)` when the producer did
//! not copy.

use pyo3::exceptions::PyBufferError;
use pyo3::prelude::*;

use crate::ManagedTensor;
use crate::data_type::DataType;
use crate::device::Device;
use crate::python::error::buffer_error;
use crate::tensor::{Flags, TensorOwner, TensorParts, TensorView};

/// A row-major copy in host memory, 8-byte aligned.
struct HostCopy {
    words: Vec<u64>,
    shape: Vec<i64>,
    dtype: DataType,
    flags: Flags,
}

// SAFETY: `words` holds the copied bytes of every element of `shape` in row-major order (at
// least `count * itemsize` bytes, or the packed size), is never moved or touched while the
// owner lives, and the description is the same on every call.
unsafe impl TensorOwner for HostCopy {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(
            self.words.as_mut_ptr().cast(),
            Device::CPU,
            self.dtype,
            &self.shape[..],
        )
        .with_flags(self.flags)
    }
}

/// Copies the elements of `view` into a new compact host tensor flagged `IS_COPIED`.
///
/// A `BufferError` for memory the host cannot read (a CUDA tensor needs the CUDA backend) and
/// for a strided tensor of a packed sub-byte type.
pub(crate) fn copy(view: &TensorView<'_>) -> PyResult<ManagedTensor> {
    let bytes = if view.is_contiguous() {
        view.as_bytes().map_err(buffer_error)?.to_vec()
    } else {
        strided_bytes(view)?
    };
    let mut words = vec![0_u64; bytes.len().div_ceil(8)];
    // SAFETY: `words` has at least `bytes.len()` bytes, and the two do not overlap.
    unsafe {
        core::ptr::copy_nonoverlapping(bytes.as_ptr(), words.as_mut_ptr().cast(), bytes.len());
    }
    let owner = HostCopy {
        words,
        shape: view.shape().to_vec(),
        dtype: view.dtype(),
        flags: Flags::IS_COPIED | (view.flags() & Flags::IS_SUBBYTE_TYPE_PADDED),
    };
    ManagedTensor::from_owner(owner).map_err(buffer_error)
}

/// The elements of a strided tensor, in row-major order.
fn strided_bytes(view: &TensorView<'_>) -> PyResult<Vec<u8>> {
    let device = view.device();
    if !Device::CPU.can_access(device) {
        return Err(PyBufferError::new_err(format!(
            "cannot copy a tensor on {device} on the host: the host cannot read that memory"
        )));
    }
    if view.is_packed() {
        return Err(PyBufferError::new_err(format!(
            "cannot copy a strided tensor of packed {} elements",
            view.dtype()
        )));
    }
    let itemsize = view.dtype().itemsize();
    let count = view.len();
    let mut out = Vec::with_capacity(count * itemsize);
    if count == 0 {
        return Ok(out);
    }
    if view.data_ptr().is_null() {
        return Err(PyBufferError::new_err("the tensor's data pointer is null"));
    }
    let shape = view.shape();
    let strides = view.strides();
    let mut index = vec![0_i64; shape.len()];
    let base = view
        .data_ptr()
        .cast::<u8>()
        .wrapping_add(view.byte_offset() as usize);
    for _ in 0..count {
        // The validated layout keeps every element's offset inside the tensor's extent.
        let offset: i64 = index.iter().zip(strides).map(|(i, s)| i * s).sum();
        let element = base.wrapping_offset(offset as isize * itemsize as isize);
        // SAFETY: the view was validated: every index within the shape addresses an element
        // inside the producer's extent, in memory the host can read (checked above), and the
        // producer keeps it alive while `view` borrows it.
        let bytes = unsafe { core::slice::from_raw_parts(element, itemsize) };
        out.extend_from_slice(bytes);
        // The next index in row-major order.
        for axis in (0..shape.len()).rev() {
            index[axis] += 1;
            if index[axis] < shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    Ok(out)
}
