//! Tuples of ints from Python, checked: what a protocol method returns
//! (`__dlpack_data_type__`, `__dlpack_device__`) and the tuple arguments of `__dlpack__`
//! (`max_version`, `dl_device`).
//!
//! These run on every `__dlpack__` call and every data type or device read, so the way through
//! is kept short: a `tuple` of exact `int`s is read without calling into Python, and the
//! messages, which name the value with `repr()` and the class with its qualified name, are
//! made only when something is refused.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString, PyTuple, PyType};

use crate::error::Error;

/// One item of a protocol tuple: its value, or its decimal text when it does not fit `i64`
/// (then it is out of every range the protocol has).
pub(crate) enum Item {
    Fits(i64),
    Huge(String),
}

/// Where a checked tuple came from, for the messages. Turned into text only on error.
pub(crate) enum Origin<'py> {
    /// A keyword argument; the text is `"max_version="` or `"dl_device="`.
    Argument(&'static str),
    /// What `obj.method()` returned.
    Returned(Bound<'py, PyAny>, Bound<'py, PyString>),
    /// The pair `(obj.dlpack_device_type(), obj.index)` of a TVM FFI `Device`.
    TvmFfiDevice(Bound<'py, PyAny>),
}

impl Origin<'_> {
    /// What `value` is, for messages: `module.Class.__dlpack_device__() returned (1, 0)`,
    /// `dl_device=(1, 0)`.
    fn subject(&self, value: &Bound<'_, PyAny>) -> String {
        let value = repr(value);
        match self {
            Origin::Argument(name) => format!("{name}{value}"),
            Origin::Returned(obj, method) => format!("{} returned {value}", call_text(obj, method)),
            Origin::TvmFfiDevice(obj) => {
                format!(
                    "{}'s (dlpack_device_type(), index) is {value}",
                    type_name(obj)
                )
            }
        }
    }
}

/// `module.Class.method()`, for messages.
fn call_text(obj: &Bound<'_, PyAny>, method: &Bound<'_, PyString>) -> String {
    format!("{}.{}()", type_name(obj), method.to_string_lossy())
}

/// A tuple of `N` ints from a protocol call or argument, for range checks and messages.
pub(crate) struct Call<'py, const N: usize> {
    /// The tuple, for messages.
    value: Bound<'py, PyAny>,
    origin: Origin<'py>,
    pub(crate) items: [Item; N],
}

impl<const N: usize> Call<'_, N> {
    /// The item's value if it lies in `0..=max`; a `ValueError` naming it otherwise.
    pub(crate) fn in_range(&self, item: &Item, what: &str, max: i64) -> PyResult<i64> {
        let text = match item {
            Item::Fits(value) if (0..=max).contains(value) => return Ok(*value),
            Item::Fits(value) => value.to_string(),
            Item::Huge(text) => text.clone(),
        };
        Err(PyValueError::new_err(format!(
            "{}: {what} {text} is out of range: expected 0 to {max}",
            self.origin.subject(&self.value)
        )))
    }

    /// A `ValueError` for values in range that DLPack does not allow together.
    pub(crate) fn invalid(&self, err: &Error) -> PyErr {
        PyValueError::new_err(format!("{}: {err}", self.origin.subject(&self.value)))
    }
}

/// Calls the protocol method `method` of `obj` and checks that it returned a tuple of `N`
/// ints. The tuple's shape is checked here; the items' ranges by the caller.
pub(crate) fn call_protocol<'py, const N: usize>(
    obj: &Bound<'py, PyAny>,
    method: &Bound<'py, PyString>,
    shape: &str,
) -> PyResult<Call<'py, N>> {
    let value = obj.call_method0(method).inspect_err(|err| {
        // The method's own exception goes through unchanged, with a note (`add_note`, Python
        // 3.11+) that says which protocol call raised it. A failure to add it is not raised.
        let note = format!("raised by {} (the DLPack protocol)", call_text(obj, method));
        let _ = err
            .value(obj.py())
            .call_method1(intern!(obj.py(), "add_note"), (note,));
    })?;
    check_tuple(value, Origin::Returned(obj.clone(), method.clone()), shape)
}

/// Checks that `value` is a tuple of `N` ints `shape`; `origin` says where it came from, for
/// messages. The tuple's shape is checked here; the items' ranges by the caller.
///
/// Items that are exact `int`s are read directly; anything else goes through `__index__`
/// (an `IntEnum` device type, a NumPy integer), except a `bool` or a `float`, which the
/// protocol never returns and which are refused rather than guessed at.
pub(crate) fn check_tuple<'py, const N: usize>(
    value: Bound<'py, PyAny>,
    origin: Origin<'py>,
    shape: &str,
) -> PyResult<Call<'py, N>> {
    if let Some(ints) = exact_ints(&value) {
        return Ok(Call {
            value,
            origin,
            items: ints.map(Item::Fits),
        });
    }
    let Ok(tuple) = value.cast::<PyTuple>() else {
        return Err(PyTypeError::new_err(format!(
            "{}, a {}; expected a tuple {shape} of {N} ints",
            origin.subject(&value),
            type_name(&value)
        )));
    };
    if tuple.len() != N {
        return Err(PyValueError::new_err(format!(
            "{}, a tuple of {} items; expected {N} items {shape}",
            origin.subject(&value),
            tuple.len()
        )));
    }
    let mut items: [Item; N] = core::array::from_fn(|_| Item::Fits(0));
    for (i, (slot, item)) in items.iter_mut().zip(tuple.iter()).enumerate() {
        let Some(read) = read_int(&item)? else {
            return Err(PyTypeError::new_err(format!(
                "{}: item {i} is a {} ({}); expected an int",
                origin.subject(&value),
                type_name(&item),
                repr(&item)
            )));
        };
        *slot = read;
    }
    Ok(Call {
        value,
        origin,
        items,
    })
}

/// The items of `value` when it is a `tuple` of `N` exact `int`s that fit `i64`, as protocol
/// methods and consumers pass them: read without calling into Python. `None` for anything
/// else, which [`check_tuple`] then reads the long way.
fn exact_ints<const N: usize>(value: &Bound<'_, PyAny>) -> Option<[i64; N]> {
    let tuple = value.cast::<PyTuple>().ok()?;
    if tuple.len() != N {
        return None;
    }
    let mut ints = [0; N];
    for (slot, item) in ints.iter_mut().zip(tuple.iter_borrowed()) {
        if !item.is_exact_instance_of::<PyInt>() {
            return None;
        }
        *slot = item.extract().ok()?;
    }
    Some(ints)
}

/// An int item of a protocol tuple, or `None` for anything that is not an int.
fn read_int(item: &Bound<'_, PyAny>) -> PyResult<Option<Item>> {
    let index = if item.is_exact_instance_of::<PyInt>() {
        item.clone()
    } else if item.is_instance_of::<PyBool>() || item.is_instance_of::<PyFloat>() {
        // A bool is an int to Python, and a float may hold an integral value; neither is what
        // the protocol returns, so both are refused rather than guessed at.
        return Ok(None);
    } else {
        // Int subclasses (an IntEnum device type) and objects with `__index__`.
        match item.call_method0(intern!(item.py(), "__index__")) {
            Ok(index) => index,
            Err(_) => return Ok(None),
        }
    };
    Ok(Some(match index.extract::<i64>() {
        Ok(value) => Item::Fits(value),
        Err(_) => Item::Huge(index.str()?.to_string_lossy().into_owned()),
    }))
}

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
