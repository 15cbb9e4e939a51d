use dlpack_core::DlpackDevice;
use pyo3::prelude::*;

#[pyclass(frozen)]
#[derive(Clone, Copy, DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
}

// A device class completed as a data type class: `pymethods(device)` was meant.
#[dlpack_core::python::pymethods(data_type)]
impl Place {}

fn main() {}
