//! burn: `DType` and `BoolStore` (burn-std/src/tensor/dtype.rs), `LibTorchDevice`
//! (burn-tch), `NdArrayDevice` (burn-ndarray), cubecl's `CudaDevice { index }`, cubecl-wgpu's
//! `WgpuDevice`, and burn-dispatch's `DispatchDevice`, whose variants are feature-gated.
//!
//! These are the shapes of burn's types with the derives written in their own crate, where
//! burn-std could put them: the fixture of the derives on a real framework's enums (a tuple
//! variant that delegates, export-only and skipped variants). The real types are mapped by
//! `dlpack_core::bridges::burn` (feature `burn`), through `remote` mirrors with the same
//! table, which `dlpack-core/tests/bridges_burn.rs` tests against burn itself.
//!
//! Mapping decisions (the bridge's): `Flex32` stores `f32` (it only computes at lower
//! precision), so it exports `float32` and imports never choose it. A bool stored in `u8` is
//! byte-for-byte DLPack's `bool` (one byte, 0 or 1), so `BoolStore::U8` exports `bool`; a bool
//! stored in `u32` has no DLPack data type (DLPack's `bool` is one byte), nor have quantized
//! tensors (`QFloat`). A wgpu device is `webgpu:0` whatever adapter
//! it is: wgpu's adapter indices and `Existing` ids are not DLPack device ordinals, so the
//! integer fields are not ids (`id = 0`), every variant exports `webgpu:0`, and importing
//! `webgpu:0` gives `DefaultDevice`.

use dlpack_core::{DlpackDataType, DlpackDevice};

/// How burn stores booleans.
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq, DlpackDataType)]
pub enum BoolStore {
    /// `bool`.
    #[dlpack("bool")]
    Native,
    /// `u8` holding 0 or 1: the same bytes as DLPack's `bool`.
    #[dlpack("bool", export_only)]
    U8,
    /// `u32` holding 0 or 1: no DLPack data type.
    #[dlpack(skip)]
    U32,
}

/// Stand-in for burn's quantization scheme.
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq, Default)]
pub struct QuantScheme {
    /// Bits per quantized value.
    pub bits: u8,
}

/// burn's dtype.
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq, DlpackDataType)]
#[allow(missing_docs)]
pub enum DType {
    #[dlpack("float64")]
    F64,
    #[dlpack("float32")]
    F32,
    #[dlpack("float32", export_only)]
    Flex32,
    #[dlpack("float16")]
    F16,
    #[dlpack("bfloat16")]
    BF16,
    #[dlpack("int64")]
    I64,
    #[dlpack("int32")]
    I32,
    #[dlpack("int16")]
    I16,
    #[dlpack("int8")]
    I8,
    #[dlpack("uint64")]
    U64,
    #[dlpack("uint32")]
    U32,
    #[dlpack("uint16")]
    U16,
    #[dlpack("uint8")]
    U8,
    Bool(#[dlpack(delegate)] BoolStore),
    #[dlpack(skip)]
    QFloat(QuantScheme),
}

impl DType {
    /// Every variant (one `QFloat`).
    pub const ALL: &[Self] = &[
        Self::F64,
        Self::F32,
        Self::Flex32,
        Self::F16,
        Self::BF16,
        Self::I64,
        Self::I32,
        Self::I16,
        Self::I8,
        Self::U64,
        Self::U32,
        Self::U16,
        Self::U8,
        Self::Bool(BoolStore::Native),
        Self::Bool(BoolStore::U8),
        Self::Bool(BoolStore::U32),
        Self::QFloat(QuantScheme { bits: 4 }),
    ];
    /// The values that export the data type of another.
    pub const EXPORT_ONLY: &[Self] = &[
        Self::Flex32,
        Self::Bool(BoolStore::U8),
        Self::Bool(BoolStore::U32),
    ];
}

/// burn-tch's device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, DlpackDevice)]
#[allow(missing_docs)]
pub enum LibTorchDevice {
    #[default]
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(usize),
    #[dlpack(metal, id = 0)]
    Mps,
    #[dlpack(vulkan, id = 0)]
    Vulkan,
}

/// burn-ndarray's device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, DlpackDevice)]
#[allow(missing_docs)]
pub enum NdArrayDevice {
    #[default]
    #[dlpack(cpu)]
    Cpu,
}

/// cubecl-cuda's device (burn-cuda's `CudaDevice`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash, DlpackDevice)]
#[dlpack(cuda)]
pub struct CudaDevice {
    /// The CUDA ordinal.
    #[dlpack(id)]
    pub index: usize,
}

/// cubecl-wgpu's device.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, DlpackDevice)]
#[allow(missing_docs)]
pub enum WgpuDevice {
    #[dlpack(webgpu, id = 0, export_only)]
    DiscreteGpu(usize),
    #[dlpack(webgpu, id = 0, export_only)]
    IntegratedGpu(usize),
    #[dlpack(webgpu, id = 0, export_only)]
    VirtualGpu(usize),
    #[dlpack(webgpu, export_only)]
    Cpu,
    #[default]
    #[dlpack(webgpu)]
    DefaultDevice,
    /// Deprecated, use `DefaultDevice`.
    #[deprecated]
    #[dlpack(webgpu, export_only)]
    BestAvailable,
    #[dlpack(webgpu, id = 0, export_only)]
    Existing(u32),
}

/// burn-dispatch's device: one variant per enabled backend feature. Here `cuda`, `ndarray`,
/// `tch` and `wgpu` are on (a cfg that always holds, `not(all(unix, windows))`) and `remote`
/// is off (`all(unix, windows)`, which never holds). Importing a CPU
/// device picks `NdArray` and a CUDA device `Cuda`: the LibTorch backend is export only, since
/// both of its device kinds are already claimed.
#[derive(Debug, Clone, PartialEq, Eq, DlpackDevice)]
#[allow(missing_docs)]
pub enum DispatchDevice {
    #[cfg(not(all(unix, windows)))]
    Cuda(#[dlpack(delegate)] CudaDevice),
    #[cfg(not(all(unix, windows)))]
    NdArray(#[dlpack(delegate)] NdArrayDevice),
    #[cfg(not(all(unix, windows)))]
    #[dlpack(export_only)]
    LibTorch(#[dlpack(delegate)] LibTorchDevice),
    #[cfg(not(all(unix, windows)))]
    Wgpu(#[dlpack(delegate)] WgpuDevice),
    #[cfg(all(unix, windows))]
    #[dlpack(skip)]
    Remote(String),
}
