//! Every shape `#[pymethods]` completes: a fieldless data type enum, a data type struct, a
//! fieldless device enum, a device wrapper struct over an enum with data, a device class that
//! is a PyO3 complex enum, a tensor class (with an `__eq__` of its own, allowed without
//! `__hash__` there) and one through the ready-made `CpuTensor`; with the author's own methods
//! (one replacing a generated one), and a renamed dlpack-core.

use std::sync::Arc;

use dlpack_core::python::{CpuTensor, DlpackRequest, TensorClass};
use dlpack_core::{DataType, DlpackDataType, DlpackDevice};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

#[pyclass(module = "shapes", frozen)]
#[derive(Clone, Copy, DlpackDataType)]
enum DType {
    #[dlpack("float16")]
    Float16,
    #[dlpack(skip)]
    Opaque,
}

#[dlpack_core::python::pymethods(data_type)]
impl DType {
    /// The author's `__str__` wins over the generated one.
    fn __str__(&self) -> &'static str {
        "half"
    }

    #[getter]
    fn is_opaque(&self) -> bool {
        matches!(self, Self::Opaque)
    }

    /// No variant imports bfloat16, so the name is free.
    #[staticmethod]
    fn bfloat16() -> Option<Self> {
        None
    }

    /// Compiled out, so it takes no name.
    #[cfg(any())]
    fn float16(&self) -> bool {
        true
    }
}

/// A data type struct: no unit values, the rest as for an enum.
#[pyclass(module = "shapes", frozen)]
#[derive(Clone, Copy, DlpackDataType)]
struct Raw(DataType);

/// A struct has no unit values, so a method may take a DLPack name (`Raw.float32()`).
#[dlpack_core::python::pymethods(data_type, crate = "dlpack_core")]
impl Raw {
    #[staticmethod]
    fn float32() -> Self {
        Self(DataType::F32)
    }
}

#[pyclass(module = "shapes", frozen)]
#[derive(Clone, Copy, DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
}

#[dlpack_core::python::pymethods(device)]
impl Place {
    fn __eq__(&self, _other: &Self) -> bool {
        true
    }
    fn __hash__(&self) -> u64 {
        0
    }
}

#[derive(Clone, Copy, DlpackDevice)]
enum Where {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(u16),
}

#[pyclass(module = "shapes", name = "Device", frozen)]
#[derive(Clone, Copy, DlpackDevice)]
struct Device(Where);

#[dlpack_core::python::pymethods(device)]
impl Device {}

/// A complex enum: PyO3 makes each variant a class and refuses unit variants, hence `Cpu()`.
#[pyclass(module = "shapes", frozen)]
#[derive(Clone, Copy, DlpackDevice)]
enum Site {
    #[dlpack(cpu)]
    Cpu(),
    #[dlpack(cuda)]
    Cuda(u32),
}

#[dlpack_core::python::pymethods(device)]
impl Site {}

/// A tensor in host memory, through the ready-made `TensorClass`.
#[pyclass(module = "shapes", frozen)]
struct Shared(Arc<[u8]>);

#[dlpack_core::python::pymethods(tensor)]
impl Shared {}

impl CpuTensor for Shared {
    fn cpu_tensor(&self) -> Result<dlpack_core::ManagedTensor, dlpack_core::Error> {
        dlpack_core::ManagedTensor::from_arc(Arc::clone(&self.0), &[self.0.len()])
    }
}

#[pyclass(module = "shapes", frozen)]
struct Tensor(Vec<f32>);

#[dlpack_core::python::pymethods(tensor)]
impl Tensor {
    /// The author's `__dlpack_device__` wins over the generated one.
    fn __dlpack_device__(&self) -> (i32, i32) {
        (1, 0)
    }

    fn __eq__(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl TensorClass for Tensor {
    fn dlpack_device(&self) -> PyResult<dlpack_core::Device> {
        Ok(dlpack_core::Device::CPU)
    }

    fn dlpack<'py>(&self, _: Python<'py>, _: &DlpackRequest) -> PyResult<Bound<'py, PyCapsule>> {
        Err(pyo3::exceptions::PyBufferError::new_err("not in this test"))
    }
}

fn main() {
    let _ = Tensor(Vec::new());
    let _ = (DType::Float16, DType::Opaque, Place::Cpu, Device(Where::Cuda(0)), Device(Where::Cpu), Raw(DataType::F32));
    let _ = (Site::Cpu(), Site::Cuda(1), Shared(Arc::from([1_u8])));
}
