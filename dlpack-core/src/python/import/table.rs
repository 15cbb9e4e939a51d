//! The consumer's side of a C exchange table: calling the functions of a table a tensor class
//! publishes (the classifier, `values/classify.rs`, finds it and chooses the entry of the chain
//! this crate speaks, once per class).

use core::ptr::NonNull;

use pyo3::exceptions::{PyBufferError, PySystemError};
use pyo3::prelude::*;

use crate::ffi::{DLManagedTensorVersioned, DLPackExchangeAPI, DLTensor};
use crate::tensor::ManagedTensor;

/// A producer's table this crate can use ([`DLPackExchangeAPI::from_chain`]): major version
/// 1, with the owning export. Tables live for the whole process (`dlpack.h` requires it), so
/// the reference is `'static`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Table(pub(crate) &'static DLPackExchangeAPI);

impl Table {
    /// The `DLTensor` a [`borrow_into`](Table::borrow_into) fills: a rank-0 `uint8` tensor on
    /// the CPU with null pointers, which nothing reads unless the producer overwrote it.
    pub(crate) const UNFILLED: DLTensor = DLTensor {
        data: core::ptr::null_mut(),
        device: crate::Device::CPU,
        ndim: 0,
        dtype: crate::DataType::U8,
        shape: core::ptr::null_mut(),
        strides: core::ptr::null_mut(),
        byte_offset: 0,
    };

    /// `managed_tensor_from_py_object_no_sync(obj)`: an owned tensor, not synchronised with
    /// any stream.
    pub(crate) fn export(self, obj: &Bound<'_, PyAny>) -> PyResult<ManagedTensor> {
        let export = self
            .0
            .managed_tensor_from_py_object_no_sync
            .expect("`from_chain` keeps only tables with the owning export");
        let mut out: *mut DLManagedTensorVersioned = core::ptr::null_mut();
        // SAFETY: the table was published on `obj`'s class, whose objects its functions take;
        // `out` is writable; the thread is attached, as the function needs.
        let status = unsafe { export(obj.as_ptr().cast(), &mut out) };
        if status != 0 {
            return Err(fetch(obj.py(), "managed_tensor_from_py_object_no_sync"));
        }
        // SAFETY: on success the producer handed over an owned tensor; `from_raw` takes it
        // over (releasing it if it refuses the version).
        unsafe { ManagedTensor::from_raw(out) }
            .map_err(|err| PyBufferError::new_err(err.to_string()))
    }

    /// `dltensor_from_py_object_no_sync(obj, out)`, when the table has it: `Ok(false)` when it
    /// does not. `out` starts as [`Table::UNFILLED`], in the caller's frame, so that the
    /// metadata validated from it is not moved again (docs/decisions.md, "Typed access").
    pub(crate) fn borrow_into(self, obj: &Bound<'_, PyAny>, out: &mut DLTensor) -> PyResult<bool> {
        let Some(borrow) = self.0.dltensor_from_py_object_no_sync else {
            return Ok(false);
        };
        // SAFETY: as in `export`; `out` is a writable `DLTensor`.
        if unsafe { borrow(obj.as_ptr().cast(), out) } != 0 {
            return Err(fetch(obj.py(), "dltensor_from_py_object_no_sync"));
        }
        Ok(true)
    }

    /// `current_work_stream(device)`: the producer's stream there (null: none to wait for).
    pub(crate) fn work_stream(
        self,
        py: Python<'_>,
        device: crate::Device,
    ) -> PyResult<Option<NonNull<core::ffi::c_void>>> {
        let Some(current) = self.0.current_work_stream else {
            return Ok(None);
        };
        let mut stream = core::ptr::null_mut();
        // SAFETY: plain values and a writable `stream`; the thread is attached.
        if unsafe { current(device.device_type, device.device_id, &mut stream) } != 0 {
            return Err(fetch(py, "current_work_stream"));
        }
        Ok(NonNull::new(stream))
    }
}

/// The exception a table's function set when it returned -1, or a `SystemError` naming it if
/// it set none.
fn fetch(py: Python<'_>, function: &str) -> PyErr {
    PyErr::take(py).unwrap_or_else(|| {
        PySystemError::new_err(format!(
            "the producer's {function} failed without setting an exception"
        ))
    })
}
