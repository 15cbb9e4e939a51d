//! `DType`: the element types of `dlpack_demo` tensors, a Rust enum that derives
//! `DlpackDataType` and is a Python class speaking `__dlpack_data_type__`, all of whose
//! protocol methods `#[dlpack_core::python::pymethods(data_type)]` writes.

use dlpack_core::{DataType, DlpackDataType};
use pyo3::prelude::*;

/// The element type of a tensor. `DType.float16`, … (also `dlpack_demo.float16`, …): every
/// type NumPy (with ml_dtypes), PaddlePaddle, JAX and PyTorch export through DLPack.
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
#[pyclass(module = "dlpack_demo", frozen)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, DlpackDataType)]
pub enum DType {
    #[dlpack("bool")]
    Bool,
    #[dlpack("int8")]
    Int8,
    #[dlpack("int16")]
    Int16,
    #[dlpack("int32")]
    Int32,
    #[dlpack("int64")]
    Int64,
    #[dlpack("uint8")]
    UInt8,
    #[dlpack("uint16")]
    UInt16,
    #[dlpack("uint32")]
    UInt32,
    #[dlpack("uint64")]
    UInt64,
    #[dlpack("float16")]
    Float16,
    #[dlpack("bfloat16")]
    BFloat16,
    #[dlpack("float32")]
    Float32,
    #[dlpack("float64")]
    Float64,
    #[dlpack("complex64")]
    Complex64,
    #[dlpack("complex128")]
    Complex128,
    #[dlpack("float8_e4m3fn")]
    Float8E4M3FN,
    #[dlpack("float8_e5m2")]
    Float8E5M2,
    #[dlpack("float8_e4m3fnuz")]
    Float8E4M3FNUZ,
    #[dlpack("float8_e4m3b11fnuz")]
    Float8E4M3B11FNUZ,
    #[dlpack("float8_e5m2fnuz")]
    Float8E5M2FNUZ,
    #[dlpack("float8_e3m4")]
    Float8E3M4,
    #[dlpack("float8_e4m3")]
    Float8E4M3,
    #[dlpack("float8_e8m0fnu")]
    Float8E8M0FNU,
    #[dlpack("float4_e2m1fn")]
    Float4E2M1FN,
    #[dlpack("float4_e2m1fnx2")]
    Float4E2M1FNx2,
    #[dlpack("complex32")]
    Complex32,
    /// Two `bfloat16`s (DLPack's `kDLBcomplex`, code 18): NumPy with ml_dtypes 0.7 exports it,
    /// PyTorch 2.15 has it (`torch.bcomplex32`) but does not export it.
    #[dlpack("bcomplex32")]
    BComplex32,
}

impl DType {
    /// The DLPack data type (every variant has one).
    pub fn data_type(self) -> DataType {
        DataType::from(self)
    }
}

/// `DType(obj)`, `repr()`, `str()`, `==`, `hash()`, pickling, `copy`, `dtype` and the protocol
/// method are generated; `dlpack_demo.float16` and `DType.float16` are named by `add_values`
/// in the module's init.
#[dlpack_core::python::pymethods(data_type)]
impl DType {
    /// Bytes per element (1 for `float4_e2m1fn`, whose tensors hold two elements a byte).
    #[getter]
    fn itemsize(&self) -> usize {
        self.data_type().itemsize()
    }
}
