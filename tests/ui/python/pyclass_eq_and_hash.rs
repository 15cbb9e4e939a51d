use dlpack_core::DlpackDataType;
use pyo3::prelude::*;

// PyO3's own `eq` and `hash` write `__richcmp__` and `__hash__`, which `#[pymethods]` writes too.
#[pyclass(frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    Float32,
}

#[dlpack_core::python::pymethods(data_type)]
impl DType {}

fn main() {}
