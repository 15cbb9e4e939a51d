// A read-only (borrowed) tensor argument read inside `py.detach`: the message says that a
// borrowed argument cannot cross threads, and to take it `Owned`.
use dlpack_core::python::{TensorArg, tensor_args};
use pyo3::prelude::*;

#[tensor_args]
#[pyfunction]
fn total(py: Python<'_>, x: TensorArg<'_, f64, 1>) -> PyResult<f64> {
    py.detach(|| Ok(x.iter()?.sum()))
}

fn main() {}
