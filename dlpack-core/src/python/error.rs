//! How [`Error`] becomes a Python exception.

use pyo3::PyErr;
use pyo3::exceptions::PyValueError;

use crate::error::Error;

/// Every [`Error`] about a value — a name that does not parse, a triple or pair DLPack does not
/// allow, a value a type has no DLPack equivalent for, an id that does not fit — is a
/// `ValueError`: the argument had the right type and the wrong value. The message is the
/// error's `Display`.
///
/// Tensor exchange maps the errors it meets to `BufferError` itself, where the array API
/// standard asks for it (a device it cannot serve, a copy it may not make).
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
        }
    }
}
