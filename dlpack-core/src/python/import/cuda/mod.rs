//! The stream rule of `__dlpack__` for CUDA tensors (features `pyo3` and `cuda`), consumer
//! side: a consumer names the stream it will use the tensor on. (The producer side, which
//! makes its pending work visible on that stream, is `DlpackRequest::cuda_capsule`, with the
//! rest of `DlpackRequest` in `python/export/`.) See the module documentation of
//! [`python`](crate::python), section "CUDA tensors and streams".

use std::sync::Arc;

use pyo3::exceptions::PyBufferError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::Device;
use crate::ManagedTensor;
use crate::cuda::context;
use crate::cuda::cudarc::driver::CudaStream;
use crate::cuda::interop::{Cuda, Driver, Scope, StreamOn, enter, present, raw_stream, stream_on};
use crate::cuda::{self, CopyMode, CudaError, StreamArg};
use crate::error::Error;
use crate::ffi::DLDeviceType;
use crate::python::import::ask::take_tensor;
use crate::python::import::borrow::{Holder, lent};
use crate::python::import::route::{Route, route};
use crate::python::import::settle::settle;
use crate::python::values::read::read_tensor_device;
use crate::tensor::Flags;
use decide::Own;

/// [`import_tensor`](super::import_tensor) for a consumer that works on `stream`: the producer of
/// a tensor in CUDA memory is asked for it with `stream=<stream's handle>`
/// (`i128::from(`[`StreamArg::of`]`(stream))`), so that it orders its pending work before
/// whatever you queue on `stream` afterwards, and the copies the consumer side makes run on
/// `stream` where they can.
///
/// The stream named follows where the tensor *is* (`obj.__dlpack_device__()`), not `device`:
///
/// - a `cuda:n` tensor: `stream` when it is a stream of `cuda:n`, else the legacy default
///   stream of `cuda:n` (`1`) when a copy to another device follows (made here, complete when
///   this returns); `stream` of another device than the one the tensor stays on is a
///   `ValueError`, raised before the producer is called;
/// - `cuda_managed` and `cuda_host` memory, which every device reads: `stream`;
/// - a CPU tensor: no stream (a CPU producer refuses one), and a copy to `cuda:n` runs on
///   `stream` when it is of that device.
///
/// Your per-thread default stream is named as the legacy default stream (`1`): PyTorch refuses
/// `stream=2`, and the per-thread default stream waits for the legacy one by itself. A producer
/// that cannot say where its tensor is is asked without `stream=`, and `stream` is then made to
/// wait for the legacy default stream, where such a producer ordered its work. Host reads of
/// pinned and managed memory (`device="cpu"`, or a host copy) wait for `stream` first
/// ([`sync_for_host`](crate::cuda::sync_for_host)).
///
/// ```
/// use dlpack_core::cuda::{self, CudaBuffer, StreamArg};
/// use dlpack_core::python::{DlpackRequest, ExportPlan, import_tensor_on_stream};
/// use dlpack_core::Device;
/// use pyo3::prelude::*;
///
/// let Ok(context) = cuda::context(Device::cuda(0)) else {
///     return Ok(()); // no CUDA device here
/// };
/// let stream = cuda::with_current(&context, || context.new_stream())?;
/// let stream = stream.map_err(dlpack_core::Error::from)?;
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
///     let version = (1, 3).into_pyobject(py)?;
///     let request = DlpackRequest::new(None, Some(version.as_any()), None, None)?;
///     let capsule = request.answer(py, ExportPlan::Share, buffer.into_dlpack()?)?;
///     let producer = globals.get_item("Producer")?.unwrap().call1((capsule,))?;
///
///     let tensor = import_tensor_on_stream(&producer, None, None, &stream)?;
///     assert_eq!(tensor.device(), Device::cuda(0));
///     let asked: i128 = producer.getattr("stream")?.extract()?;
///     assert_eq!(asked, i128::from(StreamArg::of(&stream)));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn import_tensor_on_stream(
    obj: &Bound<'_, PyAny>,
    device: Option<Device>,
    copy: Option<bool>,
    stream: &Arc<CudaStream>,
) -> PyResult<ManagedTensor> {
    let tensor = import(obj, route(obj, false)?, device, copy, Some(stream), None)?;
    lent(obj.py(), tensor, Holder::IMPORT)
}

/// [`import_tensor`](super::import_tensor) with feature `cuda`: asks as [`decide::ask`] decides,
/// with the source's device current around `__dlpack__`, then orders, waits and copies as the
/// consumer must.
pub(crate) fn import(
    obj: &Bound<'_, PyAny>,
    route: Route,
    device: Option<Device>,
    copy: Option<bool>,
    stream: Option<&Arc<CudaStream>>,
    table_error: Option<PyErr>,
) -> PyResult<ManagedTensor> {
    let py = obj.py();
    let source = producer_device(obj);
    let own = stream.map(|stream| Own {
        device: Device::cuda(i32::try_from(stream.context().ordinal()).unwrap_or(i32::MAX)),
        arg: StreamArg::of(stream),
    });
    let known = match source {
        Source::Known(device) => Some(device),
        Source::Capsule | Source::Unknown => None,
    };
    let ask = decide::ask(known, device, copy, own)?;
    let imported = {
        // PyTorch exports only tensors of the current device, and records its event on the
        // current device's stream: the source's, for the call, and the caller's again after.
        let _current = enter_device(ask.device)?;
        take_tensor(
            obj,
            route,
            ask.dl_device,
            ask.copy,
            ask.stream.map(i128::from),
            table_error,
        )?
    };
    let here = imported.device();
    if let (None, Some(stream)) = (known, stream) {
        after_the_legacy_stream(here, stream)?;
    }
    // The stream the producer ordered its work before: the caller's, or the legacy default
    // stream of the device named.
    let named = match (ask.own || known.is_none(), stream) {
        (true, Some(stream)) => Some(Arc::clone(stream)),
        _ if ask.stream.is_some() => legacy_stream(ask.device)?,
        _ => None,
    };
    if decide::host_reads(here, device, copy, stream.is_some()) {
        let named = named.clone();
        py.detach(move || cuda::sync_for_host(here, named.as_ref()))?;
    }
    if source == Source::Capsule {
        return settle(imported, device, copy, move |tensor, here| {
            // Memory the host cannot read: copied on its device, on the stream the producer
            // ordered its work before (the legacy default one when `None`).
            Ok(py.detach(move || cuda::to_device(tensor, here, CopyMode::Always, named.as_ref()))?)
        });
    }
    finish(py, imported, device, copy, named, stream.cloned())
}

/// What the consumer does with what the producer returned: checks `copy=False`, and copies to
/// `device` (or, for `copy=True` the producer did not honour, where the tensor is, or to the
/// host for pinned and managed memory) with [`cuda::to_device`]. The copy runs on `named`, the
/// stream the producer ordered its work before, where the copy may run on it; else on the
/// legacy default stream of the right device, after the host waited for `named`. A copy from
/// host memory runs on `preferred`, the caller's stream, where it may.
fn finish(
    py: Python<'_>,
    imported: ManagedTensor,
    device: Option<Device>,
    copy: Option<bool>,
    named: Option<Arc<CudaStream>>,
    preferred: Option<Arc<CudaStream>>,
) -> PyResult<ManagedTensor> {
    let here = imported.device();
    let copied = imported.flags().contains(Flags::IS_COPIED);
    let mode = match copy {
        Some(false) if copied => {
            return Err(PyBufferError::new_err(
                "the producer copied the tensor although copy=False was asked",
            ));
        }
        Some(false) => CopyMode::Never,
        Some(true) if !copied => CopyMode::Always,
        _ => CopyMode::IfNeeded,
    };
    let host_memory = matches!(
        here.device_type,
        DLDeviceType::CUDA_HOST | DLDeviceType::CUDA_MANAGED
    );
    let target = match device {
        Some(device) => device,
        // A copy of memory the host reads in place is a host copy: no device allocates
        // pinned or managed memory here.
        None if mode == CopyMode::Always && host_memory => Device::CPU,
        None => here,
    };
    if target == here && mode != CopyMode::Always {
        return Ok(imported);
    }
    Ok(py.detach(move || {
        let fits = |stream: &Arc<CudaStream>| copy_stream_fits(stream, here, target);
        let stream = if here.device_type == DLDeviceType::CPU {
            preferred.filter(fits)
        } else {
            match named {
                Some(named) if fits(&named) => Some(named),
                Some(named) => {
                    synchronize(&named)?;
                    None
                }
                None => None,
            }
        };
        cuda::to_device(imported, target, mode, stream.as_ref())
    })?)
}

/// Where a producer says its tensor is, as far as the consumer can tell before asking for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// What `__dlpack_device__()` returned.
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
fn producer_device(obj: &Bound<'_, PyAny>) -> Source {
    if obj.is_instance_of::<PyCapsule>() {
        return Source::Capsule;
    }
    let py = obj.py();
    let class = obj.get_type();
    let speaks = |name| class.hasattr(name).unwrap_or(false);
    if !speaks(intern!(py, "__dlpack__")) || !speaks(intern!(py, "__dlpack_device__")) {
        return Source::Unknown;
    }
    read_tensor_device(obj).map_or(Source::Unknown, Source::Known)
}

/// For a tensor asked for without `stream=` (its producer's device unknown) that turned out to
/// be in CUDA memory: the producer ordered its work before the legacy default stream (what no
/// `stream` means), so `stream` is made to wait for that one.
fn after_the_legacy_stream(here: Device, stream: &Arc<CudaStream>) -> PyResult<()> {
    let consumer = match here.device_type {
        DLDeviceType::CUDA => {
            let ordinal = stream.context().ordinal();
            if usize::try_from(here.device_id) != Ok(ordinal) {
                return Err(crate::Error::from(CudaError::WrongStream {
                    stream: Device::cuda(i32::try_from(ordinal).unwrap_or(i32::MAX)),
                    device: here,
                })
                .into());
            }
            StreamArg::of(stream)
        }
        DLDeviceType::CUDA_MANAGED | DLDeviceType::CUDA_HOST => StreamArg::of(stream),
        _ => return Ok(()),
    };
    let legacy = stream.context().default_stream();
    // SAFETY: `consumer` names `stream`, a live stream we hold, or a default stream.
    unsafe { cuda::sync_for_consumer(&legacy, consumer) }?;
    Ok(())
}

#[cfg(test)]
mod tests;

mod decide;

/// Makes `device`'s primary context current until the scope drops: nothing for `None`, or
/// without a driver (no CUDA code can be reading the current context then).
fn enter_device(device: Option<Device>) -> Result<Option<Scope<'static, Cuda>>, Error> {
    let Some(device) = device else {
        return Ok(None);
    };
    if !present()? {
        return Ok(None);
    }
    Ok(Some(enter(&context(device)?)?))
}

/// The legacy default stream of `device`, or `None` without a device or a driver.
fn legacy_stream(device: Option<Device>) -> Result<Option<Arc<CudaStream>>, Error> {
    match device {
        Some(device) if present()? => Ok(Some(context(device)?.default_stream())),
        _ => Ok(None),
    }
}

/// Whether `stream` is one a copy from `from` to `to` may run on (see [`stream_on`]).
fn copy_stream_fits(stream: &CudaStream, from: Device, to: Device) -> bool {
    match stream_on(from, to) {
        Some(StreamOn::Device(device)) => {
            usize::try_from(device.device_id) == Ok(stream.context().ordinal())
        }
        Some(StreamOn::Any { .. }) | None => true,
    }
}

/// Blocks the host until the work queued on `stream` is done, restoring the thread's context.
fn synchronize(stream: &Arc<CudaStream>) -> Result<(), Error> {
    let _scope = enter(stream.context())?;
    // SAFETY: a stream we hold, of the current context.
    unsafe { Cuda.synchronize(raw_stream(stream)) }
}
