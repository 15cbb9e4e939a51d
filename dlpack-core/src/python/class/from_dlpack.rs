//! The RFC's `from_dlpack`, which takes tensors, data types and devices.

use pyo3::BoundObject;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use super::methods::{DataTypeClass, DeviceClass, new_data_type, new_device};
use super::names::python_error;
use crate::Device;
use crate::python::ValueKind;
use crate::python::message::type_name;
use crate::python::values::classify::{ClassKind, object_kind};
use crate::python::values::libraries::{Recognised, is_numpy_scalar};
use crate::python::values::read::{Named, kind_of_value, read_name};

/// `from_dlpack(obj, /, *, device=None, copy=None)` as the DLPack RFC proposes it, over your tensor
/// type `T`, data type class `D` and device class `V`: a tensor (anything with `__dlpack__`, a
/// DLPack capsule) becomes a `T` through `import` (usually
/// [`import_tensor`](crate::python::import_tensor) and your tensor's constructor), honouring
/// `device=` and `copy=`; a data type object or name becomes a `D`, and a device object, name
/// or `(device_type, device_id)` tuple a `V`, read as [`DataTypeLike`](crate::python::DataTypeLike)
/// and [`DeviceLike`](crate::python::DeviceLike) read them. Which one `obj` is, is decided as
/// [`value_kind`](crate::python::value_kind) decides it.
///
/// `device=` and `copy=` are for tensors: with a data type or a device they are a `TypeError`
/// (a data type has no device to move to, nothing to copy). Anything else is a `TypeError`
/// that says what `from_dlpack` takes. Give your `#[pyfunction]` the array API standard's
/// signature, `#[pyo3(signature = (obj, /, *, device=None, copy=None))]`: `obj` positional,
/// `device` and `copy` keywords only, as below.
///
/// A name is read once, as a data type name and then as a device name (no name is both), so
/// `from_dlpack("cuda:1")` costs about what `Device("cuda:1")` does. A tensor whose data type
/// or device `import` cannot take is the `BufferError` `import` raises: see the module
/// documentation, "Errors".
///
/// ```
/// use std::sync::Arc;
///
/// use dlpack_core::python::{DeviceLike, to_python};
/// use dlpack_core::{Device, DlpackDataType, DlpackDevice};
/// use pyo3::prelude::*;
///
/// #[pyclass(module = "mini", frozen)]
/// #[derive(Clone, Copy, DlpackDataType)]
/// enum DType {
///     #[dlpack("float32")]
///     Float32,
/// }
/// #[dlpack_core::python::pymethods(data_type)]
/// impl DType {}
///
/// #[pyclass(module = "mini", frozen)]
/// #[derive(Clone, Copy, DlpackDevice)]
/// enum Place {
///     #[dlpack(cpu)]
///     Cpu,
/// }
/// #[dlpack_core::python::pymethods(device)]
/// impl Place {}
///
/// /// Immutable float32 vectors (its `__dlpack__` is left out here).
/// #[pyclass(module = "mini", frozen)]
/// struct Floats(Arc<[f32]>);
///
/// #[pyfunction]
/// #[pyo3(signature = (obj, /, *, device=None, copy=None))]
/// fn from_dlpack<'py>(
///     obj: &Bound<'py, PyAny>,
///     device: Option<DeviceLike<Device>>,
///     copy: Option<bool>,
/// ) -> PyResult<Bound<'py, PyAny>> {
///     dlpack_core::python::from_dlpack::<DType, Place, _>(obj, device.map(|d| d.0), copy, |obj, device, copy| {
///         let tensor = dlpack_core::python::import_tensor(obj, device, copy)?;
///         Ok(Floats(tensor.view()?.to_vec::<f32>()?.into()))
///     })
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let from_dlpack = wrap_pyfunction!(from_dlpack, py)?;
///     let float32 = from_dlpack.call1(("float32",))?;
///     assert_eq!(float32.repr()?.to_str()?, "mini.float32");
///     assert_eq!(from_dlpack.call1(((1, 0),))?.repr()?.to_str()?, "mini.Place('cpu')");
///     let tensor = to_python(py, &[1.0_f32][..])?;
///     assert!(from_dlpack.call1((tensor,))?.is_instance_of::<Floats>());
///     let err = from_dlpack.call(("float32",), Some(&[("copy", true)].into_py_dict(py)?)).unwrap_err();
///     assert!(err.is_instance_of::<pyo3::exceptions::PyTypeError>(py));
///     let err = from_dlpack.call1((1.5,)).unwrap_err();
///     assert!(err.to_string().contains("takes a tensor"), "{err}");
///     // `device` and `copy` are keywords only, as the standard has them.
///     let err = from_dlpack.call1(("float32", "cpu")).unwrap_err();
///     assert!(err.is_instance_of::<pyo3::exceptions::PyTypeError>(py));
///     Ok(())
/// })?;
/// # use pyo3::types::IntoPyDict;
/// # Ok::<(), PyErr>(())
/// ```
pub fn from_dlpack<'py, D, V, T>(
    obj: &Bound<'py, PyAny>,
    device: Option<Device>,
    copy: Option<bool>,
    import: impl FnOnce(&Bound<'py, PyAny>, Option<Device>, Option<bool>) -> PyResult<T>,
) -> PyResult<Bound<'py, PyAny>>
where
    D: DataTypeClass,
    V: DeviceClass,
    T: IntoPyObject<'py>,
    PyErr: From<T::Error>,
{
    let py = obj.py();
    // The class is classified once, for both questions below; a name is read once, as what
    // it names, so `from_dlpack("cuda:1")` costs what `Device("cuda:1")` does, and a little
    // more.
    let class_kind = object_kind(obj)?;
    if let ClassKind::Recognised(Recognised::Name) = class_kind {
        let named = read_name(obj.cast::<PyString>()?.to_str()?)?;
        let what = match named {
            Named::DataType(_) => "data type",
            Named::Device(_) => "device",
        };
        refuse_tensor_arguments(obj, device, copy, what)?;
        return Ok(match named {
            Named::DataType(data_type) => D::of_data_type(data_type)
                .map_err(|err| python_error::<D>(py, err))?
                .into_pyobject(py)?
                .into_any(),
            Named::Device(dl_device) => V::of_device(dl_device)
                .map_err(|err| python_error::<V>(py, err))?
                .into_pyobject(py)?
                .into_any(),
        });
    }
    let kind = kind_of_value(obj, class_kind)?;
    let what = match kind {
        Some(ValueKind::Tensor) => {
            let tensor = import(obj, device, copy)?;
            return Ok(tensor.into_pyobject(py)?.into_any().into_bound());
        }
        Some(ValueKind::DataTypeValue { .. }) => "data type",
        Some(ValueKind::DeviceValue { .. }) => "device",
        None => {
            return Err(PyTypeError::new_err(format!(
                "from_dlpack() takes a tensor (an object with __dlpack__, or a DLPack capsule), \
                 a data type (an object with __dlpack_data_type__, a name such as 'float32', a \
                 NumPy, JAX, PyTorch or array-api-strict dtype) or a device (an object with \
                 __dlpack_device__, a name such as 'cuda:0', a (device_type, device_id) tuple, \
                 a TVM FFI, JAX, PyTorch or array-api-strict device); got {}",
                what_it_is(obj)?
            )));
        }
    };
    refuse_tensor_arguments(obj, device, copy, what)?;
    Ok(match kind {
        Some(ValueKind::DataTypeValue { .. }) => {
            new_data_type::<D>(obj)?.into_pyobject(py)?.into_any()
        }
        _ => new_device::<V>(obj)?.into_pyobject(py)?.into_any(),
    })
}

/// `device=` and `copy=` are for tensors: a `TypeError` when either is given with a data type
/// or a device (`what`), which has no device to move to and nothing to copy.
fn refuse_tensor_arguments(
    obj: &Bound<'_, PyAny>,
    device: Option<Device>,
    copy: Option<bool>,
    what: &str,
) -> PyResult<()> {
    if device.is_some() || copy.is_some() {
        return Err(PyTypeError::new_err(format!(
            "device= and copy= are for tensors; {} is a {what}",
            obj.repr()?
        )));
    }
    Ok(())
}

/// What `obj` is, for the message of an object `from_dlpack` does not take: its class, and for
/// a NumPy scalar, which has a dtype and looks like an array, that it has no `__dlpack__`.
fn what_it_is(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let class = type_name(obj);
    Ok(if is_numpy_scalar(obj)? {
        format!(
            "a NumPy scalar ({class}), which has no __dlpack__: numpy.asarray(x) is a \
             0-dimensional array of it, which has"
        )
    } else {
        format!("an object of class {class}")
    })
}
