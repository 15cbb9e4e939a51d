// `#[tensor_args]` below `#[pyfunction]`, which has read the arguments before it expands: the
// error says where the attribute goes.
use dlpack_core::python::{TensorArg, tensor_args};
use pyo3::prelude::*;

#[pyfunction]
#[tensor_args]
fn count(x: TensorArg<'_, f32>) -> usize {
    x.view().len()
}

fn main() {}
