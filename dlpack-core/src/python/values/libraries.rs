//! The data types and devices of Python libraries that do not carry the protocol: names,
//! `(device_type, device_id)` tuples, TVM FFI's `Device`, NumPy dtypes and scalar types
//! (ml_dtypes' types among them, which are NumPy dtypes), JAX's scalar types and devices,
//! PyTorch's `dtype` and `device`, and array-api-strict's dtypes and devices.
//!
//! Each is recognised by its class's module and name ([`recognise`], decided once per class
//! and remembered by the class cache), never by importing the library: an object of a library exists
//! only once that library is loaded, so nothing here imports one that is not already loaded.
//! Then the object's public attributes are read: a NumPy dtype's `kind`, `itemsize`,
//! `byteorder` and `name`; a `torch.dtype`'s name and `itemsize`; a `torch.device`'s `type`
//! and `index`; a JAX device's `platform` and `local_hardware_id`.
//!
//! Where the names of other libraries differ from DLPack's, it is said at the mapping:
//! `torch.float4_e2m1fn_x2` (two `float4_e2m1fn` in a byte) is DLPack's `float4_e2m1fnx2`,
//! as PyTorch exports it; every other NumPy, ml_dtypes and PyTorch name is the DLPack name of
//! the same type (ml_dtypes' `float8_e4m3` is DLPack's `kDLFloat8_e4m3`, code 8, as JAX
//! exports it).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};

use crate::DataType;
use crate::Device;
use crate::ffi::{DLDataTypeCode, DLDeviceType};
use crate::python::ints::{Ints, Origin, check_device_pair};
use crate::python::message::repr;

/// A kind of object that stands for a data type or a device without the protocol, recognised
/// by its class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Recognised {
    /// `str` and its subclasses (TVM FFI's `dtype` is one): a data type or a device name.
    Name,
    /// `tuple`: a `(device_type, device_id)` pair, as dpnp and the array API's
    /// `__dlpack_device__` give it.
    Pair,
    /// TVM FFI's `Device`: `dlpack_device_type()` and `index`.
    TvmFfiDevice,
    /// A NumPy dtype (`numpy.dtype("float16")`, `numpy.dtype(ml_dtypes.bfloat16)`).
    NumpyDtype,
    /// A class: a NumPy scalar type (`numpy.float16`, `ml_dtypes.bfloat16`), or a class whose
    /// `dtype` attribute is a NumPy dtype (JAX's `jax.numpy.float16`). Whether a class is one
    /// is decided per object, since every class has the class `type`.
    Class,
    /// `torch.dtype`.
    TorchDtype,
    /// `torch.device`.
    TorchDevice,
    /// A JAX device (`jax.devices()[0]`, a `jaxlib` `Device`).
    JaxDevice,
    /// An array-api-strict dtype (`array_api_strict.float32`).
    ArrayApiStrictDtype,
    /// An array-api-strict device (`array_api_strict.Device("CPU_DEVICE")`).
    ArrayApiStrictDevice,
}

impl Recognised {
    /// Every kind, in declaration order: the classifier (`classify.rs`) encodes a kind by its index here.
    pub(crate) const ALL: [Recognised; 10] = [
        Recognised::Name,
        Recognised::Pair,
        Recognised::TvmFfiDevice,
        Recognised::NumpyDtype,
        Recognised::Class,
        Recognised::TorchDtype,
        Recognised::TorchDevice,
        Recognised::JaxDevice,
        Recognised::ArrayApiStrictDtype,
        Recognised::ArrayApiStrictDevice,
    ];

    /// Whether objects of this kind are devices (a name may be either, and is decided by
    /// parsing it).
    pub(crate) fn is_device(self) -> bool {
        matches!(
            self,
            Recognised::Pair
                | Recognised::TvmFfiDevice
                | Recognised::TorchDevice
                | Recognised::JaxDevice
                | Recognised::ArrayApiStrictDevice
        )
    }
}

/// What the objects of `class` are, from the names of the class and its bases; `None` for a
/// class of none of these libraries.
pub(crate) fn recognise(class: &Bound<'_, PyType>) -> PyResult<Option<Recognised>> {
    let py = class.py();
    if class.is_subclass_of::<PyString>()? {
        return Ok(Some(Recognised::Name));
    }
    if class.is_subclass_of::<PyTuple>()? {
        return Ok(Some(Recognised::Pair));
    }
    if class.is_subclass_of::<PyType>()? {
        return Ok(Some(Recognised::Class));
    }
    if class.hasattr(intern!(py, "dlpack_device_type"))? {
        return Ok(Some(Recognised::TvmFfiDevice));
    }
    for base in class.mro().iter() {
        // A class made by `type()` outside a module has no `__module__`; none of those is one
        // of these libraries'.
        let Ok(base) = base.cast_into::<PyType>() else {
            continue;
        };
        let Some(module) = base.getattr_opt(intern!(py, "__module__"))? else {
            continue;
        };
        let (Ok(module), Ok(name)) = (module.extract::<&str>(), base.qualname()) else {
            continue;
        };
        let name = name.to_str()?;
        let library = match (module, name) {
            ("numpy", "dtype") => Recognised::NumpyDtype,
            ("torch", "dtype") => Recognised::TorchDtype,
            ("torch", "device") => Recognised::TorchDevice,
            (module, "Device") if module.starts_with("jaxlib") => Recognised::JaxDevice,
            (module, "DType") if module.starts_with("array_api_strict") => {
                Recognised::ArrayApiStrictDtype
            }
            (module, "Device") if module.starts_with("array_api_strict") => {
                Recognised::ArrayApiStrictDevice
            }
            _ => continue,
        };
        return Ok(Some(library));
    }
    Ok(None)
}

/// Whether `class` is `torch.Tensor` or a subclass of it (found by the module and name of its
/// bases, as the other libraries' classes are: PyTorch is not imported). Its tensors need the
/// checks `import/torch.rs` makes, which PyTorch's exchange table skips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TorchTensor {
    /// Not a PyTorch tensor class.
    No,
    /// `torch.Tensor` itself.
    Exact,
    /// A subclass (`torch.nn.Parameter`, `FakeTensor`, `DTensor`, a user's tensor subclass),
    /// whose `__torch_function__` runs in `__dlpack__` and whose data pointer need not hold
    /// its values: never exported through `torch.Tensor`'s table.
    Subclass,
}

/// What `class` is to PyTorch: see [`TorchTensor`].
pub(crate) fn torch_tensor(class: &Bound<'_, PyType>) -> PyResult<TorchTensor> {
    let py = class.py();
    for (index, base) in class.mro().iter().enumerate() {
        let Ok(base) = base.cast_into::<PyType>() else {
            continue;
        };
        let Some(module) = base.getattr_opt(intern!(py, "__module__"))? else {
            continue;
        };
        if module.extract::<&str>().ok() == Some("torch") && base.qualname()?.to_str()? == "Tensor"
        {
            return Ok(if index == 0 {
                TorchTensor::Exact
            } else {
                TorchTensor::Subclass
            });
        }
    }
    Ok(TorchTensor::No)
}

/// The data type `obj`, an object of kind `library`, stands for; `None` when it is not a data
/// type (a device, or a class that is not a NumPy type). A name is not read here.
pub(crate) fn data_type(obj: &Bound<'_, PyAny>, library: Recognised) -> PyResult<Option<DataType>> {
    let py = obj.py();
    match library {
        Recognised::NumpyDtype => read_numpy_dtype(obj).map(Some),
        Recognised::Class => match numpy_type(obj)? {
            Some(dtype) => read_numpy_dtype(&dtype).map(Some),
            None => Ok(None),
        },
        Recognised::TorchDtype => torch_dtype(obj).map(Some),
        // array-api-strict wraps a NumPy dtype, which its arrays have.
        Recognised::ArrayApiStrictDtype => {
            read_numpy_dtype(&obj.getattr(intern!(py, "_np_dtype"))?).map(Some)
        }
        _ => Ok(None),
    }
}

/// The device `obj`, an object of kind `library`, stands for; `None` when it is not a device.
/// A name is not read here.
pub(crate) fn device(obj: &Bound<'_, PyAny>, library: Recognised) -> PyResult<Option<Device>> {
    let py = obj.py();
    Ok(Some(match library {
        Recognised::Pair => check_device_pair(Ints::new(obj, Origin::Given("device")))?,
        // TVM FFI's `Device` (0.1.x) consumes the protocol but does not carry
        // `__dlpack_device__` itself; its pair is checked as a `__dlpack_device__` value.
        Recognised::TvmFfiDevice => {
            let device_type = obj.call_method0(intern!(py, "dlpack_device_type"))?;
            let index = obj.getattr(intern!(py, "index"))?;
            let pair = PyTuple::new(py, [device_type, index])?.into_any();
            check_device_pair(Ints::new(&pair, Origin::TvmFfiDevice(obj)))?
        }
        Recognised::TorchDevice => torch_device(obj)?,
        Recognised::JaxDevice => jax_device(obj)?,
        // Every array-api-strict device is host memory: its arrays are NumPy arrays, and
        // their `__dlpack_device__()` is `(1, 0)` on all of them.
        Recognised::ArrayApiStrictDevice => Device::CPU,
        _ => return Ok(None),
    }))
}

/// A library that is loaded already (`sys.modules[name]`), without importing it.
fn loaded<'py>(py: Python<'py>, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    let modules = py
        .import(intern!(py, "sys"))?
        .getattr(intern!(py, "modules"))?;
    modules.cast_into::<PyDict>()?.get_item(name)
}

/// Whether `obj` is a NumPy scalar (an object of a subclass of `numpy.generic`: `np.float32(3)`,
/// `ml_dtypes.bfloat16(1)`), which has no `__dlpack__`: for messages.
pub(crate) fn is_numpy_scalar(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = obj.py();
    let Some(numpy) = loaded(py, "numpy")? else {
        return Ok(false);
    };
    obj.is_instance(&numpy.getattr(intern!(py, "generic"))?)
}

/// The NumPy dtype of a class that is a NumPy scalar type (a subclass of `numpy.generic`:
/// `numpy.float16`, `ml_dtypes.bfloat16`) or that has a NumPy dtype as its `dtype` attribute
/// (`jax.numpy.float16`); `None` for any other class.
pub(crate) fn numpy_type<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = obj.py();
    // Neither kind of class exists before NumPy is loaded.
    let Some(numpy) = loaded(py, "numpy")? else {
        return Ok(None);
    };
    let Ok(class) = obj.cast::<PyType>() else {
        return Ok(None);
    };
    let dtype_class = numpy.getattr(intern!(py, "dtype"))?;
    if class.is_subclass(&numpy.getattr(intern!(py, "generic"))?)? {
        let dtype = dtype_class.call1((obj,))?;
        // An abstract type (`numpy.floating`) is no data type: NumPy 2.4 refuses it with a
        // `TypeError` of its own, NumPy 2.2 only warns and gives float64. Its dtype's scalar
        // type is then another class, which for one of NumPy's own types is never the case.
        if !dtype.getattr(intern!(py, "type"))?.is(class) && class.module()?.to_str()? == "numpy" {
            return Err(PyTypeError::new_err(format!(
                "np.{} is an abstract NumPy type, not a data type: name a concrete one, such \
                 as np.{}",
                class.name()?,
                dtype.getattr(intern!(py, "name"))?
            )));
        }
        return Ok(Some(dtype));
    }
    match obj.getattr_opt(intern!(py, "dtype"))? {
        Some(dtype) if dtype.is_instance(&dtype_class)? => Ok(Some(dtype)),
        _ => Ok(None),
    }
}

/// The data type of a NumPy dtype. NumPy's own types are read from their `kind` and
/// `itemsize`, not their names: `float128` is the platform's long double (80-bit extended
/// precision, padded to 16 bytes on x86-64), not IEEE binary128, and has no DLPack data type.
/// The types registered with NumPy by other libraries (`num` 256 and up: ml_dtypes' `bfloat16`,
/// `float8_e5m2`, `int4`, …, whose `kind` says little) are read from their `name`, which is the
/// DLPack name, checked against their `itemsize`. A dtype in the other byte order is refused:
/// DLPack data is in the host's.
fn read_numpy_dtype(dtype: &Bound<'_, PyAny>) -> PyResult<DataType> {
    let py = dtype.py();
    let kind: String = dtype.getattr(intern!(py, "kind"))?.extract()?;
    let itemsize: usize = dtype.getattr(intern!(py, "itemsize"))?.extract()?;
    let byteorder: String = dtype.getattr(intern!(py, "byteorder"))?.extract()?;
    let num: i64 = dtype.getattr(intern!(py, "num"))?.extract()?;
    let foreign_order = if cfg!(target_endian = "little") {
        ">"
    } else {
        "<"
    };
    if byteorder == foreign_order && itemsize > 1 {
        return Err(PyValueError::new_err(format!(
            "{} is in the other byte order: DLPack data is in the host's",
            repr(dtype)
        )));
    }
    // `NPY_USERDEF`: the first number NumPy gives a type registered by another library.
    const USER_DEFINED: i64 = 256;
    if num >= USER_DEFINED {
        let name: String = dtype.getattr(intern!(py, "name"))?.extract()?;
        let parsed = name.parse::<DataType>().ok();
        if let Some(data_type) = parsed.filter(|data_type| data_type.itemsize() == itemsize) {
            return Ok(data_type);
        }
        return Err(PyValueError::new_err(format!(
            "{} has no DLPack data type",
            repr(dtype)
        )));
    }
    let bits = u8::try_from(itemsize * 8).unwrap_or(0);
    let code = match (kind.as_str(), itemsize) {
        ("b", 1) => DLDataTypeCode::BOOL,
        ("i", 1 | 2 | 4 | 8) => DLDataTypeCode::INT,
        ("u", 1 | 2 | 4 | 8) => DLDataTypeCode::UINT,
        ("f", 2 | 4 | 8) => DLDataTypeCode::FLOAT,
        ("c", 8 | 16) => DLDataTypeCode::COMPLEX,
        (kind, _) => {
            let why = if kind == "f" || kind == "c" {
                " (NumPy's long double is the platform's extended precision, not IEEE binary128)"
            } else {
                ""
            };
            return Err(PyValueError::new_err(format!(
                "{} has no DLPack data type{why}",
                repr(dtype)
            )));
        }
    };
    Ok(DataType::new(code, bits, 1))
}

/// The data type of a `torch.dtype`, from its name (`torch.float16`) and checked against its
/// `itemsize`.
fn torch_dtype(dtype: &Bound<'_, PyAny>) -> PyResult<DataType> {
    let text = dtype.str()?;
    let text = text.to_str()?;
    let name = text.strip_prefix("torch.").unwrap_or(text);
    let itemsize: usize = dtype.getattr(intern!(dtype.py(), "itemsize"))?.extract()?;
    // Two `float4_e2m1fn` in one byte, which PyTorch exports as `(17, 4, 2)`.
    let data_type = if name == "float4_e2m1fn_x2" {
        Ok(DataType::FLOAT4_E2M1FN.with_lanes(2))
    } else {
        name.parse::<DataType>()
    };
    match data_type {
        Ok(data_type) if data_type.itemsize() == itemsize => Ok(data_type),
        _ => Err(PyValueError::new_err(format!(
            "{text} has no DLPack data type"
        ))),
    }
}

/// The device of a `torch.device`, from its `type` and `index` (no index, as in
/// `torch.device("cuda")`, is id 0, as the name `"cuda"` is).
///
/// The types map as PyTorch's own DLPack export maps them: `cuda` is `kDLCUDA`, or
/// `kDLROCM` in a ROCm build of PyTorch (`torch.version.hip` set), `mps` is `kDLMetal`,
/// `xpu` `kDLOneAPI`.
fn torch_device(device: &Bound<'_, PyAny>) -> PyResult<Device> {
    let py = device.py();
    let kind: String = device.getattr(intern!(py, "type"))?.extract()?;
    let index: Option<i64> = device.getattr(intern!(py, "index"))?.extract()?;
    let device_type = match kind.as_str() {
        "cpu" => DLDeviceType::CPU,
        "cuda" if torch_is_rocm_build(py)? => DLDeviceType::ROCM,
        "cuda" => DLDeviceType::CUDA,
        "hip" => DLDeviceType::ROCM,
        "mps" => DLDeviceType::METAL,
        "xpu" => DLDeviceType::ONEAPI,
        "vulkan" => DLDeviceType::VULKAN,
        "maia" => DLDeviceType::MAIA,
        _ => {
            return Err(PyValueError::new_err(format!(
                "torch.{} has no DLPack device",
                repr(device)
            )));
        }
    };
    indexed(device, device_type, index.unwrap_or(0))
}

/// Whether the loaded PyTorch is a ROCm build, whose `cuda` devices are AMD GPUs.
fn torch_is_rocm_build(py: Python<'_>) -> PyResult<bool> {
    let Some(torch) = loaded(py, "torch")? else {
        return Ok(false);
    };
    let version = torch.getattr(intern!(py, "version"))?;
    Ok(!version.getattr(intern!(py, "hip"))?.is_none())
}

/// The device of a JAX device, from its `platform` and `local_hardware_id` (the id its
/// arrays' `__dlpack_device__` gives).
fn jax_device(device: &Bound<'_, PyAny>) -> PyResult<Device> {
    let py = device.py();
    let platform: String = device.getattr(intern!(py, "platform"))?.extract()?;
    let id = || -> PyResult<i64> {
        let local = device.getattr(intern!(py, "local_hardware_id"))?;
        if local.is_none() {
            device.getattr(intern!(py, "id"))?.extract()
        } else {
            local.extract()
        }
    };
    let device_type = match platform.as_str() {
        "cpu" => return Ok(Device::CPU),
        // JAX calls both CUDA and ROCm GPUs `gpu`; the client's version names which.
        "gpu" => {
            let version = device
                .getattr(intern!(py, "client"))?
                .getattr(intern!(py, "platform_version"))?;
            if version.str()?.to_str()?.to_lowercase().contains("rocm") {
                DLDeviceType::ROCM
            } else {
                DLDeviceType::CUDA
            }
        }
        "cuda" => DLDeviceType::CUDA,
        "rocm" => DLDeviceType::ROCM,
        "tpu" => DLDeviceType::TPU,
        _ => {
            return Err(PyValueError::new_err(format!(
                "{} (platform {platform}) has no DLPack device",
                repr(device)
            )));
        }
    };
    indexed(device, device_type, id()?)
}

/// `device_type` with the id `id` of the library object `obj`, checked.
fn indexed(obj: &Bound<'_, PyAny>, device_type: DLDeviceType, id: i64) -> PyResult<Device> {
    let checked = i32::try_from(id)
        .map_err(|_| {
            PyValueError::new_err(format!(
                "{}: device id {id} is out of range: expected 0 to {}",
                repr(obj),
                i32::MAX
            ))
        })
        .and_then(|id| {
            Device::checked(device_type, id)
                .map_err(|err| PyValueError::new_err(format!("{}: {err}", repr(obj))))
        })?;
    Ok(checked)
}

#[cfg(test)]
mod tests {
    //! The recognition and the reading, against stand-ins with the module, names and attributes
    //! of the libraries' classes (the libraries themselves are tested from Python, in
    //! `tests/python`), so that they run where none of them is installed.

    use pyo3::types::PyDict;

    use super::super::read;
    use super::*;

    /// Stand-ins for the classes of NumPy, PyTorch, JAX and array-api-strict.
    const STAND_INS: &std::ffi::CStr = c"
class dtype:
    __module__ = 'torch'
    def __init__(self, name, itemsize): self.name, self.itemsize = name, itemsize
    def __str__(self): return 'torch.' + self.name

class device:
    __module__ = 'torch'
    def __init__(self, type, index=None): self.type, self.index = type, index
    def __repr__(self): return f'device(type={self.type!r})'

class Client:
    def __init__(self, version): self.platform_version = version

class Device:
    __module__ = 'jaxlib._jax'
    def __init__(self, platform, id, version='cpu'):
        self.platform, self.id, self.local_hardware_id = platform, 100 + id, id
        self.client = Client(version)

class ApiDevice:
    __module__ = 'array_api_strict._devices'
    __qualname__ = 'Device'

class NumpyDtype:
    __module__ = 'numpy'
    __qualname__ = 'dtype'
    def __init__(self, kind, itemsize, num=0, name='', byteorder='='):
        self.kind, self.itemsize, self.num, self.name, self.byteorder = kind, itemsize, num, name, byteorder
    def __repr__(self): return f'dtype({self.name!r})'

class Float16(NumpyDtype):
    __module__ = 'numpy.dtypes'

class Speaking(dtype):
    def __dlpack_data_type__(self): return (2, 32, 1)
";

    /// Runs `test` with `eval`, which evaluates code where the stand-ins are defined.
    fn with_stand_ins(test: impl for<'py> FnOnce(&Stand<'py>) -> PyResult<()>) {
        Python::initialize();
        Python::attach(|py| {
            let globals = PyDict::new(py);
            py.run(STAND_INS, Some(&globals), None)?;
            test(&Stand(globals))
        })
        .unwrap();
    }

    /// The namespace of the stand-ins.
    struct Stand<'py>(Bound<'py, PyDict>);

    impl<'py> Stand<'py> {
        fn eval(&self, code: &str) -> PyResult<Bound<'py, PyAny>> {
            let code = std::ffi::CString::new(code).unwrap();
            self.0.py().eval(&code, Some(&self.0), None)
        }
    }

    #[test]
    fn torch_dtypes_by_name_and_itemsize() {
        with_stand_ins(|stand| {
            assert_eq!(
                read::data_type(&stand.eval("dtype('float16', 2)")?)?,
                DataType::F16
            );
            assert_eq!(
                read::data_type(&stand.eval("dtype('float4_e2m1fn_x2', 1)")?)?,
                DataType::FLOAT4_E2M1FN.with_lanes(2)
            );
            assert_eq!(
                read::data_type(&stand.eval("dtype('complex32', 4)")?)?.to_string(),
                "complex32"
            );
            for (code, message) in [
                ("dtype('qint8', 1)", "torch.qint8 has no DLPack data type"),
                (
                    "dtype('float16', 4)",
                    "torch.float16 has no DLPack data type",
                ),
            ] {
                let err = read::data_type(&stand.eval(code)?).unwrap_err();
                assert_eq!(err.value(stand.0.py()).to_string(), message);
            }
            // A device is not a data type, and the other way round.
            assert!(read::data_type(&stand.eval("device('cpu')")?).is_err());
            assert!(read::device(&stand.eval("dtype('float16', 2)")?).is_err());
            Ok(())
        });
    }

    #[test]
    fn the_protocol_wins_over_the_class() {
        with_stand_ins(|stand| {
            // A `torch.dtype` whose name says float16, and whose protocol says float32.
            let speaking = stand.eval("Speaking('float16', 2)")?;
            assert_eq!(read::data_type(&speaking)?, DataType::F32);
            Ok(())
        });
    }

    #[test]
    fn torch_devices_by_type_and_index() {
        with_stand_ins(|stand| {
            let cases = [
                ("device('cpu')", Device::CPU),
                ("device('cuda')", Device::cuda(0)),
                ("device('cuda', 3)", Device::cuda(3)),
                ("device('mps', 0)", Device::metal(0)),
                ("device('xpu', 1)", Device::oneapi(1)),
                ("device('hip', 2)", Device::rocm(2)),
            ];
            for (code, expected) in cases {
                assert_eq!(read::device(&stand.eval(code)?)?, expected, "{code}");
            }
            let err = read::device(&stand.eval("device('meta')")?).unwrap_err();
            assert!(
                err.to_string()
                    .contains("torch.device(type='meta') has no DLPack device")
            );
            let err = read::device(&stand.eval("device('cuda', 2**40)")?).unwrap_err();
            assert!(
                err.to_string()
                    .contains("device id 1099511627776 is out of range"),
                "{err}"
            );
            Ok(())
        });
    }

    #[test]
    fn jax_and_array_api_strict_devices() {
        with_stand_ins(|stand| {
            let cases = [
                ("Device('cpu', 0)", Device::CPU),
                ("Device('gpu', 1, 'cuda 12.8')", Device::cuda(1)),
                ("Device('gpu', 2, 'ROCm 6.2')", Device::rocm(2)),
                ("Device('tpu', 3)", Device::tpu(3)),
                ("ApiDevice()", Device::CPU),
                ("(2, 7)", Device::cuda(7)),
            ];
            for (code, expected) in cases {
                assert_eq!(read::device(&stand.eval(code)?)?, expected, "{code}");
            }
            let err = read::device(&stand.eval("Device('METAL', 0)")?).unwrap_err();
            assert!(
                err.to_string()
                    .contains("(platform METAL) has no DLPack device"),
                "{err}"
            );
            let err = read::device(&stand.eval("(2, -1)")?).unwrap_err();
            assert!(
                err.value(stand.0.py())
                    .to_string()
                    .starts_with("device (2, -1): device id -1 is out of range")
            );
            Ok(())
        });
    }

    #[test]
    fn numpy_dtypes_by_kind_or_by_name() {
        with_stand_ins(|stand| {
            let cases = [
                ("Float16('f', 2)", DataType::F16),
                ("NumpyDtype('c', 16)", DataType::C128),
                ("NumpyDtype('b', 1)", DataType::BOOL),
                ("NumpyDtype('u', 8, byteorder='|')", DataType::U64),
                // Registered by another library (ml_dtypes): read by name, whatever the kind.
                (
                    "NumpyDtype('f', 1, 300, 'float8_e5m2')",
                    DataType::FLOAT8_E5M2,
                ),
                ("NumpyDtype('V', 2, 300, 'bfloat16')", DataType::BF16),
            ];
            for (code, expected) in cases {
                assert_eq!(read::data_type(&stand.eval(code)?)?, expected, "{code}");
            }
            for (code, message) in [
                ("NumpyDtype('f', 16, name='float128')", "not IEEE binary128"),
                (
                    "NumpyDtype('f', 4, name='>f4', byteorder='>')",
                    "is in the other byte order",
                ),
                (
                    "NumpyDtype('U', 12, name='<U3')",
                    "dtype('<U3') has no DLPack data type",
                ),
                (
                    "NumpyDtype('V', 4, 300, 'bfloat16')",
                    "has no DLPack data type",
                ),
            ] {
                let err = read::data_type(&stand.eval(code)?).unwrap_err();
                assert!(err.to_string().contains(message), "{code}: {err}");
            }
            Ok(())
        });
    }

    #[test]
    fn classes_without_numpy_loaded_are_not_data_types() {
        with_stand_ins(|stand| {
            // No NumPy is loaded by these tests: a class is then no NumPy scalar type.
            let float = stand.eval("float")?;
            assert_eq!(
                recognise(&float.get_type())?,
                Some(Recognised::Class),
                "a class's class is `type`"
            );
            if loaded(float.py(), "numpy")?.is_none() {
                assert!(numpy_type(&float)?.is_none());
            }
            let err = read::data_type(&float).unwrap_err();
            assert!(err.to_string().ends_with("got the class float"), "{err}");
            Ok(())
        });
    }
}
