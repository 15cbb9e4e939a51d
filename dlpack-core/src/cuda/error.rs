//! [`CudaError`]: what can go wrong in the CUDA backend.

use core::fmt;

use crate::Device;

/// What went wrong in the CUDA backend, carried by [`Error::Cuda`](crate::Error::Cuda).
///
/// Driver errors are stored as their numeric `CUresult` and the driver's own name and
/// description, so the type stays `Clone + Eq` and outlives the driver library.
///
/// ```
/// use dlpack_core::cuda::CudaError;
/// assert_eq!(
///     CudaError::NoDriver.to_string(),
///     "no CUDA driver found: libcuda could not be loaded"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CudaError {
    /// The CUDA driver library (`libcuda.so`, `nvcuda.dll`) could not be loaded.
    NoDriver,
    /// A driver call failed.
    Driver {
        /// The driver function (`"cuMemAlloc"`).
        call: &'static str,
        /// The `CUresult` it returned.
        code: u32,
        /// The driver's name for the code (`"CUDA_ERROR_OUT_OF_MEMORY"`).
        name: Box<str>,
        /// The driver's description of the code (`"out of memory"`).
        description: Box<str>,
    },
    /// A `cuda:n` device that this machine does not have.
    DeviceNotFound {
        /// The device asked for.
        device: Device,
        /// How many CUDA devices the driver reports.
        count: usize,
    },
    /// A device this backend cannot work with where a CUDA (or host) device was expected.
    UnsupportedDevice {
        /// The device.
        device: Device,
        /// What was expected, as a phrase ("a cuda:n device").
        expected: &'static str,
    },
    /// A `stream` argument of `__dlpack__` that the array API standard does not allow for a
    /// CUDA tensor.
    InvalidStream {
        /// The Python-level integer.
        stream: i128,
        /// Why it is refused.
        reason: &'static str,
    },
    /// A stream of another device than the one the work it was given for runs on (a copy, or a
    /// tensor a consumer imports).
    WrongStream {
        /// The stream's device.
        stream: Device,
        /// The device the work needs a stream of.
        device: Device,
    },
    /// `copy=False` was asked for, but the tensor is on a device that `device` cannot read.
    CopyRequired {
        /// Where the tensor is.
        from: Device,
        /// Where it was asked for.
        to: Device,
    },
}

/// A lower-case sentence naming the value and what was expected.
///
/// ```
/// use dlpack_core::{Device, cuda::CudaError};
///
/// let err = CudaError::DeviceNotFound { device: Device::cuda(2), count: 1 };
/// assert_eq!(err.to_string(), "cuda:2 does not exist: the CUDA driver reports 1 device");
/// ```
impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoDriver => f.write_str("no CUDA driver found: libcuda could not be loaded"),
            Self::Driver {
                call,
                code,
                name,
                description,
            } => write!(f, "{call} failed with {name} ({code}): {description}"),
            Self::DeviceNotFound { device, count } => write!(
                f,
                "{device} does not exist: the CUDA driver reports {count} device{}",
                if *count == 1 { "" } else { "s" }
            ),
            Self::UnsupportedDevice { device, expected } => {
                write!(f, "{device} is not supported here: expected {expected}")
            }
            Self::InvalidStream { stream, reason } => {
                write!(
                    f,
                    "stream={stream} is not allowed for a CUDA tensor: {reason}"
                )
            }
            Self::WrongStream { stream, device } => write!(
                f,
                "the stream is on {stream}, but the work it orders is on {device}: pass a stream \
                 of {device}"
            ),
            Self::CopyRequired { from, to } => write!(
                f,
                "copy=False, but a tensor on {from} cannot be used on {to} without a copy"
            ),
        }
    }
}
