use dlpack_core::DlpackDevice;
use pyo3::prelude::*;

#[pyclass(frozen)]
#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
}

#[dlpack_core::python::pymethods(device)]
impl Place {
    fn __dlpack_data_type__(&self) -> (u8, u8, u16) {
        (2, 32, 1)
    }
}

fn main() {}
