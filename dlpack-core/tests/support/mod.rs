//! What the CUDA test files share: finding a GPU or saying why the test skips.
#![allow(dead_code, unreachable_pub)] // each test file uses its own part

use std::io::Write as _;
use std::sync::Arc;

use dlpack_core::Device;
use dlpack_core::cuda::cudarc::driver::{CudaContext, CudaStream};
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
