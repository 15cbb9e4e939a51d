//! The stream rule of `__dlpack__` for CUDA tensors (features `pyo3` and `cuda`): a producer
//! makes its pending work visible on the stream the consumer names, and a consumer names the
//! stream it will use the tensor on. See the module documentation of [`python`](super),
//! section "CUDA tensors and streams".

use std::sync::Arc;

use pyo3::exceptions::PyBufferError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use super::protocol::read_tensor_device;
use super::request::{DlpackRequest, Export};
use super::tensor::{buffer_error, settle, take_tensor};
use crate::ManagedTensor;
use crate::cuda::cudarc::driver::CudaStream;
use crate::cuda::exchange::{self, Own};
use crate::cuda::{self, CopyMode, CudaError, ReleaseAfter, StreamArg, Synced};
use crate::device::Device;
use crate::ffi::DLDeviceType;
use crate::tensor::{Flags, TensorOwner};

impl DlpackRequest {
    /// The `stream` argument read as CUDA reads it ([`StreamArg::from_python`]): `None` and
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
    /// use dlpack_core::python::{DlpackRequest, capsule_tensor};
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
        mut owner: O,
        producer: &Arc<CudaStream>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let (device, read_only) = {
            let parts = owner.describe();
            (parts.device(), parts.flags().contains(Flags::READ_ONLY))
        };
        let (export, consumer) = self.cuda_plan(device, read_only)?;
        check_producer(device, producer)?;
        let tensor = match export {
            Export::Share => {
                // SAFETY: a handle in `consumer` is a live stream on the tensor's device (our
                // contract).
                unsafe { cuda::sync_for_consumer(producer, consumer) }?;
                let owner = ReleaseAfter::new(owner, Arc::clone(producer), consumer);
                ManagedTensor::from_owner(owner).map_err(buffer_error)?
            }
            Export::Copy(target) if target == Device::CPU => {
                let tensor = ManagedTensor::from_owner(owner).map_err(buffer_error)?;
                // On the producer's stream, after its pending work; complete when it returns.
                let producer = Arc::clone(producer);
                py.detach(move || {
                    cuda::to_device(tensor, target, CopyMode::Always, Some(&producer))
                })?
            }
            Export::Copy(_) => {
                let tensor = ManagedTensor::from_owner(owner).map_err(buffer_error)?;
                let copy = cuda::copy_queued(tensor, producer, consumer)?;
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

/// [`from_dlpack`](super::from_dlpack) for a consumer that works on `stream`: the producer of
/// a tensor in CUDA memory is asked for it with `stream=<stream's handle>`
/// ([`StreamArg::of`]`(stream).to_python()`), so that it orders its pending work before
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
/// use dlpack_core::python::{from_dlpack_on_stream, versioned_capsule};
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

/// [`from_dlpack`](super::from_dlpack) with feature `cuda`: asks as [`exchange::ask`] decides,
/// with the source's device current around `__dlpack__`, then orders, waits and copies as the
/// consumer must.
pub(crate) fn import(
    obj: &Bound<'_, PyAny>,
    device: Option<Device>,
    copy: Option<bool>,
    stream: Option<&Arc<CudaStream>>,
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
    let ask = exchange::ask(known, device, copy, own)?;
    let imported = {
        // PyTorch exports only tensors of the current device, and records its event on the
        // current device's stream: the source's, for the call, and the caller's again after.
        let _current = cuda::context::enter_device(ask.device)?;
        take_tensor(
            obj,
            ask.dl_device,
            ask.copy,
            ask.stream.map(StreamArg::to_python),
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
        _ if ask.stream.is_some() => cuda::context::legacy_stream(ask.device)?,
        _ => None,
    };
    if exchange::host_reads(here, device, copy, stream.is_some()) {
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
        let fits = |stream: &Arc<CudaStream>| cuda::copy_stream_fits(stream, here, target);
        let stream = if here.device_type == DLDeviceType::CPU {
            preferred.filter(fits)
        } else {
            match named {
                Some(named) if fits(&named) => Some(named),
                Some(named) => {
                    cuda::synchronize(&named)?;
                    None
                }
                None => None,
            }
        };
        cuda::to_device(imported, target, mode, stream.as_ref())
    })?)
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
