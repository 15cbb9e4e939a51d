//! The contexts of the devices: one per device for the life of the process, and the device
//! made current around work of another library.

use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::CudaContext;

use super::driver::{Check, driver, driver_error, ordinal};
use super::scope::preserve;
use crate::Device;
use crate::cuda::error::CudaError;
use crate::error::Error;

/// The primary context of a `cuda:n` device: the one CUDA runtime users (PyTorch, CuPy, JAX)
/// share, so pointers and streams exchanged with them belong to it.
///
/// One [`CudaContext`] per device for the life of the process, handed out again on every call:
/// cudarc keeps per-object state (how many streams were made, errors recorded in drops), and a
/// fresh object per call would synchronise the whole device on its first `new_stream` and lose
/// the errors of earlier releases. Those errors are reported here instead: when a drop on this
/// device failed since the last call (freeing an allocation, destroying an event or stream),
/// this call returns that error once, with the driver's code, and the next one succeeds.
///
/// The context is not left current on the calling thread (see [`with_current`](super::with_current)).
///
/// ```
/// use dlpack_core::{Device, Error, cuda::{self, CudaError}};
///
/// match cuda::context(Device::cuda(0)) {
///     Ok(context) => {
///         assert_eq!(context.ordinal(), 0);
///         // The same object every time.
///         assert!(std::sync::Arc::ptr_eq(&context, &cuda::context(Device::cuda(0))?));
///     }
///     Err(Error::Cuda(CudaError::NoDriver | CudaError::DeviceNotFound { .. })) => {
///         eprintln!("no CUDA device here");
///     }
///     Err(other) => return Err(other),
/// }
/// // Not a CUDA device at all:
/// assert!(cuda::context(Device::CPU).is_err());
/// # Ok::<(), Error>(())
/// ```
pub fn context(device: Device) -> Result<Arc<CudaContext>, Error> {
    let ordinal = ordinal(device)?;
    let context = cached(ordinal)?;
    context.check_err().map_err(|error| {
        Error::Cuda(driver_error(
            "an earlier release on this device (a deleter's cuMemFreeAsync, cuEventDestroy or \
             cuStreamDestroy)",
            error,
        ))
    })?;
    Ok(context)
}

/// The context of `cuda:{ordinal}` (an ordinal the driver reports), made on first use.
pub(crate) fn cached(ordinal: usize) -> Result<Arc<CudaContext>, Error> {
    static CONTEXTS: Mutex<Vec<Option<Arc<CudaContext>>>> = Mutex::new(Vec::new());
    let mut contexts = CONTEXTS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(Some(context)) = contexts.get(ordinal) {
        return Ok(Arc::clone(context));
    }
    // `CudaContext::new` makes the new context current: undone when the scope drops.
    let _scope = preserve()?;
    let context = CudaContext::new(ordinal).check("cuDevicePrimaryCtxRetain")?;
    if contexts.len() <= ordinal {
        contexts.resize(ordinal + 1, None);
    }
    contexts[ordinal] = Some(Arc::clone(&context));
    Ok(context)
}

/// Whether a driver with a device is there: `false` without a driver or device, an error for
/// a driver that fails to initialise.
pub(crate) fn present() -> Result<bool, Error> {
    match driver() {
        Err(Error::Cuda(CudaError::NoDriver)) => Ok(false),
        other => other,
    }
}
