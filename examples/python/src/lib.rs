//! `dlpack_demo`: a small tensor library for Python, written with `dlpack-core`'s `pyo3`
//! feature, that speaks every DLPack protocol in both directions.
//!
//! - [`DType`] and [`Device`] are ordinary Rust enums that derive `DlpackDataType` and
//!   `DlpackDevice`; Python sees `DType.float16` and `Device('cpu')`, objects whose classes
//!   carry `__dlpack_data_type__` and `__dlpack_device__`, written (with the constructors,
//!   `repr()`, pickling, …) by `#[dlpack_core::python::pymethods]`.
//! - Every function that takes a dtype or a device takes *any* object that speaks the
//!   protocol, and the dtypes and devices of NumPy, ml_dtypes, JAX, PyTorch and
//!   array-api-strict, which do not (yet): `empty((1, 2), dtype=paddle.float16)`,
//!   `empty((1, 2), dtype=numpy.float16)` and `empty((1, 2), dtype=torch.float16)` work; and
//!   NumPy and JAX take our dtypes (`numpy.empty((1, 2), dtype=dlpack_demo.float16)`).
//! - `Tensor` is a full DLPack producer (`__dlpack__`, `__dlpack_device__`) and
//!   `from_dlpack` a full consumer, dispatching over tensors, dtypes and devices.
//! - `live()` counts what is alive on the Rust side, so tests can prove nothing leaks.

#[cfg(feature = "cuda")]
mod cuda;
mod device;
mod dtype;
mod live;
mod memory;
mod minifloat;
mod scalar;
mod tensor;
mod typed;

use pyo3::prelude::*;

pub use device::{Device, PyDevice};
pub use dtype::DType;
pub use tensor::Tensor;

/// A DLPack tensor library in Rust: dtypes, devices and tensors that speak the DLPack
/// protocols with numpy, PaddlePaddle, TVM FFI and every other array library.
#[pymodule]
mod dlpack_demo {
    use dlpack_core::python::{
        DataTypeLike, DeviceLike, ValueKind, add_values, read_tensor_device, value_kind,
    };
    use dlpack_core::{DataType, Device as DlDevice};
    use pyo3::prelude::*;

    #[pymodule_export]
    use super::tensor::{exchange_table_v2, nbytes, nbytes_of_view, sum};
    #[pymodule_export]
    use super::typed::{
        arg_meta, doubled, gpu_nbytes, mean, negated, negated_rust, owned_and_written,
        read_then_write, row_sums, scale, total_detached, view_meta, weighted_sum, write_both,
        write_calling, write_failing, write_importing, write_unnamed, write_viewing,
    };
    #[pymodule_export]
    use super::{DType, PyDevice, Tensor};

    /// `empty(shape, dtype, device=None)`: a new tensor (zeroed) of any dtype object
    /// (`paddle.float16`, `DType.float16`, `"float16"`) on the CPU (the default) or, built with
    /// the `cuda` feature, on a CUDA device (`device="cuda:0"`, or any device object naming
    /// it); zeroed there on the library's stream.
    #[dlpack_core::python::tensor_args]
    #[pyfunction]
    #[pyo3(signature = (shape, dtype, device=None))]
    fn empty(
        shape: Vec<usize>,
        dtype: DataTypeLike<DType>,
        device: Option<DeviceLike<super::Device>>,
    ) -> PyResult<Tensor> {
        let device = device.map_or(super::Device::Cpu, |device| device.0);
        Tensor::zeros_on(&shape, dtype.0, device)
    }

    /// `arange(n, dtype)`: `[0, 1, …, n - 1]` as a tensor of any dtype object.
    #[dlpack_core::python::tensor_args]
    #[pyfunction]
    fn arange(py: Python<'_>, n: usize, dtype: DataTypeLike<DType>) -> PyResult<Tensor> {
        Tensor::arange(py, n, dtype.0)
    }

    /// `from_dlpack(obj, /, *, device=None, copy=None)`, dispatching as the RFC proposes: a tensor
    /// (`__dlpack__`, or a DLPack capsule) becomes a `Tensor` (zero-copy unless `copy=True`),
    /// a dtype a `DType`, a device a `Device`: everything `dtype_of` and `device_of` take
    /// (protocol objects, names, `(device_type, device_id)` tuples, TVM FFI's devices, and
    /// the dtypes and devices of NumPy, ml_dtypes, JAX, PyTorch and array-api-strict).
    #[dlpack_core::python::tensor_args]
    #[pyfunction]
    #[pyo3(signature = (obj, /, *, device=None, copy=None))]
    fn from_dlpack<'py>(
        obj: &Bound<'py, PyAny>,
        device: Option<DeviceLike<DlDevice>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let device = device.map(|d| d.0);
        dlpack_core::python::from_dlpack::<DType, PyDevice, _>(
            obj,
            device,
            copy,
            |obj, device, copy| {
                #[cfg(feature = "cuda")]
                let imported = super::tensor::import_on_stream(obj, device, copy)?;
                #[cfg(not(feature = "cuda"))]
                let imported = dlpack_core::python::import_tensor(obj, device, copy)?;
                Tensor::import(imported)
            },
        )
    }

    /// The dtype of any dtype object (`paddle.float16`, `tvm_ffi.dtype("int8")`, a
    /// `DType`, a name) or of any tensor (read from its DLPack export, without a copy).
    #[pyfunction]
    fn dtype_of(obj: &Bound<'_, PyAny>) -> PyResult<DType> {
        if let Ok(tensor) = obj.cast::<Tensor>() {
            return Ok(tensor.get().dtype_value());
        }
        // A name or another library's dtype is not read here: `DataTypeLike` reads it, with
        // its own message for one that is wrong.
        match value_kind(obj) {
            Ok(Some(ValueKind::Tensor)) => {
                let imported = dlpack_core::python::import_tensor(obj, None, None)?;
                let view = imported.view()?;
                Ok(<DType as dlpack_core::DlpackDataType>::from_dlpack_data_type(view.dtype())?)
            }
            _ => Ok(obj.extract::<DataTypeLike<DType>>()?.0),
        }
    }

    /// The device of any device object (`paddle.CPUPlace()`, `tvm_ffi.device("cuda", 1)`, a
    /// `Device`, a name) or of any tensor (through its `__dlpack_device__`).
    #[pyfunction]
    fn device_of(obj: &Bound<'_, PyAny>) -> PyResult<PyDevice> {
        let device = match value_kind(obj) {
            Ok(Some(ValueKind::Tensor)) => DeviceLike(
                <super::Device as dlpack_core::DlpackDevice>::from_dlpack_device(
                    read_tensor_device(obj)?,
                )?,
            ),
            _ => obj.extract::<DeviceLike<super::Device>>()?,
        };
        Ok(PyDevice(device.0))
    }

    /// The generic protocol objects of `dlpack_core` (`dlpack_core::python::PyDataType` and
    /// `PyDevice`), for any DLPack data type or device, including those `DType` and `Device`
    /// do not have.
    #[pymodule]
    mod dlpack {
        use super::*;

        #[pymodule_export]
        use dlpack_core::python::{PyDataType, PyDevice};

        /// `data_type(obj)`: any data type object or name as a `DataType`.
        #[pyfunction]
        fn data_type(obj: DataTypeLike<DataType>) -> DataTypeLike<DataType> {
            obj
        }

        /// `device(obj)`: any device object or name as a `Device`.
        #[pyfunction]
        fn device(obj: DeviceLike<DlDevice>) -> DeviceLike<DlDevice> {
            obj
        }

        /// `kind(obj)`: `"tensor"`, `"dtype"`, `"device"` or `None`, as TVM FFI would see it
        /// (by the protocol methods alone).
        #[pyfunction]
        fn kind(obj: &Bound<'_, PyAny>) -> PyResult<Option<&'static str>> {
            // A name that is neither a data type nor a device is no protocol object either.
            Ok(match super::value_kind(obj) {
                Ok(Some(ValueKind::Tensor)) => Some("tensor"),
                Ok(Some(ValueKind::DataTypeValue { by_protocol: true })) => Some("dtype"),
                Ok(Some(ValueKind::DeviceValue { by_protocol: true })) => Some("device"),
                Ok(_) | Err(_) => None,
            })
        }

        /// `value_kind(obj)`: `"tensor"`, `"dtype"`, `"device"` or `None`, as `from_dlpack`
        /// dispatches (the protocol, then the objects of other libraries and names).
        #[pyfunction]
        fn value_kind(obj: &Bound<'_, PyAny>) -> PyResult<Option<&'static str>> {
            Ok(super::value_kind(obj)?.map(|kind| match kind {
                ValueKind::Tensor => "tensor",
                ValueKind::DataTypeValue { .. } => "dtype",
                ValueKind::DeviceValue { .. } => "device",
            }))
        }

        /// The classes' `__module__` is this module, which `sys.modules` holds under its full
        /// name, so that pickle finds them (and `repr()` of the classes names them right).
        #[pymodule_init]
        fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
            let py = m.py();
            let name = "dlpack_demo.dlpack";
            for class in [py.get_type::<PyDataType>(), py.get_type::<PyDevice>()] {
                class.setattr("__module__", name)?;
            }
            py.import("sys")?.getattr("modules")?.set_item(name, m)?;
            Ok(())
        }
    }

    /// What is alive on the Rust side: `{"tensors": …, "buffers": …, "exports": …,
    /// "imports": …}`. The tests check that every count returns to where it was.
    #[pyfunction]
    fn live(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
        use super::live::{BUFFERS, EXPORTS, IMPORTS, TENSORS};
        let counts = pyo3::types::PyDict::new(py);
        counts.set_item("tensors", TENSORS.get())?;
        counts.set_item("buffers", BUFFERS.get())?;
        counts.set_item("exports", EXPORTS.get())?;
        counts.set_item("imports", IMPORTS.get())?;
        Ok(counts)
    }

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        // `dlpack_demo.cuda`: devices, the library's streams, and `Gate`.
        #[cfg(feature = "cuda")]
        super::cuda::register(m)?;
        // `dlpack_demo.float16` and friends (and `DType.float16`), as numpy and torch spell them.
        add_values::<DType>(m)
    }
}
