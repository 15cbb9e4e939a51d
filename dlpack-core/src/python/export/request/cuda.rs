//! The producer side of the stream rule of `__dlpack__` for tensors in CUDA memory (features
//! `pyo3` and `cuda`): [`DlpackRequest::cuda_capsule`] makes the producer's pending work
//! visible on the consumer's stream, sharing or copying as the request asks. See the module
//! documentation of [`python`](crate::python), section "CUDA tensors and streams"; the
//! consumer side is `python/import/cuda/`.

use std::sync::Arc;

use pyo3::exceptions::PyBufferError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::Device;
use crate::cuda::cudarc::driver::CudaStream;
use crate::cuda::interop::{
    Check, Dst, Pending, ReleaseAfter, alloc_device, enter, preserve, queue,
};
use crate::cuda::{self, CopyMode, CudaError, StreamArg, Synced};
use crate::ffi::DLDeviceType;
use crate::python::error::buffer_error;
use crate::python::export::request::{DataAccess, DlpackRequest, ExportPlan};
use crate::tensor::{ManagedTensor, TensorOwner};

/// The producer side of the stream rule (feature `cuda`): see the module documentation of
/// [`python`](crate::python), section "CUDA tensors and streams".
impl DlpackRequest {
    /// The `stream` argument read as CUDA reads it (`StreamArg::try_from`): `None` and
    /// `1` are the legacy default stream, `2` the per-thread default stream, `-1` asks for no
    /// synchronisation, anything larger is a stream handle of the consumer's. `0` (ROCm's
    /// default stream, which the standard calls ambiguous for CUDA) is a `ValueError` here, as
    /// are negative values other than `-1` (which [`new`](Self::new) refuses already).
    ///
    /// ```
    /// use dlpack_core::cuda::StreamArg;
    /// use dlpack_core::python::DlpackRequest;
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let request = |stream: i64| -> PyResult<DlpackRequest> {
    ///         DlpackRequest::new(Some(stream.into_pyobject(py)?.as_any()), None, None, None)
    ///     };
    ///     assert_eq!(DlpackRequest::LEGACY.cuda_stream()?, StreamArg::LegacyDefault);
    ///     assert_eq!(request(1)?.cuda_stream()?, StreamArg::LegacyDefault);
    ///     assert_eq!(request(2)?.cuda_stream()?, StreamArg::PerThreadDefault);
    ///     assert_eq!(request(-1)?.cuda_stream()?, StreamArg::NoSync);
    ///     assert_eq!(request(0x7f00_1000)?.cuda_stream()?, StreamArg::Handle(0x7f00_1000));
    ///     let err = request(0)?.cuda_stream().unwrap_err(); // ROCm's, ambiguous for CUDA
    ///     assert!(err.is_instance_of::<pyo3::exceptions::PyValueError>(py));
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn cuda_stream(&self) -> PyResult<StreamArg> {
        Ok(StreamArg::try_from(self.stream.map(i128::from))?)
    }

    /// The producer side of `__dlpack__(stream=…)` for a tensor whose pending work is queued
    /// on `producer`: records an event on `producer` and makes the consumer's stream wait for
    /// it ([`cuda::sync_for_consumer`]); nothing for `stream=-1` or when the consumer works on
    /// `producer` itself. The host never waits, and no other stream or device is synchronised.
    ///
    /// Call it before returning the capsule of a tensor you share (not of a copy you made and
    /// waited for). [`cuda_capsule`](Self::cuda_capsule) does it for you.
    ///
    /// # Safety
    ///
    /// When [`stream`](Self::stream) is a handle (above 2), it must be a live CUDA stream on
    /// the tensor's device. The array API standard puts that duty on the consumer that passes
    /// it, and every producer (PyTorch, CuPy) trusts it, as the driver must: a stream handle
    /// cannot be checked before it is used. A request made by [`new`](Self::new) from the
    /// arguments of `__dlpack__` carries that promise of its caller.
    ///
    /// ```
    /// use dlpack_core::cuda::{self, Synced};
    /// use dlpack_core::python::DlpackRequest;
    /// use dlpack_core::Device;
    /// use pyo3::prelude::*;
    ///
    /// let Ok(context) = cuda::context(Device::cuda(0)) else {
    ///     return Ok(()); // no CUDA device here
    /// };
    /// let producer = context.new_stream().map_err(dlpack_core::Error::from)?;
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let legacy = 1_i64.into_pyobject(py)?;
    ///     let request = DlpackRequest::new(Some(legacy.as_any()), None, None, None)?;
    ///     // SAFETY: 1 is the legacy default stream, which is always there.
    ///     assert_eq!(unsafe { request.sync_for_consumer(&producer) }?, Synced::Waited);
    ///     let mut none = request;
    ///     none.stream = Some(-1);
    ///     // SAFETY: -1 names no stream.
    ///     assert_eq!(unsafe { none.sync_for_consumer(&producer) }?, Synced::NotRequested);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub unsafe fn sync_for_consumer(&self, producer: &CudaStream) -> PyResult<Synced> {
        let consumer = self.cuda_stream()?;
        // SAFETY: a handle in `consumer` is a live stream on the tensor's device (our contract).
        Ok(unsafe { cuda::sync_for_consumer(producer, consumer) }?)
    }

    /// `__dlpack__` for a tensor in CUDA memory (`cuda:n` or `cuda_managed`) whose pending
    /// work is queued on `producer`: decides with [`plan`](Self::plan) whether to share or
    /// copy, makes the work visible on the consumer's stream, and returns the capsule the
    /// consumer asked for (as [`capsule`](Self::capsule) does for host tensors).
    ///
    /// - Shared: the consumer's stream is made to wait for `producer`
    ///   ([`sync_for_consumer`](Self::sync_for_consumer)) before the capsule is returned, and
    ///   the release is ordered after the consumer's stream: when the consumer releases the
    ///   tensor, `producer` waits for an event recorded then on the consumer's stream before
    ///   `owner` drops, so an owner that frees in `producer`'s order (a cudarc slice of
    ///   `producer`, or [`CudaBuffer`](crate::cuda::CudaBuffer)) does not free memory the
    ///   consumer's queued kernels still read.
    /// - `copy=True` (or read-only data for a legacy consumer): a copy on the same device,
    ///   queued on `producer` after its pending work without blocking the host, ordered before
    ///   the consumer's stream (not at all for `stream=-1`), and exported flagged `IS_COPIED`.
    ///   The copy keeps `owner` until the copy is released and done.
    /// - `dl_device=(1, 0)` (the CPU): a host copy made on `producer`, complete when returned
    ///   (host memory has no stream to order it on). The interpreter is released while it runs.
    ///   Any other `dl_device` is a `BufferError`.
    ///
    /// What stays with the consumer: work on streams other than the one it named is its to
    /// finish before it releases the tensor, and with `stream=-1` all of it.
    ///
    /// Errors: a `ValueError` for a bad `stream` (see [`cuda_stream`](Self::cuda_stream)) and
    /// for a `producer` of another device than a `cuda:n` tensor's, a `BufferError` for an
    /// owner outside CUDA memory (export it with [`capsule`](Self::capsule)) and for what
    /// [`plan`](Self::plan) refuses, a `RuntimeError` for a failing driver. The context current
    /// on the calling thread before the call is current after it.
    ///
    /// # Safety
    ///
    /// A stream handle in the request is a live CUDA stream on the tensor's device, as for
    /// [`sync_for_consumer`](Self::sync_for_consumer), and still is when the consumer releases
    /// the tensor: the release records on it. (PyTorch's streams live as long as the process;
    /// a CuPy `Stream` is the consumer's to keep alive while arrays imported on it live.)
    ///
    /// ```
    /// use dlpack_core::cuda::{self, CudaBuffer};
    /// use dlpack_core::python::{DlpackRequest, import_tensor};
    /// use dlpack_core::tensor::Flags;
    /// use dlpack_core::Device;
    /// use pyo3::prelude::*;
    /// use pyo3::types::PyDict;
    ///
    /// let Ok(context) = cuda::context(Device::cuda(0)) else {
    ///     return Ok(()); // no CUDA device here
    /// };
    /// let stream = cuda::with_current(&context, || context.new_stream())?;
    /// let stream = stream.map_err(dlpack_core::Error::from)?;
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     // `__dlpack__(stream=1, max_version=(1, 3))`, as PyTorch calls it.
    ///     let (legacy, version) = (1_i64.into_pyobject(py)?, (1, 3).into_pyobject(py)?);
    ///     let request = DlpackRequest::new(Some(legacy.as_any()), Some(version.as_any()), None, None)?;
    ///     let buffer = CudaBuffer::from_host(&stream, &[1.0_f32, 2.0, 3.0], &[3])?;
    ///     // SAFETY: 1 is the legacy default stream, which is always there.
    ///     let capsule = unsafe { request.cuda_capsule(py, buffer, &stream) }?;
    ///     assert_eq!(import_tensor(&capsule, None, None)?.device(), Device::cuda(0));
    ///
    ///     // `dl_device=(1, 0)`: a host copy, made on `stream` and complete.
    ///     let cpu = (1, 0).into_pyobject(py)?;
    ///     let request = DlpackRequest::new(None, Some(version.as_any()), Some(cpu.as_any()), None)?;
    ///     let buffer = CudaBuffer::from_host(&stream, &[1.0_f32, 2.0, 3.0], &[3])?;
    ///     // SAFETY: no stream was named.
    ///     let capsule = unsafe { request.cuda_capsule(py, buffer, &stream) }?;
    ///     let host = import_tensor(&capsule, None, None)?;
    ///     assert_eq!(host.view()?.as_slice::<f32>()?, [1.0, 2.0, 3.0]);
    ///     assert!(host.flags().contains(Flags::IS_COPIED));
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub unsafe fn cuda_capsule<'py, O: TensorOwner>(
        &self,
        py: Python<'py>,
        mut owner: O,
        producer: &Arc<CudaStream>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let (device, access) = {
            let parts = owner.describe();
            (parts.device(), DataAccess::of(parts.flags()))
        };
        let (export, consumer) = self.cuda_plan(device, access)?;
        check_producer(device, producer)?;
        let tensor = match export {
            ExportPlan::Share => {
                // SAFETY: a handle in `consumer` is a live stream on the tensor's device (our
                // contract).
                unsafe { cuda::sync_for_consumer(producer, consumer) }?;
                let owner = ReleaseAfter::new(owner, Arc::clone(producer), consumer);
                ManagedTensor::from_owner(owner).map_err(buffer_error)?
            }
            ExportPlan::Copy(target) if target == Device::CPU => {
                let tensor = ManagedTensor::from_owner(owner).map_err(buffer_error)?;
                // On the producer's stream, after its pending work; complete when it returns.
                let producer = Arc::clone(producer);
                py.detach(move || {
                    cuda::to_device(tensor, target, CopyMode::Always, Some(&producer))
                })?
            }
            ExportPlan::Copy(_) => {
                let tensor = ManagedTensor::from_owner(owner).map_err(buffer_error)?;
                let copy = copy_queued(tensor, producer, consumer)?;
                // SAFETY: as above.
                unsafe { cuda::sync_for_consumer(producer, consumer) }?;
                copy
            }
        };
        self.tensor_capsule(py, tensor)
    }

    /// What [`cuda_capsule`](Self::cuda_capsule) does for a tensor on `current`: share or copy
    /// (as [`plan`](Self::plan) decides, with copies to the CPU or to `current` itself), and
    /// the consumer's stream. Needs no driver.
    pub(crate) fn cuda_plan(
        &self,
        current: Device,
        access: DataAccess,
    ) -> PyResult<(ExportPlan, StreamArg)> {
        if !matches!(
            current.device_type,
            DLDeviceType::CUDA | DLDeviceType::CUDA_MANAGED
        ) {
            return Err(PyBufferError::new_err(format!(
                "cuda_capsule exports tensors in CUDA memory (cuda:n or cuda_managed), not on \
                 {current}: export it with DlpackRequest::capsule"
            )));
        }
        let consumer = self.cuda_stream()?;
        let export = self.plan(current, access, |target| {
            target == Device::CPU
                || (target == current && current.device_type == DLDeviceType::CUDA)
        })?;
        Ok((export, consumer))
    }
}

/// Refuses a producer stream of another device than the `cuda:n` tensor it orders.
fn check_producer(device: Device, producer: &CudaStream) -> Result<(), crate::Error> {
    let ordinal = producer.context().ordinal();
    if device.device_type == DLDeviceType::CUDA && usize::try_from(device.device_id) != Ok(ordinal)
    {
        return Err(CudaError::WrongStream {
            stream: Device::cuda(i32::try_from(ordinal).unwrap_or(i32::MAX)),
            device,
        }
        .into());
    }
    Ok(())
}

/// A copy of a tensor in `cuda:n` memory on the same device, queued on `stream` (after the
/// work queued there) without waiting: what a producer exports for `__dlpack__(copy=True)`.
/// The copy keeps `tensor` until it is released itself and the copy is done; its memory is
/// freed on `stream`, after the work queued on `consumer`'s stream by then.
fn copy_queued(
    tensor: ManagedTensor,
    stream: &Arc<CudaStream>,
    consumer: StreamArg,
) -> Result<ManagedTensor, crate::Error> {
    let view = tensor.view()?;
    let mut out = alloc_device(view.device(), stream, &view)?;
    let copied = {
        let _scope = enter(stream.context())?;
        queue(&view, Dst::Device(out.ptr), stream)?;
        // An event after the copy: the source is released once it has passed.
        let _cudarc = preserve()?;
        stream.record_event(None).check("cuEventRecord")?
    };
    drop(view);
    out.after = Some(consumer);
    out.source = Some(Pending { tensor, copied });
    ManagedTensor::from_owner(out)
}
