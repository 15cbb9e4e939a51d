use dlpack_core::DlpackDataType;
use pyo3::prelude::*;

#[derive(Clone, Copy, DlpackDataType)]
enum Inner {
    #[dlpack("float32")]
    Float32,
}

// A data type struct over a type that has the trait, which does not derive it itself.
#[pyclass(frozen)]
#[derive(Clone, Copy)]
struct DType(Inner);

#[dlpack_core::python::pymethods(data_type)]
impl DType {}

fn main() {}
