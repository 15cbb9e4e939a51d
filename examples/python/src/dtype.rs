//! `DType`: the element types of `dlpack_demo` tensors, a Rust enum that derives
//! `DlpackDataType` and is a Python class speaking `__dlpack_data_type__`.

use dlpack_core::python::{DataTypeLike, numpy_dtype};
use dlpack_core::{DataType, DlpackDataType};
use pyo3::prelude::*;
use pyo3::types::{PyTuple, PyType};

/// The element type of a tensor. `DType.float16`, … (also `dlpack_demo.float16`, …): every
/// type NumPy, PaddlePaddle, JAX and PyTorch export through DLPack.
///
/// `__dlpack_data_type__()` returns the DLPack `(code, bits, lanes)`, so any consumer of the
/// protocol (TVM FFI, for one) takes these objects for dtypes; `dtype` is the NumPy dtype, so
/// NumPy and JAX take them too (`numpy.empty(2, dtype=dlpack_demo.bfloat16)`, with ml_dtypes
/// for the types NumPy lacks). Every `dlpack_demo` function taking a dtype takes any dtype
/// object: one that speaks the protocol (`paddle.float16`), or a NumPy, ml_dtypes, JAX,
/// PyTorch or array-api-strict dtype.
///
/// `float4_e2m1fn` elements are stored packed, two to a byte, as DLPack stores sub-byte types
/// unless a tensor says otherwise and as JAX exports them; `float4_e2m1fnx2` is PyTorch's
/// `float4_e2m1fn_x2`, one byte holding two lanes. No producer exports `int4`/`uint4` through
/// DLPack (JAX refuses them; PyTorch exports its `int4` as `int8`), so there are none here.
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
    #[pyo3(name = "float8_e4m3fnuz")]
    #[dlpack("float8_e4m3fnuz")]
    Float8E4M3FNUZ,
    #[pyo3(name = "float8_e4m3b11fnuz")]
    #[dlpack("float8_e4m3b11fnuz")]
    Float8E4M3B11FNUZ,
    #[pyo3(name = "float8_e5m2fnuz")]
    #[dlpack("float8_e5m2fnuz")]
    Float8E5M2FNUZ,
    #[pyo3(name = "float8_e3m4")]
    #[dlpack("float8_e3m4")]
    Float8E3M4,
    #[pyo3(name = "float8_e4m3")]
    #[dlpack("float8_e4m3")]
    Float8E4M3,
    #[pyo3(name = "float8_e8m0fnu")]
    #[dlpack("float8_e8m0fnu")]
    Float8E8M0FNU,
    #[pyo3(name = "float4_e2m1fn")]
    #[dlpack("float4_e2m1fn")]
    Float4E2M1FN,
    #[pyo3(name = "float4_e2m1fnx2")]
    #[dlpack("float4_e2m1fnx2")]
    Float4E2M1FNx2,
    #[pyo3(name = "complex32")]
    #[dlpack("complex32")]
    Complex32,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 26] = [
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
        DType::Float8E4M3FNUZ,
        DType::Float8E4M3B11FNUZ,
        DType::Float8E5M2FNUZ,
        DType::Float8E3M4,
        DType::Float8E4M3,
        DType::Float8E8M0FNU,
        DType::Float4E2M1FN,
        DType::Float4E2M1FNx2,
        DType::Complex32,
    ];

    /// The DLPack data type (every variant has one).
    pub fn data_type(self) -> DataType {
        DataType::from(self)
    }
}

#[pymethods]
impl DType {
    /// `DType(obj)`: the dtype of any dtype object or name (`DType("float16")`,
    /// `DType(numpy.float16)`, `DType(paddle.float16)`).
    #[new]
    fn py_new(dtype: DataTypeLike<DType>) -> Self {
        dtype.0
    }

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

    /// Bytes per element (1 for `float4_e2m1fn`, whose tensors hold two elements a byte).
    #[getter]
    fn itemsize(&self) -> usize {
        self.data_type().itemsize()
    }

    /// The NumPy dtype (NumPy's `dtype`-attribute protocol): `numpy.dtype("float16")`, or an
    /// ml_dtypes type for those NumPy lacks; a `TypeError` naming the package to install when
    /// ml_dtypes is missing, or for `float4_e2m1fnx2`, which neither has.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        numpy_dtype(py, self.data_type())
    }

    /// Pickled as `DType(name)`.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyType>, Bound<'py, PyTuple>)> {
        let name = slf.get().data_type().to_string();
        Ok((slf.as_any().get_type(), PyTuple::new(slf.py(), [name])?))
    }

    /// The dtype itself: it is a value.
    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// The dtype itself: it is a value.
    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }
}
