//! CUDA memory for `dlpack_demo` (feature `cuda`).
//!
//! Every CUDA operation of the library runs on one stream per device, created on first use
//! (non-blocking, so it never waits for the legacy default stream implicitly): the library's
//! *current stream*, as PyTorch and CuPy have one. A tensor's pending work is queued there, so
//! it is the producer stream of `__dlpack__` (`DlpackRequest::cuda_capsule`) and the stream
//! `from_dlpack` names to producers (`import_tensor_on_stream`).
//!
//! Every driver call here runs inside `dlpack_core::cuda::with_current`: cudarc binds the
//! context of what it touches and leaves it bound, and PyTorch and CuPy take the thread's
//! current context for their current device. Calling into `dlpack_demo` leaves the current
//! device as it was.
//!
//! The `dlpack_demo.cuda` submodule exposes the devices, the streams and a [`Gate`] that holds
//! a stream (a host function that blocks until released), so that tests can prove that work
//! is ordered across libraries by events rather than by luck.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};

use dlpack_core::cuda::cudarc::driver::{CudaContext, CudaStream, DevicePtr, result, sys};
use dlpack_core::cuda::{self as backend, CopyMode, CudaBuffer};
use dlpack_core::python::{DeviceLike, import_tensor_on_stream};
use dlpack_core::{Device as DlDevice, ManagedTensor};
use pyo3::exceptions::{PyBufferError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyModule;

use crate::device::{Device, PyDevice};
use crate::live::Live;
use crate::tensor::Tensor;

/// `work` with `context` current, and the thread's current context restored after it.
fn bound<R>(context: &Arc<CudaContext>, work: impl FnOnce() -> R) -> PyResult<R> {
    Ok(backend::with_current(context, work)?)
}

/// The library's stream on `cuda:{ordinal}`, created on first use and kept for the life of
/// the process.
pub fn stream(ordinal: u32) -> PyResult<Arc<CudaStream>> {
    static STREAMS: OnceLock<Mutex<HashMap<u32, Arc<CudaStream>>>> = OnceLock::new();
    let mut streams = STREAMS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(stream) = streams.get(&ordinal) {
        return Ok(Arc::clone(stream));
    }
    let id = i32::try_from(ordinal)
        .map_err(|_| PyValueError::new_err(format!("cuda:{ordinal} is out of range")))?;
    let context = backend::context(DlDevice::cuda(id))?;
    let stream = bound(&context, || context.new_stream())?.map_err(dlpack_core::Error::from)?;
    streams.insert(ordinal, Arc::clone(&stream));
    Ok(stream)
}

/// The ordinal of a `cuda:n` device, or a `ValueError` naming what was expected.
fn ordinal(device: Device) -> PyResult<u32> {
    match device {
        Device::Cuda(ordinal) => Ok(ordinal),
        other => Err(PyValueError::new_err(format!(
            "expected a cuda:n device, got {}",
            other.dl_device()
        ))),
    }
}

/// A device allocation of `dlpack_demo`, freed on the library's stream when dropped.
pub struct DeviceMemory {
    /// The allocation (with its stream and context), freed when this drops.
    _buffer: CudaBuffer<u8>,
    address: u64,
    _live: Live,
}

impl DeviceMemory {
    /// `len` zero bytes on `cuda:{ordinal}` (at least one byte is allocated: the driver
    /// refuses zero), zeroed on the library's stream.
    pub fn zeroed(ordinal: u32, len: usize, live: Live) -> PyResult<Self> {
        let stream = stream(ordinal)?;
        let slice = bound(stream.context(), || stream.alloc_zeros::<u8>(len.max(1)))?
            .map_err(dlpack_core::Error::from)?;
        let address = bound(stream.context(), || slice.device_ptr(&stream).0)?;
        let buffer = CudaBuffer::new(slice, &[len.max(1)])?;
        Ok(Self {
            _buffer: buffer,
            address,
            _live: live,
        })
    }

    /// The first byte's device address.
    pub fn address(&self) -> u64 {
        self.address
    }
}

/// Sets each of `count` elements of `itemsize` bytes at `address` to `pattern`, on `stream`,
/// without waiting. Elements are compact (`itemsize` apart).
///
/// # Safety
///
/// `address` is the start of `count * itemsize` writable bytes of device memory on
/// `stream`'s device, kept alive until the work queued on `stream` is done.
pub unsafe fn fill(
    stream: &CudaStream,
    address: u64,
    count: usize,
    pattern: &[u8],
) -> PyResult<()> {
    let itemsize = pattern.len();
    if count == 0 {
        return Ok(());
    }
    let check = |result: sys::CUresult| -> PyResult<()> {
        Ok(result.result().map_err(dlpack_core::Error::from)?)
    };
    let raw = stream.cu_stream();
    bound(stream.context(), || {
        // SAFETY: (every arm) the caller's contract covers the `count * itemsize` bytes the
        // memsets write; they run on `stream` and read no host memory.
        unsafe {
            match itemsize {
                1 => check(sys::cuMemsetD8Async(address, pattern[0], count, raw)),
                2 => {
                    let value = u16::from_ne_bytes([pattern[0], pattern[1]]);
                    check(sys::cuMemsetD16Async(address, value, count, raw))
                }
                _ if itemsize % 4 == 0 => {
                    let words: Vec<u32> = pattern
                        .chunks_exact(4)
                        .map(|w| u32::from_ne_bytes([w[0], w[1], w[2], w[3]]))
                        .collect();
                    if words.iter().all(|&word| word == words[0]) {
                        // Every 32-bit word of the range is the same (any 4-byte element, and
                        // wider ones such as 0.0).
                        return check(sys::cuMemsetD32Async(
                            address,
                            words[0],
                            count * words.len(),
                            raw,
                        ));
                    }
                    // Word `k` of every element per call: `count` rows of one word, `itemsize`
                    // bytes apart.
                    for (k, &word) in words.iter().enumerate() {
                        check(sys::cuMemsetD2D32Async(
                            address + 4 * k as u64,
                            itemsize,
                            word,
                            1,
                            count,
                            raw,
                        ))?;
                    }
                    Ok(())
                }
                _ => Err(PyBufferError::new_err(format!(
                    "cannot fill elements of {itemsize} bytes on a CUDA device"
                ))),
            }
        }
    })?
}

/// Copies `len` bytes from device address `src` to `dst` on `stream`, without waiting.
///
/// # Safety
///
/// `src` and `dst` are `len` bytes of device memory on `stream`'s device (readable and
/// writable, respectively), alive until the work queued on `stream` is done.
pub unsafe fn copy(stream: &CudaStream, dst: u64, src: u64, len: usize) -> PyResult<()> {
    if len == 0 {
        return Ok(());
    }
    // SAFETY: the caller's contract.
    bound(stream.context(), || unsafe {
        result::memcpy_dtod_async(dst, src, len, stream.cu_stream())
    })?
    .map_err(dlpack_core::Error::from)?;
    Ok(())
}

/// A host copy of a tensor in CUDA memory, made on the library's stream of its device (after
/// the work queued there), released to the interpreter while it runs.
pub fn to_host(py: Python<'_>, tensor: ManagedTensor, ordinal: u32) -> PyResult<ManagedTensor> {
    let stream = stream(ordinal)?;
    Ok(py.detach(move || {
        backend::to_device(tensor, DlDevice::CPU, CopyMode::Always, Some(&stream))
    })?)
}

/// What `Gate` and its host function share.
#[derive(Default)]
struct GateState {
    open: Mutex<bool>,
    opened: Condvar,
}

impl GateState {
    fn open(&self) {
        *self.open.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.opened.notify_all();
    }
}

/// The host function a held stream runs: blocks until the gate is released.
unsafe extern "C" fn wait_at_gate(data: *mut c_void) {
    // SAFETY: `data` is the strong count that `Gate::new` leaked for this one call; taking it
    // back here frees the state once both the gate and this call are done with it. No CUDA
    // function is called, as host functions must not.
    let state = unsafe { Arc::from_raw(data.cast::<GateState>().cast_const()) };
    let mut open = state.open.lock().unwrap_or_else(PoisonError::into_inner);
    while !*open {
        open = state
            .opened
            .wait(open)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// `dlpack_demo.cuda.Gate(device="cuda:0", stream=None)`: holds a stream until released.
///
/// Everything queued on the stream after the gate, and everything made to wait for it, waits
/// until `release()` (or the end of a `with` block, or the gate's collection). `stream` is a
/// stream handle (`torch.cuda.Stream().cuda_stream`, `cupy.cuda.Stream().ptr`) of `device`,
/// or `None` for the library's own stream there. A testing aid: it proves that work crossing
/// libraries is ordered by events, without timing anything.
#[pyclass(module = "dlpack_demo.cuda", frozen)]
pub struct Gate {
    state: Arc<GateState>,
    handle: usize,
}

#[pymethods]
impl Gate {
    #[new]
    #[pyo3(signature = (device = None, stream = None))]
    fn new(device: Option<DeviceLike<Device>>, stream: Option<usize>) -> PyResult<Self> {
        let ordinal = ordinal(device.map_or(Device::Cuda(0), |d| d.0))?;
        let ours = self::stream(ordinal)?;
        let handle = stream.unwrap_or_else(|| ours.cu_stream().expose_provenance());
        let state = Arc::new(GateState::default());
        let data = Arc::into_raw(Arc::clone(&state))
            .cast_mut()
            .cast::<c_void>();
        // SAFETY: the handle is the library's live stream, or a live stream of `device` that
        // the caller passed (the promise `__dlpack__(stream=…)` asks of its callers too);
        // `wait_at_gate` calls no CUDA function and owns the strong count in `data`.
        let launched = bound(ours.context(), || unsafe {
            result::stream::launch_host_function(
                core::ptr::with_exposed_provenance_mut(handle),
                wait_at_gate,
                data,
            )
        })?;
        if let Err(err) = launched {
            // SAFETY: the host function was not enqueued, so the count is still ours.
            drop(unsafe { Arc::from_raw(data.cast::<GateState>().cast_const()) });
            return Err(dlpack_core::Error::from(err).into());
        }
        Ok(Self { state, handle })
    }

    /// Lets the stream go on. Releasing twice does nothing.
    fn release(&self) {
        self.state.open();
    }

    /// The handle of the stream it holds.
    #[getter]
    fn stream(&self) -> usize {
        self.handle
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.release();
        false
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        // A gate nobody released must not hold its stream forever.
        self.state.open();
    }
}

/// Adds the `dlpack_demo.cuda` submodule to `parent`.
pub fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = parent.py();
    let module = PyModule::new(py, "cuda")?;
    module.add_class::<Gate>()?;
    module.add_function(wrap_pyfunction!(devices, &module)?)?;
    module.add_function(wrap_pyfunction!(unavailable, &module)?)?;
    module.add_function(wrap_pyfunction!(stream_handle, &module)?)?;
    module.add_function(wrap_pyfunction!(stream_done, &module)?)?;
    module.add_function(wrap_pyfunction!(synchronize, &module)?)?;
    module.add_function(wrap_pyfunction!(from_dlpack_on, &module)?)?;
    parent.add_submodule(&module)?;
    // `import dlpack_demo.cuda` finds it too.
    py.import("sys")?
        .getattr("modules")?
        .set_item("dlpack_demo.cuda", &module)?;
    Ok(())
}

/// `devices()`: the CUDA devices of this machine (empty without a driver or a device).
#[pyfunction]
fn devices() -> Vec<PyDevice> {
    backend::cuda_devices()
        .into_iter()
        .filter_map(|device| u32::try_from(device.device_id).ok())
        .map(|ordinal| PyDevice(Device::Cuda(ordinal)))
        .collect()
}

/// `unavailable()`: why this machine has no CUDA device for `dlpack_demo` ("no CUDA driver
/// found: …"), or `None` when it has one.
#[pyfunction]
fn unavailable() -> Option<String> {
    match backend::try_cuda_devices() {
        Ok(devices) if !devices.is_empty() => None,
        Ok(_) => Some("the CUDA driver reports no device".to_owned()),
        Err(err) => Some(err.to_string()),
    }
}

/// `stream(device="cuda:0")`: the handle of the library's stream on `device`, the stream
/// `from_dlpack` names to producers and tensors' work is queued on.
#[pyfunction]
#[pyo3(name = "stream", signature = (device = None))]
fn stream_handle(device: Option<DeviceLike<Device>>) -> PyResult<usize> {
    let stream = stream(ordinal(device.map_or(Device::Cuda(0), |d| d.0))?)?;
    Ok(stream.cu_stream().expose_provenance())
}

/// `stream_done(device="cuda:0")`: whether everything queued on the library's stream on
/// `device` has run (`cuStreamQuery`), without waiting.
#[pyfunction]
#[pyo3(signature = (device = None))]
fn stream_done(device: Option<DeviceLike<Device>>) -> PyResult<bool> {
    let stream = stream(ordinal(device.map_or(Device::Cuda(0), |d| d.0))?)?;
    // SAFETY: the library's stream, alive for the life of the process.
    match bound(stream.context(), || unsafe {
        sys::cuStreamQuery(stream.cu_stream())
    })? {
        sys::CUresult::CUDA_SUCCESS => Ok(true),
        sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        other => Err(dlpack_core::Error::from(result::DriverError(other)).into()),
    }
}

/// `synchronize(device="cuda:0")`: waits for the library's stream on `device` (and nothing
/// else), with the interpreter released.
#[pyfunction]
#[pyo3(signature = (device = None))]
fn synchronize(py: Python<'_>, device: Option<DeviceLike<Device>>) -> PyResult<()> {
    let stream = stream(ordinal(device.map_or(Device::Cuda(0), |d| d.0))?)?;
    py.detach(move || bound(stream.context(), || stream.synchronize()))?
        .map_err(dlpack_core::Error::from)?;
    Ok(())
}

/// `from_dlpack(x, stream, device=None, copy=None)`: `from_dlpack` for a consumer working on
/// `stream` of `device`'s (default `cuda:0`): `1` its legacy default stream, `2` its per-thread
/// default stream, or a stream handle of that device (`torch.cuda.Stream().cuda_stream`). The
/// tensor is held by the library as any import; the stream only decides what the producer is
/// asked for and where the consumer's copies run. A testing aid for the stream rule.
#[pyfunction]
#[pyo3(name = "from_dlpack", signature = (x, stream, device = None, copy = None))]
fn from_dlpack_on(
    x: &Bound<'_, PyAny>,
    stream: usize,
    device: Option<DeviceLike<Device>>,
    copy: Option<bool>,
) -> PyResult<Tensor> {
    let ordinal = ordinal(device.map_or(Device::Cuda(0), |d| d.0))?;
    let id = i32::try_from(ordinal)
        .map_err(|_| PyValueError::new_err(format!("cuda:{ordinal} is out of range")))?;
    let context = backend::context(DlDevice::cuda(id))?;
    let stream = match stream {
        0 => {
            return Err(PyValueError::new_err(
                "stream=0 is ambiguous: pass 1 (legacy default), 2 (per-thread default) or a \
                 stream handle",
            ));
        }
        1 => context.default_stream(),
        2 => context.per_thread_stream(),
        // SAFETY: the caller passes a live stream of this device, the promise
        // `__dlpack__(stream=…)` asks of its callers too; the wrapper does not destroy it.
        handle => unsafe {
            context.wrap_borrowed_stream(core::ptr::with_exposed_provenance_mut(handle))
        },
    };
    Tensor::import(import_tensor_on_stream(x, None, copy, &stream)?)
}
