//! Handing data types and devices to Python as protocol objects, and taking them back.

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::protocol::{extract_data_type, extract_device, read_data_type, read_device};
use crate::convert::{DlpackDataType, DlpackDevice};
use crate::data_type::DataType;
use crate::device::Device;
use crate::error::Error;

/// A DLPack data type as a Python object: `__dlpack_data_type__()` returns `(code, bits,
/// lanes)` as plain ints, as PaddlePaddle's dtypes do, so TVM FFI and every other consumer of the
/// protocol reads it. Python sees the class as `DataType`.
///
/// It is what [`DataTypeLike`] hands to Python for any [`DlpackDataType`] value. From Python:
/// `DataType("float16")` or `DataType(paddle.float16)` (anything [`read_data_type`] reads);
/// `str()` gives the canonical name, `repr()` `DataType('float16')`; `==` and `hash()` compare
/// the DLPack value; `code`, `bits` and `lanes` are read-only attributes.
///
/// ```
/// use dlpack_core::DataType;
/// use dlpack_core::python::PyDataType;
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let bf16 = Bound::new(py, PyDataType::from(DataType::BF16))?;
///     let triple: (u8, u8, u16) = bf16.call_method0("__dlpack_data_type__")?.extract()?;
///     assert_eq!(triple, (4, 16, 1));
///     assert_eq!(bf16.repr()?.to_str()?, "DataType('bfloat16')");
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[pyclass(name = "DataType", frozen, eq, hash, str)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PyDataType(DataType);

impl PyDataType {
    /// The object for any value that has a DLPack data type; the error of
    /// [`dlpack_data_type`](DlpackDataType::dlpack_data_type) for a value that has none.
    ///
    /// ```
    /// use dlpack_core::{DataType, DlpackDataType, python::PyDataType};
    ///
    /// #[derive(DlpackDataType)]
    /// enum Kind {
    ///     #[dlpack("bfloat16")]
    ///     Bf16,
    ///     #[dlpack(skip)]
    ///     Quantized,
    /// }
    ///
    /// assert_eq!(PyDataType::of(&Kind::Bf16)?.get(), DataType::BF16);
    /// assert!(PyDataType::of(&Kind::Quantized).is_err());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn of<T: DlpackDataType>(value: &T) -> Result<Self, Error> {
        value.dlpack_data_type().map(Self)
    }

    /// The DLPack value.
    ///
    /// ```
    /// use dlpack_core::{DataType, python::PyDataType};
    ///
    /// assert_eq!(PyDataType::from(DataType::F16.with_lanes(4)).get().lanes, 4);
    /// ```
    pub fn get(&self) -> DataType {
        self.0
    }
}

/// Any [`DataType`] as a Python object.
///
/// ```
/// use dlpack_core::{DataType, python::PyDataType};
///
/// let object = PyDataType::from(DataType::C64);
/// assert_eq!(object.get(), DataType::C64);
/// ```
impl From<DataType> for PyDataType {
    fn from(value: DataType) -> Self {
        Self(value)
    }
}

/// The DLPack value of the object.
///
/// ```
/// use dlpack_core::{DataType, python::PyDataType};
///
/// let back: DataType = PyDataType::from(DataType::U16).into();
/// assert_eq!(back, DataType::U16);
/// ```
impl From<PyDataType> for DataType {
    fn from(value: PyDataType) -> Self {
        value.0
    }
}

/// The canonical name, what Python's `str()` gives.
///
/// ```
/// use dlpack_core::{DataType, python::PyDataType};
///
/// assert_eq!(PyDataType::from(DataType::F32.with_lanes(4)).to_string(), "float32x4");
/// ```
impl core::fmt::Display for PyDataType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.0, f)
    }
}

#[pymethods]
impl PyDataType {
    /// `DataType(obj)`: from a data type name or any object with `__dlpack_data_type__`.
    #[new]
    fn py_new(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        read_data_type(obj).map(Self)
    }

    /// `(code, bits, lanes)`, plain ints.
    fn __dlpack_data_type__(&self) -> (u8, u8, u16) {
        self.0.into()
    }

    fn __repr__(&self) -> String {
        format!("DataType('{}')", self.0)
    }

    /// The `DLDataTypeCode`.
    #[getter]
    fn code(&self) -> u8 {
        self.0.code.0
    }

    /// Bits per lane.
    #[getter]
    fn bits(&self) -> u8 {
        self.0.bits
    }

    /// Lanes.
    #[getter]
    fn lanes(&self) -> u16 {
        self.0.lanes
    }
}

/// A DLPack device as a Python object: `__dlpack_device__()` returns `(device_type,
/// device_id)` as plain ints, and the class has no `__dlpack__`, so TVM FFI and every other
/// consumer of the protocol takes it for a device (not a tensor). Python sees the class as
/// `Device`.
///
/// It is what [`DeviceLike`] hands to Python for any [`DlpackDevice`] value. From Python:
/// `Device("cuda:0")` or `Device(paddle.CPUPlace())`; `str()` gives the canonical name,
/// `repr()` `Device('cuda:0')`; `==` and `hash()` compare the DLPack value (after
/// canonicalisation, as [`Device`]'s `==` does); `device_type` and `device_id` are read-only
/// attributes.
///
/// ```
/// use dlpack_core::Device;
/// use dlpack_core::python::PyDevice;
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let gpu = Bound::new(py, PyDevice::from(Device::cuda(3)))?;
///     let pair: (i32, i32) = gpu.call_method0("__dlpack_device__")?.extract()?;
///     assert_eq!(pair, (2, 3));
///     assert_eq!(gpu.str()?.to_str()?, "cuda:3");
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[pyclass(name = "Device", frozen, eq, hash, str)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PyDevice(Device);

impl PyDevice {
    /// The object for any value that has a DLPack device; the error of
    /// [`dlpack_device`](DlpackDevice::dlpack_device) for a value that has none.
    ///
    /// ```
    /// use dlpack_core::{Device, DlpackDevice, python::PyDevice};
    ///
    /// #[derive(DlpackDevice)]
    /// enum Place {
    ///     #[dlpack(cpu)]
    ///     Host,
    ///     #[dlpack(cuda)]
    ///     Gpu(u32),
    ///     #[dlpack(skip)]
    ///     Remote,
    /// }
    ///
    /// assert_eq!(PyDevice::of(&Place::Gpu(2))?.get(), Device::cuda(2));
    /// assert_eq!(PyDevice::of(&Place::Host)?.get(), Device::CPU);
    /// assert!(PyDevice::of(&Place::Remote).is_err());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn of<T: DlpackDevice>(value: &T) -> Result<Self, Error> {
        value.dlpack_device().map(Self)
    }

    /// The DLPack value.
    ///
    /// ```
    /// use dlpack_core::{Device, python::PyDevice};
    ///
    /// assert_eq!(PyDevice::from(Device::rocm(1)).get().device_id, 1);
    /// ```
    pub fn get(&self) -> Device {
        self.0
    }
}

/// Any [`Device`] as a Python object.
///
/// ```
/// use dlpack_core::{Device, python::PyDevice};
///
/// assert_eq!(PyDevice::from(Device::CUDA_HOST).get(), Device::CUDA_HOST);
/// ```
impl From<Device> for PyDevice {
    fn from(value: Device) -> Self {
        Self(value)
    }
}

/// The DLPack value of the object.
///
/// ```
/// use dlpack_core::{Device, python::PyDevice};
///
/// let back: Device = PyDevice::from(Device::cuda(5)).into();
/// assert_eq!(back, Device::cuda(5));
/// ```
impl From<PyDevice> for Device {
    fn from(value: PyDevice) -> Self {
        value.0
    }
}

/// The canonical name, what Python's `str()` gives.
///
/// ```
/// use dlpack_core::{Device, python::PyDevice};
///
/// assert_eq!(PyDevice::from(Device::cuda(1)).to_string(), "cuda:1");
/// assert_eq!(PyDevice::from(Device::CPU).to_string(), "cpu");
/// ```
impl core::fmt::Display for PyDevice {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.0, f)
    }
}

#[pymethods]
impl PyDevice {
    /// `Device(obj)`: from a device name or any device object with `__dlpack_device__`.
    #[new]
    fn py_new(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        read_device(obj).map(Self)
    }

    /// `(device_type, device_id)`, plain ints.
    fn __dlpack_device__(&self) -> (i32, i32) {
        self.0.into()
    }

    fn __repr__(&self) -> String {
        format!("Device('{}')", self.0)
    }

    /// The `DLDeviceType`.
    #[getter]
    fn device_type(&self) -> i32 {
        self.0.device_type.0
    }

    /// The device id.
    #[getter]
    fn device_id(&self) -> i32 {
        self.0.device_id
    }
}

/// A function argument or return value that is a data type to Python and a `T` to Rust.
///
/// As an argument it accepts whatever [`read_data_type`] reads — any object whose class has
/// `__dlpack_data_type__` (`paddle.float16`, a `tvm_ffi.dtype`, a [`PyDataType`], a class of
/// your own) or a data type name — range-checked, then converted with
/// [`T::from_dlpack_data_type`](DlpackDataType::from_dlpack_data_type). As a return value it
/// becomes a [`PyDataType`].
///
/// ```
/// use dlpack_core::DataType;
/// use dlpack_core::python::DataTypeLike;
/// use pyo3::prelude::*;
///
/// /// `itemsize(dtype)`: the size in bytes of one element of any data type object.
/// #[pyfunction]
/// fn itemsize(dtype: DataTypeLike<DataType>) -> usize {
///     dtype.0.itemsize()
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let itemsize = wrap_pyfunction!(itemsize, py)?;
///     assert_eq!(itemsize.call1(("complex64",))?.extract::<usize>()?, 8);
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DataTypeLike<T>(pub T);

/// A function argument or return value that is a device to Python and a `T` to Rust: the
/// device counterpart of [`DataTypeLike`]. As an argument it accepts whatever [`read_device`]
/// reads (a class with `__dlpack__` is a tensor and is refused); as a return value it becomes
/// a [`PyDevice`].
///
/// ```
/// use dlpack_core::Device;
/// use dlpack_core::python::{DeviceLike, PyDevice};
/// use pyo3::prelude::*;
///
/// /// `on_gpu(device)`: whether any device object or name is a CUDA GPU.
/// #[pyfunction]
/// fn on_gpu(device: DeviceLike<Device>) -> bool {
///     device.0.device_type == Device::cuda(0).device_type
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let on_gpu = wrap_pyfunction!(on_gpu, py)?;
///     assert!(on_gpu.call1(("cuda:1",))?.extract::<bool>()?);
///     let cpu = Bound::new(py, PyDevice::from(Device::CPU))?;
///     assert!(!on_gpu.call1((cpu,))?.extract::<bool>()?);
///     assert!(on_gpu.call1((1.5,)).is_err()); // not a device
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceLike<T>(pub T);

/// Reads any data type object or name ([`extract_data_type`]): `DataTypeLike<T>` is a
/// `#[pyfunction]` argument, or the target of `.extract()`.
///
/// ```
/// use dlpack_core::DataType;
/// use dlpack_core::python::DataTypeLike;
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let DataTypeLike(dtype) = "bf16".into_pyobject(py)?.extract::<DataTypeLike<DataType>>()?;
///     assert_eq!(dtype, DataType::BF16);
///     let err = 1.5_f64.into_pyobject(py)?.extract::<DataTypeLike<DataType>>().unwrap_err();
///     assert!(err.is_instance_of::<pyo3::exceptions::PyTypeError>(py));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
impl<'a, 'py, T: DlpackDataType> FromPyObject<'a, 'py> for DataTypeLike<T> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        extract_data_type(&obj).map(Self)
    }
}

/// Reads any device object or name ([`extract_device`]).
///
/// ```
/// use dlpack_core::Device;
/// use dlpack_core::python::DeviceLike;
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let DeviceLike(device) = "rocm:2".into_pyobject(py)?.extract::<DeviceLike<Device>>()?;
///     assert_eq!(device, Device::rocm(2));
///     let err = "cuda:-1".into_pyobject(py)?.extract::<DeviceLike<Device>>().unwrap_err();
///     assert!(err.is_instance_of::<pyo3::exceptions::PyValueError>(py));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
impl<'a, 'py, T: DlpackDevice> FromPyObject<'a, 'py> for DeviceLike<T> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        extract_device(&obj).map(Self)
    }
}

/// A [`PyDataType`] for the value; a `ValueError` for a value with no DLPack data type.
///
/// ```
/// use dlpack_core::{DataType, DlpackDataType};
/// use dlpack_core::python::DataTypeLike;
/// use pyo3::prelude::*;
///
/// #[derive(DlpackDataType)]
/// enum Kind {
///     #[dlpack("float16")]
///     Half,
///     #[dlpack(skip)]
///     Packed,
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let half = DataTypeLike(Kind::Half).into_pyobject(py)?;
///     assert_eq!(half.get().get(), DataType::F16);
///     assert_eq!(half.str()?.to_str()?, "float16");
///     let err = DataTypeLike(Kind::Packed).into_pyobject(py).unwrap_err();
///     assert!(err.is_instance_of::<pyo3::exceptions::PyValueError>(py));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
impl<'py, T: DlpackDataType> IntoPyObject<'py> for DataTypeLike<T> {
    type Target = PyDataType;
    type Output = Bound<'py, PyDataType>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Self::Output> {
        Bound::new(py, PyDataType::of(&self.0)?)
    }
}

/// A [`PyDevice`] for the value; a `ValueError` for a value with no DLPack device.
///
/// ```
/// use dlpack_core::Device;
/// use dlpack_core::python::DeviceLike;
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let gpu = DeviceLike(Device::cuda(3)).into_pyobject(py)?;
///     let pair: (i32, i32) = gpu.call_method0("__dlpack_device__")?.extract()?;
///     assert_eq!(pair, (2, 3));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
impl<'py, T: DlpackDevice> IntoPyObject<'py> for DeviceLike<T> {
    type Target = PyDevice;
    type Output = Bound<'py, PyDevice>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Self::Output> {
        Bound::new(py, PyDevice::of(&self.0)?)
    }
}

/// What `__dlpack_data_type__` returns for `value`: `(code, bits, lanes)` as a tuple of plain
/// ints, or a `ValueError` for a value with no DLPack data type. For the `#[pymethods]` of your
/// own `#[pyclass]` dtype:
///
/// ```
/// use dlpack_core::{DataType, python::{data_type_tuple, read_data_type}};
/// use pyo3::prelude::*;
/// use pyo3::types::PyTuple;
///
/// #[pyclass(frozen)]
/// struct Float32;
///
/// #[pymethods]
/// impl Float32 {
///     fn __dlpack_data_type__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
///         data_type_tuple(py, &DataType::F32)
///     }
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let float32 = Bound::new(py, Float32)?;
///     let triple: (u8, u8, u16) = float32.call_method0("__dlpack_data_type__")?.extract()?;
///     assert_eq!(triple, (2, 32, 1));
///     assert_eq!(read_data_type(float32.as_any())?, DataType::F32);
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn data_type_tuple<'py, T: DlpackDataType>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyTuple>> {
    let (code, bits, lanes) = value.dlpack_data_type()?.into();
    PyTuple::new(py, [u32::from(code), u32::from(bits), u32::from(lanes)])
}

/// What `__dlpack_device__` returns for `value`: `(device_type, device_id)` as a tuple of
/// plain ints, or a `ValueError` for a value with no DLPack device. For the `#[pymethods]` of
/// your own `#[pyclass]` device (which must not have `__dlpack__`, or it is a tensor).
///
/// ```
/// use dlpack_core::{Device, python::{device_tuple, read_device}};
/// use pyo3::prelude::*;
/// use pyo3::types::PyTuple;
///
/// /// A GPU of a framework that numbers them from 1.
/// #[pyclass(frozen)]
/// struct Gpu(u32);
///
/// #[pymethods]
/// impl Gpu {
///     fn __dlpack_device__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
///         let id = i32::try_from(self.0 - 1).map_err(dlpack_core::Error::msg)?;
///         device_tuple(py, &Device::cuda(id))
///     }
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let gpu = Bound::new(py, Gpu(2))?;
///     let pair: (i32, i32) = gpu.call_method0("__dlpack_device__")?.extract()?;
///     assert_eq!(pair, (2, 1));
///     assert_eq!(read_device(gpu.as_any())?, Device::cuda(1));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn device_tuple<'py, T: DlpackDevice>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyTuple>> {
    let (device_type, device_id) = value.dlpack_device()?.into();
    PyTuple::new(py, [device_type, device_id])
}
