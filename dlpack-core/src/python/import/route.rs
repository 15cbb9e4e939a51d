//! The one decision of how a Python object is read as a tensor: [`route`] decides, and every
//! consumer executes what it decided — [`import_tensor`](super::import_tensor) for an owned
//! tensor, [`with_tensor_view`](super::with_tensor_view) and [`TensorArg`](super::TensorArg)
//! for a lent view. A new producer's special case is one edit here.
//!
//! The order, first match wins:
//!
//! 1. a `numpy.ndarray` itself, when the consumer reads in place: its buffer (`buffer/`);
//! 2. not a tensor class: a DLPack capsule is consumed as it is, anything else is refused by
//!    the caller in its own words;
//! 3. a PyTorch tensor that is a negated view: a `BufferError`, whichever way it would go; one
//!    that a check of `torch.rs` cannot be asked of (PyTorch's `ReadOnlyTensorWrapper`
//!    allows no method but the protocol's): `__dlpack__`, which decides;
//! 4. a class that publishes a C exchange table this crate speaks, unless it is a PyTorch
//!    tensor the table would not describe as `__dlpack__` does: the table (lent in place by
//!    [`lend`], or exported), and `__dlpack__` where the table declines or fails;
//! 5. `__dlpack__`, with the legacy call as its fallback (`ask.rs`).

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::Device;
use crate::ffi::DLTensor;
#[cfg(numpy_buffer)]
use crate::python::import::buffer;
use crate::python::import::table::Table;
use crate::python::import::torch;
use crate::python::values::classify::{AsTensor, as_tensor};

/// How an object is read as a tensor.
#[derive(Clone, Copy)]
pub(crate) enum Route {
    /// A `numpy.ndarray` itself, lent through CPython's buffer protocol; an owned import asks
    /// its `__dlpack__`.
    #[cfg(numpy_buffer)]
    Buffer,
    /// A DLPack capsule, consumed as it is.
    Capsule,
    /// Through the C exchange table the class publishes, then `__dlpack__` where the table
    /// declines or fails. `torch`: a PyTorch tensor, whose conjugate views the table exports
    /// with the values of the tensor they view.
    Table { table: Table, torch: bool },
    /// `obj.__dlpack__(…)`.
    Protocol,
    /// Not a tensor: each consumer says what it expected.
    NotTensor,
}

/// How `obj` is read: `lend` when the consumer reads it in place for a while (a view, a
/// borrowed argument), which a NumPy array's buffer serves; an owned import asks
/// `__dlpack__` for it instead.
#[inline(always)]
pub(crate) fn route(obj: &Bound<'_, PyAny>, lend: bool) -> PyResult<Route> {
    #[cfg(numpy_buffer)]
    if lend && buffer::is_ndarray(obj) {
        return Ok(Route::Buffer);
    }
    let (table, torch) = match as_tensor(&obj.get_type())? {
        AsTensor::Tensor { table, torch } => (table, torch),
        AsTensor::NotTensor if obj.is_instance_of::<PyCapsule>() => return Ok(Route::Capsule),
        AsTensor::NotTensor => return Ok(Route::NotTensor),
    };
    // The first array of the process: the classifier has just met `numpy.ndarray`.
    #[cfg(numpy_buffer)]
    if lend && table.is_none() && !torch && buffer::is_ndarray(obj) {
        return Ok(Route::Buffer);
    }
    // A PyTorch tensor is checked for what its export cannot describe, and goes to
    // `__dlpack__` where the table would not describe it as `__dlpack__` does, or where a check
    // cannot be asked.
    let table = if torch {
        torch::check(obj, table)?
    } else {
        table
    };
    Ok(match table {
        Some(table) => Route::Table {
            table: Table(table),
            torch,
        },
        None => Route::Protocol,
    })
}

/// What lending through a table gave.
pub(crate) enum Lent {
    /// `raw` describes the tensor in place, on memory the host may read now.
    InPlace,
    /// The owning way is to be taken: the table has no borrowing export, or lent a conjugate
    /// view, or a tensor with a work stream to wait for, or raised `table_error` (which
    /// becomes the `__context__` of the owning way's error, should it fail too).
    Owning { table_error: Option<PyErr> },
}

/// The table's `dltensor_from_py_object_no_sync` into `raw` (which starts as
/// [`Table::UNFILLED`], in the caller's frame, so that the metadata validated from it is not
/// moved again), when what it lends can be read in place on the host.
#[inline(always)]
pub(crate) fn lend(
    obj: &Bound<'_, PyAny>,
    table: Table,
    torch: bool,
    raw: &mut DLTensor,
) -> PyResult<Lent> {
    match table.borrow_into(obj, raw) {
        // A conjugate view's export holds the values of the tensor it views: `__dlpack__`
        // refuses it.
        Ok(true) if torch && torch::conjugate(obj, raw.dtype)? => {}
        Ok(true)
            if raw.device == Device::CPU || table.work_stream(obj.py(), raw.device)?.is_none() =>
        {
            return Ok(Lent::InPlace);
        }
        Ok(_) => {}
        // What a `DLTensor` cannot say (a read-only tensor) goes the owning way, as does
        // whatever else the table fails on: `__dlpack__` raises the protocol's own error.
        Err(err) if err.is_instance_of::<PyException>(obj.py()) => {
            return Ok(Lent::Owning {
                table_error: Some(err),
            });
        }
        // `KeyboardInterrupt`, `SystemExit`: not the table's failure to describe a tensor.
        Err(err) => return Err(err),
    }
    Ok(Lent::Owning { table_error: None })
}
