//! Messages that reach Python name the Python class (`mini.DType`), not the Rust type that
//! `core::any::type_name` gives (`mini::dtype::DType`).

use pyo3::PyClass;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::error::Error;
use crate::python::error::value_message;

/// `mini.DType`: the class as Python code names it (`__module__` and `__qualname__`); the
/// qualified name alone for a class without a module of its own (`builtins`).
pub(crate) fn class_name(ty: &Bound<'_, PyType>) -> PyResult<String> {
    let name = ty.qualname()?;
    let module = ty.module()?;
    let module = module.to_str()?;
    Ok(if module == "builtins" {
        name.to_string()
    } else {
        format!("{module}.{name}")
    })
}

/// `err` as the `ValueError` a Python user reads: the messages about a value of `T` (no DLPack
/// value, no value for a DLPack value, an id out of range) name `T`'s Python class; every other
/// error is converted as `Error`'s `From` converts it.
pub(crate) fn python_error<T: PyClass>(py: Python<'_>, err: Error) -> PyErr {
    let class = class_name(&T::type_object(py)).unwrap_or_else(|_| T::NAME.to_owned());
    match value_message(&err, &class) {
        Some(message) => PyValueError::new_err(message),
        None => err.into(),
    }
}
