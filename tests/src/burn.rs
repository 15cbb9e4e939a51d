//! burn's device types: `LibTorchDevice` (burn-tch), `NdArrayDevice` (burn-ndarray), cubecl's
//! `CudaDevice { index }`, cubecl-wgpu's `WgpuDevice`, and burn-dispatch's `DispatchDevice`,
//! whose variants are feature-gated.
//!
//! These are the shapes of burn's backend devices with the derive written in their own crate,
//! where a backend could put it: the fixture of the device derive on a real framework's enums
//! (a tuple variant that delegates, export-only variants, a cfg'd-out skipped one). burn's
//! `DType` and `BoolStore` are not replicated: the burn bridge maps the real ones through
//! `remote` mirrors (`dlpack_core::bridges::burn`, tested against burn in
//! `dlpack-core/tests/bridges_burn.rs`), and the runtime `Device` by burn's device id.
//!
//! A wgpu device is `webgpu:0` whatever adapter it is: wgpu's adapter indices and `Existing`
//! ids are not DLPack device ordinals, so the integer fields are not ids (`id = 0`), every
//! variant exports `webgpu:0`, and importing `webgpu:0` gives `DefaultDevice`.

use dlpack_core::DlpackDevice;

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
