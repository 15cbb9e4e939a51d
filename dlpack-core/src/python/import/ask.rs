//! Asking a producer for its tensor, and checking what it gave: the two steps every import
//! takes, with or without feature `cuda` (whose consumer, `cuda/`, adds the stream).
//!
//! This is where a consumer chooses how to ask: through DLPack 1.3's C exchange API when the
//! producer's type publishes a table this crate speaks (one C call, no capsule), else
//! `__dlpack__(max_version=…)`, falling back to the legacy call.

use pyo3::exceptions::{PyBufferError, PyException, PyTypeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};

use crate::Device;
use crate::ffi::DLPackVersion;
use crate::python::capsule::take_tensor as capsule_tensor;
use crate::python::import::route::Route;
use crate::python::import::table::Table;
use crate::python::import::torch;
use crate::python::message::type_name;
use crate::tensor::ManagedTensor;

/// The tensor `obj` holds, read as `route` decided (see [`import_tensor`](super::import_tensor)):
/// a capsule consumed as it is, or what the class's exchange table or `obj.__dlpack__(…)`
/// exports. `stream`, when given, is passed as `stream=` in both the versioned call and the
/// legacy fallback (the legacy protocol had `stream` already). `table_error`: what a table
/// raised when it was asked to lend the tensor, the context of `__dlpack__`'s error.
pub(crate) fn take_tensor(
    obj: &Bound<'_, PyAny>,
    route: Route,
    device: Option<Device>,
    copy: Option<bool>,
    stream: Option<i128>,
    mut table_error: Option<PyErr>,
) -> PyResult<ManagedTensor> {
    let py = obj.py();
    match route {
        Route::Capsule => return capsule_tensor(obj.cast::<PyCapsule>()?),
        Route::NotTensor => {
            return Err(PyTypeError::new_err(format!(
                "expected a tensor: a DLPack capsule or an object whose class has __dlpack__, \
                 got {}",
                type_name(obj)
            )));
        }
        // A consumer with a stream of its own goes through `__dlpack__`, which synchronises.
        Route::Table { table, torch } if stream.is_none() => {
            match through_table(table, obj, device)? {
                Through::Taken(tensor) if torch && torch::conjugate(obj, tensor.dtype())? => {}
                Through::Taken(tensor) => return Ok(tensor),
                Through::Declined => {}
                Through::Failed(err) => table_error = Some(err),
            }
        }
        _ => {}
    }
    ask_protocol(obj, device, copy, stream).map_err(|err| after_table(py, err, table_error))
}

/// What `obj.__dlpack__(…)` returns, as a tensor: the call [`take_tensor`] makes when no table
/// stood for it.
fn ask_protocol(
    obj: &Bound<'_, PyAny>,
    device: Option<Device>,
    copy: Option<bool>,
    stream: Option<i128>,
) -> PyResult<ManagedTensor> {
    let py = obj.py();
    let capsule = if device.is_none() && copy.is_none() && stream.is_none() {
        // The common call, `__dlpack__(max_version=(1, 3))`, with nothing else to say.
        match ask_versioned(obj) {
            Ok(capsule) => capsule,
            // A producer from before DLPack 1.0 takes no `max_version`.
            Err(err) if err.is_instance_of::<PyTypeError>(py) => {
                obj.call_method0(intern!(py, "__dlpack__"))?
            }
            Err(err) => return Err(err),
        }
    } else {
        ask_with_keywords(obj, device, copy, stream)?
    };
    let capsule = capsule.cast_into::<PyCapsule>().map_err(|err| {
        PyTypeError::new_err(format!(
            "{}.__dlpack__() returned a {}, not a capsule",
            type_name(obj),
            type_name(&err.into_inner())
        ))
    })?;
    capsule_tensor(&capsule)
}

/// `obj.__dlpack__(max_version=(1, 3))`, by vectorcall with the keyword names and the version
/// made once: the keyword dict a call through `PyObject_Call` builds (and the callee unpacks
/// again) cost more than NumPy's whole export.
#[cfg(any(Py_3_12, not(any(Py_LIMITED_API, PyPy))))]
fn ask_versioned<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    use pyo3::sync::PyOnceLock;
    use pyo3::types::PyTuple;

    static KEYWORDS: PyOnceLock<(Py<PyTuple>, Py<PyTuple>)> = PyOnceLock::new();
    let py = obj.py();
    let (names, version) = KEYWORDS.get_or_try_init(py, || -> PyResult<_> {
        let current = DLPackVersion::CURRENT;
        Ok((
            PyTuple::new(py, [intern!(py, "max_version")])?.unbind(),
            PyTuple::new(py, [current.major, current.minor])?.unbind(),
        ))
    })?;
    let args = [obj.as_ptr(), version.as_ptr()];
    // SAFETY: the method name is a str, `args` holds `self` then one value per keyword name
    // (1 positional, `self`), all alive for the call; the thread is attached.
    unsafe {
        let result = pyo3::ffi::PyObject_VectorcallMethod(
            intern!(py, "__dlpack__").as_ptr(),
            args.as_ptr(),
            1,
            names.as_ptr(),
        );
        Bound::from_owned_ptr_or_err(py, result)
    }
}

/// `obj.__dlpack__(max_version=(1, 3))` through a keyword dict, where the C API has no
/// vectorcall of methods (the limited API before 3.12, PyPy).
#[cfg(not(any(Py_3_12, not(any(Py_LIMITED_API, PyPy)))))]
fn ask_versioned<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let kwargs = PyDict::new(py);
    let version = DLPackVersion::CURRENT;
    kwargs.set_item(intern!(py, "max_version"), (version.major, version.minor))?;
    obj.call_method(intern!(py, "__dlpack__"), (), Some(&kwargs))
}

/// `obj.__dlpack__(max_version=(1, 3), …)` with the keywords given: `dl_device`, `copy`,
/// `stream`; without `copy` when the producer refuses to copy, and as the legacy call (with
/// `stream` alone) when it takes no `max_version`.
fn ask_with_keywords<'py>(
    obj: &Bound<'py, PyAny>,
    device: Option<Device>,
    copy: Option<bool>,
    stream: Option<i128>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let kwargs = PyDict::new(py);
    let version = DLPackVersion::CURRENT;
    kwargs.set_item(intern!(py, "max_version"), (version.major, version.minor))?;
    if let Some(device) = device {
        kwargs.set_item(intern!(py, "dl_device"), <(i32, i32)>::from(device))?;
    }
    if let Some(copy) = copy {
        kwargs.set_item(intern!(py, "copy"), copy)?;
    }
    if let Some(stream) = stream {
        kwargs.set_item(intern!(py, "stream"), stream)?;
    }
    let method = obj.getattr(intern!(py, "__dlpack__"))?;
    Ok(match method.call((), Some(&kwargs)) {
        Ok(capsule) => capsule,
        // A producer that cannot copy (TVM FFI refuses `copy=True`) shares instead, and
        // `settle` makes the copy, as the array API standard lets a consumer do.
        Err(err) if copy == Some(true) && err.is_instance_of::<PyBufferError>(py) => {
            kwargs.del_item(intern!(py, "copy"))?;
            method.call((), Some(&kwargs))?
        }
        // A producer from before DLPack 1.0 takes no `max_version` (nor `dl_device`, `copy`).
        Err(err) if err.is_instance_of::<PyTypeError>(py) => match stream {
            None => method.call0()?,
            Some(stream) => {
                let legacy = PyDict::new(py);
                legacy.set_item(intern!(py, "stream"), stream)?;
                method.call((), Some(&legacy))?
            }
        },
        Err(err) => return Err(err),
    })
}

/// What became of an export through a table.
enum Through {
    /// The table's tensor, which stands for what `__dlpack__` would give.
    Taken(ManagedTensor),
    /// The table exported a tensor that cannot stand for it (on another device, or one with
    /// a current work stream to wait for): `__dlpack__` is asked.
    Declined,
    /// The table raised: `__dlpack__` is asked, and should it fail too, this exception is its
    /// `__context__`.
    Failed(PyErr),
}

/// The tensor `obj`'s table exports, when it can stand for what `__dlpack__` would give: on
/// the `device` asked for (if any), and needing no synchronisation (on the CPU, or on a device
/// where the producer names no current work stream). Any exception the table raises sends the
/// consumer to `__dlpack__` too, the protocol's authority, which raises its own error for what
/// it cannot export (PyTorch's table raises a `RuntimeError` for a meta or bcomplex32 tensor,
/// which `__dlpack__` refuses with a `BufferError`): a table's failure never reaches the
/// caller as it is. (TVM FFI falls back on a `BufferError` alone.)
fn through_table(
    table: Table,
    obj: &Bound<'_, PyAny>,
    device: Option<Device>,
) -> PyResult<Through> {
    let tensor = match table.export(obj) {
        Ok(tensor) => tensor,
        Err(err) if err.is_instance_of::<PyException>(obj.py()) => return Ok(Through::Failed(err)),
        // `KeyboardInterrupt`, `SystemExit`: not the table's failure to describe a tensor.
        Err(err) => return Err(err),
    };
    let here = tensor.device();
    if device.is_some_and(|device| device != here) {
        return Ok(Through::Declined);
    }
    if here != Device::CPU && table.work_stream(obj.py(), here)?.is_some() {
        return Ok(Through::Declined);
    }
    Ok(Through::Taken(tensor))
}

/// `err`, raised by `__dlpack__` after the table raised `table_error`, with that as its
/// `__context__` (unless it has one already), as Python chains an exception raised while
/// another is handled: the traceback shows both.
pub(crate) fn after_table(py: Python<'_>, err: PyErr, table_error: Option<PyErr>) -> PyErr {
    if let Some(table_error) = table_error {
        let value = err.value(py);
        if value
            .getattr(intern!(py, "__context__"))
            .is_ok_and(|context| context.is_none())
        {
            // Setting `__context__` on an exception object does not fail for a `BaseException`.
            let _ = value.setattr(intern!(py, "__context__"), table_error.value(py));
        }
    }
    err
}
