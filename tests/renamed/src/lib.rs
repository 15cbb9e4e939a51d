//! A crate in which `dlpack_core` is not a name: it depends on dlpack-core as `dlpack`, and
//! re-exports it as a framework would (`my_framework::dlpack`). The derives work here only
//! through `#[dlpack(crate = "…")]`.

/// The re-export a framework gives its users.
pub mod reexport {
    pub use dlpack as core;
}

use dlpack::{DlpackDataType, DlpackDevice};

/// Through the renamed dependency.
#[derive(Debug, PartialEq, DlpackDataType)]
#[dlpack(crate = "dlpack")]
pub enum DType {
    /// f32.
    #[dlpack("float32")]
    F32,
    /// u8.
    #[dlpack(element = u8)]
    U8,
    /// Delegates.
    Other(#[dlpack(delegate)] dlpack::DataType),
}

/// Through a re-export path, written unquoted.
#[derive(Debug, PartialEq, DlpackDevice)]
#[dlpack(crate = crate::reexport::core)]
pub enum Device {
    /// CPU.
    #[dlpack(cpu)]
    Cpu,
    /// CUDA.
    #[dlpack(cuda)]
    Cuda(usize),
}

/// A struct through a re-export path.
#[derive(Debug, PartialEq, DlpackDevice)]
#[dlpack(crate = "crate::reexport::core", rocm)]
pub struct Rocm {
    /// The ordinal.
    #[dlpack(id)]
    pub ordinal: u8,
}

/// A raw data type.
#[derive(Debug, PartialEq, DlpackDataType)]
#[dlpack(crate = "::dlpack")]
pub struct Raw {
    /// Code.
    #[dlpack(code)]
    pub code: u8,
    /// Bits.
    #[dlpack(bits)]
    pub bits: u8,
}

dlpack::assert_convertible!(DType => dlpack::DataType);
dlpack::assert_convertible!(Rocm => dlpack::Device);
