//! The benchmark's peer extension: the same trivial kernel (the number of elements of a
//! float32 vector) behind three arguments, extracted by one PyO3 build in one process:
//! rust-numpy's `PyReadonlyArray1<f32>` (NumPy arrays only), dlpack-core's typed argument
//! `TensorArg<'_, f32, 1>` (any DLPack tensor), and `with_tensor_view` with the checks written
//! by hand; and a writable argument of each crate (`PyReadwriteArray1<f32>`, `TensorArg<'_,
//! f32, 1, ReadWrite>`), whose kernel writes the first element. Both crates register each
//! argument in their borrow table before the body runs.

use dlpack_core::DataType;
use dlpack_core::python::{TensorArg, tensor_args, with_tensor_view};
use dlpack_core::tensor::require::ReadWrite;
use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

/// rust-numpy's extraction: a NumPy array of float32 with one dimension, borrowed read-only.
#[pyfunction]
fn numpy_len(x: PyReadonlyArray1<'_, f32>) -> usize {
    x.len()
}

/// The typed argument: any DLPack tensor of float32 with one dimension, on the CPU.
#[tensor_args]
#[pyfunction]
fn typed_len(x: TensorArg<'_, f32, 1>) -> usize {
    x.view().len()
}

/// rust-numpy's extraction of a float32 matrix, borrowed read-only.
#[pyfunction]
fn numpy_len2(x: PyReadonlyArray2<'_, f32>) -> usize {
    x.len()
}

/// The typed argument: any DLPack tensor of float32 with two dimensions, on the CPU.
#[tensor_args]
#[pyfunction]
fn typed_len2(x: TensorArg<'_, f32, 2>) -> usize {
    x.view().len()
}

/// rust-numpy's writable extraction: writes 1 to the first element, returns the length.
#[pyfunction]
fn numpy_write(mut x: PyReadwriteArray1<'_, f32>) -> usize {
    let mut x = x.as_array_mut();
    if let Some(first) = x.first_mut() {
        *first = 1.0;
    }
    x.len()
}

/// The writable typed argument, with the same kernel.
#[tensor_args]
#[pyfunction]
fn typed_write(mut x: TensorArg<'_, f32, 1, ReadWrite>) -> PyResult<usize> {
    let x = x.as_slice_mut()?;
    if let Some(first) = x.first_mut() {
        *first = 1.0;
    }
    Ok(x.len())
}

/// `with_tensor_view`, with the checks the typed argument makes written in the body.
#[pyfunction]
fn view_len(x: &Bound<'_, PyAny>) -> PyResult<usize> {
    with_tensor_view(x, |view| {
        if view.dtype() != DataType::F32 || view.ndim() != 1 {
            return Err(PyTypeError::new_err("expected a float32 vector"));
        }
        Ok(view.len())
    })?
}

#[pymodule]
fn dlpack_numpy_peer(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(numpy_len, m)?)?;
    m.add_function(wrap_pyfunction!(typed_len, m)?)?;
    m.add_function(wrap_pyfunction!(view_len, m)?)?;
    m.add_function(wrap_pyfunction!(numpy_len2, m)?)?;
    m.add_function(wrap_pyfunction!(typed_len2, m)?)?;
    m.add_function(wrap_pyfunction!(numpy_write, m)?)?;
    m.add_function(wrap_pyfunction!(typed_write, m)?)?;
    Ok(())
}
