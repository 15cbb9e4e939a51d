//! `mini.float16`: the unit values of a protocol class, named in a module and on the class.

use std::collections::BTreeSet;

use pyo3::PyClass;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyModule;

use super::names::class_name;

/// Names the unit values of the protocol class `T` after their DLPack names, in `module`
/// (`mini.float16`) and on the class (`mini.DType.float16`): call it once in the module's
/// `#[pymodule_init]`.
///
/// The unit values are the class attributes PyO3 makes for the variants of a fieldless
/// `#[pyclass]` enum (`DType.Float16`); each is named after its `#[dlpack("…")]` annotation,
/// the name `str()` gives, in place of its Rust name. A variant with no DLPack value
/// (`#[dlpack(skip)]`) gets no name and keeps its Rust one, and where several variants export
/// one DLPack value (an `export_only` alias), the name stands for the one it imports as (the
/// alias equals it), so no two values share a name. A class that is a struct
/// has no unit values: nothing is added. A name that the class or the module already holds
/// for something else (a method of yours called `float16`) is a `ValueError` at import,
/// naming both.
///
/// ```
/// use dlpack_core::DlpackDataType;
/// use pyo3::prelude::*;
///
/// #[pyclass(module = "mini", frozen)]
/// #[derive(Clone, Copy, DlpackDataType)]
/// enum DType {
///     #[dlpack("float16")]
///     Float16,
///     #[dlpack("bfloat16")]
///     BFloat16,
/// }
///
/// #[dlpack_core::python::pymethods(data_type)]
/// impl DType {}
///
/// #[pymodule]
/// fn mini(m: &Bound<'_, PyModule>) -> PyResult<()> {
///     m.add_class::<DType>()?;
///     dlpack_core::python::add_values::<DType>(m)
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let mini = pyo3::wrap_pymodule!(mini)(py).into_bound(py);
///     let float16 = mini.getattr("float16")?;
///     assert_eq!(float16.repr()?.to_str()?, "mini.float16");
///     assert!(float16.eq(mini.getattr("DType")?.getattr("float16")?)?);
///     assert!(!mini.getattr("DType")?.hasattr("Float16")?); // the Rust name is gone
///     assert!(mini.getattr("bfloat16")?.eq(mini.getattr("DType")?.call1(("bfloat16",))?)?);
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn add_values<T: ProtocolClass>(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    let class = T::type_object(py);
    let mut names = BTreeSet::new();
    // PyO3's attributes of the variants, under their Rust names: replaced by the DLPack names.
    let mut rust_names = Vec::new();
    for item in class
        .getattr("__dict__")?
        .call_method0("items")?
        .try_iter()?
    {
        let (key, item): (String, Bound<'_, PyAny>) = item?.extract()?;
        if let Ok(value) = item.cast::<T>() {
            // A device name with an id (`cuda:1`) is no Python identifier: its value has no
            // attribute of its own, as `torch.device("cuda:1")` has none.
            let name = T::name_of(&value.borrow())
                .filter(|name| name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
                .filter(|name| T::value_of(name).is_some());
            if let Some(name) = name {
                if key != name {
                    rust_names.push(key);
                }
                names.insert(name);
            }
        }
    }
    for name in names {
        let Some(value) = T::value_of(&name) else {
            continue;
        };
        let value = value.into_pyobject(py)?;
        for (place, target) in [
            (class_name(&class)?, class.as_any()),
            (module.name()?.to_string(), module.as_any()),
        ] {
            if let Some(held) = target.getattr_opt(name.as_str())? {
                if !held.is_instance(&class)? {
                    return Err(PyValueError::new_err(format!(
                        "{place}.{name} is already {}, and add_values names the value {name} \
                         there: rename yours",
                        held.repr()?
                    )));
                }
            }
        }
        class.setattr(name.as_str(), &value)?;
        // `add`, not `setattr`: it lists the name in `__all__` too, which a package that
        // re-exports the extension (`from .mini import *`, as maturin writes it) reads.
        module.add(name.as_str(), &value)?;
    }
    for key in rust_names {
        class.delattr(key.as_str())?;
    }
    Ok(())
}

/// A protocol class, as [`pymethods`](crate::python::pymethods) completes it: its values
/// and their DLPack names, which [`add_values`] reads. The attribute implements it; there is no
/// reason to implement it by hand.
///
/// ```
/// use dlpack_core::DlpackDevice;
/// use dlpack_core::__private::ProtocolClass;
/// use pyo3::prelude::*;
///
/// #[pyclass(module = "mini", frozen)]
/// #[derive(Clone, Copy, DlpackDevice)]
/// enum Device {
///     #[dlpack(cpu)]
///     Cpu,
///     #[dlpack(cuda_host)]
///     CudaHost,
/// }
///
/// #[dlpack_core::python::pymethods(device)]
/// impl Device {}
///
/// assert_eq!(Device::name_of(&Device::CudaHost).as_deref(), Some("cuda_host"));
/// assert!(matches!(Device::value_of("cpu"), Some(Device::Cpu)));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a DLPack protocol class",
    label = "not completed by `#[dlpack_core::python::pymethods]`",
    note = "derive `DlpackDataType` or `DlpackDevice` on it, make it a `#[pyclass]`, and write `#[dlpack_core::python::pymethods(data_type)]` (or `(device)`) on its `impl` block"
)]
pub trait ProtocolClass: PyClass + super::methods::IntoClassObject {
    /// The DLPack name of a value (`float16`, `cuda_host`); `None` for a value without a
    /// DLPack value.
    ///
    /// ```
    /// use dlpack_core::DlpackDataType;
    /// use dlpack_core::__private::ProtocolClass;
    /// use pyo3::prelude::*;
    ///
    /// #[pyclass(frozen)]
    /// #[derive(Clone, Copy, DlpackDataType)]
    /// enum DType {
    ///     #[dlpack("bfloat16")]
    ///     BFloat16,
    ///     #[dlpack(skip)]
    ///     Opaque,
    /// }
    ///
    /// #[dlpack_core::python::pymethods(data_type)]
    /// impl DType {}
    ///
    /// assert_eq!(DType::name_of(&DType::BFloat16).as_deref(), Some("bfloat16"));
    /// assert_eq!(DType::name_of(&DType::Opaque), None);
    /// ```
    fn name_of(value: &Self) -> Option<String>;
    /// The value a DLPack name stands for: what importing its DLPack value gives; `None` for
    /// a name the class has no value for.
    ///
    /// ```
    /// use dlpack_core::DlpackDataType;
    /// use dlpack_core::__private::ProtocolClass;
    /// use pyo3::prelude::*;
    ///
    /// #[pyclass(frozen)]
    /// #[derive(Clone, Copy, DlpackDataType)]
    /// enum DType {
    ///     #[dlpack("bfloat16")]
    ///     BFloat16,
    ///     #[dlpack(skip)]
    ///     Opaque,
    /// }
    ///
    /// #[dlpack_core::python::pymethods(data_type)]
    /// impl DType {}
    ///
    /// assert!(matches!(DType::value_of("bfloat16"), Some(DType::BFloat16)));
    /// assert!(DType::value_of("float32").is_none());
    /// ```
    fn value_of(name: &str) -> Option<Self>;
}

/// [`ProtocolClass::name_of`] for a data type class.
#[doc(hidden)]
pub fn data_type_name<T: super::methods::DataTypeClass>(value: &T) -> Option<String> {
    value
        .data_type_of()
        .ok()
        .map(|data_type| data_type.to_string())
}

/// [`ProtocolClass::value_of`] for a data type class.
#[doc(hidden)]
pub fn data_type_value<T: super::methods::DataTypeClass>(name: &str) -> Option<T> {
    T::of_data_type(name.parse().ok()?).ok()
}

/// [`ProtocolClass::name_of`] for a device class.
#[doc(hidden)]
pub fn device_name<T: super::methods::DeviceClass>(value: &T) -> Option<String> {
    value.device_of().ok().map(|device| device.to_string())
}

/// [`ProtocolClass::value_of`] for a device class.
#[doc(hidden)]
pub fn device_value<T: super::methods::DeviceClass>(name: &str) -> Option<T> {
    T::of_device(name.parse().ok()?).ok()
}
