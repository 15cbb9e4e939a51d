//! How [`Error`] becomes a Python exception.

use pyo3::PyErr;
#[cfg(feature = "cuda")]
use pyo3::exceptions::PyRuntimeError;
use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};

use crate::error::{Error, TensorError};
use crate::python::message::a_or_an;

/// A tensor refused on import or export ([`Error::Tensor`]) is a `BufferError`, what the array
/// API standard raises when data cannot be exchanged. Every other [`Error`] is about a value —
/// a name that does not parse, a triple or pair DLPack does not allow, a value a type has no
/// DLPack equivalent for, an id that does not fit — and is a `ValueError`: the argument had
/// the right type and the wrong value. With feature `cuda`, a CUDA error that refuses an
/// exchange (a copy that `copy=False` forbids, a device this backend cannot serve) is a
/// `BufferError`, a bad `stream` argument a `ValueError`, and a failing or missing driver a
/// `RuntimeError`.
///
/// The message is the error's `Display` in Python's terms: a Rust type is named by its own
/// name, which is its `#[pyclass]`'s unless renamed (`DType`, not `mini::dtype::DType`), and a
/// tensor of the wrong data type says which one was expected (`expected a float32 tensor, got
/// float64`), not which Rust type reads it. A protocol class's generated methods name the
/// class exactly, module and all (`mini.DType`).
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
        let message = python_message(&err);
        exception(&err, message)
    }
}

/// The exception of `err`'s class (see `From<Error> for PyErr`) carrying `message`.
fn exception(err: &Error, message: String) -> PyErr {
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
        | Error::Message(_) => PyValueError::new_err(message),
        // A kernel dispatched on a value it has no type for: the value is of the wrong type.
        Error::NoElement { .. } => PyTypeError::new_err(message),
        Error::Tensor(_) => PyBufferError::new_err(message),
        // The source's class, with the names in front of its message.
        Error::Argument { source, .. } => exception(source, message),
        #[cfg(feature = "cuda")]
        Error::Cuda(cuda) => cuda_error(cuda, message),
    }
}

/// A `BufferError` carrying `err`'s message, whatever its kind: what a failure to export or
/// import a tensor is in Python, as the array API standard has it.
pub(crate) fn buffer_error(err: Error) -> PyErr {
    PyBufferError::new_err(python_message(&err))
}

impl Error {
    /// This error as the `BufferError` that a tensor's import or export raises, whatever its
    /// kind, with its message in Python's terms (a Rust type named by its own name, as
    /// `From<Error> for PyErr` names it): for a tensor class whose import meets a data type or
    /// device it has no value for, which `?` would make a `ValueError` (the right exception for
    /// `DType("float64")`, the wrong one for a tensor that cannot be imported). Feature `pyo3`.
    ///
    /// ```
    /// use dlpack_core::{DataType, DlpackDataType, Error};
    /// use pyo3::exceptions::PyBufferError;
    ///
    /// #[derive(Debug, DlpackDataType)]
    /// enum DType {
    ///     #[dlpack("float32")]
    ///     F32,
    /// }
    ///
    /// # pyo3::Python::initialize();
    /// pyo3::Python::attach(|py| {
    ///     // The data type of a tensor being imported, which DType lacks.
    ///     let err = DType::from_dlpack_data_type(DataType::F64).map_err(Error::into_buffer_error).unwrap_err();
    ///     assert!(err.is_instance_of::<PyBufferError>(py));
    ///     assert!(err.to_string().starts_with("BufferError: DType has no DLPack data type for float64"), "{err}");
    /// });
    /// ```
    pub fn into_buffer_error(self) -> PyErr {
        buffer_error(self)
    }
}

/// `err`'s message for a Python user: [`value_message`] with the Rust type's own name, the
/// tensor errors that name a Rust type in Python's words, and `Display` for the rest.
fn python_message(err: &Error) -> String {
    let named = match err {
        Error::NoDataType { type_name, .. }
        | Error::NoDevice { type_name, .. }
        | Error::UnsupportedDataType { type_name, .. }
        | Error::UnsupportedDevice { type_name, .. }
        | Error::DeviceIdOutOfRange { type_name, .. }
        | Error::NoElement { type_name, .. } => value_message(err, &own_name(type_name)),
        Error::Argument {
            function,
            argument,
            source,
        } => Some(format!(
            "{function}(): argument '{argument}': {}",
            python_message(source)
        )),
        Error::Tensor(TensorError::DataTypeMismatch {
            dtype, requested, ..
        }) => Some(format!(
            "expected {} {requested} tensor, got {dtype}",
            a_or_an(&requested.to_string())
        )),
        Error::Tensor(TensorError::Misaligned { address, align, .. }) => Some(format!(
            "data + byte_offset is {address:#x}, which is not aligned to {align} bytes, as the \
             tensor's elements must be to be read in place"
        )),
        _ => None,
    };
    named.unwrap_or_else(|| err.to_string())
}

/// The message of an error about a value of a type (no DLPack value for it, no value for a
/// DLPack value, an id out of range), naming the type `class`; `None` for every other error.
pub(crate) fn value_message(err: &Error, class: &str) -> Option<String> {
    Some(match err {
        Error::NoDataType { value, .. } => format!("{class}.{value} has no DLPack data type"),
        Error::NoDevice { value, .. } => format!("{class}.{value} has no DLPack device"),
        Error::UnsupportedDataType {
            data_type,
            supported,
            ..
        } => format!(
            "{class} has no DLPack data type for {data_type}; it supports: {}",
            list(supported)
        ),
        Error::UnsupportedDevice {
            device, supported, ..
        } => format!(
            "{class} has no DLPack device for {device}; it supports: {}",
            list(supported)
        ),
        Error::DeviceIdOutOfRange { id, min, max, .. } => {
            format!("device id {id} is out of range for {class}: expected {min} to {max}")
        }
        Error::NoElement {
            variant,
            data_type,
            handled,
            ..
        } => {
            let value = match (variant, data_type) {
                (Some(variant), Some(data_type)) => {
                    format!("{class}.{variant} ({data_type}) has no Rust element type")
                }
                (Some(variant), None) => format!("{class}.{variant} has no DLPack data type"),
                (None, Some(data_type)) => format!("{data_type} has no Rust element type"),
                (None, None) => "the value has no Rust element type".to_owned(),
            };
            let mut seen: Vec<crate::DataType> = Vec::new();
            for data_type in handled.iter().flatten() {
                if !seen.contains(data_type) {
                    seen.push(*data_type);
                }
            }
            format!(
                "{value}; a dispatch over {class} runs kernels on {}",
                list(&seen)
            )
        }
        _ => return None,
    })
}

/// A type as Python users know it. Another crate's type, read through a `remote` mirror, has
/// an absolute path (`::candle_core::DType`) and is named by it, as a module path:
/// `candle_core.DType`, since it is no class of the extension. Any other is the extension's
/// own type, named by its own name without the paths `core::any::type_name` writes in it:
/// `mini::dtype::DType` is `DType` (its `#[pyclass]` name unless renamed),
/// `alloc::vec::Vec<mini::DType>` is `Vec<DType>`.
fn own_name(type_name: &str) -> String {
    if let Some(path) = type_name.strip_prefix("::") {
        return path.replace("::", ".");
    }
    let mut name = String::with_capacity(type_name.len());
    let mut segment = String::new();
    let mut chars = type_name.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            segment.clear();
        } else if c.is_alphanumeric() || c == '_' {
            segment.push(c);
        } else {
            name.push_str(&segment);
            segment.clear();
            name.push(c);
        }
    }
    name.push_str(&segment);
    name
}

fn list<T: core::fmt::Display>(items: &[T]) -> String {
    if items.is_empty() {
        return "nothing".to_owned();
    }
    let names: Vec<String> = items.iter().map(ToString::to_string).collect();
    names.join(", ")
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

#[cfg(test)]
mod tests {
    use super::{own_name, python_message};
    use crate::error::{Error, TensorError};
    use crate::{DataType, Device};

    #[test]
    fn a_rust_type_is_named_by_its_own_name() {
        assert_eq!(own_name("mini::dtype::DType"), "DType");
        assert_eq!(own_name("DType"), "DType");
        assert_eq!(
            own_name("alloc::vec::Vec<mini::dtype::DType>"),
            "Vec<DType>"
        );
        assert_eq!(
            own_name("core::option::Option<(a::B, c::D)>"),
            "Option<(B, D)>"
        );
        // Another crate's type, through a `remote` mirror: its path, as a Python module path.
        assert_eq!(own_name("::candle_core::DType"), "candle_core.DType");
    }

    #[test]
    fn a_foreign_type_is_named_by_its_path_in_python_and_in_rust() {
        let err = Error::UnsupportedDataType {
            type_name: "::candle_core::DType",
            data_type: DataType::BOOL,
            supported: Box::new([DataType::U8]),
        };
        assert_eq!(
            python_message(&err),
            "candle_core.DType has no DLPack data type for bool; it supports: uint8"
        );
        assert_eq!(
            err.to_string(),
            "candle_core::DType has no DLPack data type for bool; it supports: uint8"
        );
    }

    #[test]
    fn value_errors_name_the_type_as_python_does() {
        let err = Error::UnsupportedDataType {
            type_name: "mini::dtype::DType",
            data_type: DataType::F64,
            supported: Box::new([DataType::F32, DataType::BF16]),
        };
        assert_eq!(
            python_message(&err),
            "DType has no DLPack data type for float64; it supports: float32, bfloat16"
        );
        let err = Error::NoDevice {
            type_name: "mini::Place",
            value: "Opaque",
        };
        assert_eq!(python_message(&err), "Place.Opaque has no DLPack device");
        let err = Error::DeviceIdOutOfRange {
            type_name: "mini::Where",
            id: -1,
            min: 0,
            max: 255,
        };
        assert_eq!(
            python_message(&err),
            "device id -1 is out of range for Where: expected 0 to 255"
        );
    }

    #[test]
    fn a_tensor_of_the_wrong_data_type_says_what_was_expected() {
        let err = Error::Tensor(TensorError::DataTypeMismatch {
            dtype: DataType::F64,
            type_name: "f32",
            requested: DataType::F32,
        });
        assert_eq!(
            python_message(&err),
            "expected a float32 tensor, got float64"
        );
        // Every other error is its `Display`.
        let err = Error::UnsupportedDevice {
            type_name: "x::Y",
            device: Device::cuda(0),
            supported: Box::new([]),
        };
        assert_eq!(
            python_message(&err),
            "Y has no DLPack device for cuda:0; it supports: nothing"
        );
        let err = Error::Tensor(TensorError::NullPointer);
        assert_eq!(python_message(&err), err.to_string());
    }
}
