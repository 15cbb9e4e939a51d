//! `DType`: the element types of `dlpack_demo` tensors, a Rust enum that derives
//! `DlpackDataType` and is a Python class speaking `__dlpack_data_type__`.

use dlpack_core::{DataType, DlpackDataType};
use pyo3::prelude::*;

/// The element type of a tensor. `DType.float16`, … (also `dlpack_demo.float16`, …).
///
/// `__dlpack_data_type__()` returns the DLPack `(code, bits, lanes)`, so any consumer of the
/// protocol (TVM FFI, for one) takes these objects for dtypes; and every `dlpack_demo`
/// function taking a dtype takes any object that speaks the protocol (`paddle.float16`).
#[pyclass(module = "dlpack_demo", frozen, eq, hash)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, DlpackDataType)]
pub enum DType {
    #[pyo3(name = "bool")]
    #[dlpack("bool")]
    Bool,
    #[pyo3(name = "int8")]
    #[dlpack("int8")]
    Int8,
    #[pyo3(name = "int16")]
    #[dlpack("int16")]
    Int16,
    #[pyo3(name = "int32")]
    #[dlpack("int32")]
    Int32,
    #[pyo3(name = "int64")]
    #[dlpack("int64")]
    Int64,
    #[pyo3(name = "uint8")]
    #[dlpack("uint8")]
    UInt8,
    #[pyo3(name = "uint16")]
    #[dlpack("uint16")]
    UInt16,
    #[pyo3(name = "uint32")]
    #[dlpack("uint32")]
    UInt32,
    #[pyo3(name = "uint64")]
    #[dlpack("uint64")]
    UInt64,
    #[pyo3(name = "float16")]
    #[dlpack("float16")]
    Float16,
    #[pyo3(name = "bfloat16")]
    #[dlpack("bfloat16")]
    BFloat16,
    #[pyo3(name = "float32")]
    #[dlpack("float32")]
    Float32,
    #[pyo3(name = "float64")]
    #[dlpack("float64")]
    Float64,
    #[pyo3(name = "complex64")]
    #[dlpack("complex64")]
    Complex64,
    #[pyo3(name = "complex128")]
    #[dlpack("complex128")]
    Complex128,
    #[pyo3(name = "float8_e4m3fn")]
    #[dlpack("float8_e4m3fn")]
    Float8E4M3FN,
    #[pyo3(name = "float8_e5m2")]
    #[dlpack("float8_e5m2")]
    Float8E5M2,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 17] = [
        DType::Bool,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::UInt8,
        DType::UInt16,
        DType::UInt32,
        DType::UInt64,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
        DType::Float8E4M3FN,
        DType::Float8E5M2,
    ];

    /// The DLPack data type (every variant has one).
    pub fn data_type(self) -> DataType {
        DataType::from(self)
    }
}

#[pymethods]
impl DType {
    /// `(code, bits, lanes)`: the DLPack data type, as plain ints.
    fn __dlpack_data_type__(&self) -> (u8, u8, u16) {
        self.data_type().into()
    }

    fn __repr__(&self) -> String {
        format!("dlpack_demo.{}", self.data_type())
    }

    fn __str__(&self) -> String {
        self.data_type().to_string()
    }

    /// Bytes per element.
    #[getter]
    fn itemsize(&self) -> usize {
        self.data_type().itemsize()
    }
}
