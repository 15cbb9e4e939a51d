//! `Tensor` in CUDA memory (feature `cuda`): export with the stream rule, import on the
//! library's stream, and the few operations `dlpack_demo` has, queued on that stream.

use std::sync::Arc;

use dlpack_core::ManagedTensor;
use dlpack_core::cuda::cudarc::driver::CudaStream;
use dlpack_core::cuda::{StreamArg, sync_for_consumer, sync_for_host};
use dlpack_core::ffi::DLDeviceType;
use dlpack_core::python::{
    DlpackRequest, import_tensor, import_tensor_on_stream, read_tensor_device,
};
use dlpack_core::tensor::Flags;
use pyo3::exceptions::PyBufferError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use super::{Tensor, buffer_error};
use crate::cuda;

impl Tensor {
    /// `__dlpack__` for a tensor on `cuda:{ordinal}`: its pending work is queued on the
    /// library's stream there, which the consumer's stream is made to wait for (or a copy to
    /// the CPU or the same device is made on it, as the request asks).
    pub(super) fn cuda_dlpack<'py>(
        &self,
        py: Python<'py>,
        request: &DlpackRequest,
        ordinal: u32,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let stream = cuda::stream(ordinal)?;
        let flags = if self.shared.read_only {
            Flags::READ_ONLY
        } else {
            Flags::EMPTY
        };
        // SAFETY: a stream handle in the request was passed by the consumer, which the array
        // API standard obliges to pass a live stream of the tensor's device.
        unsafe { request.cuda_capsule(py, self.exported(flags), &stream) }
    }

    /// A host copy, made on the library's stream after the work queued there.
    pub(super) fn cuda_to_host(&self, py: Python<'_>, ordinal: u32) -> PyResult<Tensor> {
        let tensor =
            ManagedTensor::from_owner(self.exported(Flags::EMPTY)).map_err(buffer_error)?;
        Tensor::import(cuda::to_host(py, tensor, ordinal)?)
    }

    /// Sets every element to the element `pattern`, on the library's stream, without waiting.
    pub(super) fn cuda_fill(&self, ordinal: u32, pattern: &[u8]) -> PyResult<()> {
        self.require_compact("fill()")?;
        let stream = cuda::stream(ordinal)?;
        // Packed elements, two to a byte: every byte holds the code twice.
        let (count, pattern) = if self.packed() {
            (self.byte_len(), &[pattern[0] | pattern[0] << 4][..])
        } else {
            (self.count(), pattern)
        };
        // SAFETY: the tensor's compact elements (`count` times `pattern`) start at its first
        // element (our own allocation, or an import validated against its producer's extent),
        // writable
        // (not READ_ONLY, checked by the caller); the memory outlives the queued memset: our
        // allocations are freed on this same stream, and imports wait for it before release.
        unsafe { cuda::fill(&stream, self.first_address(), count, pattern) }
    }

    /// A compact copy on the same device, queued on the library's stream.
    pub(super) fn cuda_clone(&self, ordinal: u32) -> PyResult<Tensor> {
        self.require_compact("clone()")?;
        let shape: Vec<usize> = self.extents().collect();
        let copy = Tensor::zeros_on(&shape, self.shared.dtype, self.shared.device)?;
        let stream = cuda::stream(ordinal)?;
        let len = self.byte_len();
        // SAFETY: `len` bytes of compact elements on both sides (see `cuda_fill`), in two
        // different allocations on `cuda:{ordinal}`, both outliving the queued copy (`copy` is
        // freed on this stream).
        unsafe { cuda::copy(&stream, copy.first_address(), self.first_address(), len) }?;
        Ok(copy)
    }

    /// Waits, for a tensor in pinned or managed memory, until the GPU work on it is done, before
    /// the host reads or writes it in place (`tolist()`, `fill()`, a host copy): on the legacy
    /// default stream, where producers were asked to order their work, or the whole device
    /// where managed memory has no concurrent access (a host access there faults while the
    /// device runs anything). The interpreter is released while it waits.
    pub(super) fn before_host_access(&self, py: Python<'_>) -> PyResult<()> {
        let device = self.shared.device.dl_device();
        Ok(py.detach(|| sync_for_host(device, None))?)
    }

    /// The device address of the first element.
    fn first_address(&self) -> u64 {
        self.shared
            .data
            .0
            .addr()
            .wrapping_add(self.shared.layout.byte_offset() as usize) as u64
    }

    fn require_compact(&self, what: &str) -> PyResult<()> {
        let layout = &self.shared.layout;
        if *layout.strides() == *super::layout::row_major(layout.shape()) {
            Ok(())
        } else {
            Err(PyBufferError::new_err(format!(
                "{what} on a CUDA device needs a compact row-major tensor; strides {:?} are not",
                layout.strides()
            )))
        }
    }
}

/// `from_dlpack` for `dlpack_demo`: a tensor that will be on `cuda:n` is asked for on the
/// library's stream there, so that the producer's pending work is ordered before everything
/// this library queues on it; any other tensor as `dlpack_core::python::from_dlpack` asks for
/// it (on a machine without a CUDA device too).
pub fn import_on_stream(
    obj: &Bound<'_, PyAny>,
    device: Option<dlpack_core::Device>,
    copy: Option<bool>,
) -> PyResult<ManagedTensor> {
    let py = obj.py();
    // Read leniently, as `from_dlpack` reads it: PaddlePaddle's CPU tensors say `(1, None)`.
    let target = match device {
        Some(device) => Some(device),
        None if !obj.is_instance_of::<PyCapsule>()
            && obj.get_type().hasattr(intern!(py, "__dlpack_device__"))? =>
        {
            read_tensor_device(obj).ok()
        }
        None => None,
    };
    if let Some(stream) = target.and_then(library_stream) {
        return import_tensor_on_stream(obj, device, copy, &stream);
    }
    let tensor = import_tensor(obj, device, copy)?;
    // A producer that did not say where its tensor is was asked without `stream=`: it ordered
    // its work before the legacy default stream, which the library's stream now waits for.
    let there = tensor.device();
    let unordered = if target.is_none() {
        library_stream(there)
    } else {
        None
    };
    if let Some(stream) = unordered {
        let legacy = stream.context().default_stream();
        // SAFETY: the consumer named is the library's own stream, alive for the process.
        unsafe { sync_for_consumer(&legacy, StreamArg::of(&stream)) }?;
    }
    Ok(tensor)
}

/// The library's stream on `device` when it is a CUDA device the driver opens, else `None`:
/// such a tensor is then imported, and ordered, as any other is.
fn library_stream(device: dlpack_core::Device) -> Option<Arc<CudaStream>> {
    if device.device_type != DLDeviceType::CUDA {
        return None;
    }
    let ordinal = u32::try_from(device.device_id).ok()?;
    cuda::stream(ordinal).ok()
}
