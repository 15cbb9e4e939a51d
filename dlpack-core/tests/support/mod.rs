//! What the CUDA test files share: finding a GPU or saying why the test skips, the thread's
//! current context, and a gate that holds a stream.
#![allow(dead_code, unreachable_pub)] // each test file uses its own part

use std::ffi::c_void;
use std::io::Write as _;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use dlpack_core::Device;
use dlpack_core::cuda::cudarc::driver::{CudaContext, CudaStream, result, sys};
use dlpack_core::cuda::{self, try_cuda_devices};

/// Whether a missing GPU fails the test instead of skipping it.
fn required() -> bool {
    std::env::var("DLPACK_REQUIRE_GPU").as_deref() == Ok("1")
}

/// The first CUDA device, or `None` after printing why the calling test skips. Panics instead
/// of skipping when `DLPACK_REQUIRE_GPU=1`.
pub fn gpu(test: &str) -> Option<Device> {
    let reason = match try_cuda_devices() {
        Ok(devices) if !devices.is_empty() => return Some(devices[0]),
        Ok(_) => "the CUDA driver reports no device".to_owned(),
        Err(error) => error.to_string(),
    };
    assert!(!required(), "{test}: DLPACK_REQUIRE_GPU=1 but {reason}");
    say(&format!("skipping {test}: {reason}"));
    None
}

/// The first two CUDA devices, or `None` after printing why the calling test does not run:
/// skipped without a GPU (a failure with `DLPACK_REQUIRE_GPU=1`), "not run" on a machine with
/// one GPU, which no setting can change.
pub fn two_gpus(test: &str) -> Option<(Device, Device)> {
    gpu(test)?;
    let devices = cuda::cuda_devices();
    if devices.len() < 2 {
        not_run(
            test,
            &format!("needs two CUDA devices, found {}", devices.len()),
        );
        return None;
    }
    Some((devices[0], devices[1]))
}

/// Prints that `test` does not run on this machine's hardware (two GPUs where there is one):
/// not a skip that `DLPACK_REQUIRE_GPU=1` turns into a failure.
pub fn not_run(test: &str, reason: &str) {
    say(&format!("not run {test}: {reason}"));
}

/// Straight to the process's stderr, past the test harness's capture, so that it shows in a
/// plain `cargo test` run; one write, so that lines do not interleave.
fn say(line: &str) {
    let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
}

/// The primary context of `device` and a new non-blocking stream on it, made without leaving
/// the context bound to the thread.
pub fn stream(device: Device) -> (Arc<CudaContext>, Arc<CudaStream>) {
    let context = cuda::context(device).expect("primary context");
    let stream = cuda::with_current(&context, || context.new_stream())
        .expect("driver")
        .expect("cuStreamCreate");
    (context, stream)
}

/// The calling thread's current context, as the CUDA runtime (PyTorch) reads its current
/// device: `None` when none is bound.
pub fn current() -> Option<sys::CUcontext> {
    result::ctx::get_current().expect("cuCtxGetCurrent")
}

/// Binds `context` (or none) to the calling thread, as another library would.
pub fn bind(context: Option<&CudaContext>) {
    let raw = context.map_or(std::ptr::null_mut(), |context| context.cu_ctx());
    // SAFETY: null, or a context the caller holds.
    unsafe { result::ctx::set_current(raw) }.expect("cuCtxSetCurrent");
}

/// Queues `value` into `count` `u32`s at `address` on `stream`, as a kernel would write them.
///
/// # Safety
///
/// `count` `u32`s of device (or managed, or pinned) memory at `address`, alive until the
/// stream has passed the write.
pub unsafe fn write_u32(stream: &Arc<CudaStream>, address: u64, value: u32, count: usize) {
    cuda::with_current(stream.context(), || {
        // SAFETY: the caller's contract.
        unsafe { sys::cuMemsetD32Async(address, value, count, stream.cu_stream()) }.result()
    })
    .expect("driver")
    .expect("cuMemsetD32Async");
}

/// What a stream's host function and its [`Gate`] share.
#[derive(Default)]
struct State {
    open: Mutex<bool>,
    opened: Condvar,
}

impl State {
    fn open(&self) {
        *self.open.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.opened.notify_all();
    }
}

/// The host function a held stream runs: blocks until the gate opens. It owns the strong count
/// `Gate::hold` gave it, so the state lives exactly as long as both need it.
unsafe extern "C" fn wait_at_gate(data: *mut c_void) {
    // SAFETY: `data` is the count `hold` leaked for this one call.
    let state = unsafe { Arc::from_raw(data.cast::<State>().cast_const()) };
    let mut open = state.open.lock().unwrap_or_else(PoisonError::into_inner);
    while !*open {
        open = state
            .opened
            .wait(open)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// A gate a stream is held at: a host function enqueued on the stream blocks until the gate
/// opens, so everything queued after it on that stream, and everything made to wait for it,
/// is certainly not done until then. No timing is involved.
///
/// The gate opens when dropped: a failing assertion between [`hold`](Self::hold) and
/// [`open`](Self::open) unwinds through the drop, so the stream goes on and the tests after it
/// do not hang.
pub struct Gate {
    state: Arc<State>,
    stream: Arc<CudaStream>,
}

impl Gate {
    /// Holds `stream` at a new gate.
    pub fn hold(stream: &Arc<CudaStream>) -> Self {
        let state = Arc::new(State::default());
        let data = Arc::into_raw(Arc::clone(&state))
            .cast_mut()
            .cast::<c_void>();
        let launched = cuda::with_current(stream.context(), || {
            // SAFETY: `wait_at_gate` calls no CUDA function and owns the count in `data`.
            unsafe { result::stream::launch_host_function(stream.cu_stream(), wait_at_gate, data) }
        })
        .expect("driver");
        if let Err(error) = launched {
            // SAFETY: the host function was not enqueued: the count is still ours.
            drop(unsafe { Arc::from_raw(data.cast::<State>().cast_const()) });
            panic!("cuLaunchHostFunc: {error:?}");
        }
        Self {
            state,
            stream: Arc::clone(stream),
        }
    }

    /// Opens the gate and waits for the stream to pass it.
    pub fn open(self) {
        self.state.open();
        let stream = Arc::clone(&self.stream);
        drop(self);
        cuda::with_current(stream.context(), || stream.synchronize())
            .expect("driver")
            .expect("the held stream");
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.state.open();
    }
}

/// Runs `work` on another thread and returns what it returns, or `None` if it has not
/// returned after `seconds`: for checking that something blocks (or does not hang) without
/// hanging the test run.
pub fn within<T: Send + 'static>(
    seconds: u64,
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(work());
    });
    receive.recv_timeout(Duration::from_secs(seconds)).ok()
}
