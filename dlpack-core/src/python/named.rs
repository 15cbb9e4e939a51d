//! Arguments read by name: what `#[tensor_args]` makes of its arguments, so that a refusal
//! names the function and the argument as Python's own messages do (`sum(): argument 'x' must
//! be …`). PyO3 tells an argument's extractor neither name; the attribute hands both over as
//! one `&'static` pair, which a [`TensorArg`](crate::python::TensorArg) keeps for the errors of
//! its dispatches.
//!
//! The pair travels in a type: the attribute declares a unit type per argument ([`ArgNames`])
//! and gives the parameter the type [`Named<T, ThatType>`](Named), which PyO3 extracts as any
//! argument type (its stub annotation is `T`'s), and unwraps it first thing in the body.
//! An argument whose signature default is not `None` keeps an extractor function
//! (`#[pyo3(from_py_with = …)]`) instead, see `dlpack-derive/src/expand/args.rs`.

use core::marker::PhantomData;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

/// `(function, argument)`, as `#[tensor_args]` writes them: `("mean", "x")`,
/// `("Model.forward", "x")`.
pub(crate) type Names = &'static (&'static str, &'static str);

/// A `#[pyfunction]` argument read by name: [`TensorArg`](crate::python::TensorArg),
/// [`DataTypeLike`](crate::python::DataTypeLike), [`DeviceLike`](crate::python::DeviceLike),
/// `bool`, and an `Option` of any of them (`None` for Python's `None`). What [`Named`] and
/// `#[tensor_args]`'s extractors call. Not public API.
#[doc(hidden)]
pub trait NamedArg<'a>: Sized {
    /// Reads `obj` as the argument `names.1` of `names.0`.
    fn __extract_named(obj: Borrowed<'a, '_, PyAny>, names: Names) -> PyResult<Self>;

    /// As [`__extract_named`](Self::__extract_named), for an argument that may also be `None`
    /// (an `Option` of it), whose message says so.
    #[inline(always)]
    fn __extract_named_or_none(obj: Borrowed<'a, '_, PyAny>, names: Names) -> PyResult<Self> {
        Self::__extract_named(obj, names)
    }
}

/// The names of one argument: `#[tensor_args]` declares a unit type implementing it for each
/// argument it names, beside the function. Not public API.
#[doc(hidden)]
pub trait ArgNames {
    /// `(function, argument)`.
    const NAMES: &'static (&'static str, &'static str);
    /// Whether the parameter is an `Option` of the argument (`Option<Named<T, Self>>`), so
    /// that a refusal says `None` is taken too.
    const OR_NONE: bool = false;
}

/// An argument of type `T` read by the names of `N`: the parameter type `#[tensor_args]`
/// writes (`x: Named<TensorArg<'_, f32>, __names_of_x>`), unwrapped at the top of the body.
/// PyO3 extracts it as any argument type, so its stub annotation is `T`'s
/// (`dlpack_typing.TensorLike`), which an extractor function (`from_py_with`) would lose.
/// Not public API.
#[doc(hidden)]
#[repr(transparent)]
pub struct Named<T, N>(T, PhantomData<N>);

impl<T, N> Named<T, N> {
    /// The argument.
    #[doc(hidden)]
    #[inline(always)]
    pub fn __into_inner(self) -> T {
        self.0
    }
}

/// The argument of a call from Rust: `sum(x.into())` for `fn sum(x: TensorArg<'_, f32>)` under
/// `#[tensor_args]`.
impl<T, N> From<T> for Named<T, N> {
    #[inline(always)]
    fn from(value: T) -> Self {
        Self(value, PhantomData)
    }
}

impl<'a, 'py, T, N> FromPyObject<'a, 'py> for Named<T, N>
where
    T: NamedArg<'a> + FromPyObject<'a, 'py>,
    N: ArgNames,
{
    type Error = PyErr;

    /// `T`'s: what the argument takes does not change with its names.
    #[cfg(feature = "inspect")]
    const INPUT_TYPE: pyo3::inspect::PyStaticExpr = T::INPUT_TYPE;

    #[inline(always)]
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let value = if N::OR_NONE {
            T::__extract_named_or_none(obj, N::NAMES)?
        } else {
            T::__extract_named(obj, N::NAMES)?
        };
        Ok(Self(value, PhantomData))
    }
}

impl<'a, T: NamedArg<'a>> NamedArg<'a> for Option<T> {
    #[inline(always)]
    fn __extract_named(obj: Borrowed<'a, '_, PyAny>, names: Names) -> PyResult<Self> {
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
    fn __extract_named(obj: Borrowed<'_, '_, PyAny>, names: Names) -> PyResult<Self> {
        obj.extract()
            .map_err(|_| not_a_bool(&obj, names, "True or False"))
    }

    #[inline]
    fn __extract_named_or_none(obj: Borrowed<'_, '_, PyAny>, names: Names) -> PyResult<Self> {
        obj.extract()
            .map_err(|_| not_a_bool(&obj, names, "True, False or None"))
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
