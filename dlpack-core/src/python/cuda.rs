//! The stream rule of `__dlpack__` for CUDA tensors (features `pyo3` and `cuda`), consumer
//! side: a consumer names the stream it will use the tensor on. (The producer side, which
//! makes its pending work visible on that stream, is `DlpackRequest::cuda_capsule`, with the
//! rest of `DlpackRequest` in `request.rs`.) See the module documentation of
//! [`python`](super), section "CUDA tensors and streams".

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use super::import::{settle, take_tensor};
use super::read::read_tensor_device;
use crate::ManagedTensor;
use crate::cuda::cudarc::driver::CudaStream;
use crate::cuda::{self, CopyMode, StreamArg};
use crate::device::Device;
use crate::ffi::DLDeviceType;

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
