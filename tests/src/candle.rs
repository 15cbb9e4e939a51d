//! candle-core's `Device` and `DeviceLocation` (candle-core/src/device.rs), derived as a
//! framework with handles would derive them. candle's `DType` is not replicated: the candle
//! bridge maps the real one (`dlpack_core::bridges::candle`, tested against candle in
//! `dlpack-core/tests/bridges_candle.rs`).

use dlpack_core::DlpackDevice;

/// A physical device: candle's `DeviceLocation`. For Metal, `gpu_id` is the device's
/// registry id, a large number that is no DLPack ordinal: exporting it is an error, not a
/// truncated id.
#[derive(Debug, Copy, Clone, PartialEq, Eq, Hash, DlpackDevice)]
#[allow(missing_docs)]
pub enum DeviceLocation {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda { gpu_id: usize },
    #[dlpack(metal)]
    Metal { gpu_id: usize },
}

/// Stand-in for candle's `CudaDevice`: an opaque handle (a CUDA context and streams) that
/// reports where it is as candle's `BackendDevice::location` does, and that only candle can
/// create (`Device::new_cuda`).
#[derive(Debug, Clone)]
pub struct CudaDevice {
    ordinal: usize,
}

impl CudaDevice {
    /// A handle to GPU `ordinal` (candle's `CudaDevice::new` creates a context here).
    pub fn new(ordinal: usize) -> Self {
        Self { ordinal }
    }

    /// Where the handle is: candle's `BackendDevice::location`.
    pub fn location(&self) -> DeviceLocation {
        DeviceLocation::Cuda {
            gpu_id: self.ordinal,
        }
    }
}

/// Stand-in for candle's `MetalDevice`: an opaque handle with an index among the system's
/// Metal devices and a registry id.
#[derive(Debug, Clone)]
pub struct MetalDevice {
    index: usize,
    /// The IORegistry id, what `DeviceLocation::Metal { gpu_id }` holds.
    pub registry_id: u64,
}

impl MetalDevice {
    /// A handle.
    pub fn new(index: usize, registry_id: u64) -> Self {
        Self { index, registry_id }
    }

    /// The index among the system's Metal devices.
    pub fn index(&self) -> usize {
        self.index
    }
}

/// candle's `Device`, an enum of opaque handles. A CUDA handle knows its location, and
/// `Device::new_cuda` opens one for an ordinal: the handle exports through the location and
/// comes back through `new_cuda`. A Metal handle's location holds a registry id, not a DLPack
/// ordinal, so it exports its index among the system's devices and does not import.
#[derive(Debug, Clone, DlpackDevice)]
#[allow(missing_docs)]
pub enum Device {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda, device_with = CudaDevice::location, import_with = Device::from_dlpack_cuda)]
    Cuda(CudaDevice),
    #[dlpack(metal, id_with = MetalDevice::index, export_only)]
    Metal(MetalDevice),
}

impl Device {
    /// candle's `Device::new_cuda`: a handle to GPU `ordinal`.
    pub fn new_cuda(ordinal: usize) -> Result<Self, dlpack_core::Error> {
        Ok(Self::Cuda(CudaDevice::new(ordinal)))
    }

    /// The `import_with` function of `Cuda`: it receives every `cuda` device.
    fn from_dlpack_cuda(device: dlpack_core::Device) -> Result<Self, dlpack_core::Error> {
        let ordinal = usize::try_from(device.device_id).map_err(dlpack_core::Error::msg)?;
        Self::new_cuda(ordinal)
    }
}
