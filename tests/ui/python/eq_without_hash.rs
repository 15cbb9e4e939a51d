use dlpack_core::DlpackDataType;
use pyo3::prelude::*;

#[pyclass(frozen)]
#[derive(PartialEq, DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    Float32,
}

#[dlpack_core::python::pymethods(data_type)]
impl DType {
    fn __eq__(&self, other: &Self) -> bool {
        self == other
    }
}

fn main() {}
