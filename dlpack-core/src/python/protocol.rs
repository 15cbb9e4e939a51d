//! Reading the protocol from any Python object: `__dlpack_data_type__` and
//! `__dlpack_device__`.

use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use super::ints::{Ints, Origin, call_protocol, type_name};
use super::kind::{ProtocolKind, class_kind, protocol_kind};
use crate::convert::{DlpackDataType, DlpackDevice};
use crate::data_type::DataType;
use crate::device::Device;
use crate::ffi::{DLDataTypeCode, DLDeviceType};

/// The [`DataType`] of any object whose class has `__dlpack_data_type__` (a PaddlePaddle
/// dtype, a [`PyDataType`](super::PyDataType), a class of your own), or of a string the name
/// grammar parses (`"float16"`, `"bf16"`; TVM FFI's `dtype` is such a `str`).
///
/// The method must return a `tuple` of three `int`s `(code, bits, lanes)` that fit DLPack's
/// `uint8`, `uint8` and `uint16` fields and form a data type DLPack allows. Nothing is
/// truncated: bits 300 is a `ValueError`, where TVM FFI would read 44. Errors:
///
/// - `TypeError`: no such method; a tensor; a return value that is not a tuple (a list is
///   refused, as TVM FFI refuses it); an item that is not an `int` (a float, a bool, a string).
/// - `ValueError`: a tuple of the wrong length; a negative or too large item; a triple DLPack
///   does not allow (bits 0, lanes 0, an unknown code, fp8 of 16 bits); a string that is not a
///   data type name.
/// - Whatever the method raised, unchanged, with a note saying where it came from.
///
/// ```
/// use dlpack_core::DataType;
/// use dlpack_core::python::read_data_type;
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let globals = pyo3::types::PyDict::new(py);
///     py.run(c"class Half:\n    def __dlpack_data_type__(self): return (2, 16, 1)", Some(&globals), None)?;
///     let half = globals.get_item("Half")?.unwrap().call0()?;
///     assert_eq!(read_data_type(&half)?, DataType::F16);
///
///     py.run(c"class Wide:\n    def __dlpack_data_type__(self): return (2, 300, 1)", Some(&globals), None)?;
///     let wide = globals.get_item("Wide")?.unwrap().call0()?;
///     let err = read_data_type(&wide).unwrap_err();
///     assert!(err.is_instance_of::<pyo3::exceptions::PyValueError>(py));
///     assert!(err.to_string().contains("bits 300 is out of range"), "{err}");
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn read_data_type(obj: &Bound<'_, PyAny>) -> PyResult<DataType> {
    if let Ok(name) = obj.cast::<PyString>() {
        return Ok(name.to_str()?.parse::<DataType>()?);
    }
    let method = intern!(obj.py(), "__dlpack_data_type__");
    match protocol_kind(obj)? {
        Some(ProtocolKind::DataTypeObject) => {}
        Some(ProtocolKind::Tensor) => {
            return Err(PyTypeError::new_err(format!(
                "expected a data type, got a tensor ({}, whose class has __dlpack__); \
                 read a tensor's data type from the tensor itself",
                type_name(obj)
            )));
        }
        _ => {
            return Err(PyTypeError::new_err(format!(
                "expected a data type: a data type name or an object whose class has \
                 __dlpack_data_type__() (a PaddlePaddle dtype, for instance), got {}",
                type_name(obj)
            )));
        }
    }
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

/// The [`Device`] of any device object: an object whose class has `__dlpack_device__` and no
/// `__dlpack__` (a PaddlePaddle place, a [`PyDevice`](super::PyDevice), a class of your own),
/// or a string the name grammar parses (`"cpu"`, `"cuda:1"`).
///
/// TVM FFI's `Device` (0.1.x) consumes the protocol but does not carry `__dlpack_device__`
/// itself; it is read through the two members it does have, `dlpack_device_type()` and
/// `index`, with the same checks. (TVM FFI's `dtype` is a `str` and reads as a name.)
///
/// A tensor is refused with a `TypeError` (its `__dlpack_device__` names where it lives; read
/// that with [`read_tensor_device`]). The method must return a `tuple` of two `int`s
/// `(device_type, device_id)`, the type a known DLPack device type and the id in
/// `0..=i32::MAX`: an id of 2**31 is a `ValueError`, never a wrapped or truncated id. The other
/// errors are those of [`read_data_type`].
///
/// ```
/// use dlpack_core::Device;
/// use dlpack_core::python::read_device;
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     assert_eq!(read_device(&"cuda:1".into_pyobject(py)?.into_any())?, Device::cuda(1));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn read_device(obj: &Bound<'_, PyAny>) -> PyResult<Device> {
    if let Ok(name) = obj.cast::<PyString>() {
        return Ok(name.to_str()?.parse::<Device>()?);
    }
    match protocol_kind(obj)? {
        Some(ProtocolKind::DeviceObject) => device_of(obj),
        None if is_tvm_ffi_device(obj)? => tvm_ffi_device(obj),
        Some(ProtocolKind::Tensor) => Err(PyTypeError::new_err(format!(
            "expected a device, got a tensor ({}, whose class has __dlpack__); \
             a class with __dlpack__ is a tensor, one with __dlpack_device__ alone is a device",
            type_name(obj)
        ))),
        _ => Err(PyTypeError::new_err(format!(
            "expected a device: a device name or an object whose class has __dlpack_device__() \
             and no __dlpack__ (a PaddlePaddle place, for instance), got {}",
            type_name(obj)
        ))),
    }
}

/// Whether `obj` looks like TVM FFI's `Device`: a class with a `dlpack_device_type` method
/// and an `index` attribute.
fn is_tvm_ffi_device(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = obj.py();
    let class = obj.get_type();
    Ok(class.hasattr(intern!(py, "dlpack_device_type"))? && obj.hasattr(intern!(py, "index"))?)
}

/// Reads a TVM FFI `Device` as the pair `(dlpack_device_type(), index)`, checked as a
/// `__dlpack_device__` return value is.
fn tvm_ffi_device(obj: &Bound<'_, PyAny>) -> PyResult<Device> {
    let py = obj.py();
    let device_type = obj.call_method0(intern!(py, "dlpack_device_type"))?;
    let index = obj.getattr(intern!(py, "index"))?;
    let pair = PyTuple::new(py, [device_type, index])?.into_any();
    check_device_pair(Ints::new(&pair, Origin::TvmFfiDevice(obj)))
}

/// The device a tensor lives on: what its `__dlpack_device__()` returns, checked as
/// [`read_device`] checks it. A `TypeError` for an object whose class has no `__dlpack__`.
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
    device_of(obj)
}

/// Calls `__dlpack_device__` and checks the pair.
fn device_of(obj: &Bound<'_, PyAny>) -> PyResult<Device> {
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

/// A [`DlpackDataType`] value from any data type object or name: [`read_data_type`], then
/// [`T::from_dlpack_data_type`](DlpackDataType::from_dlpack_data_type) (a `ValueError` naming
/// what `T` supports when it has no such value).
///
/// ```
/// use dlpack_core::{DataType, DlpackDataType};
/// use dlpack_core::python::{PyDataType, extract_data_type};
/// use pyo3::prelude::*;
///
/// #[derive(Debug, PartialEq, DlpackDataType)]
/// enum Kind {
///     #[dlpack("float32")]
///     F32,
///     #[dlpack("int8")]
///     I8,
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let int8 = Bound::new(py, PyDataType::from(DataType::I8))?;
///     assert_eq!(extract_data_type::<Kind>(int8.as_any())?, Kind::I8);
///     assert_eq!(extract_data_type::<Kind>(&"f32".into_pyobject(py)?.into_any())?, Kind::F32);
///     let err = extract_data_type::<Kind>(&"float64".into_pyobject(py)?.into_any()).unwrap_err();
///     assert!(err.is_instance_of::<pyo3::exceptions::PyValueError>(py));
///     assert!(err.to_string().contains("float64"), "{err}");
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn extract_data_type<T: DlpackDataType>(obj: &Bound<'_, PyAny>) -> PyResult<T> {
    Ok(T::from_dlpack_data_type(read_data_type(obj)?)?)
}

/// A [`DlpackDevice`] value from any device object or name: [`read_device`], then
/// [`T::from_dlpack_device`](DlpackDevice::from_dlpack_device).
///
/// ```
/// use dlpack_core::{Device, DlpackDevice};
/// use dlpack_core::python::{PyDevice, extract_device};
/// use pyo3::prelude::*;
///
/// #[derive(Debug, PartialEq, DlpackDevice)]
/// enum Place {
///     #[dlpack(cpu)]
///     Host,
///     #[dlpack(cuda)]
///     Gpu(u32),
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let gpu = Bound::new(py, PyDevice::from(Device::cuda(1)))?;
///     assert_eq!(extract_device::<Place>(gpu.as_any())?, Place::Gpu(1));
///     assert_eq!(extract_device::<Place>(&"cpu".into_pyobject(py)?.into_any())?, Place::Host);
///     let err = extract_device::<Place>(&"rocm:0".into_pyobject(py)?.into_any()).unwrap_err();
///     assert!(err.is_instance_of::<pyo3::exceptions::PyValueError>(py));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn extract_device<T: DlpackDevice>(obj: &Bound<'_, PyAny>) -> PyResult<T> {
    Ok(T::from_dlpack_device(read_device(obj)?)?)
}
