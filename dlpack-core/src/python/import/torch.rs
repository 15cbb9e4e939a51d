//! PyTorch's tensors: what a DLPack export of one cannot describe, checked before it is asked
//! for.
//!
//! `torch.Tensor.__dlpack__` refuses what DLPack cannot carry (a tensor that requires
//! gradient, a conjugate view, a sparse or other non-strided layout), but PyTorch's C exchange
//! table (`__dlpack_c_exchange_api__`, PyTorch 2.10 and later) exports without those checks: a
//! conjugate view arrives with the values of the tensor it views (wrong values, no error), and
//! a tensor that requires gradient is exported where `__dlpack__` refuses it. So a PyTorch
//! tensor goes through the table only when the table describes it as `__dlpack__` would; any
//! other goes to `__dlpack__`, which refuses it with PyTorch's own `BufferError`.
//!
//! A negated view (`t.conj().imag`, whose negative bit is set) is wrong both ways: PyTorch
//! 2.15's `__dlpack__` exports it too, with the stored values, not the negated ones. It is
//! refused here, whichever way the tensor would be asked for.

use pyo3::exceptions::{PyAttributeError, PyBufferError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

/// A `BufferError` for a negated view, which no PyTorch export describes right.
pub(crate) fn refuse_negated(obj: &Bound<'_, PyAny>) -> PyResult<()> {
    if flag(obj, intern!(obj.py(), "is_neg"))? {
        return Err(PyBufferError::new_err(
            "Can't export tensors with the negative bit set (a view such as t.conj().imag): \
             PyTorch's DLPack export gives the values it stores, not the negated ones the \
             tensor holds; use tensor.resolve_neg()",
        ));
    }
    Ok(())
}

/// Whether PyTorch's exchange table exports `obj` as its `__dlpack__` would: a strided tensor
/// that requires no gradient and is no conjugate view. Otherwise `__dlpack__` is asked, and
/// refuses it.
pub(crate) fn table_describes(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = obj.py();
    if obj.getattr(intern!(py, "requires_grad"))?.is_truthy()? || flag(obj, intern!(py, "is_conj"))?
    {
        return Ok(false);
    }
    static STRIDED: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let strided = STRIDED.get_or_try_init(py, || -> PyResult<_> {
        Ok(py.import("torch")?.getattr("strided")?.unbind())
    })?;
    Ok(obj.getattr(intern!(py, "layout"))?.is(strided.bind(py)))
}

/// `obj.name()` as a bool; `false` where the method does not exist (a PyTorch from before it).
fn flag(obj: &Bound<'_, PyAny>, name: &Bound<'_, pyo3::types::PyString>) -> PyResult<bool> {
    match obj.call_method0(name) {
        Ok(value) => value.is_truthy(),
        Err(err) if err.is_instance_of::<PyAttributeError>(obj.py()) => Ok(false),
        Err(err) => Err(err),
    }
}
