//! `Device`: where a `dlpack_demo` tensor lives, a Rust enum that derives `DlpackDevice`,
//! handed to Python as a class speaking `__dlpack_device__`, all of whose protocol methods
//! `#[dlpack_core::python::pymethods(device)]` writes.

use dlpack_core::{Device as DlDevice, DlpackDevice};
use pyo3::prelude::*;

/// The devices `dlpack_demo` knows. Only [`Device::Cpu`] has memory it can allocate; the
/// others exist so that tensors and device objects from elsewhere can be described.
///
/// Ids are `u32`, as the CUDA driver's ordinals are used here: importing a negative id is an
/// error (the derive checks the range), never a wrap to 4294967295.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, DlpackDevice)]
pub enum Device {
    /// Host memory.
    #[dlpack(cpu)]
    Cpu,
    /// A CUDA GPU.
    #[dlpack(cuda)]
    Cuda(u32),
    /// Pinned host memory (`cudaMallocHost`).
    #[dlpack(cuda_host)]
    CudaHost,
    /// CUDA managed memory.
    #[dlpack(cuda_managed)]
    CudaManaged,
    /// A ROCm GPU.
    #[dlpack(rocm)]
    Rocm(u32),
}

impl Device {
    /// The DLPack device.
    ///
    /// Every value has one: an id here comes from a DLPack device (an `i32`, which the derive
    /// checks on import) or from the CUDA driver's device count (an `int`), so it is at most
    /// `i32::MAX`, and export cannot fail. Were a larger id ever made in Rust, it would be
    /// clamped to `i32::MAX` (a device that does not exist), not wrapped.
    pub fn dl_device(self) -> DlDevice {
        match self.dlpack_device() {
            Ok(device) => device,
            Err(_) => match self {
                Device::Cuda(_) => DlDevice::cuda(i32::MAX),
                _ => DlDevice::rocm(i32::MAX),
            },
        }
    }
}

/// `dlpack_demo.Device`: a [`Device`] as a Python object, with `__dlpack_device__` (and no
/// `__dlpack__`, so TVM FFI takes it for a device). A wrapper struct, because PyO3 refuses
/// unit variants in a `#[pyclass]` enum with data; it derives `DlpackDevice` through
/// [`Device`] (the newtype rule).
///
/// `Device("cuda:0")`, `Device(paddle.CPUPlace())`, `Device(tvm_ffi.device("cpu"))`,
/// `Device(torch.device("cpu"))`, `Device((1, 0))`: the constructor takes a device name, a
/// `(device_type, device_id)` tuple or any device object. It is a value: it pickles, and
/// `copy`/`deepcopy` return it as it is.
#[pyclass(name = "Device", module = "dlpack_demo", frozen)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, DlpackDevice)]
pub struct PyDevice(pub Device);

/// Every Python method (`type`, `index`, `repr()`, pickling, …) is generated.
#[dlpack_core::python::pymethods(device)]
impl PyDevice {}
