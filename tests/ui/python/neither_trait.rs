use pyo3::prelude::*;

#[pyclass(frozen)]
struct DType(u8);

#[dlpack_core::python::pymethods(data_type)]
impl DType {}

fn main() {}
