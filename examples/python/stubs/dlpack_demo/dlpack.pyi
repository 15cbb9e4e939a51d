"""
The generic protocol objects of `dlpack_core` (`dlpack_core::python::PyDataType` and
`PyDevice`), for any DLPack data type or device, including those `DType` and `Device`
do not have.
"""

from _typeshed import Incomplete
from dlpack_typing import DataTypeLike, DeviceLike
from typing import Any, final

@final
class DataType:
    """
    A DLPack data type as a Python object: `__dlpack_data_type__()` returns `(code, bits,
    lanes)` as plain ints, as PaddlePaddle's dtypes do, so TVM FFI and every other consumer of the
    protocol reads it. Python sees the class as `DataType`.

    It is what [`DataTypeLike`] hands to Python for any [`DlpackDataType`] value. From Python:
    `DataType("float16")`, `DataType(paddle.float16)` or `DataType(numpy.float16)` (anything
    [`DataTypeLike`] reads); `str()` gives the canonical name, `repr()` `DataType('float16')`;
    `==` and `hash()` compare the DLPack value; `code`, `bits` and `lanes` are read-only
    attributes; `dtype` is the NumPy dtype (NumPy's own, or ml_dtypes' for the types NumPy lacks), so that
    `numpy.empty(2, dtype=obj)` takes the object.
    In Rust, `PyDataType::from(data_type)` and `DataType::from(object)` convert both ways.

    It is a value: it pickles (as its name), `copy.copy` and `copy.deepcopy` return it as it
    is (it is immutable), and `==` and `hash()` agree before and after. Pickle finds the class
    through its `__module__`, which is `builtins` until the extension that exports it names
    its module: set it there, to a module that `import` finds (for a submodule of an extension,
    one in `sys.modules`):

    ```
    use pyo3::prelude::*;

    #[pymodule]
    mod values {
        #[pymodule_export]
        use dlpack_core::python::{PyDataType, PyDevice};
        use pyo3::prelude::*;

        #[pymodule_init]
        fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
            let py = m.py();
            for class in [py.get_type::<PyDataType>(), py.get_type::<PyDevice>()] {
                class.setattr("__module__", m.name()?)?;
            }
            Ok(())
        }
    }
    # pyo3::Python::initialize();
    # Python::attach(|py| -> PyResult<()> {
    #     let m = pyo3::wrap_pymodule!(values)(py).into_bound(py);
    #     py.import("sys")?.getattr("modules")?.set_item("values", &m)?;
    #     let f16 = m.getattr("DataType")?.call1(("float16",))?;
    #     let pickle = py.import("pickle")?;
    #     let back = pickle.call_method1("loads", (pickle.call_method1("dumps", (&f16,))?,))?;
    #     assert!(back.eq(&f16)?);
    #     assert_eq!(m.getattr("DataType")?.getattr("__module__")?.extract::<String>()?, "values");
    #     Ok(())
    # })?;
    # Ok::<(), PyErr>(())
    ```

    ```
    use dlpack_core::DataType;
    use dlpack_core::python::PyDataType;
    use pyo3::prelude::*;

    # pyo3::Python::initialize();
    Python::attach(|py| -> PyResult<()> {
        let bf16 = Bound::new(py, PyDataType::from(DataType::BF16))?;
        let triple: (u8, u8, u16) = bf16.call_method0("__dlpack_data_type__")?.extract()?;
        assert_eq!(triple, (4, 16, 1));
        assert_eq!(bf16.repr()?.to_str()?, "DataType('bfloat16')");
        Ok(())
    })?;
    # Ok::<(), PyErr>(())
    ```
    """
    def __copy__(self, /) -> DataType: ...
    def __deepcopy__(self, /, _memo: Any | None = None) -> DataType:
        """
        The object itself: it is immutable (`copy.copy` and `copy.deepcopy` alike).
        """
    def __dlpack_data_type__(self, /) -> tuple[int, int, int]:
        """
        `(code, bits, lanes)`, plain ints.
        """
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self, /) -> int: ...
    def __ne__(self, value: object, /) -> bool: ...
    def __new__(cls, /, obj: Any) -> DataType:
        """
        `DataType(obj)`: from a name or any object `read::data_type` reads.
        """
    def __reduce__(self, /) -> tuple[type, tuple]:
        """
        Pickled as `DataType(name)`: every value's name parses back to it.
        """
    def __repr__(self, /) -> str: ...
    def __str__(self, /) -> str: ...
    @property
    def bits(self, /) -> int:
        """
        Bits per lane.
        """
    @property
    def code(self, /) -> int:
        """
        The `DLDataTypeCode`.
        """
    @property
    def dtype(self, /) -> Any:
        """
        The NumPy dtype: NumPy's `dtype`-attribute protocol, through which `numpy.dtype(obj)`,
        and so NumPy's and JAX's functions, take this object.
        """
    @property
    def lanes(self, /) -> int:
        """
        Lanes.
        """

@final
class Device:
    """
    A DLPack device as a Python object: `__dlpack_device__()` returns `(device_type,
    device_id)` as plain ints, and the class has no `__dlpack__`, so TVM FFI and every other
    consumer of the protocol takes it for a device (not a tensor). Python sees the class as
    `Device`.

    It is what [`DeviceLike`] hands to Python for any [`DlpackDevice`] value. From Python:
    `Device("cuda:0")`, `Device(paddle.CPUPlace())`, `Device(torch.device("cuda", 1))` or
    `Device((2, 1))` (anything [`DeviceLike`] reads); `str()` gives the canonical name,
    `repr()` `Device('cuda:0')`; `==` and `hash()` compare the DLPack value (after
    canonicalisation, as [`Device`]'s `==` does); `device_type` and `device_id` are read-only
    attributes. It pickles (as its name) and copies as [`PyDataType`] does, and finds its
    class for pickle the same way.
    In Rust, `PyDevice::from(device)` and `Device::from(object)` convert both ways.

    ```
    use dlpack_core::Device;
    use dlpack_core::python::PyDevice;
    use pyo3::prelude::*;

    # pyo3::Python::initialize();
    Python::attach(|py| -> PyResult<()> {
        let gpu = Bound::new(py, PyDevice::from(Device::cuda(3)))?;
        let pair: (i32, i32) = gpu.call_method0("__dlpack_device__")?.extract()?;
        assert_eq!(pair, (2, 3));
        assert_eq!(gpu.str()?.to_str()?, "cuda:3");
        Ok(())
    })?;
    # Ok::<(), PyErr>(())
    ```
    """
    def __copy__(self, /) -> Device: ...
    def __deepcopy__(self, /, _memo: Any | None = None) -> Device:
        """
        The object itself: it is immutable (`copy.copy` and `copy.deepcopy` alike).
        """
    def __dlpack_device__(self, /) -> tuple[int, int]:
        """
        `(device_type, device_id)`, plain ints.
        """
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self, /) -> int: ...
    def __ne__(self, value: object, /) -> bool: ...
    def __new__(cls, /, obj: Any) -> Device:
        """
        `Device(obj)`: from a name or any object `read::device` reads.
        """
    def __reduce__(self, /) -> tuple[type, tuple]:
        """
        Pickled as `Device(name)`: every value's name parses back to it.
        """
    def __repr__(self, /) -> str: ...
    def __str__(self, /) -> str: ...
    @property
    def device_id(self, /) -> int:
        """
        The device id.
        """
    @property
    def device_type(self, /) -> int:
        """
        The `DLDeviceType`.
        """

def data_type(obj: DataTypeLike) -> DataType:
    """
    `data_type(obj)`: any data type object or name as a `DataType`.
    """

def device(obj: DeviceLike) -> Device:
    """
    `device(obj)`: any device object or name as a `Device`.
    """

def kind(obj: Any) -> str | None:
    """
    `kind(obj)`: `"tensor"`, `"dtype"`, `"device"` or `None`, as TVM FFI would see it
    (by the protocol methods alone).
    """

def value_kind(obj: Any) -> str | None:
    """
    `value_kind(obj)`: `"tensor"`, `"dtype"`, `"device"` or `None`, as `from_dlpack`
    dispatches (the protocol, then the objects of other libraries and names).
    """

def __getattr__(name: str) -> Incomplete: ...
