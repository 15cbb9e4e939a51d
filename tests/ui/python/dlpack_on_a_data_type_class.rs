use dlpack_core::DlpackDataType;
use pyo3::prelude::*;

#[pyclass(frozen)]
#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    Float32,
}

#[dlpack_core::python::pymethods(data_type)]
impl DType {
    // Under another Rust name, still `__dlpack__` to Python: the class would be a tensor.
    #[pyo3(name = "__dlpack__")]
    fn export(&self) {}
}

fn main() {}
