// `#[tensor_args]` on a method inside `#[pymethods]`, which has read the arguments before the
// attribute expands: the error says to write it on the impl block, above `#[pymethods]`.
use dlpack_core::python::{TensorArg, tensor_args};
use pyo3::prelude::*;

#[pyclass]
struct Model;

#[pymethods]
impl Model {
    #[tensor_args]
    fn forward(&self, x: TensorArg<'_, f32>) -> usize {
        x.view().len()
    }
}

fn main() {}
