//! Which of the three DLPack protocols (tensor, data type, device) a Python object speaks,
//! decided from its class, and remembered per class.
//!
//! # The cache
//!
//! Looking a name up on a class that does not have it raises and clears an `AttributeError`
//! inside CPython (for classes with a metaclass of their own, such as every pybind11 class,
//! PaddlePaddle's dtypes among them, on every Python version), which costs more than the
//! protocol call that follows. So the kind of a class is worked out once and remembered, for
//! up to [`CACHED_CLASSES`] classes, which the cache keeps alive; classes past that are looked
//! at each time, with the same result. TVM FFI dispatches the same way: it decides what to do
//! with an argument once per class and keeps the decision for the life of the process.
//!
//! A consequence: adding `__dlpack__`, `__dlpack_data_type__` or `__dlpack_device__` to a
//! class (or removing one) after an object of that class was looked at is not seen. Define
//! the protocol methods in the class body, as every framework does.

use std::sync::{Mutex, PoisonError};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::MutexExt;
use pyo3::types::{PyCapsule, PyType};

/// What a Python object is to DLPack, decided the way TVM FFI decides it: from the object's
/// **class**, in this order.
///
/// 1. A capsule, or a class with `__dlpack__`, is a [`Tensor`](Self::Tensor) (a tensor's class
///    also has `__dlpack_device__`, which then names the tensor's device, not a device object).
/// 2. A class with `__dlpack_data_type__` is a [`DataTypeObject`](Self::DataTypeObject).
/// 3. A class with `__dlpack_device__` (and no `__dlpack__`) is a [`DeviceObject`](Self::DeviceObject).
///
/// ```
/// use dlpack_core::{Device, ManagedTensor};
/// use dlpack_core::python::{ProtocolKind, PyDevice, protocol_kind, versioned_capsule};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let gpu = Bound::new(py, PyDevice::from(Device::cuda(0)))?;
///     assert_eq!(protocol_kind(gpu.as_any())?, Some(ProtocolKind::DeviceObject));
///     let capsule = versioned_capsule(py, ManagedTensor::from_vec(vec![0_u8], &[1])?)?;
///     assert_eq!(protocol_kind(capsule.as_any())?, Some(ProtocolKind::Tensor));
///     // A class with both `__dlpack__` and `__dlpack_device__` is a tensor, not a device.
///     let globals = pyo3::types::PyDict::new(py);
///     py.run(
///         c"class T:\n    def __dlpack__(self, **kw): pass\n    def __dlpack_device__(self): return (1, 0)",
///         Some(&globals),
///         None,
///     )?;
///     let tensor = globals.get_item("T")?.unwrap().call0()?;
///     assert_eq!(protocol_kind(&tensor)?, Some(ProtocolKind::Tensor));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProtocolKind {
    /// A tensor: `__dlpack__`, or a raw DLPack capsule.
    Tensor,
    /// A data type: `__dlpack_data_type__`.
    DataTypeObject,
    /// A device: `__dlpack_device__` without `__dlpack__`.
    DeviceObject,
    // (Not `DataType`/`Device`: a second item of either name anywhere in the crate graph makes
    // rustc print `dlpack_core::DataType` in full in every diagnostic.)
}

/// Which kind of DLPack value `obj` is, or `None` for an object that speaks none of the three
/// protocols. Only the class is looked at; nothing is called. The answer for a class is
/// remembered (see the [module documentation](self)): a protocol method added to a class
/// afterwards is not seen.
///
/// ```
/// use dlpack_core::DataType;
/// use dlpack_core::python::{ProtocolKind, protocol_kind, PyDataType};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let f16 = Bound::new(py, PyDataType::from(DataType::F16))?;
///     assert_eq!(protocol_kind(f16.as_any())?, Some(ProtocolKind::DataTypeObject));
///     assert_eq!(protocol_kind(&1.5f64.into_pyobject(py)?.into_any())?, None);
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn protocol_kind(obj: &Bound<'_, PyAny>) -> PyResult<Option<ProtocolKind>> {
    if obj.is_instance_of::<PyCapsule>() {
        return Ok(Some(ProtocolKind::Tensor));
    }
    class_kind(&obj.get_type())
}

/// How many classes the cache remembers (and keeps alive).
pub(crate) const CACHED_CLASSES: usize = 64;

/// The classes looked at so far, with their kinds. A strong reference keeps each class alive,
/// so that its address, by which it is found, cannot be reused by another class.
static KINDS: Mutex<Vec<(Py<PyType>, Option<ProtocolKind>)>> = Mutex::new(Vec::new());

/// The kind of the objects of `class`, from the cache or looked up (and then remembered).
/// A capsule's class is `None` here: capsules are tensors by name, not by class.
pub(crate) fn class_kind(class: &Bound<'_, PyType>) -> PyResult<Option<ProtocolKind>> {
    let py = class.py();
    // No Python code runs while the lock is held (only addresses are compared, and a
    // reference taken before is stored), so holding it cannot wait on the interpreter.
    let cached = KINDS
        .lock_py_attached(py)
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .find(|(known, _)| known.as_ptr() == class.as_ptr())
        .map(|&(_, kind)| kind);
    if let Some(kind) = cached {
        return Ok(kind);
    }
    let kind = look_up(class)?;
    let entry = class.clone().unbind();
    let mut kinds = KINDS
        .lock_py_attached(py)
        .unwrap_or_else(PoisonError::into_inner);
    // Another thread may have remembered it meanwhile.
    let known = kinds
        .iter()
        .any(|(known, _)| known.as_ptr() == class.as_ptr());
    let spare = if known || kinds.len() >= CACHED_CLASSES {
        Some(entry)
    } else {
        kinds.push((entry, kind));
        None
    };
    drop(kinds);
    // Released after the lock: the class is alive (`class` holds it), so this only counts down.
    drop(spare);
    Ok(kind)
}

/// Looks the three protocol methods up on `class`, in the order [`ProtocolKind`] gives.
fn look_up(class: &Bound<'_, PyType>) -> PyResult<Option<ProtocolKind>> {
    let py = class.py();
    Ok(if class.hasattr(intern!(py, "__dlpack__"))? {
        Some(ProtocolKind::Tensor)
    } else if class.hasattr(intern!(py, "__dlpack_data_type__"))? {
        Some(ProtocolKind::DataTypeObject)
    } else if class.hasattr(intern!(py, "__dlpack_device__"))? {
        Some(ProtocolKind::DeviceObject)
    } else {
        None
    })
}
