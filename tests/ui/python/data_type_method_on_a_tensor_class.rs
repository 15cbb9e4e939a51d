use dlpack_core::Device;
use dlpack_core::python::{DlpackRequest, TensorClass};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

#[pyclass(frozen)]
struct Floats(Vec<f32>);

#[dlpack_core::python::pymethods(tensor)]
impl Floats {
    // The element type belongs on the tensor's `dtype`, not on the tensor: with this method
    // the tensor is a data type to every consumer.
    fn __dlpack_data_type__(&self) -> (u8, u8, u16) {
        (2, 32, 1)
    }
}

impl TensorClass for Floats {
    fn dlpack_device(&self) -> PyResult<Device> {
        Ok(Device::CPU)
    }

    fn dlpack<'py>(&self, _: Python<'py>, _: &DlpackRequest) -> PyResult<Bound<'py, PyCapsule>> {
        Err(pyo3::exceptions::PyBufferError::new_err("not in this test"))
    }
}

fn main() {}
