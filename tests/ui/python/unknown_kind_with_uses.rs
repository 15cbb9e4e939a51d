use dlpack_core::{DlpackDataType, DlpackDevice};
use pyo3::prelude::*;

#[pyclass(frozen)]
#[derive(Clone, Copy, DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    Float32,
}

// One mistake, reported once: the class is completed as the kind meant (`dtype` is
// `data_type`), so its uses below are no errors of their own.
#[dlpack_core::python::pymethods(dtype)]
impl DType {}

#[pyclass(frozen)]
#[derive(Clone, Copy, DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
}

#[dlpack_core::python::pymethods(device)]
impl Place {}

#[pymodule]
fn mini(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DType>()?;
    dlpack_core::python::add_values::<DType>(m)
}

#[pyfunction]
fn from_dlpack<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    dlpack_core::python::from_dlpack::<DType, Place, Place>(obj, None, None, |_, _, _| unreachable!())
}

fn main() {}
