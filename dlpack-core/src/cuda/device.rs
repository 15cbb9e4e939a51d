//! Device discovery: which `cuda:n` devices this machine has, and what they are.

use cudarc::driver::{result, sys};

use super::driver::{Check, device_count, ordinal};
use crate::Device;
use crate::error::Error;

/// Every CUDA device of this machine, `cuda:0` to `cuda:{n-1}` in the driver's order (which
/// `CUDA_VISIBLE_DEVICES` filters and renumbers, as it does for every CUDA program).
///
/// Empty when there is no driver, when the driver reports no device, or when it fails to
/// initialise: "which GPUs can I use" has the same answer, none, in all three cases. Call
/// [`try_cuda_devices`] to tell them apart.
///
/// ```
/// use dlpack_core::{Device, cuda::cuda_devices};
///
/// for device in cuda_devices() {
///     assert_eq!(device.device_type, Device::cuda(0).device_type);
///     println!("found {device}");
/// }
/// ```
pub fn cuda_devices() -> Vec<Device> {
    try_cuda_devices().unwrap_or_default()
}

/// Every CUDA device of this machine, or why the driver could not be asked.
///
/// `Err(Error::Cuda(CudaError::NoDriver))` when the driver library cannot be loaded, another
/// [`CudaError`](super::CudaError) when it fails to initialise, and `Ok` with an empty list
/// when it loads but reports no device.
///
/// ```
/// use dlpack_core::{Error, cuda::{CudaError, try_cuda_devices}};
///
/// match try_cuda_devices() {
///     Ok(devices) => println!("{} CUDA device(s)", devices.len()),
///     Err(Error::Cuda(CudaError::NoDriver)) => println!("no CUDA driver on this machine"),
///     Err(other) => println!("the CUDA driver failed: {other}"),
/// }
/// ```
pub fn try_cuda_devices() -> Result<Vec<Device>, Error> {
    let count = device_count()?;
    // Ordinals are `c_int`s, so a count that fits in `usize` fits in `i32` too.
    Ok((0..count)
        .map(|n| Device::cuda(i32::try_from(n).unwrap_or(i32::MAX)))
        .collect())
}

/// What the driver says about one CUDA device.
///
/// ```
/// use dlpack_core::cuda::{cuda_device_info, cuda_devices};
///
/// for device in cuda_devices() {
///     let info = cuda_device_info(device)?;
///     let (major, minor) = info.compute_capability;
///     println!("{device}: {} (sm_{major}{minor}, {} MiB)", info.name, info.total_memory >> 20);
/// }
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CudaDeviceInfo {
    /// The device, `cuda:n`.
    pub device: Device,
    /// The marketing name (`"NVIDIA H100 80GB HBM3"`).
    pub name: String,
    /// The compute capability, `(major, minor)`: `(9, 0)` is `sm_90`.
    pub compute_capability: (u32, u32),
    /// Total device memory in bytes.
    pub total_memory: usize,
}

/// The name, compute capability and memory size of a `cuda:n` device, read from the driver
/// without creating a context.
///
/// Errors: [`CudaError::UnsupportedDevice`](super::CudaError::UnsupportedDevice) for a device
/// that is not `cuda:n`, [`CudaError::DeviceNotFound`](super::CudaError::DeviceNotFound) for
/// an ordinal the machine does not have, [`CudaError::NoDriver`](super::CudaError::NoDriver)
/// without a driver.
///
/// ```
/// use dlpack_core::{Device, Error, cuda::{CudaError, cuda_device_info}};
///
/// let err = cuda_device_info(Device::CPU).unwrap_err();
/// assert_eq!(err.to_string(), "cpu is not supported here: expected a cuda:n device");
/// match cuda_device_info(Device::cuda(4096)) {
///     Err(Error::Cuda(CudaError::NoDriver | CudaError::DeviceNotFound { .. })) => {}
///     other => panic!("no machine has 4097 GPUs: {other:?}"),
/// }
/// ```
pub fn cuda_device_info(device: Device) -> Result<CudaDeviceInfo, Error> {
    let ordinal = ordinal(device)?;
    let cu_device =
        result::device::get(i32::try_from(ordinal).unwrap_or(i32::MAX)).check("cuDeviceGet")?;
    let name = result::device::get_name(cu_device).check("cuDeviceGetName")?;
    let attribute = |attribute| {
        // SAFETY: `cu_device` was just returned by `cuDeviceGet` for an ordinal below the
        // device count.
        unsafe { result::device::get_attribute(cu_device, attribute) }
            .check("cuDeviceGetAttribute")
            .map(|value| u32::try_from(value).unwrap_or(0))
    };
    let major = attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    // SAFETY: as above.
    let total_memory = unsafe { result::device::total_mem(cu_device) }.check("cuDeviceTotalMem")?;
    Ok(CudaDeviceInfo {
        device,
        name,
        compute_capability: (major, minor),
        total_memory,
    })
}
