use dlpack_core::DlpackDataType;
use pyo3::prelude::*;

// A data type, completed as a device.
#[pyclass(frozen)]
#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    Float32,
}

#[dlpack_core::python::pymethods(device)]
impl DType {}

fn main() {}
