use dlpack_core::DlpackDataType;
use pyo3::prelude::*;

#[pyclass(frozen)]
#[derive(Clone, Copy, DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    Float32,
}

#[dlpack_core::python::pymethods(data_type)]
impl DType {}

// A second block: PyO3 allows one per class (without its `multiple-pymethods` feature).
#[pymethods]
impl DType {
    fn itemsize(&self) -> usize {
        4
    }
}

fn main() {}
