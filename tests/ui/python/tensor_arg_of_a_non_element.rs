// A typed tensor argument over a type that is neither an element type nor a dtype type.
use dlpack_core::python::{TensorArg, tensor_args};
use pyo3::prelude::*;

#[tensor_args]
#[pyfunction]
fn count(x: TensorArg<'_, String>) -> usize {
    x.view().len()
}

fn main() {}
