//! Every shape `#[tensor_args]` names: a `#[pyfunction]` with `TensorArg`, `Option<TensorArg>`,
//! `DataTypeLike`, `DeviceLike` and `Option<bool>` arguments; the methods of a `#[pymethods]`
//! block (instance, static, class, constructor, renamed), with the attribute above the block;
//! a `mut` argument; arguments whose default is not `None` (`flag = false`, `copy = true`),
//! which keep an extractor; an argument that says how it is extracted itself, left alone; and
//! a call from Rust, which passes `x.into()` for a named argument.

use dlpack_core::python::{DataTypeLike, DeviceLike, TensorArg, tensor_args};
use dlpack_core::tensor::require::ReadWrite;
use dlpack_core::{DataType, Device};
use pyo3::prelude::*;
use pyo3::types::PyType;

#[tensor_args]
#[pyfunction]
#[pyo3(signature = (x, weights=None, dtype=None, device=None, copy=None))]
fn weighted(
    x: TensorArg<'_, f32, 1>,
    weights: Option<TensorArg<'_, f32, 1>>,
    dtype: Option<DataTypeLike<DataType>>,
    device: Option<DeviceLike<Device>>,
    copy: Option<bool>,
) -> PyResult<f32> {
    let _ = (dtype, device, copy);
    let x = x.as_slice()?;
    Ok(match weights {
        Some(w) => x.iter().zip(w.as_slice()?).map(|(a, b)| a * b).sum(),
        None => x.iter().sum(),
    })
}

#[tensor_args]
#[pyfunction(signature = (x, by, flag = false, copy = true))]
pub fn scaled(
    mut x: TensorArg<'_, f32, 1, ReadWrite>,
    by: f32,
    flag: bool,
    copy: Option<bool>,
) -> PyResult<()> {
    let _ = (flag, copy);
    x.iter_mut()?.for_each(|v| *v *= by);
    Ok(())
}

fn len_of(obj: &Bound<'_, PyAny>) -> PyResult<usize> {
    obj.len()
}

#[tensor_args]
#[pyfunction]
fn own_extractor(#[pyo3(from_py_with = len_of)] n: usize, flag: bool) -> usize {
    if flag { n } else { 0 }
}

#[pyclass]
struct Model {
    scale: f32,
}

#[tensor_args]
#[pymethods]
impl Model {
    #[new]
    fn new(init: Option<TensorArg<'_, f32, 1>>) -> PyResult<Self> {
        let scale = match init {
            Some(init) => init.iter()?.sum(),
            None => 1.0,
        };
        Ok(Self { scale })
    }

    fn forward(&self, x: TensorArg<'_, f32, 1>) -> PyResult<f32> {
        Ok(self.scale * x.iter()?.sum::<f32>())
    }

    #[pyo3(name = "count")]
    #[staticmethod]
    fn count_elements(x: TensorArg<'_>) -> usize {
        x.view().len()
    }

    #[classmethod]
    fn kind(_cls: &Bound<'_, PyType>, dtype: DataTypeLike<DataType>) -> String {
        dtype.0.to_string()
    }
}

fn from_rust(x: TensorArg<'_, f32, 1>, w: TensorArg<'_, f32, 1>) -> PyResult<f32> {
    weighted(x.into(), Some(w.into()), None, None, Some(true.into()))
}

fn main() {
    let _ = (weighted, scaled, own_extractor, from_rust);
}
