//! What a Python object means as a data type or a device: the one place that decides it.
//! [`DataTypeLike`](crate::python::DataTypeLike), [`DeviceLike`](crate::python::DeviceLike), the constructors
//! of [`PyDataType`](crate::python::PyDataType) and [`PyDevice`](crate::python::PyDevice), and [`value_kind`]
//! all read through [`data_type`] and [`device`].
//!
//! Each reader tries, in this order:
//!
//! 1. The protocol: an object whose class has `__dlpack_data_type__` (for a device,
//!    `__dlpack_device__` and no `__dlpack__`), as [`protocol_kind`](crate::python::protocol_kind)
//!    decides. The method's return value is range-checked: nothing is truncated. When the
//!    method is there, it wins.
//! 2. Objects recognised by their class (`libraries.rs`): names (`str`, which is also what
//!    TVM FFI's `dtype` is), `(device_type, device_id)` tuples, TVM FFI's `Device`, and the
//!    dtypes and devices of NumPy, ml_dtypes, JAX, PyTorch and array-api-strict, which do not
//!    carry the protocol. None of those libraries is imported to recognise its objects.
//! 3. Otherwise a `TypeError` that says what was expected; a tensor gets a message of its own.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyType};

use super::classify::{AsTensor, ClassKind, ProtocolKind, as_tensor, object_kind};
use super::libraries::{self, Recognised};
use crate::DataType;
use crate::Device;
use crate::ffi::DLDataTypeCode;
use crate::python::ints::{Ints, Origin, call_protocol, check_device_pair};
use crate::python::message::{class_name, type_name};

/// What the objects read as data types are, for messages.
const DATA_TYPES: &str = "a data type name, an object whose class has __dlpack_data_type__() \
    (a PaddlePaddle dtype, for instance), or a NumPy, ml_dtypes, JAX, PyTorch or \
    array-api-strict dtype";

/// What the objects read as devices are, for messages.
const DEVICES: &str = "a device name, a (device_type, device_id) tuple, an object whose class \
    has __dlpack_device__() and no __dlpack__ (a PaddlePaddle place, for instance), or a TVM \
    FFI, JAX, PyTorch or array-api-strict device";

/// The data type `obj` stands for; see the module documentation for what is read, in which
/// order, and [`DataTypeLike`](crate::python::DataTypeLike) for the errors.
pub(crate) fn data_type(obj: &Bound<'_, PyAny>) -> PyResult<DataType> {
    let read = match object_kind(obj)? {
        ClassKind::Protocol(ProtocolKind::DataTypeObject) => return protocol_data_type(obj),
        ClassKind::Protocol(ProtocolKind::Tensor) => {
            return Err(PyTypeError::new_err(format!(
                "expected a data type, got a tensor ({}, whose class has __dlpack__); \
                 read a tensor's data type from the tensor itself",
                type_name(obj)
            )));
        }
        ClassKind::Recognised(Recognised::Name) => Some(obj.cast::<PyString>()?.to_str()?.parse()?),
        ClassKind::Recognised(library) => libraries::data_type(obj, library)?,
        ClassKind::Protocol(ProtocolKind::DeviceObject) | ClassKind::Unknown => None,
    };
    read.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "expected a data type: {DATA_TYPES}; got {}",
            what(obj)
        ))
    })
}

/// Calls `__dlpack_data_type__` and checks the triple.
fn protocol_data_type(obj: &Bound<'_, PyAny>) -> PyResult<DataType> {
    let method = intern!(obj.py(), "__dlpack_data_type__");
    let value = call_protocol(obj, method)?;
    let triple = Ints::new(&value, Origin::Returned(obj, method));
    let [code, bits, lanes] = triple.ints(
        "(code, bits, lanes)",
        [
            ("code", u8::MAX.into()),
            ("bits", u8::MAX.into()),
            ("lanes", u16::MAX.into()),
        ],
    )?;
    // The ranges were checked just above, so the casts cannot truncate.
    DataType::checked(DLDataTypeCode(code as u8), bits as u8, lanes as u16)
        .map_err(|err| triple.invalid(&err))
}

/// The device `obj` stands for; see the module documentation for what is read, in which
/// order, and [`DeviceLike`](crate::python::DeviceLike) for the errors.
pub(crate) fn device(obj: &Bound<'_, PyAny>) -> PyResult<Device> {
    let read = match object_kind(obj)? {
        ClassKind::Protocol(ProtocolKind::DeviceObject) => return protocol_device(obj),
        ClassKind::Protocol(ProtocolKind::Tensor) => {
            return Err(PyTypeError::new_err(format!(
                "expected a device, got a tensor ({}, whose class has __dlpack__); \
                 a class with __dlpack__ is a tensor, one with __dlpack_device__ alone is a device",
                type_name(obj)
            )));
        }
        ClassKind::Recognised(Recognised::Name) => Some(obj.cast::<PyString>()?.to_str()?.parse()?),
        ClassKind::Recognised(library) => libraries::device(obj, library)?,
        ClassKind::Protocol(ProtocolKind::DataTypeObject) | ClassKind::Unknown => None,
    };
    read.ok_or_else(|| {
        PyTypeError::new_err(format!("expected a device: {DEVICES}; got {}", what(obj)))
    })
}

/// What `obj` is, for messages: its class's name, or for a class, that it is one.
fn what(obj: &Bound<'_, PyAny>) -> String {
    match obj.cast::<PyType>() {
        Ok(class) => format!("the class {}", class_name(class)),
        Err(_) => type_name(obj),
    }
}

/// What a Python object is as a DLPack value, as [`value_kind`] reads it: a tensor, a data
/// type or a device, whichever protocol (or none: a name, another library's object) says so;
/// `by_protocol` says whether the object's class has the protocol method, which is all TVM
/// FFI looks at.
///
/// ```
/// use dlpack_core::python::{ValueKind, value_kind};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     assert_eq!(value_kind(&py.eval(c"'float16'", None, None)?)?, Some(ValueKind::DataTypeValue { by_protocol: false }));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// A tensor: `__dlpack__`, or a raw DLPack capsule.
    Tensor,
    /// A data type: a protocol object (`by_protocol`: its class has `__dlpack_data_type__`), a
    /// name, or another library's dtype.
    DataTypeValue {
        /// Whether its class has the protocol method, as TVM FFI decides.
        by_protocol: bool,
    },
    /// A device: a protocol object (`by_protocol`: its class has `__dlpack_device__` and no
    /// `__dlpack__`), a name, a `(device_type, device_id)` tuple, or another library's device.
    DeviceValue {
        /// Whether its class has the protocol method, as TVM FFI decides.
        by_protocol: bool,
    },
    // (Not `DataType`/`Device`, as for `ProtocolKind`: a second item of either name in the
    // crate graph makes rustc print `dlpack_core::DataType` in full in every diagnostic.)
}

/// Which kind of DLPack value `obj` is: a tensor, a data type or a device, or `None` for an
/// object that is none of them. It reads the protocol methods of the object's class, as TVM
/// FFI does, then every other object [`DataTypeLike`](crate::python::DataTypeLike) and [`DeviceLike`](crate::python::DeviceLike) read:
/// the dtypes and devices of NumPy, ml_dtypes, JAX, PyTorch and array-api-strict, TVM FFI's
/// `Device`, `(device_type, device_id)` tuples, and names: a `str` is a data type when it
/// parses as a data type name, a device when it parses as a device name (no name is both), and
/// a `ValueError` that gives both reasons when it parses as neither.
///
/// This is the dispatch of the RFC's `from_dlpack`, which takes a tensor, a data type or a
/// device. Nothing is read but the class, and for a name or a class (a NumPy scalar type) the
/// object itself; no library is imported.
///
/// ```
/// use dlpack_core::python::{ValueKind, value_kind};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let kind = |code: &std::ffi::CStr| value_kind(&py.eval(code, None, None)?);
///     assert_eq!(kind(c"'bfloat16'")?, Some(ValueKind::DataTypeValue { by_protocol: false }));
///     assert_eq!(kind(c"'cuda:1'")?, Some(ValueKind::DeviceValue { by_protocol: false }));
///     assert_eq!(kind(c"(2, 0)")?, Some(ValueKind::DeviceValue { by_protocol: false }));
///     assert_eq!(kind(c"1.5")?, None);
///     let err = kind(c"'flaot16'").unwrap_err();
///     assert!(err.to_string().contains("did you mean `float16`?"), "{err}");
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn value_kind(obj: &Bound<'_, PyAny>) -> PyResult<Option<ValueKind>> {
    kind_of_value(obj, object_kind(obj)?)
}

/// [`value_kind`] of `obj`, whose class is of kind `kind` ([`object_kind`]), for a caller that
/// has it already.
pub(crate) fn kind_of_value(
    obj: &Bound<'_, PyAny>,
    kind: ClassKind,
) -> PyResult<Option<ValueKind>> {
    Ok(match kind {
        ClassKind::Protocol(ProtocolKind::Tensor) => Some(ValueKind::Tensor),
        ClassKind::Protocol(ProtocolKind::DataTypeObject) => {
            Some(ValueKind::DataTypeValue { by_protocol: true })
        }
        ClassKind::Protocol(ProtocolKind::DeviceObject) => {
            Some(ValueKind::DeviceValue { by_protocol: true })
        }
        ClassKind::Recognised(Recognised::Name) => {
            Some(match read_name(obj.cast::<PyString>()?.to_str()?)? {
                Named::DataType(_) => ValueKind::DataTypeValue { by_protocol: false },
                Named::Device(_) => ValueKind::DeviceValue { by_protocol: false },
            })
        }
        ClassKind::Recognised(Recognised::Class) => libraries::numpy_type(obj)?
            .is_some()
            .then_some(ValueKind::DataTypeValue { by_protocol: false }),
        ClassKind::Recognised(library) if library.is_device() => {
            Some(ValueKind::DeviceValue { by_protocol: false })
        }
        ClassKind::Recognised(_) => Some(ValueKind::DataTypeValue { by_protocol: false }),
        ClassKind::Unknown => None,
    })
}

/// What a name stands for: a data type or a device (no name is both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Named {
    DataType(DataType),
    Device(Device),
}

/// What `text` names, read as a data type name and then as a device name, each without the
/// "did you mean" of a failed parse, which costs far more than the parse (and `"cuda:1"` fails
/// as a data type every time). Only a name that is neither is parsed again for the reasons, and
/// the message leads with the reading that knows what was meant: `gpu:0` is no data type, and
/// as a device it has a suggestion, `cuda:0`.
pub(crate) fn read_name(text: &str) -> PyResult<Named> {
    if let Some(parts) = dlpack_grammar::data_type_parts(text) {
        return Ok(Named::DataType(DataType::new(
            DLDataTypeCode(parts.code),
            parts.bits,
            parts.lanes,
        )));
    }
    if let Some(parts) = dlpack_grammar::device_parts(text) {
        return Ok(Named::Device(Device::new(
            crate::ffi::DLDeviceType(parts.device_type),
            parts.device_id,
        )));
    }
    Err(neither(text))
}

/// The `ValueError` for a name that is neither a data type nor a device.
#[cold]
fn neither(text: &str) -> PyErr {
    use dlpack_grammar::{DataTypeNameError, DeviceNameError};
    let (Err(data_type), Err(device)) = (text.parse::<DataType>(), text.parse::<Device>()) else {
        unreachable!("the quiet parsers refuse what the parsers refuse (a grammar test)");
    };
    let suggests = |err: &crate::Error| match err {
        crate::Error::ParseDataType {
            reason: DataTypeNameError::UnknownName { suggestion },
            ..
        } => suggestion.is_some(),
        crate::Error::ParseDevice {
            reason: DeviceNameError::UnknownName { suggestion },
            ..
        } => suggestion.is_some(),
        _ => true,
    };
    // A device first when it alone knows what was meant, or the name has an id (`mps:0`).
    let device_first = !suggests(&data_type) && (suggests(&device) || text.contains(':'));
    PyValueError::new_err(if device_first {
        format!("{device}; nor is it a data type")
    } else {
        format!("{data_type}; nor is it a device")
    })
}

/// The device a tensor lives on: what its `__dlpack_device__()` returns, checked as a device
/// object's is. A `TypeError` for an object whose class has no `__dlpack__`: a device object
/// is read with [`DeviceLike`](crate::python::DeviceLike).
///
/// ```
/// use dlpack_core::Device;
/// use dlpack_core::python::{PyDevice, read_tensor_device};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let globals = pyo3::types::PyDict::new(py);
///     py.run(
///         c"class OnGpu:\n    def __dlpack__(self, **kw): pass\n    def __dlpack_device__(self): return (2, 1)",
///         Some(&globals),
///         None,
///     )?;
///     let tensor = globals.get_item("OnGpu")?.unwrap().call0()?;
///     assert_eq!(read_tensor_device(&tensor)?, Device::cuda(1));
///     // A device object is not a tensor.
///     let device = Bound::new(py, PyDevice::from(Device::cuda(1)))?;
///     let err = read_tensor_device(device.as_any()).unwrap_err();
///     assert!(err.is_instance_of::<pyo3::exceptions::PyTypeError>(py));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn read_tensor_device(obj: &Bound<'_, PyAny>) -> PyResult<Device> {
    if let AsTensor::NotTensor = as_tensor(&obj.get_type())? {
        return Err(PyTypeError::new_err(format!(
            "expected a tensor: an object whose class has __dlpack__ and __dlpack_device__, got {}",
            type_name(obj)
        )));
    }
    protocol_device(obj)
}

/// Calls `__dlpack_device__` and checks the pair.
fn protocol_device(obj: &Bound<'_, PyAny>) -> PyResult<Device> {
    let method = intern!(obj.py(), "__dlpack_device__");
    let value = call_protocol(obj, method)?;
    check_device_pair(Ints::new(&value, Origin::Returned(obj, method)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::DLDeviceType;

    /// `value_kind` decides a name by which grammar parses it: no name may parse as both.
    #[test]
    fn no_name_is_both_a_data_type_and_a_device() {
        let codes = (0..=u8::MAX).map(DLDataTypeCode);
        let data_types = codes
            .flat_map(|code| [1, 2, 4, 6, 8, 16, 32, 64, 128].map(|bits| (code, bits)))
            .flat_map(|(code, bits)| [1, 4].map(|lanes| DataType::new(code, bits, lanes)))
            .filter(|data_type| data_type.check().is_ok())
            .map(|data_type| data_type.to_string());
        let devices = (0..64)
            .map(|device_type| Device::new(DLDeviceType(device_type), 1))
            .filter(|device| device.check().is_ok())
            .flat_map(|device| [device.to_string(), device.canonical().to_string()]);
        let mut checked = 0;
        for name in data_types.chain(devices) {
            let as_data_type = name.parse::<DataType>().is_ok();
            let as_device = name.parse::<Device>().is_ok();
            assert!(as_data_type != as_device, "`{name}`");
            checked += 1;
        }
        assert!(checked > 60, "only {checked} names");
    }
}
