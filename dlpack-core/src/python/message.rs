//! The names that messages reaching Python give to objects and classes: `module.QualName`
//! (never a Rust path), and `repr()`, each with a placeholder when Python refuses, so that
//! making a message never raises.

use pyo3::prelude::*;
use pyo3::types::PyType;

/// `module.QualName` of an object's class, for messages (`builtins.` left out).
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    class_name(&obj.get_type())
}

/// `module.QualName` of a class (`builtins.` left out).
pub(crate) fn class_name(class: &Bound<'_, PyType>) -> String {
    class
        .fully_qualified_name()
        .map_or_else(|_| "<unknown type>".to_owned(), |name| name.to_string())
}

/// `repr(obj)`, or a placeholder when `__repr__` raises.
pub(crate) fn repr(obj: &Bound<'_, PyAny>) -> String {
    obj.repr()
        .map_or_else(|_| "<unrepresentable>".to_owned(), |r| r.to_string())
}
