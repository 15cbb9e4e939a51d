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
use pyo3::types::{PyBool, PyFloat, PyInt, PyString, PyTuple};

use super::message::{repr, type_name};
use crate::Device;
use crate::error::Error;
use crate::ffi::DLDeviceType;

/// A Python value that should be a tuple of ints, and where it came from: a protocol
/// method's return value or a keyword argument. [`ints`](Self::ints) checks it. Only borrows,
/// so that making one costs nothing on the way that refuses nothing.
#[derive(Clone, Copy)]
pub(crate) struct Ints<'a, 'py> {
    value: &'a Bound<'py, PyAny>,
    origin: Origin<'a, 'py>,
}

/// Where a checked tuple came from, for the messages. Turned into text only on error.
#[derive(Clone, Copy)]
pub(crate) enum Origin<'a, 'py> {
    /// A keyword argument; the text is `"max_version="` or `"dl_device="`.
    Argument(&'static str),
    /// What `obj.method()` returned.
    Returned(&'a Bound<'py, PyAny>, &'a Bound<'py, PyString>),
    /// The pair `(obj.dlpack_device_type(), obj.index)` of a TVM FFI `Device`.
    TvmFfiDevice(&'a Bound<'py, PyAny>),
    /// A tuple given as a value; the text says what it stands for (`"device"`).
    Given(&'static str),
}

/// What `obj.method()` returns. The method's own exception goes through unchanged, with a
/// note (`add_note`, Python 3.11+) that says which protocol call raised it.
pub(crate) fn call_protocol<'py>(
    obj: &Bound<'py, PyAny>,
    method: &Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyAny>> {
    obj.call_method0(method).inspect_err(|err| {
        // A failure to add the note is not raised.
        let note = format!("raised by {} (the DLPack protocol)", call_text(obj, method));
        let _ = err
            .value(obj.py())
            .call_method1(intern!(obj.py(), "add_note"), (note,));
    })
}

impl<'a, 'py> Ints<'a, 'py> {
    /// `value`, which came from `origin`.
    pub(crate) fn new(value: &'a Bound<'py, PyAny>, origin: Origin<'a, 'py>) -> Self {
        Self { value, origin }
    }

    /// The `N` ints of a tuple `shape` (`"(major, minor)"`, for messages), each in `0..=max`
    /// for its `(name, max)` in `ranges`.
    ///
    /// Errors: a `TypeError` for a value that is not a `tuple` (a list is refused, as NumPy and
    /// TVM FFI refuse it) or an item that is not an int (a `bool` or a `float` included: the
    /// protocol never gives those, so they are refused rather than guessed at); a `ValueError`
    /// for a tuple of another length or an item out of its range. Each message names where
    /// the value came from and shows it.
    ///
    /// A tuple of exact `int`s in range, which is what protocol methods and consumers pass, is
    /// read without calling into Python; anything else (an `IntEnum` device type, a NumPy
    /// integer, a value that is refused) takes the long way, through `__index__`.
    pub(crate) fn ints<const N: usize>(
        &self,
        shape: &str,
        ranges: [(&str, i64); N],
    ) -> PyResult<[i64; N]> {
        let in_range = |ints: &[i64; N]| {
            ints.iter()
                .zip(&ranges)
                .all(|(value, &(_, max))| (0..=max).contains(value))
        };
        if let Some(ints) = exact_ints::<N>(self.value).filter(in_range) {
            return Ok(ints);
        }
        self.ints_the_long_way(shape, ranges)
    }

    /// [`ints`](Self::ints) for anything but a tuple of exact ints in range: kept out of line,
    /// so that the quick way stays a few instructions long on every `__dlpack__` call.
    #[cold]
    #[inline(never)]
    fn ints_the_long_way<const N: usize>(
        &self,
        shape: &str,
        ranges: [(&str, i64); N],
    ) -> PyResult<[i64; N]> {
        let items = self.items::<N>(shape)?;
        let mut ints = [0; N];
        for ((slot, item), (what, max)) in ints.iter_mut().zip(items).zip(ranges) {
            let text = match item {
                Item::Fits(value) if (0..=max).contains(&value) => {
                    *slot = value;
                    continue;
                }
                Item::Fits(value) => value.to_string(),
                Item::Huge(text) => text,
            };
            return Err(PyValueError::new_err(format!(
                "{}: {what} {text} is out of range: expected 0 to {max}",
                self.subject()
            )));
        }
        Ok(ints)
    }

    /// A `ValueError` for ints in range that DLPack does not allow together: the value as it
    /// came, then the rule it breaks (`device (99, 0): unknown device type 99 (known types are
    /// …)`), once, not the value again as DLPack prints it.
    pub(crate) fn invalid(&self, err: &Error) -> PyErr {
        let subject = self.subject();
        PyValueError::new_err(match err {
            Error::InvalidDataType { reason, .. } => format!("{subject}: {reason}"),
            Error::InvalidDevice { reason, .. } => format!("{subject}: {reason}"),
            _ => format!("{subject}: {err}"),
        })
    }

    /// What the value is, for messages: `module.Class.__dlpack_device__() returned (1, 0)`,
    /// `dl_device=(1, 0)`.
    fn subject(&self) -> String {
        let value = repr(self.value);
        match self.origin {
            Origin::Argument(name) => format!("{name}{value}"),
            Origin::Returned(obj, method) => format!("{} returned {value}", call_text(obj, method)),
            Origin::TvmFfiDevice(obj) => {
                format!(
                    "{}'s (dlpack_device_type(), index) is {value}",
                    type_name(obj)
                )
            }
            Origin::Given(what) => format!("{what} {value}"),
        }
    }

    /// The items of a tuple of `N` ints, the long way: the tuple's shape and the items' types
    /// are checked here, their ranges by [`ints`](Self::ints).
    fn items<const N: usize>(&self, shape: &str) -> PyResult<[Item; N]> {
        let Ok(tuple) = self.value.cast::<PyTuple>() else {
            return Err(PyTypeError::new_err(format!(
                "{}, a {}; expected a tuple {shape} of {N} ints",
                self.subject(),
                type_name(self.value)
            )));
        };
        if tuple.len() != N {
            return Err(PyValueError::new_err(format!(
                "{}, a tuple of {} items; expected {N} items {shape}",
                self.subject(),
                tuple.len()
            )));
        }
        let mut items: [Item; N] = core::array::from_fn(|_| Item::Fits(0));
        for (i, (slot, item)) in items.iter_mut().zip(tuple.iter()).enumerate() {
            let Some(read) = read_int(&item)? else {
                return Err(PyTypeError::new_err(format!(
                    "{}: item {i} is a {} ({}); expected an int",
                    self.subject(),
                    type_name(&item),
                    repr(&item)
                )));
            };
            *slot = read;
        }
        Ok(items)
    }
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

/// `module.Class.method()`, for messages.
fn call_text(obj: &Bound<'_, PyAny>, method: &Bound<'_, PyString>) -> String {
    format!("{}.{}()", type_name(obj), method.to_string_lossy())
}

/// The items of `value` when it is a `tuple` of `N` exact `int`s that fit `i64`. `None` for
/// anything else.
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

/// One item of a protocol tuple: its value, or its decimal text when it does not fit `i64`
/// (then it is out of every range the protocol has).
enum Item {
    Fits(i64),
    Huge(String),
}

/// An int item of a protocol tuple, or `None` for anything that is not an int.
fn read_int(item: &Bound<'_, PyAny>) -> PyResult<Option<Item>> {
    // A bool is an int to Python, and a float may hold an integral value; neither is what
    // the protocol returns, so both are refused rather than guessed at.
    if item.is_instance_of::<PyBool>() || item.is_instance_of::<PyFloat>() {
        return Ok(None);
    }
    // Ints, int subclasses (an IntEnum device type) and objects with `__index__`.
    let Ok(index) = item.call_method0(intern!(item.py(), "__index__")) else {
        return Ok(None);
    };
    Ok(Some(match index.extract::<i64>() {
        Ok(value) => Item::Fits(value),
        Err(_) => Item::Huge(index.str()?.to_string_lossy().into_owned()),
    }))
}

#[cfg(test)]
mod tests {
    use pyo3::exceptions::{PyTypeError, PyValueError};
    use pyo3::types::PyDict;

    use super::*;

    const VERSION: [(&str, i64); 2] = [
        ("major version", u32::MAX as i64),
        ("minor version", u32::MAX as i64),
    ];

    /// `max_version=value` checked as `__dlpack__` checks it.
    fn version(value: &Bound<'_, PyAny>) -> PyResult<[i64; 2]> {
        Ints::new(value, Origin::Argument("max_version=")).ints("(major, minor)", VERSION)
    }

    fn eval<'py>(py: Python<'py>, code: &std::ffi::CStr) -> PyResult<Bound<'py, PyAny>> {
        let globals = PyDict::new(py);
        py.run(
            c"import enum\nclass Minor(enum.IntEnum):\n    ONE = 1\nclass Index:\n    def __index__(self): return 3",
            Some(&globals),
            None,
        )?;
        py.eval(code, Some(&globals), None)
    }

    #[test]
    fn exact_ints_and_other_ints_read_the_same() {
        Python::initialize();
        Python::attach(|py| -> PyResult<()> {
            // The quick way (exact ints) and the long way (`__index__`) agree.
            assert_eq!(version(&eval(py, c"(1, 1)")?)?, [1, 1]);
            assert_eq!(version(&eval(py, c"(1, Minor.ONE)")?)?, [1, 1]);
            assert_eq!(version(&eval(py, c"(Index(), 0)")?)?, [3, 0]);
            assert_eq!(
                version(&eval(py, c"(4294967295, 0)")?)?,
                [u32::MAX.into(), 0]
            );
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn refusals_name_the_value_and_where_it_came_from() {
        Python::initialize();
        Python::attach(|py| -> PyResult<()> {
            let cases: [(&std::ffi::CStr, bool, &str); 6] = [
                (
                    c"(1, 4294967296)",
                    false,
                    "max_version=(1, 4294967296): minor version 4294967296 is out of range: \
                     expected 0 to 4294967295",
                ),
                (
                    c"(-1, 2**70)",
                    false,
                    "max_version=(-1, 1180591620717411303424): major version -1 is out of \
                     range: expected 0 to 4294967295",
                ),
                (
                    c"(1, 2**70)",
                    false,
                    "max_version=(1, 1180591620717411303424): minor version \
                     1180591620717411303424 is out of range: expected 0 to 4294967295",
                ),
                (
                    c"[1, 0]",
                    true,
                    "max_version=[1, 0], a list; expected a tuple (major, minor) of 2 ints",
                ),
                (
                    c"(1, 0, 0)",
                    false,
                    "max_version=(1, 0, 0), a tuple of 3 items; expected 2 items (major, minor)",
                ),
                (
                    c"(1, True)",
                    true,
                    "max_version=(1, True): item 1 is a bool (True); expected an int",
                ),
            ];
            for (code, type_error, message) in cases {
                let err = version(&eval(py, code)?).unwrap_err();
                let expected = if type_error {
                    err.is_instance_of::<PyTypeError>(py)
                } else {
                    err.is_instance_of::<PyValueError>(py)
                };
                assert!(expected, "{code:?}: {err}");
                assert_eq!(err.value(py).to_string(), message);
            }
            Ok(())
        })
        .unwrap();
    }
}
