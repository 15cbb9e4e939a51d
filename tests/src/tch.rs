//! tch-rs: `Kind` (src/wrappers/kind.rs) and `Device` (src/wrappers/device.rs).
//!
//! The data types are those PyTorch's DLPack converter (`aten/src/ATen/DLConvertor.cpp`) uses
//! for each `ScalarType`: `ComplexHalf` is `complex32` (two float16), `Bool` is `kDLBool`, the
//! float8 kinds keep their names, and the quantized kinds have no DLPack data type (PyTorch
//! raises "… is not supported by dlpack"). `Mps` is `kDLMetal` and `Vulkan` `kDLVulkan`, the
//! default device of each (id 0), as PyTorch exports them.

use dlpack_core::{DlpackDataType, DlpackDevice};

/// tch's element kind.
#[derive(Debug, Copy, Clone, PartialEq, Eq, Hash, DlpackDataType)]
#[allow(missing_docs, clippy::upper_case_acronyms)]
pub enum Kind {
    #[dlpack("uint8")]
    Uint8,
    #[dlpack("int8")]
    Int8,
    #[dlpack("int16")]
    Int16,
    #[dlpack("int32")]
    Int,
    #[dlpack("int64")]
    Int64,
    #[dlpack("float16")]
    Half,
    #[dlpack("float32")]
    Float,
    #[dlpack("float64")]
    Double,
    #[dlpack(code = complex, bits = 32)]
    ComplexHalf,
    #[dlpack("complex64")]
    ComplexFloat,
    #[dlpack("complex128")]
    ComplexDouble,
    #[dlpack("bool")]
    Bool,
    #[dlpack(skip)]
    QInt8,
    #[dlpack(skip)]
    QUInt8,
    #[dlpack(skip)]
    QInt32,
    #[dlpack("bfloat16")]
    BFloat16,
    #[dlpack("float8_e5m2")]
    Float8e5m2,
    #[dlpack("float8_e4m3fn")]
    Float8e4m3fn,
    #[dlpack("float8_e5m2fnuz")]
    Float8e5m2fnuz,
    #[dlpack("float8_e4m3fnuz")]
    Float8e4m3fnuz,
}

impl Kind {
    /// Every variant.
    pub const ALL: &[Self] = &[
        Self::Uint8,
        Self::Int8,
        Self::Int16,
        Self::Int,
        Self::Int64,
        Self::Half,
        Self::Float,
        Self::Double,
        Self::ComplexHalf,
        Self::ComplexFloat,
        Self::ComplexDouble,
        Self::Bool,
        Self::QInt8,
        Self::QUInt8,
        Self::QInt32,
        Self::BFloat16,
        Self::Float8e5m2,
        Self::Float8e4m3fn,
        Self::Float8e5m2fnuz,
        Self::Float8e4m3fnuz,
    ];
    /// None.
    pub const EXPORT_ONLY: &[Self] = &[];
}

/// tch's device.
#[derive(Debug, Copy, Clone, PartialEq, Eq, Hash, DlpackDevice)]
#[allow(missing_docs)]
pub enum Device {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(usize),
    #[dlpack(metal, id = 0)]
    Mps,
    #[dlpack(vulkan, id = 0)]
    Vulkan,
}
