//! PyTorch's tensors: what a DLPack export of one cannot describe, checked before it is asked
//! for.
//!
//! `torch.Tensor.__dlpack__` refuses what DLPack cannot carry (a tensor that requires
//! gradient, a conjugate view, a sparse or other non-strided layout), but PyTorch's C exchange
//! table (`__dlpack_c_exchange_api__`, PyTorch 2.10 and later) exports without those checks: a
//! conjugate view arrives with the values of the tensor it views (wrong values, no error), and
//! a tensor that requires gradient is exported where `__dlpack__` refuses it. So a PyTorch
//! tensor goes through the table only when the table describes it as `__dlpack__` would; any
//! other goes to `__dlpack__`, which refuses it with PyTorch's own `BufferError`. The checks
//! cost two attribute reads (`requires_grad` before the table, the negative bit), and a third,
//! the conjugate bit, for a complex tensor only: 425 ns for a float32 tensor through the table,
//! against 285 ns for TVM FFI's unchecked import and 2.5 µs for NumPy's through `__dlpack__`.
//!
//! A negated view (`t.conj().imag`, whose negative bit is set) is wrong both ways: PyTorch
//! 2.15's `__dlpack__` exports it too, with the stored values, not the negated ones. It is
//! refused here, whichever way the tensor would be asked for.
//!
//! A check that cannot be asked is no refusal: the tensor goes to `__dlpack__`, which decides.
//! PyTorch 2.15's `torch.utils.dlpack.ReadOnlyTensorWrapper`, a subclass whose
//! `__torch_function__` raises a `RuntimeError` for everything but `__dlpack__` and
//! `__dlpack_device__` (`is_neg` and `requires_grad` included), is exported that way, read-only,
//! as NumPy, TVM FFI and PyTorch itself take it. Only what is not an `Exception`
//! (`KeyboardInterrupt`, `SystemExit`) goes on to the caller.

use pyo3::exceptions::{PyBufferError, PyException};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// The exchange table to ask for `obj`, a PyTorch tensor, through: `table`, the one its class
/// publishes (if any), where that exports it as `__dlpack__` would, as far as can be told before
/// it is asked (once it has, [`conjugate`] says whether the export is a conjugate view's).
/// `None` where `__dlpack__` is to be asked: a tensor that requires gradient, which the table
/// would export and `__dlpack__` refuses, or one a check could not be asked of. A negated view,
/// which no PyTorch export describes right, is a `BufferError`. (A tensor of another layout than
/// strided, sparse or MKL-DNN, makes the table raise, which sends it to `__dlpack__` too:
/// nothing to check for it.)
pub(crate) fn check<T>(obj: &Bound<'_, PyAny>, table: Option<T>) -> PyResult<Option<T>> {
    let py = obj.py();
    match asked(py, flag(obj, intern!(py, "is_neg")))? {
        Some(false) => {}
        Some(true) => {
            return Err(PyBufferError::new_err(
                "Can't export tensors with the negative bit set (a view such as t.conj().imag): \
                 PyTorch's DLPack export gives the values it stores, not the negated ones the \
                 tensor holds; use tensor.resolve_neg()",
            ));
        }
        None => return Ok(None),
    }
    let Some(table) = table else {
        return Ok(None);
    };
    let requires_grad = obj
        .getattr(intern!(py, "requires_grad"))
        .and_then(|value| value.is_truthy());
    Ok(match asked(py, requires_grad)? {
        Some(false) => Some(table),
        Some(true) | None => None,
    })
}

/// Whether the table's export of `obj`, of data type `exported`, is a conjugate view's (or
/// whether it is cannot be asked), which the table exports with the values of the tensor it
/// views: then `__dlpack__` is asked, and refuses it. Only a complex tensor carries the
/// conjugate bit, so only then is it read.
pub(crate) fn conjugate(obj: &Bound<'_, PyAny>, exported: crate::DataType) -> PyResult<bool> {
    let py = obj.py();
    Ok(exported.is_complex() && asked(py, flag(obj, intern!(py, "is_conj")))?.unwrap_or(true))
}

/// `obj.name()` as a bool.
fn flag(obj: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<bool> {
    obj.call_method0(name)?.is_truthy()
}

/// A check's answer, `None` where it could not be asked: it raised an `Exception` (a method
/// PyTorch does not have yet, a subclass that allows it not), which then sends the tensor to
/// `__dlpack__`. `KeyboardInterrupt` and `SystemExit` are no answer; they go on to the caller.
fn asked(py: Python<'_>, answer: PyResult<bool>) -> PyResult<Option<bool>> {
    match answer {
        Ok(answer) => Ok(Some(answer)),
        Err(err) if err.is_instance_of::<PyException>(py) => Ok(None),
        Err(err) => Err(err),
    }
}
