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

use pyo3::exceptions::{PyAttributeError, PyBufferError};
use pyo3::intern;
use pyo3::prelude::*;

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

/// Whether PyTorch's exchange table may export `obj` as its `__dlpack__` would, as far as can
/// be told before it is asked: `false` for a tensor that requires gradient, which `__dlpack__`
/// refuses. Once the table has exported it, [`conjugate`] says whether the export is a
/// conjugate view's. (A tensor of another layout than strided, sparse or MKL-DNN, makes the
/// table raise, which sends it to `__dlpack__` too: nothing to check for it.)
pub(crate) fn table_may_describe(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(!obj
        .getattr(intern!(obj.py(), "requires_grad"))?
        .is_truthy()?)
}

/// Whether the table's export of `obj`, of data type `exported`, is a conjugate view's, which
/// the table exports with the values of the tensor it views: then `__dlpack__` is asked, and
/// refuses it. Only a complex tensor carries the conjugate bit, so only then is it read.
pub(crate) fn conjugate(obj: &Bound<'_, PyAny>, exported: crate::DataType) -> PyResult<bool> {
    Ok(exported.is_complex() && flag(obj, intern!(obj.py(), "is_conj"))?)
}

/// `obj.name()` as a bool; `false` where the method does not exist (a PyTorch from before it).
fn flag(obj: &Bound<'_, PyAny>, name: &Bound<'_, pyo3::types::PyString>) -> PyResult<bool> {
    match obj.call_method0(name) {
        Ok(value) => value.is_truthy(),
        Err(err) if err.is_instance_of::<PyAttributeError>(obj.py()) => Ok(false),
        Err(err) => Err(err),
    }
}
