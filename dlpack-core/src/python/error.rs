//! How [`Error`] becomes a Python exception.

use pyo3::PyErr;
#[cfg(feature = "cuda")]
use pyo3::exceptions::PyRuntimeError;
use pyo3::exceptions::{PyBufferError, PyValueError};

use crate::error::Error;

/// A tensor refused on import or export ([`Error::Tensor`]) is a `BufferError`, what the array
/// API standard raises when data cannot be exchanged. Every other [`Error`] is about a value —
/// a name that does not parse, a triple or pair DLPack does not allow, a value a type has no
/// DLPack equivalent for, an id that does not fit — and is a `ValueError`: the argument had
/// the right type and the wrong value. With feature `cuda`, a CUDA error that refuses an
/// exchange (a copy that `copy=False` forbids, a device this backend cannot serve) is a
/// `BufferError`, a bad `stream` argument a `ValueError`, and a failing or missing driver a
/// `RuntimeError`. The message is the error's `Display`.
///
/// ```
/// use dlpack_core::DataType;
/// use pyo3::{PyErr, exceptions::PyValueError};
///
/// let err = "flaot32".parse::<DataType>().unwrap_err();
/// # pyo3::Python::initialize();
/// pyo3::Python::attach(|py| {
///     let err = PyErr::from(err);
///     assert!(err.is_instance_of::<PyValueError>(py));
///     assert!(err.to_string().contains("did you mean `float32`?"));
/// });
/// ```
impl From<Error> for PyErr {
    fn from(err: Error) -> Self {
        match err {
            Error::ParseDataType { .. }
            | Error::ParseDevice { .. }
            | Error::InvalidDataType { .. }
            | Error::InvalidDevice { .. }
            | Error::NoDataType { .. }
            | Error::NoDevice { .. }
            | Error::UnsupportedDataType { .. }
            | Error::UnsupportedDevice { .. }
            | Error::DeviceIdOutOfRange { .. }
            | Error::Message(_) => PyValueError::new_err(err.to_string()),
            Error::Tensor(_) => PyBufferError::new_err(err.to_string()),
            #[cfg(feature = "cuda")]
            Error::Cuda(ref cuda) => cuda_error(cuda, err.to_string()),
        }
    }
}

/// A `BufferError` carrying `err`'s message, whatever its kind: what a failure to export or
/// import a tensor is in Python, as the array API standard has it.
pub(crate) fn buffer_error(err: Error) -> PyErr {
    PyBufferError::new_err(err.to_string())
}

#[cfg(feature = "cuda")]
fn cuda_error(error: &crate::cuda::CudaError, message: String) -> PyErr {
    use crate::cuda::CudaError;
    match error {
        CudaError::CopyRequired { .. } | CudaError::UnsupportedDevice { .. } => {
            PyBufferError::new_err(message)
        }
        CudaError::InvalidStream { .. } | CudaError::WrongStream { .. } => {
            PyValueError::new_err(message)
        }
        _ => PyRuntimeError::new_err(message),
    }
}
