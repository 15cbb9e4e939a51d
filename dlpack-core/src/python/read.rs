//! What a Python object means as a data type or a device: the one place that decides it.
//! [`DataTypeLike`](super::DataTypeLike), [`DeviceLike`](super::DeviceLike) and the
//! constructors of [`PyDataType`](super::PyDataType) and [`PyDevice`](super::PyDevice) all
//! read through [`data_type`] and [`device`].
//!
//! Each reader tries, in this order:
//!
//! 1. The protocol: an object whose class has `__dlpack_data_type__` (for a device,
//!    `__dlpack_device__` and no `__dlpack__`), as [`protocol_kind`] decides. The method's
//!    return value is range-checked: nothing is truncated. When the method is there, it wins.
//! 2. Objects recognised by their type ([`recognised_data_type`], [`recognised_device`]):
//!    names (`str`, which is also what TVM FFI's `dtype` is) and TVM FFI's `Device`. The dtype
//!    and device objects of libraries that do not carry the protocol are recognised there,
//!    by type, without importing the library.
//! 3. Otherwise a `TypeError` that says what was expected; a tensor gets a message of its own.

use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use super::ints::{Ints, Origin, call_protocol, type_name};
use super::kind::{ProtocolKind, class_kind, protocol_kind};
use crate::data_type::DataType;
use crate::device::Device;
use crate::ffi::{DLDataTypeCode, DLDeviceType};

/// The data type `obj` stands for; see the module documentation for what is read, in which
/// order, and [`DataTypeLike`](super::DataTypeLike) for the errors.
pub(crate) fn data_type(obj: &Bound<'_, PyAny>) -> PyResult<DataType> {
    match protocol_kind(obj)? {
        Some(ProtocolKind::DataTypeObject) => return protocol_data_type(obj),
        Some(ProtocolKind::Tensor) => {
            return Err(PyTypeError::new_err(format!(
                "expected a data type, got a tensor ({}, whose class has __dlpack__); \
                 read a tensor's data type from the tensor itself",
                type_name(obj)
            )));
        }
        Some(ProtocolKind::DeviceObject) | None => {}
    }
    match recognised_data_type(obj)? {
        Some(data_type) => Ok(data_type),
        None => Err(PyTypeError::new_err(format!(
            "expected a data type: a data type name or an object whose class has \
             __dlpack_data_type__() (a PaddlePaddle dtype, for instance), got {}",
            type_name(obj)
        ))),
    }
}

/// The data type of an object that does not speak the protocol, recognised by its type; `None`
/// for an object that is not one.
fn recognised_data_type(obj: &Bound<'_, PyAny>) -> PyResult<Option<DataType>> {
    if let Ok(name) = obj.cast::<PyString>() {
        return Ok(Some(name.to_str()?.parse::<DataType>()?));
    }
    Ok(None)
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
/// order, and [`DeviceLike`](super::DeviceLike) for the errors.
pub(crate) fn device(obj: &Bound<'_, PyAny>) -> PyResult<Device> {
    match protocol_kind(obj)? {
        Some(ProtocolKind::DeviceObject) => return protocol_device(obj),
        Some(ProtocolKind::Tensor) => {
            return Err(PyTypeError::new_err(format!(
                "expected a device, got a tensor ({}, whose class has __dlpack__); \
                 a class with __dlpack__ is a tensor, one with __dlpack_device__ alone is a device",
                type_name(obj)
            )));
        }
        Some(ProtocolKind::DataTypeObject) | None => {}
    }
    match recognised_device(obj)? {
        Some(device) => Ok(device),
        None => Err(PyTypeError::new_err(format!(
            "expected a device: a device name or an object whose class has __dlpack_device__() \
             and no __dlpack__ (a PaddlePaddle place, for instance), got {}",
            type_name(obj)
        ))),
    }
}

/// The device of an object that does not speak the protocol, recognised by its type; `None`
/// for an object that is not one.
///
/// TVM FFI's `Device` (0.1.x) consumes the protocol but does not carry `__dlpack_device__`
/// itself; it is read through the two members it does have, `dlpack_device_type()` and
/// `index`, with the checks of a `__dlpack_device__` return value.
fn recognised_device(obj: &Bound<'_, PyAny>) -> PyResult<Option<Device>> {
    if let Ok(name) = obj.cast::<PyString>() {
        return Ok(Some(name.to_str()?.parse::<Device>()?));
    }
    let py = obj.py();
    if obj.get_type().hasattr(intern!(py, "dlpack_device_type"))?
        && obj.hasattr(intern!(py, "index"))?
    {
        let device_type = obj.call_method0(intern!(py, "dlpack_device_type"))?;
        let index = obj.getattr(intern!(py, "index"))?;
        let pair = PyTuple::new(py, [device_type, index])?.into_any();
        return check_device_pair(Ints::new(&pair, Origin::TvmFfiDevice(obj))).map(Some);
    }
    Ok(None)
}

/// The device a tensor lives on: what its `__dlpack_device__()` returns, checked as a device
/// object's is. A `TypeError` for an object whose class has no `__dlpack__`: a device object
/// is read with [`DeviceLike`](super::DeviceLike).
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
    if class_kind(&obj.get_type())? != Some(ProtocolKind::Tensor) {
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

/// Checks a `(device_type, device_id)` pair: a known device type, an id in `0..=i32::MAX`.
pub(crate) fn check_device_pair(pair: Ints<'_, '_>) -> PyResult<Device> {
    let [device_type, device_id] = pair.ints(
        "(device_type, device_id)",
        [
            ("device type", i32::MAX.into()),
            ("device id", i32::MAX.into()),
        ],
    )?;
    // Both were range-checked against `i32` just above.
    Device::checked(DLDeviceType(device_type as i32), device_id as i32)
        .map_err(|err| pair.invalid(&err))
}
