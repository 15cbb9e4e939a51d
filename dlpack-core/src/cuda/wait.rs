//! The host waiting for GPU work: before it reads pinned or managed memory in place
//! ([`sync_for_host`]), or for a stream.

use std::sync::Arc;

use cudarc::driver::{CudaStream, sys};

use super::context::{context, present};
use super::copy::{HostSync, host_sync};
use super::driver::{attribute, device_count};
use super::order::raw_stream;
use super::raw::{Cuda, Driver, RawContext, RawStream};
use super::scope::{Scope, raw_context};
use crate::Device;
use crate::error::Error;

/// Makes the host wait until the GPU work on memory on `memory` is done, before the host reads
/// (or writes) it: for `cuda_host` (pinned) and `cuda_managed` memory, which the CPU reads in
/// place. Nothing for other devices, and nothing without a driver (no GPU work can be pending).
///
/// It waits for `stream`, the stream the producer ordered its work before (the one you named to
/// its `__dlpack__`), or the legacy default stream of `cuda:{id}` (of `cuda:0` if there is no
/// such device) when `None`, the standard's default. For managed memory on a device without
/// concurrent managed access (`CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS` is 0: Windows and
/// WSL, Jetson), the host may touch managed memory only while the device runs nothing, or the
/// access faults: there it waits for the whole context, the one wait that makes the read safe
/// (and the host must not read while other work is launched meanwhile).
///
/// The context current on the calling thread before the call is current after it.
///
/// ```
/// use dlpack_core::{Device, cuda};
///
/// // Host memory needs no wait.
/// cuda::sync_for_host(Device::CPU, None)?;
/// // Managed memory: cuda:0's legacy default stream (the whole device where managed memory
/// // has no concurrent access); nothing without a driver, where no GPU work can be pending.
/// cuda::sync_for_host(Device::CUDA_MANAGED, None)?;
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub fn sync_for_host(memory: Device, stream: Option<&Arc<CudaStream>>) -> Result<(), Error> {
    if host_sync(memory, true) == HostSync::Nothing {
        return Ok(());
    }
    if !present()? {
        return Ok(());
    }
    let stream = match stream {
        Some(stream) => Arc::clone(stream),
        None => {
            let id = usize::try_from(memory.device_id).unwrap_or(0);
            let ordinal = if id < device_count()? { id } else { 0 };
            context(Device::cuda(ordinal as i32))?.default_stream()
        }
    };
    let context = stream.context();
    let concurrent = attribute(
        context,
        sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS,
    )? != 0;
    // SAFETY: the stream and its context are held.
    unsafe {
        sync_host_with(
            &Cuda,
            raw_context(context),
            raw_stream(&stream),
            host_sync(memory, concurrent),
        )
    }
}

/// [`sync_for_host`] with any driver, once decided.
///
/// # Safety
///
/// `context` is live and `stream` a live stream of it.
pub(crate) unsafe fn sync_host_with<D: Driver>(
    driver: &D,
    context: RawContext,
    stream: RawStream,
    wait: HostSync,
) -> Result<(), Error> {
    if wait == HostSync::Nothing {
        return Ok(());
    }
    // SAFETY: live, by this function's contract.
    let _scope = unsafe { Scope::enter(driver, context) }?;
    match wait {
        // SAFETY: as above.
        HostSync::Stream => unsafe { driver.synchronize(stream) },
        _ => driver.synchronize_context(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::fake::{Call, Fake};

    #[test]
    fn the_host_waits_in_the_streams_context() {
        let fake = Fake::with_current(0xd0);
        // SAFETY: the fake checks nothing.
        unsafe { sync_host_with(&fake, 0xc0, 0x5000, HostSync::Stream) }.unwrap();
        assert_eq!(
            fake.work(),
            [
                Call::SetCurrent(0xc0),
                Call::Synchronize(0x5000),
                Call::SetCurrent(0xd0)
            ]
        );
        let fake = Fake::with_current(0xc0);
        // SAFETY: as above.
        unsafe { sync_host_with(&fake, 0xc0, 0x5000, HostSync::Context) }.unwrap();
        assert_eq!(fake.work(), [Call::SynchronizeContext]);
        let fake = Fake::with_current(0xc0);
        // SAFETY: as above.
        unsafe { sync_host_with(&fake, 0xc0, 0x5000, HostSync::Nothing) }.unwrap();
        assert_eq!(fake.calls(), []);
    }
}
