//! What the CUDA test files share: finding a GPU or saying why the test skips.
#![allow(dead_code, unreachable_pub)] // each test file uses its own part

use std::ffi::c_void;
use std::io::Write as _;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use dlpack_core::Device;
use dlpack_core::cuda::cudarc::driver::{CudaContext, CudaStream, result};
use dlpack_core::cuda::{self, try_cuda_devices};

/// The first CUDA device, or `None` after printing why the calling test skips. Panics instead
/// of skipping when `DLPACK_REQUIRE_GPU=1`.
pub fn gpu(test: &str) -> Option<Device> {
    let reason = match try_cuda_devices() {
        Ok(devices) if !devices.is_empty() => return Some(devices[0]),
        Ok(_) => "the CUDA driver reports no device".to_owned(),
        Err(error) => error.to_string(),
    };
    assert!(
        std::env::var("DLPACK_REQUIRE_GPU").as_deref() != Ok("1"),
        "{test}: DLPACK_REQUIRE_GPU=1 but {reason}"
    );
    say(&format!("skipping {test}: {reason}"));
    None
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

/// The primary context of `device` and a new non-blocking stream on it.
pub fn stream(device: Device) -> (Arc<CudaContext>, Arc<CudaStream>) {
    let context = cuda::context(device).expect("primary context");
    let stream = context.new_stream().expect("cuStreamCreate");
    (context, stream)
}

/// A gate a stream can be held at: a host function enqueued on the stream blocks until the
/// test opens it, so everything queued after it on that stream, and everything made to wait
/// for it, is certainly not done until then. No timing is involved.
#[derive(Default)]
pub struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Gate {
    /// Holds `stream` at this gate.
    pub fn hold(self: &Arc<Self>, stream: &CudaStream) {
        unsafe extern "C" fn wait(data: *mut c_void) {
            // SAFETY: `data` is the `Gate` that `hold` leaked a strong count of; `open`
            // takes that count back after the stream has passed the gate.
            let gate = unsafe { &*data.cast::<Gate>() };
            let mut open = gate.open.lock().unwrap_or_else(PoisonError::into_inner);
            while !*open {
                open = gate
                    .opened
                    .wait(open)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        }
        let data = Arc::into_raw(Arc::clone(self)).cast_mut().cast::<c_void>();
        // SAFETY: `wait` calls no CUDA function, and `data` stays valid until `open`.
        unsafe { result::stream::launch_host_function(stream.cu_stream(), wait, data) }
            .expect("cuLaunchHostFunc");
    }

    /// Opens the gate and waits for `stream` to pass it.
    pub fn open(self: &Arc<Self>, stream: &CudaStream) {
        *self.open.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.opened.notify_all();
        stream.synchronize().expect("producer stream");
        // SAFETY: the strong count `hold` leaked; the host function has returned.
        drop(unsafe { Arc::from_raw(Arc::as_ptr(self)) });
    }
}
