//! What the methods of `#[pymethods(data_type)]` and `#[pymethods(device)]` call: one generic
//! function per Python method, so the generated wrappers are a line each and the behaviour is
//! written (and tested) once, here.
//!
//! Everything here is `#[doc(hidden)]` API for generated code: it may change with any release
//! of the derive, which dlpack-core pins exactly.

use core::hash::{Hash, Hasher};
use std::collections::hash_map::DefaultHasher;

use pyo3::PyClass;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyTuple, PyType};

use super::names::{class_name, python_error};
use crate::DataType;
use crate::Device;
use crate::convert::{DlpackDataType, DlpackDevice};
use crate::python::message::a_or_an;
use crate::python::tuples::{data_type_tuple, device_tuple};
use crate::python::values::numpy::to_numpy_dtype;
use crate::python::{DataTypeLike, DeviceLike};

/// A `#[pyclass]` whose values are DLPack data types, completed by `#[pymethods(data_type)]`,
/// which implements this trait: its supertraits are checked once, there, so a type that
/// derives neither trait is one error, not one per generated method.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a data type class completed by `#[pymethods(data_type)]`",
    label = "not a data type class",
    note = "derive `DlpackDataType` on `{Self}`, make it a `#[pyclass]`, and write `#[dlpack_core::python::pymethods(data_type)]` on its `impl` block"
)]
pub trait DataTypeClass: PyClass + DataTypeValue + IntoClassObject {}

/// A type whose values are DLPack data types, as `#[pymethods(data_type)]` needs its class's
/// type to be: a supertrait of [`DataTypeClass`] of its own, so that the error for a type
/// without [`DlpackDataType`] speaks of the attribute and of its other kinds (a device class
/// given `data_type` by mistake is told to write `device`), not of `DlpackDataType` alone.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a DLPack data type, so `#[pymethods(data_type)]` cannot complete it",
    label = "no `DlpackDataType` impl",
    note = "derive `DlpackDataType` on `{Self}` itself; a wrapper struct over a type that has it derives it too (`#[derive(DlpackDataType)] struct DType(Inner);` reads through its field)",
    note = "if `{Self}` is a device (it derives `DlpackDevice`), write `#[dlpack_core::python::pymethods(device)]`; a tensor class is `#[dlpack_core::python::pymethods(tensor)]`"
)]
pub trait DataTypeValue: Sized {
    /// [`DlpackDataType::dlpack_data_type`].
    fn data_type_of(&self) -> Result<DataType, crate::Error>;
    /// [`DlpackDataType::from_dlpack_data_type`].
    fn of_data_type(data_type: DataType) -> Result<Self, crate::Error>;
}

// Not recommended in diagnostics: a type without `DlpackDataType` is reported as one without
// `DataTypeValue`, with its message, rather than as one without `DlpackDataType`. (The trait
// has no supertrait for the same reason: rustc would report the supertrait.)
#[diagnostic::do_not_recommend]
impl<T: DlpackDataType> DataTypeValue for T {
    #[inline]
    fn data_type_of(&self) -> Result<DataType, crate::Error> {
        self.dlpack_data_type()
    }
    #[inline]
    fn of_data_type(data_type: DataType) -> Result<Self, crate::Error> {
        T::from_dlpack_data_type(data_type)
    }
}

/// A type whose values are DLPack devices, as `#[pymethods(device)]` needs (see
/// [`DataTypeValue`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a DLPack device, so `#[pymethods(device)]` cannot complete it",
    label = "no `DlpackDevice` impl",
    note = "derive `DlpackDevice` on `{Self}` itself; a wrapper struct over a type that has it derives it too (`#[derive(DlpackDevice)] struct Device(Place);` reads through its field)",
    note = "if `{Self}` is a data type (it derives `DlpackDataType`), write `#[dlpack_core::python::pymethods(data_type)]`; a tensor class is `#[dlpack_core::python::pymethods(tensor)]`"
)]
pub trait DeviceValue: Sized {
    /// [`DlpackDevice::dlpack_device`].
    fn device_of(&self) -> Result<Device, crate::Error>;
    /// [`DlpackDevice::from_dlpack_device`].
    fn of_device(device: Device) -> Result<Self, crate::Error>;
}

// Not recommended in diagnostics, as for `DataTypeValue`.
#[diagnostic::do_not_recommend]
impl<T: DlpackDevice> DeviceValue for T {
    #[inline]
    fn device_of(&self) -> Result<Device, crate::Error> {
        self.dlpack_device()
    }
    #[inline]
    fn of_device(device: Device) -> Result<Self, crate::Error> {
        T::from_dlpack_device(device)
    }
}

/// A `#[pyclass]` whose values are DLPack devices, completed by `#[pymethods(device)]`, which
/// implements this trait (see [`DataTypeClass`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a device class completed by `#[pymethods(device)]`",
    label = "not a device class",
    note = "derive `DlpackDevice` on `{Self}`, make it a `#[pyclass]`, and write `#[dlpack_core::python::pymethods(device)]` on its `impl` block"
)]
pub trait DeviceClass: PyClass + DeviceValue + IntoClassObject {}

/// A `#[pyclass]` value that becomes a Python object of its class, as every class whose base
/// is `object` does.
pub trait IntoClassObject:
    for<'py> IntoPyObject<'py, Target = Self, Output = Bound<'py, Self>, Error = PyErr>
{
}

impl<T> IntoClassObject for T where
    T: for<'py> IntoPyObject<'py, Target = T, Output = Bound<'py, T>, Error = PyErr>
{
}

/// `T(obj)`: the value of any data type object or name, as [`DataTypeLike`] reads it.
pub fn new_data_type<T: DataTypeClass>(obj: &Bound<'_, PyAny>) -> PyResult<T> {
    let data_type = obj.extract::<DataTypeLike<DataType>>()?.0;
    T::of_data_type(data_type).map_err(|err| python_error::<T>(obj.py(), err))
}

/// `T(obj)`: the value of any device object, name or `(device_type, device_id)` tuple.
pub fn new_device<T: DeviceClass>(obj: &Bound<'_, PyAny>) -> PyResult<T> {
    let device = obj.extract::<DeviceLike<Device>>()?.0;
    T::of_device(device).map_err(|err| python_error::<T>(obj.py(), err))
}

/// `T.__new__(obj)` of a data type class: the object [`new_data_type`]'s value becomes, as
/// every other route makes it (`from_dlpack`, a function returning a `T`). For a PyO3 complex
/// enum that is an object of the variant's class (`Where.Cuda`), which a constructor returning
/// `Self` would not make: PyO3 would build an object of the base class that is no variant.
pub fn construct_data_type<'py, T: DataTypeClass>(
    obj: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, T>> {
    new_data_type::<T>(obj)?.into_pyobject(obj.py())
}

/// `T.__new__(obj)` of a device class; see [`construct_data_type`].
pub fn construct_device<'py, T: DeviceClass>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, T>> {
    new_device::<T>(obj)?.into_pyobject(obj.py())
}

/// `int()`: a `TypeError`. A value's number would be PyO3's (a fieldless enum's
/// discriminant, its place in the Rust enum), which changes when the enum is reordered and
/// means nothing to another library; its DLPack value is the protocol method's tuple.
pub fn no_int<T: PyClass>(py: Python<'_>, what: &str, method: &str) -> PyResult<i64> {
    let class = class_name(&T::type_object(py))?;
    Err(PyTypeError::new_err(format!(
        "{} {class} is a {what}, not a number: its DLPack value is {method}()",
        a_or_an(&class)
    )))
}

/// `__dlpack_data_type__()`: `(code, bits, lanes)`, or a `ValueError` naming the class. The
/// tuple of a common data type is made once and handed out again (`tuples.rs`): a value's
/// DLPack data type never changes, and a tuple is immutable.
#[inline]
pub fn dlpack_data_type<'py, T: DataTypeClass>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyTuple>> {
    match value.data_type_of() {
        Ok(data_type) => data_type_tuple(py, data_type),
        Err(err) => Err(python_error::<T>(py, err)),
    }
}

/// `__dlpack_device__()`: `(device_type, device_id)`, or a `ValueError` naming the class (see
/// [`dlpack_data_type`] for the tuple).
#[inline]
pub fn dlpack_device<'py, T: DeviceClass>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyTuple>> {
    match value.device_of() {
        Ok(device) => device_tuple(py, device),
        Err(err) => Err(python_error::<T>(py, err)),
    }
}

/// `repr()`: `mini.float16`, the name a value has in its class's module (where
/// [`add_values`](crate::python::add_values) puts it); `<mini.DType.Quantized without a
/// DLPack data type>` for a value that has none, naming the value where the error does (a
/// `#[dlpack(skip)]` variant's name).
///
/// The class is the one `#[pymethods]` completes, `T`, not the object's own: a complex enum's
/// values are objects of its variants' classes (`mini.Where.Cuda`), which take the variant's
/// fields, not a DLPack name.
pub fn data_type_repr<T: DataTypeClass>(slf: &Bound<'_, T>) -> PyResult<String> {
    let ty = T::type_object(slf.py());
    Ok(match slf.borrow().data_type_of() {
        Ok(data_type) => format!("{}{data_type}", module_prefix(&ty)?),
        Err(err) => format!("<{} without a DLPack data type>", which(&ty, &err)?),
    })
}

/// `repr()`: `mini.Device('cuda:1')`, which evaluates back to the value (see
/// [`data_type_repr`] for the class named).
pub fn device_repr<T: DeviceClass>(slf: &Bound<'_, T>) -> PyResult<String> {
    let ty = T::type_object(slf.py());
    Ok(match slf.borrow().device_of() {
        Ok(device) => format!("{}('{device}')", class_name(&ty)?),
        Err(err) => format!("<{} without a DLPack device>", which(&ty, &err)?),
    })
}

/// The value an error is about: `mini.DType.Quantized` for a variant without a DLPack value,
/// the class alone when the error does not say (a hand-written impl's message).
fn which(ty: &Bound<'_, PyType>, err: &crate::Error) -> PyResult<String> {
    let class = class_name(ty)?;
    Ok(match err {
        crate::Error::NoDataType { value, .. } | crate::Error::NoDevice { value, .. } => {
            format!("{class}.{value}")
        }
        _ => class,
    })
}

/// `str()`: the DLPack name (`float16`), or the `repr()` of a value without one.
pub fn data_type_str<T: DataTypeClass>(slf: &Bound<'_, T>) -> PyResult<String> {
    match slf.borrow().data_type_of() {
        Ok(data_type) => Ok(data_type.to_string()),
        Err(_) => data_type_repr(slf),
    }
}

/// `str()`: the DLPack name (`cuda:1`), or the `repr()` of a value without one.
pub fn device_str<T: DeviceClass>(slf: &Bound<'_, T>) -> PyResult<String> {
    match slf.borrow().device_of() {
        Ok(device) => Ok(device.to_string()),
        Err(_) => device_repr(slf),
    }
}

/// `==`: two values of the class are equal when their DLPack values are (what pickling
/// keeps); a value without one equals only itself. Another class is `NotImplemented`, so
/// Python asks the other operand, as for any value type.
pub fn eq<'py, T: PyClass, K: PartialEq>(
    slf: &Bound<'py, T>,
    other: &Bound<'py, PyAny>,
    key: impl Fn(&T) -> Option<K>,
) -> Py<PyAny> {
    answer(slf.py(), equal(slf, other, key))
}

/// `!=`: the negation of [`eq`], `NotImplemented` for another class.
pub fn ne<'py, T: PyClass, K: PartialEq>(
    slf: &Bound<'py, T>,
    other: &Bound<'py, PyAny>,
    key: impl Fn(&T) -> Option<K>,
) -> Py<PyAny> {
    answer(slf.py(), equal(slf, other, key).map(|equal| !equal))
}

/// Whether `other` equals `slf`; `None` when it is of another class.
fn equal<'py, T: PyClass, K: PartialEq>(
    slf: &Bound<'py, T>,
    other: &Bound<'py, PyAny>,
    key: impl Fn(&T) -> Option<K>,
) -> Option<bool> {
    let other = other.cast::<T>().ok()?;
    if slf.as_any().is(other.as_any()) {
        return Some(true);
    }
    Some(match (key(&slf.borrow()), key(&other.borrow())) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    })
}

/// A comparison's result as Python has it: `True`, `False` or `NotImplemented`.
fn answer(py: Python<'_>, result: Option<bool>) -> Py<PyAny> {
    match result {
        None => py.NotImplemented(),
        Some(result) => pyo3::types::PyBool::new(py, result)
            .to_owned()
            .into_any()
            .unbind(),
    }
}

/// `hash()`: of the DLPack value, so equal values hash alike; of the object's identity for a
/// value without one (which equals only itself).
pub fn hash<T: PyClass, K: Hash>(slf: &Bound<'_, T>, key: impl Fn(&T) -> Option<K>) -> u64 {
    let mut hasher = DefaultHasher::new();
    match key(&slf.borrow()) {
        Some(key) => key.hash(&mut hasher),
        None => slf.as_ptr().hash(&mut hasher),
    }
    hasher.finish()
}

/// The DLPack data type of a value, the key of `==` and `hash()`.
pub fn data_type_key<T: DataTypeClass>(value: &T) -> Option<DataType> {
    value.data_type_of().ok()
}

/// The DLPack device of a value, the key of `==` and `hash()`.
pub fn device_key<T: DeviceClass>(value: &T) -> Option<Device> {
    value.device_of().ok()
}

/// `__reduce__()`: `(T, (name,))`, so pickle rebuilds the value with the constructor from its
/// DLPack name; a `ValueError` for a value without one (which no name rebuilds).
pub fn reduce<'py, T: PyClass>(
    slf: &Bound<'py, T>,
    name: Option<String>,
    what: &str,
) -> PyResult<(Bound<'py, PyType>, Bound<'py, PyTuple>)> {
    // The completed class, not the object's (a complex enum variant's class takes fields).
    let ty = T::type_object(slf.py());
    let Some(name) = name else {
        return Err(PyValueError::new_err(format!(
            "cannot pickle this {}: it has no DLPack {what}, and pickle rebuilds the value from \
             its DLPack name",
            class_name(&ty)?
        )));
    };
    Ok((ty, PyTuple::new(slf.py(), [name])?))
}

/// NumPy's `dtype` attribute: the NumPy dtype of the value, so that `numpy.empty(2,
/// dtype=mini.float16)` and JAX take it.
pub fn numpy_dtype_of<'py, T: DataTypeClass>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    let data_type = value
        .data_type_of()
        .map_err(|err| python_error::<T>(py, err))?;
    to_numpy_dtype(py, data_type)
}

/// A device's `type`: `"cpu"`, `"cuda"`, … as `torch.device` and TVM FFI name it.
pub fn device_type<T: DeviceClass>(py: Python<'_>, value: &T) -> PyResult<&'static str> {
    let device = dlpack_device_value(py, value)?;
    Ok(device.device_type.name().unwrap_or("unknown"))
}

/// A device's `index`: its DLPack device id (0 for host memory).
pub fn device_index<T: DeviceClass>(py: Python<'_>, value: &T) -> PyResult<i32> {
    Ok(dlpack_device_value(py, value)?.device_id)
}

fn dlpack_device_value<T: DeviceClass>(py: Python<'_>, value: &T) -> PyResult<Device> {
    value.device_of().map_err(|err| python_error::<T>(py, err))
}

/// `mini.` for a class of module `mini`; nothing for a class without a module of its own.
fn module_prefix(ty: &Bound<'_, PyType>) -> PyResult<String> {
    let module = ty.module()?;
    let module = module.to_str()?;
    Ok(if module == "builtins" {
        String::new()
    } else {
        format!("{module}.")
    })
}

/// Whether a unit value of the class imports as `(code, bits, lanes)`: the compile-time check
/// `#[pymethods(data_type)]` writes for each method named like a DLPack data type, so that a
/// method does not take the name [`add_values`](crate::python::add_values) gives a value.
#[must_use]
pub const fn has_unit_data_type(units: &[DataType], code: u8, bits: u8, lanes: u16) -> bool {
    let mut i = 0;
    while i < units.len() {
        let unit = units[i];
        if unit.code.0 == code && unit.bits == bits && unit.lanes == lanes {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether a unit value of the class imports as `(device_type, device_id)`; see
/// [`has_unit_data_type`].
#[must_use]
pub const fn has_unit_device(units: &[Device], device_type: i32, device_id: i32) -> bool {
    let mut i = 0;
    while i < units.len() {
        let unit = units[i];
        if unit.device_type.0 == device_type && unit.device_id == device_id {
            return true;
        }
        i += 1;
    }
    false
}
