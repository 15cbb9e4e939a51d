//! The stream rule of `__dlpack__` for CUDA tensors (features `pyo3` and `cuda`): a producer
//! makes its pending work visible on the stream the consumer names, and a consumer names the
//! stream it will use the tensor on. See the module documentation of [`python`](super),
//! section "CUDA tensors and streams".

use std::sync::Arc;

use pyo3::exceptions::{PyBufferError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use super::protocol::read_tensor_device;
use super::request::{DlpackRequest, Export};
use super::tensor::{buffer_error, settle, take_tensor};
use crate::ManagedTensor;
use crate::cuda::cudarc::driver::CudaStream;
use crate::cuda::{self, CopyMode, StreamArg, Synced};
use crate::device::Device;
use crate::ffi::DLDeviceType;
use crate::tensor::{Flags, TensorOwner};

impl DlpackRequest {
    /// The `stream` argument read as CUDA reads it ([`StreamArg::from_python`]): `None` and
    /// `1` are the legacy default stream, `2` the per-thread default stream, `-1` asks for no
    /// synchronisation, anything larger is a stream handle of the consumer's. `0` (ambiguous,
    /// the standard disallows it) and other negative values are a `ValueError`;
    /// [`new`](Self::new) refuses them already, so only a request whose field was set by hand
    /// can get that far.
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
    ///     let err = request(0).unwrap_err(); // refused by `new`, for every device
    ///     assert!(err.is_instance_of::<pyo3::exceptions::PyValueError>(py));
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn cuda_stream(&self) -> PyResult<StreamArg> {
        Ok(StreamArg::from_python(self.stream.map(i128::from))?)
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
    ///   ([`sync_for_consumer`](Self::sync_for_consumer)) before the capsule is returned.
    /// - `dl_device=(1, 0)` (the CPU), or a copy asked for (`copy=True`, or read-only data for
    ///   a legacy consumer): the tensor is copied on `producer` ([`cuda::to_device`]) and the
    ///   copy, complete when it is returned, is exported flagged `IS_COPIED`. The interpreter
    ///   is released while the copy runs. Copies go to the CPU or to the tensor's own
    ///   `cuda:n`; any other `dl_device` is a `BufferError`.
    ///
    /// Errors: a `ValueError` for a bad `stream` (see [`cuda_stream`](Self::cuda_stream)),
    /// a `BufferError` for an owner outside CUDA memory (export it with
    /// [`capsule`](Self::capsule)) and for what [`plan`](Self::plan) refuses, a
    /// `RuntimeError` for a failing driver.
    ///
    /// # Safety
    ///
    /// As for [`sync_for_consumer`](Self::sync_for_consumer): a stream handle in the request
    /// is a live CUDA stream on the tensor's device.
    ///
    /// ```
    /// use dlpack_core::cuda::{self, CudaBuffer};
    /// use dlpack_core::python::{DlpackRequest, capsule_tensor};
    /// use dlpack_core::tensor::Flags;
    /// use dlpack_core::Device;
    /// use pyo3::prelude::*;
    /// use pyo3::types::PyDict;
    ///
    /// let Ok(context) = cuda::context(Device::cuda(0)) else {
    ///     return Ok(()); // no CUDA device here
    /// };
    /// let stream = context.new_stream().map_err(dlpack_core::Error::from)?;
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     // `__dlpack__(stream=1, max_version=(1, 3))`, as PyTorch calls it.
    ///     let (legacy, version) = (1_i64.into_pyobject(py)?, (1, 3).into_pyobject(py)?);
    ///     let request = DlpackRequest::new(Some(legacy.as_any()), Some(version.as_any()), None, None)?;
    ///     let buffer = CudaBuffer::from_host(&stream, &[1.0_f32, 2.0, 3.0], &[3])?;
    ///     // SAFETY: 1 is the legacy default stream, which is always there.
    ///     let capsule = unsafe { request.cuda_capsule(py, buffer, &stream) }?;
    ///     assert_eq!(capsule_tensor(&capsule)?.device(), Device::cuda(0));
    ///
    ///     // `dl_device=(1, 0)`: a host copy, made on `stream` and complete.
    ///     let cpu = (1, 0).into_pyobject(py)?;
    ///     let request = DlpackRequest::new(None, Some(version.as_any()), Some(cpu.as_any()), None)?;
    ///     let buffer = CudaBuffer::from_host(&stream, &[1.0_f32, 2.0, 3.0], &[3])?;
    ///     // SAFETY: no stream was named.
    ///     let capsule = unsafe { request.cuda_capsule(py, buffer, &stream) }?;
    ///     let host = capsule_tensor(&capsule)?;
    ///     assert_eq!(host.view()?.as_slice::<f32>()?, [1.0, 2.0, 3.0]);
    ///     assert!(host.flags().contains(Flags::IS_COPIED));
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub unsafe fn cuda_capsule<'py, O: TensorOwner>(
        &self,
        py: Python<'py>,
        owner: O,
        producer: &Arc<CudaStream>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let tensor = ManagedTensor::from_owner(owner).map_err(buffer_error)?;
        let read_only = tensor.flags().contains(Flags::READ_ONLY);
        let (export, consumer) = self.cuda_plan(tensor.device(), read_only)?;
        let tensor = match export {
            Export::Share => {
                // SAFETY: a handle in `consumer` is a live stream on the tensor's device (our
                // contract).
                unsafe { cuda::sync_for_consumer(producer, consumer) }?;
                tensor
            }
            Export::Copy(target) => {
                // On the producer's stream, after its pending work; complete when it returns,
                // so the consumer may use the copy on any stream.
                let producer = Arc::clone(producer);
                py.detach(move || {
                    cuda::to_device(tensor, target, CopyMode::Always, Some(&producer))
                })?
            }
        };
        self.tensor_capsule(py, tensor)
    }

    /// What [`cuda_capsule`](Self::cuda_capsule) does for a tensor on `current`: share or copy
    /// (as [`plan`](Self::plan) decides, with copies to the CPU or to `current` itself), and
    /// the consumer's stream. Needs no driver.
    fn cuda_plan(&self, current: Device, read_only: bool) -> PyResult<(Export, StreamArg)> {
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
        let export = self.plan(current, read_only, |target| {
            target == Device::CPU
                || (target == current && current.device_type == DLDeviceType::CUDA)
        })?;
        Ok((export, consumer))
    }
}

/// [`from_dlpack`](super::from_dlpack) for a consumer that works on `stream`: a tensor that
/// will be on a `cuda:n` device is asked for with `stream=<stream's handle>`
/// ([`StreamArg::of`]`(stream).to_python()`: `1` for the legacy default stream, `2` for the
/// per-thread one), so the producer orders its pending work before whatever you queue on
/// `stream` afterwards. A copy the consumer side has to make (`copy=True` and the producer did
/// not copy) runs on `stream` too.
///
/// `stream` must be on the device the tensor will be on (`device`, or else what
/// `obj.__dlpack_device__()` says): another `cuda:n` is a `ValueError`, raised before the
/// producer is called. For tensors anywhere else (the CPU, `cuda_managed`, `cuda_host`)
/// `stream` is not passed, and this is [`from_dlpack`](super::from_dlpack): PyTorch passes a
/// stream only for `kDLCUDA` (and ROCm) tensors too, and `stream=None` means the legacy
/// default stream to a producer of managed memory.
///
/// ```
/// use dlpack_core::cuda::{self, CudaBuffer, StreamArg};
/// use dlpack_core::python::{from_dlpack_on_stream, versioned_capsule};
/// use dlpack_core::Device;
/// use pyo3::prelude::*;
///
/// let Ok(context) = cuda::context(Device::cuda(0)) else {
///     return Ok(()); // no CUDA device here
/// };
/// let stream = context.new_stream().map_err(dlpack_core::Error::from)?;
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     // A producer written in Python that records the stream it is asked for.
///     let globals = pyo3::types::PyDict::new(py);
///     py.run(
///         c"class Producer:\n    def __init__(self, capsule): self.capsule = capsule\n    def __dlpack_device__(self): return (2, 0)\n    def __dlpack__(self, stream=None, **kwargs):\n        self.stream = stream\n        return self.capsule",
///         Some(&globals),
///         None,
///     )?;
///     let buffer = CudaBuffer::from_host(&stream, &[1_u8, 2, 3], &[3])?;
///     let capsule = versioned_capsule(py, buffer.into_dlpack()?)?;
///     let producer = globals.get_item("Producer")?.unwrap().call1((capsule,))?;
///
///     let tensor = from_dlpack_on_stream(&producer, None, None, &stream)?;
///     assert_eq!(tensor.device(), Device::cuda(0));
///     let asked: i128 = producer.getattr("stream")?.extract()?;
///     assert_eq!(asked, StreamArg::of(&stream).to_python());
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn from_dlpack_on_stream(
    obj: &Bound<'_, PyAny>,
    device: Option<Device>,
    copy: Option<bool>,
    stream: &Arc<CudaStream>,
) -> PyResult<ManagedTensor> {
    import(obj, device, copy, Some(stream))
}

/// [`from_dlpack`](super::from_dlpack) with feature `cuda`: names `stream` (the legacy default
/// stream when `None`) to the producer of a `cuda:n` tensor, and makes consumer-side copies of
/// CUDA memory on it.
pub(crate) fn import(
    obj: &Bound<'_, PyAny>,
    device: Option<Device>,
    copy: Option<bool>,
    stream: Option<&Arc<CudaStream>>,
) -> PyResult<ManagedTensor> {
    let target = match device {
        Some(device) => Target::Known(device),
        None => producer_device(obj),
    };
    let arg = match target {
        Target::Known(target) if target.device_type == DLDeviceType::CUDA => {
            Some(consumer_stream(target, stream)?.to_python())
        }
        _ => None,
    };
    let imported = take_tensor(obj, device, copy, arg)?;
    if let (Target::Unknown, Some(stream)) = (target, stream) {
        after_the_legacy_stream(&imported, stream)?;
    }
    let py = obj.py();
    let stream = stream.cloned();
    settle(imported, device, copy, move |tensor, here| {
        // Memory the host cannot read: copied on its device, on the stream the producer
        // ordered its work before (the legacy default one when `None`).
        Ok(py.detach(move || cuda::to_device(tensor, here, CopyMode::Always, stream.as_ref()))?)
    })
}

/// Where a producer says its tensor is, as far as the consumer can tell before asking for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// `device=`, or what `__dlpack_device__()` returned.
    Known(Device),
    /// A capsule: whoever made it chose the stream, if any.
    Capsule,
    /// An object without `__dlpack_device__`, or whose `__dlpack_device__()` cannot be read
    /// (it raises, or returns something that is not a device: PaddlePaddle 3.3 returns
    /// `(kDLCPU, None)` for CPU tensors).
    Unknown,
}

/// What `obj.__dlpack_device__()` says, read leniently: a producer that cannot say is asked
/// without `stream=`, which the standard reads as the legacy default stream, so an error here
/// must not refuse a tensor that `from_dlpack` takes without feature `cuda`.
fn producer_device(obj: &Bound<'_, PyAny>) -> Target {
    if obj.is_instance_of::<PyCapsule>() {
        return Target::Capsule;
    }
    let py = obj.py();
    let class = obj.get_type();
    let speaks = |name| class.hasattr(name).unwrap_or(false);
    if !speaks(intern!(py, "__dlpack__")) || !speaks(intern!(py, "__dlpack_device__")) {
        return Target::Unknown;
    }
    read_tensor_device(obj).map_or(Target::Unknown, Target::Known)
}

/// For a tensor asked for without `stream=` (its producer's device unknown) that turned out to
/// be on `cuda:n`: the producer ordered its work before the legacy default stream (what no
/// `stream` means), so `stream` is made to wait for that one.
fn after_the_legacy_stream(tensor: &ManagedTensor, stream: &Arc<CudaStream>) -> PyResult<()> {
    let device = tensor.device();
    if device.device_type != DLDeviceType::CUDA {
        return Ok(());
    }
    let consumer = consumer_stream(device, Some(stream))?;
    let legacy = stream.context().default_stream();
    // SAFETY: `consumer` names `stream`, a live stream we hold, or a default stream.
    unsafe { cuda::sync_for_consumer(&legacy, consumer) }?;
    Ok(())
}

/// The `stream` argument naming `stream` (the legacy default stream when `None`) for a tensor
/// that will be on the CUDA device `target`.
fn consumer_stream(target: Device, stream: Option<&Arc<CudaStream>>) -> PyResult<StreamArg> {
    let Some(stream) = stream else {
        return Ok(StreamArg::LegacyDefault);
    };
    let ordinal = stream.context().ordinal();
    if usize::try_from(target.device_id) != Ok(ordinal) {
        return Err(PyValueError::new_err(format!(
            "the stream is on cuda:{ordinal}, but the tensor will be on {target}: pass a \
             stream of {target}"
        )));
    }
    Ok(StreamArg::of(stream))
}

#[cfg(test)]
mod tests;
