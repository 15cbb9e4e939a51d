use dlpack_core::DlpackDataType;
use pyo3::prelude::*;

#[pyclass(frozen)]
#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    Float32,
}

#[dlpack_core::python::pymethods(dtype)]
impl DType {}

fn main() {}
