//! The driver guard: every entry point of the backend goes through [`driver`] first, so a
//! machine without `libcuda` gets [`CudaError::NoDriver`] instead of cudarc's panic.

use std::sync::OnceLock;

use cudarc::driver::{CudaContext, DriverError, result, sys};

use crate::Device;
use crate::cuda::error::CudaError;
use crate::error::Error;
use crate::ffi::DLDeviceType;

/// Whether the driver library loads and `cuInit` succeeded, decided once per process.
///
/// `Ok(false)` means the driver is there but has no device (`CUDA_ERROR_NO_DEVICE`): discovery
/// reports that as an empty list, every other entry point as an error naming the device.
fn state() -> &'static Result<bool, CudaError> {
    static STATE: OnceLock<Result<bool, CudaError>> = OnceLock::new();
    STATE.get_or_init(|| {
        // SAFETY: `is_culib_present` only opens (and closes) the driver library by its usual
        // names; it calls no symbol, so nothing can be called on a library that is absent.
        if !unsafe { sys::is_culib_present() } {
            return Err(CudaError::NoDriver);
        }
        match result::init() {
            Ok(()) => Ok(true),
            Err(DriverError(sys::CUresult::CUDA_ERROR_NO_DEVICE)) => Ok(false),
            Err(error) => Err(driver_error("cuInit", error)),
        }
    })
}

/// `Ok(true)` when the driver is loaded and initialised with at least one device, `Ok(false)`
/// when it is loaded but reports no device, and the reason otherwise.
pub(crate) fn driver() -> Result<bool, Error> {
    state().clone().map_err(Error::Cuda)
}

/// A driver error as [`CudaError::Driver`], with the driver's name and description of the code.
pub(crate) fn driver_error(call: &'static str, error: DriverError) -> CudaError {
    let text = |s: Result<&core::ffi::CStr, DriverError>| -> Box<str> {
        match s {
            Ok(s) => s.to_string_lossy().into(),
            Err(_) => "unknown error".into(),
        }
    };
    CudaError::Driver {
        call,
        code: error.0 as u32,
        name: text(error.error_name()),
        description: text(error.error_string()),
    }
}

/// A failed cudarc call, so that `?` works on cudarc results in code that returns this
/// crate's [`Error`]. The driver function is not known here, so the error names none.
///
/// ```
/// use dlpack_core::{Device, Error, cuda};
///
/// fn streams() -> Result<usize, Error> {
///     let context = cuda::context(Device::cuda(0))?;
///     let _stream = context.new_stream()?; // a cudarc `DriverError` converts
///     Ok(1)
/// }
/// // Without a GPU the first `?` returns the reason.
/// let _ = streams();
/// ```
impl From<DriverError> for Error {
    fn from(error: DriverError) -> Self {
        Self::Cuda(driver_error("a CUDA driver call", error))
    }
}

/// Maps a cudarc result to this crate's error, naming the driver call.
pub(crate) trait Check<T> {
    /// `Err(Error::Cuda(CudaError::Driver { call, .. }))` on failure.
    fn check(self, call: &'static str) -> Result<T, Error>;
}

impl<T> Check<T> for Result<T, DriverError> {
    fn check(self, call: &'static str) -> Result<T, Error> {
        self.map_err(|e| Error::Cuda(driver_error(call, e)))
    }
}

/// The number of CUDA devices, after the guard.
pub(crate) fn device_count() -> Result<usize, Error> {
    if !driver()? {
        return Ok(0);
    }
    let count = result::device::get_count().check("cuDeviceGetCount")?;
    Ok(usize::try_from(count).unwrap_or(0))
}

/// The ordinal of a `cuda:n` device that exists, or the error saying why not.
pub(crate) fn ordinal(device: Device) -> Result<usize, Error> {
    if device.device_type != DLDeviceType::CUDA {
        return Err(CudaError::UnsupportedDevice {
            device,
            expected: "a cuda:n device",
        }
        .into());
    }
    let count = device_count()?;
    match usize::try_from(device.device_id) {
        Ok(n) if n < count => Ok(n),
        _ => Err(CudaError::DeviceNotFound { device, count }.into()),
    }
}

/// A device attribute of a context's device, read without cudarc's `check_err` (which would
/// take an error recorded by an earlier drop for this call's).
pub(crate) fn attribute(
    context: &CudaContext,
    attribute: sys::CUdevice_attribute,
) -> Result<i32, Error> {
    // SAFETY: the device of a live context.
    unsafe { result::device::get_attribute(context.cu_device(), attribute) }
        .check("cuDeviceGetAttribute")
}

/// The `cuda:n` device of a context.
pub(crate) fn device_of(context: &CudaContext) -> Device {
    Device::cuda(i32::try_from(context.ordinal()).unwrap_or(i32::MAX))
}
