//! Data types and devices across the boundary: [`DataTypeLike`] and [`DeviceLike`] (the
//! argument and return types), and the protocol objects they become in Python
//! ([`PyDataType`], [`PyDevice`]). Reading an object is `read.rs`'s job.

use pyo3::prelude::*;
use pyo3::types::{PyTuple, PyType};

use super::numpy::to_numpy_dtype;
use super::read;
use crate::DataType;
use crate::Device;
use crate::convert::{DlpackDataType, DlpackDevice};
use crate::python::named::{NamedArg, Names, named_error};

/// A DLPack data type as a Python object: `__dlpack_data_type__()` returns `(code, bits,
/// lanes)` as plain ints, as PaddlePaddle's dtypes do, so TVM FFI and every other consumer of the
/// protocol reads it. Python sees the class as `DataType`.
///
/// It is what [`DataTypeLike`] hands to Python for any [`DlpackDataType`] value. From Python:
/// `DataType("float16")`, `DataType(paddle.float16)` or `DataType(numpy.float16)` (anything
/// [`DataTypeLike`] reads); `str()` gives the canonical name, `repr()` `DataType('float16')`;
/// `==` and `hash()` compare the DLPack value; `code`, `bits` and `lanes` are read-only
/// attributes; `dtype` is the NumPy dtype (NumPy's own, or ml_dtypes' for the types NumPy lacks), so that
/// `numpy.empty(2, dtype=obj)` takes the object.
/// In Rust, `PyDataType::from(data_type)` and `DataType::from(object)` convert both ways.
///
/// It is a value: it pickles (as its name), `copy.copy` and `copy.deepcopy` return it as it
/// is (it is immutable), and `==` and `hash()` agree before and after. Pickle finds the class
/// through its `__module__`, which is `builtins` until the extension that exports it names
/// its module: set it there, to a module that `import` finds (for a submodule of an extension,
/// one in `sys.modules`):
///
/// ```
/// use pyo3::prelude::*;
///
/// #[pymodule]
/// mod values {
///     #[pymodule_export]
///     use dlpack_core::python::{PyDataType, PyDevice};
///     use pyo3::prelude::*;
///
///     #[pymodule_init]
///     fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
///         let py = m.py();
///         for class in [py.get_type::<PyDataType>(), py.get_type::<PyDevice>()] {
///             class.setattr("__module__", m.name()?)?;
///         }
///         Ok(())
///     }
/// }
/// # pyo3::Python::initialize();
/// # Python::attach(|py| -> PyResult<()> {
/// #     let m = pyo3::wrap_pymodule!(values)(py).into_bound(py);
/// #     py.import("sys")?.getattr("modules")?.set_item("values", &m)?;
/// #     let f16 = m.getattr("DataType")?.call1(("float16",))?;
/// #     let pickle = py.import("pickle")?;
/// #     let back = pickle.call_method1("loads", (pickle.call_method1("dumps", (&f16,))?,))?;
/// #     assert!(back.eq(&f16)?);
/// #     assert_eq!(m.getattr("DataType")?.getattr("__module__")?.extract::<String>()?, "values");
/// #     Ok(())
/// # })?;
/// # Ok::<(), PyErr>(())
/// ```
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

/// The two protocol value classes, [`PyDataType`] and [`PyDevice`]: the conversions both ways,
/// `Display`, and every Python method but the protocol method and the attributes, which
/// differ. (One `#[pymethods]` block per class: the macro writes it whole.)
macro_rules! value_class {
    (
        $class:ident($value:ident), $read:path, $python:literal, display: $display:literal,
        $(#[$protocol_doc:meta])* fn $protocol:ident() -> $tuple:ty;
        $($extra:tt)*
    ) => {
        #[doc = concat!("Any [`", stringify!($value), "`] as a Python object.")]
        impl From<$value> for $class {
            fn from(value: $value) -> Self {
                Self(value)
            }
        }

        /// The DLPack value of the object.
        impl From<$class> for $value {
            fn from(value: $class) -> Self {
                value.0
            }
        }

        /// The canonical name, what Python's `str()` gives.
        ///
        #[doc = concat!("```\n", $display, "\n```")]
        impl core::fmt::Display for $class {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Display::fmt(&self.0, f)
            }
        }

        #[pymethods]
        impl $class {
            #[doc = concat!("`", $python, "(obj)`: from a name or any object `", stringify!($read), "` reads.")]
            #[new]
            fn py_new(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
                $read(obj).map(Self)
            }

            $(#[$protocol_doc])*
            fn $protocol(&self) -> $tuple {
                self.0.into()
            }

            fn __repr__(&self) -> String {
                format!(concat!($python, "('{}')"), self.0)
            }

            #[doc = concat!("Pickled as `", $python, "(name)`: every value's name parses back to it.")]
            fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
                by_name(slf, slf.get().0.to_string())
            }

            /// The object itself: it is immutable (`copy.copy` and `copy.deepcopy` alike).
            #[pyo3(signature = (_memo=None))]
            fn __deepcopy__<'py>(
                slf: Bound<'py, Self>,
                _memo: Option<&Bound<'py, PyAny>>,
            ) -> Bound<'py, Self> {
                slf
            }

            fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
                slf
            }

            $($extra)*
        }
    };
}

value_class! {
    PyDataType(DataType), read::data_type, "DataType",
    display: "use dlpack_core::{DataType, python::PyDataType};\nassert_eq!(PyDataType::from(DataType::F32.with_lanes(4)).to_string(), \"float32x4\");",
    /// `(code, bits, lanes)`, plain ints.
    fn __dlpack_data_type__() -> (u8, u8, u16);

    /// The NumPy dtype: NumPy's `dtype`-attribute protocol, through which `numpy.dtype(obj)`,
    /// and so NumPy's and JAX's functions, take this object.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_numpy_dtype(py, self.0)
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
/// `Device("cuda:0")`, `Device(paddle.CPUPlace())`, `Device(torch.device("cuda", 1))` or
/// `Device((2, 1))` (anything [`DeviceLike`] reads); `str()` gives the canonical name,
/// `repr()` `Device('cuda:0')`; `==` and `hash()` compare the DLPack value (after
/// canonicalisation, as [`Device`]'s `==` does); `device_type` and `device_id` are read-only
/// attributes. It pickles (as its name) and copies as [`PyDataType`] does, and finds its
/// class for pickle the same way.
/// In Rust, `PyDevice::from(device)` and `Device::from(object)` convert both ways.
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

value_class! {
    PyDevice(Device), read::device, "Device",
    display: "use dlpack_core::{Device, python::PyDevice};\nassert_eq!(PyDevice::from(Device::cuda(1)).to_string(), \"cuda:1\");\nassert_eq!(PyDevice::from(Device::CPU).to_string(), \"cpu\");",
    /// `(device_type, device_id)`, plain ints.
    fn __dlpack_device__() -> (i32, i32);

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

/// What `__reduce__` returns: the class and the arguments to make the object again.
type Reduced<'py> = (Bound<'py, PyType>, Bound<'py, PyTuple>);

/// `(type(obj), (name,))`: pickles a value whose class makes it again from its name.
fn by_name<'py, T: pyo3::PyClass>(obj: &Bound<'py, T>, name: String) -> PyResult<Reduced<'py>> {
    Ok((obj.as_any().get_type(), PyTuple::new(obj.py(), [name])?))
}

/// A data type from Python, as a `T`: the way to take one as a `#[pyfunction]` argument, or to
/// read one with `.extract::<DataTypeLike<T>>()`; as a return value, a [`PyDataType`].
///
/// It reads, in this order (TVM FFI's precedence):
///
/// 1. any object whose class has `__dlpack_data_type__` (`paddle.float16`, a [`PyDataType`], a
///    class of your own): the method must return a `tuple` of three `int`s `(code, bits,
///    lanes)` that fit DLPack's `uint8`, `uint8` and `uint16` fields and form a data type
///    DLPack allows. Nothing is truncated: bits 300 is a `ValueError`, where TVM FFI would
///    read 44;
/// 2. a data type name the grammar parses (`"float16"`, `"bf16"`; TVM FFI's `dtype` is such a
///    `str`), and the dtypes of libraries that do not carry the protocol, recognised by their
///    class without importing the library: NumPy dtypes and scalar types (`numpy.float16`,
///    `numpy.dtype("float16")`, and ml_dtypes' types: `ml_dtypes.bfloat16`,
///    `numpy.dtype(ml_dtypes.float8_e4m3fn)`), JAX's (`jax.numpy.float16`, and the NumPy
///    dtypes of its arrays), `torch.dtype` (`torch.float4_e2m1fn_x2` is `float4_e2m1fnx2`,
///    as PyTorch exports it) and array-api-strict's dtypes;
///
/// then converts with [`T::from_dlpack_data_type`](DlpackDataType::from_dlpack_data_type).
/// Errors:
///
/// - `TypeError`: anything else (a tensor is refused with a message of its own); a return
///   value that is not a tuple (a list is refused, as TVM FFI refuses it); an item that is not
///   an `int` (a float, a bool, a string).
/// - `ValueError`: a tuple of the wrong length; a negative or too large item; a triple DLPack
///   does not allow (bits 0, lanes 0, an unknown code, fp8 of 16 bits); a string that is not a
///   data type name; a library's dtype with no DLPack data type (`numpy.float128`, a NumPy
///   string or big-endian dtype, `torch.qint8`); a data type `T` has no value for (the message
///   lists what `T` supports).
/// - Whatever the method raised, unchanged, with a note saying where it came from.
///
/// ```
/// use dlpack_core::{DataType, DlpackDataType};
/// use dlpack_core::python::DataTypeLike;
/// use pyo3::prelude::*;
///
/// #[derive(Debug, PartialEq, DlpackDataType)]
/// enum Kind {
///     #[dlpack("float32")]
///     F32,
///     #[dlpack("int8")]
///     I8,
/// }
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
///
///     let globals = pyo3::types::PyDict::new(py);
///     py.run(c"class Half:\n    def __dlpack_data_type__(self): return (2, 16, 1)", Some(&globals), None)?;
///     let half = globals.get_item("Half")?.unwrap().call0()?;
///     assert_eq!(half.extract::<DataTypeLike<DataType>>()?.0, DataType::F16);
///     // `Kind` has no float16.
///     let err = half.extract::<DataTypeLike<Kind>>().unwrap_err();
///     assert!(err.is_instance_of::<pyo3::exceptions::PyValueError>(py));
///     assert!(err.to_string().contains("float16"), "{err}");
///
///     py.run(c"class Wide:\n    def __dlpack_data_type__(self): return (2, 300, 1)", Some(&globals), None)?;
///     let wide = globals.get_item("Wide")?.unwrap().call0()?;
///     let err = wide.extract::<DataTypeLike<DataType>>().unwrap_err();
///     assert!(err.is_instance_of::<pyo3::exceptions::PyValueError>(py));
///     assert!(err.to_string().contains("bits 300 is out of range"), "{err}");
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DataTypeLike<T>(pub T);

/// A device from Python, as a `T`: the device counterpart of [`DataTypeLike`]; as a return
/// value, a [`PyDevice`].
///
/// It reads, in this order:
///
/// 1. any object whose class has `__dlpack_device__` and no `__dlpack__` (a PaddlePaddle place,
///    a [`PyDevice`], a class of your own): the method must return a `tuple` of two `int`s
///    `(device_type, device_id)`, the type a known DLPack device type and the id in
///    `0..=i32::MAX`: an id of 2**31 is a `ValueError`, never a wrapped or truncated id;
/// 2. a device name the grammar parses (`"cpu"`, `"cuda:1"`); a `(device_type, device_id)`
///    tuple, as dpnp takes it, with the same checks; TVM FFI's `Device`, which consumes the
///    protocol without carrying `__dlpack_device__` itself and is read through its
///    `dlpack_device_type()` and `index`; and, recognised by class without importing the
///    library, `torch.device` (`type` and `index`; no index is id 0, as the name `"cuda"`
///    is; `mps` is `metal`, `xpu` `oneapi`, `cuda` in a ROCm build `rocm`), JAX's devices
///    (`platform` and `local_hardware_id`) and array-api-strict's devices (all of them host
///    memory, `cpu`, as their arrays' `__dlpack_device__` says);
///
/// then converts with [`T::from_dlpack_device`](DlpackDevice::from_dlpack_device). A class with
/// `__dlpack__` is a tensor, and is refused with a `TypeError` (its `__dlpack_device__` says
/// where it lives: read that with [`read_tensor_device`](crate::python::read_tensor_device)). The
/// other errors are those of [`DataTypeLike`].
///
/// ```
/// use dlpack_core::{Device, DlpackDevice};
/// use dlpack_core::python::{DeviceLike, PyDevice};
/// use pyo3::prelude::*;
///
/// #[derive(Debug, PartialEq, DlpackDevice)]
/// enum Place {
///     #[dlpack(cpu)]
///     Host,
///     #[dlpack(cuda)]
///     Gpu(u32),
/// }
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
///
///     let gpu = Bound::new(py, PyDevice::from(Device::cuda(1)))?;
///     assert_eq!(gpu.extract::<DeviceLike<Place>>()?.0, Place::Gpu(1));
///     let rocm = "rocm:0".into_pyobject(py)?;
///     let err = rocm.extract::<DeviceLike<Place>>().unwrap_err(); // `Place` has no ROCm
///     assert!(err.is_instance_of::<pyo3::exceptions::PyValueError>(py));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceLike<T>(pub T);

/// Reads any data type object or name, as the type's documentation says.
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

    /// Any dtype: `dlpack_typing.DataTypeLike` (the protocol, a name, or a dtype of NumPy,
    /// ml_dtypes, JAX or PyTorch), for the stubs of the `inspect` feature.
    #[cfg(feature = "inspect")]
    const INPUT_TYPE: pyo3::inspect::PyStaticExpr =
        pyo3::type_hint_identifier!("dlpack_typing", "DataTypeLike");

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(Self(T::from_dlpack_data_type(read::data_type(&obj)?)?))
    }
}

/// Reads any device object or name, as the type's documentation says.
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

    /// Any device: `dlpack_typing.DeviceLike` (the protocol, a name, a `(device_type,
    /// device_id)` pair, or a PyTorch device), for the stubs of the `inspect` feature.
    #[cfg(feature = "inspect")]
    const INPUT_TYPE: pyo3::inspect::PyStaticExpr =
        pyo3::type_hint_identifier!("dlpack_typing", "DeviceLike");

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(Self(T::from_dlpack_device(read::device(&obj)?)?))
    }
}

/// Read by `#[tensor_args]`: a refusal names the function and the argument
/// (`arange(): argument 'dtype': …`), as the same exception.
impl<T: DlpackDataType> NamedArg<'_> for DataTypeLike<T> {
    fn __extract_named(obj: Borrowed<'_, '_, PyAny>, names: Names) -> PyResult<Self> {
        obj.extract()
            .map_err(|err| named_error(obj.py(), err, names))
    }
}

/// Read by `#[tensor_args]`, as [`DataTypeLike`] is.
impl<T: DlpackDevice> NamedArg<'_> for DeviceLike<T> {
    fn __extract_named(obj: Borrowed<'_, '_, PyAny>, names: Names) -> PyResult<Self> {
        obj.extract()
            .map_err(|err| named_error(obj.py(), err, names))
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
///     assert_eq!(DataType::from(*half.get()), DataType::F16);
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

    #[cfg(feature = "inspect")]
    const OUTPUT_TYPE: pyo3::inspect::PyStaticExpr = <PyDataType as pyo3::PyTypeInfo>::TYPE_HINT;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Self::Output> {
        Bound::new(py, PyDataType(self.0.dlpack_data_type()?))
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

    #[cfg(feature = "inspect")]
    const OUTPUT_TYPE: pyo3::inspect::PyStaticExpr = <PyDevice as pyo3::PyTypeInfo>::TYPE_HINT;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Self::Output> {
        Bound::new(py, PyDevice(self.0.dlpack_device()?))
    }
}
