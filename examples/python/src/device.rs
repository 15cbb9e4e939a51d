//! `Device`: where a `dlpack_demo` tensor lives, a Rust enum that derives `DlpackDevice`,
//! handed to Python as a class speaking `__dlpack_device__`.

use dlpack_core::python::DeviceLike;
use dlpack_core::{Device as DlDevice, DlpackDevice};
use pyo3::prelude::*;
use pyo3::types::{PyTuple, PyType};

/// The devices `dlpack_demo` knows. Only [`Device::Cpu`] has memory it can allocate; the
/// others exist so that tensors and device objects from elsewhere can be described.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    /// Host memory.
    Cpu,
    /// A CUDA GPU.
    Cuda(u32),
    /// Pinned host memory (`cudaMallocHost`).
    CudaHost,
    /// CUDA managed memory.
    CudaManaged,
    /// A ROCm GPU.
    Rocm(u32),
}

impl Device {
    /// The DLPack device (every variant has one).
    pub fn dl_device(self) -> DlDevice {
        DlDevice::from(self)
    }
}

/// `dlpack_demo.Device`: a [`Device`] as a Python object, with `__dlpack_device__` (and no
/// `__dlpack__`, so TVM FFI takes it for a device).
///
/// `Device("cuda:0")`, `Device(paddle.CPUPlace())`, `Device(tvm_ffi.device("cpu"))`,
/// `Device(torch.device("cpu"))`, `Device((1, 0))`: the constructor takes a device name, a
/// `(device_type, device_id)` tuple or any device object. It is a value: it pickles, and
/// `copy`/`deepcopy` return it as it is.
#[pyclass(name = "Device", module = "dlpack_demo", frozen, eq, hash)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PyDevice(pub Device);

#[pymethods]
impl PyDevice {
    #[new]
    fn new(device: DeviceLike<Device>) -> Self {
        Self(device.0)
    }

    /// `(device_type, device_id)`: the DLPack device, as plain ints.
    fn __dlpack_device__(&self) -> (i32, i32) {
        self.0.dl_device().into()
    }

    fn __repr__(&self) -> String {
        format!("dlpack_demo.Device('{}')", self.0.dl_device())
    }

    fn __str__(&self) -> String {
        self.0.dl_device().to_string()
    }

    /// The device type's name: `"cpu"`, `"cuda"`, ….
    #[getter]
    fn r#type(&self) -> &'static str {
        self.0.dl_device().device_type.name().unwrap_or("unknown")
    }

    /// The device index (0 for host memory).
    #[getter]
    fn index(&self) -> i32 {
        self.0.dl_device().device_id
    }

    /// Pickled as `Device(name)`.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyType>, Bound<'py, PyTuple>)> {
        let name = slf.get().0.dl_device().to_string();
        Ok((slf.as_any().get_type(), PyTuple::new(slf.py(), [name])?))
    }

    /// The device itself: it is a value.
    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// The device itself: it is a value.
    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }
}

// TEMPORARY (until the derive lands): hand-written impls.
impl DlpackDevice for Device {
    fn dlpack_device(&self) -> Result<DlDevice, dlpack_core::Error> {
        Ok(DlDevice::from(*self))
    }
    fn from_dlpack_device(d: DlDevice) -> Result<Self, dlpack_core::Error> {
        use dlpack_core::ffi::DLDeviceType as T;
        Ok(match d.device_type {
            T::CPU => Device::Cpu,
            T::CUDA => Device::Cuda(d.device_id as u32),
            T::CUDA_HOST => Device::CudaHost,
            T::CUDA_MANAGED => Device::CudaManaged,
            T::ROCM => Device::Rocm(d.device_id as u32),
            _ => return Err(dlpack_core::Error::msg(format!("no Device for {d}"))),
        })
    }
}
impl From<Device> for DlDevice {
    fn from(d: Device) -> DlDevice {
        match d {
            Device::Cpu => DlDevice::CPU,
            Device::Cuda(i) => DlDevice::cuda(i as i32),
            Device::CudaHost => DlDevice::CUDA_HOST,
            Device::CudaManaged => DlDevice::CUDA_MANAGED,
            Device::Rocm(i) => DlDevice::rocm(i as i32),
        }
    }
}
