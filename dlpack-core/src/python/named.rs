//! Arguments read by name: what `#[tensor_args]`'s extractors call, so that a refusal names
//! the function and the argument as Python's own messages do (`sum(): argument 'x' must be
//! …`). PyO3 tells an argument's extractor neither name; the attribute hands both over as one
//! `&'static` pair, which a [`TensorArg`](crate::python::TensorArg) keeps for the errors of
//! its dispatches.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

/// `(function, argument)`, as `#[tensor_args]` writes them: `("mean", "x")`,
/// `("Model.forward", "x")`.
pub(crate) type Names = &'static (&'static str, &'static str);

/// A `#[pyfunction]` argument read by name: [`TensorArg`](crate::python::TensorArg),
/// [`DataTypeLike`](crate::python::DataTypeLike), [`DeviceLike`](crate::python::DeviceLike),
/// `bool`, and an `Option` of any of them (`None` for Python's `None`). What
/// `#[tensor_args]`'s extractors call. Not public API.
#[doc(hidden)]
pub trait NamedArg<'a>: Sized {
    /// Reads `obj` as the argument `names.1` of `names.0`.
    fn __extract_named(obj: &'a Bound<'_, PyAny>, names: Names) -> PyResult<Self>;

    /// As [`__extract_named`](Self::__extract_named), for an argument that may also be `None`
    /// (an `Option` of it), whose message says so.
    #[inline(always)]
    fn __extract_named_or_none(obj: &'a Bound<'_, PyAny>, names: Names) -> PyResult<Self> {
        Self::__extract_named(obj, names)
    }
}

impl<'a, T: NamedArg<'a>> NamedArg<'a> for Option<T> {
    #[inline(always)]
    fn __extract_named(obj: &'a Bound<'_, PyAny>, names: Names) -> PyResult<Self> {
        if obj.is_none() {
            Ok(None)
        } else {
            T::__extract_named_or_none(obj, names).map(Some)
        }
    }
}

/// `True` or `False` (and NumPy's `bool_`, as PyO3 reads them); anything else is a
/// `TypeError` that says so and shows what was given, where PyO3 would say
/// `'str' object is not an instance of 'bool'`.
impl NamedArg<'_> for bool {
    #[inline]
    fn __extract_named(obj: &Bound<'_, PyAny>, names: Names) -> PyResult<Self> {
        obj.extract()
            .map_err(|_| not_a_bool(obj, names, "True or False"))
    }

    #[inline]
    fn __extract_named_or_none(obj: &Bound<'_, PyAny>, names: Names) -> PyResult<Self> {
        obj.extract()
            .map_err(|_| not_a_bool(obj, names, "True, False or None"))
    }
}

#[cold]
fn not_a_bool(obj: &Bound<'_, PyAny>, &(function, argument): Names, expected: &str) -> PyErr {
    let given = obj
        .repr()
        .map_or_else(|_| "<unrepresentable>".to_owned(), |r| r.to_string());
    PyTypeError::new_err(format!(
        "{function}(): argument '{argument}' must be {expected}, got {given}"
    ))
}

/// `err` with the function and the argument in front of its message, as the same exception
/// class: `arange(): argument 'dtype': 'flaot32' is not a data type: …`.
#[cold]
pub(crate) fn named_error(py: Python<'_>, err: PyErr, &(function, argument): Names) -> PyErr {
    let message = err
        .value(py)
        .str()
        .map_or_else(|_| String::new(), |s| s.to_string());
    PyErr::from_type(
        err.get_type(py),
        format!("{function}(): argument '{argument}': {message}"),
    )
}
