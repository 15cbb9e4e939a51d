use dlpack_core::{DlpackDataType, DlpackDevice};
use pyo3::prelude::*;

#[pyclass(frozen)]
#[derive(Clone, Copy, DlpackDataType)]
enum DType {
    #[dlpack("float16")]
    Float16,
    #[dlpack("float32")]
    Float32,
}

// `add_values` names the values `DType.float16` and `DType.float32`: a method may not take
// either name, under its own name or a `#[pyo3(name)]`.
#[dlpack_core::python::pymethods(data_type)]
impl DType {
    fn float16(&self) -> bool {
        matches!(self, Self::Float16)
    }

    #[pyo3(name = "float32")]
    fn is_float32(&self) -> bool {
        matches!(self, Self::Float32)
    }

    // Not a value's name: `half` is an alias, and `bfloat16` no variant's.
    fn half(&self) -> bool {
        true
    }
    fn bfloat16(&self) -> bool {
        false
    }
}

#[pyclass(frozen)]
#[derive(Clone, Copy, DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
}

#[dlpack_core::python::pymethods(device)]
impl Place {
    #[staticmethod]
    fn cpu() -> Self {
        Self::Cpu
    }
}

fn main() {}
