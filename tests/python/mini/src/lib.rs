//! `mini`: a framework extension as small as one can be, whose dtype, device and tensor
//! classes are written by `#[dlpack_core::python::pymethods]` alone. `tests/python/mini/test_mini.py`
//! checks from Python what the attribute promises, against NumPy, PaddlePaddle, TVM FFI and
//! JAX.

use std::sync::Arc;

use dlpack_core::python::{CpuTensor, DeviceLike};
use dlpack_core::{Device as DlDevice, DlpackDataType, DlpackDevice, ManagedTensor};
use pyo3::prelude::*;

/// The element types of `mini` tensors.
#[pyclass(module = "mini", frozen)]
#[derive(Clone, Copy, Debug, DlpackDataType)]
pub enum DType {
    #[dlpack("bool")]
    Bool,
    #[dlpack("int8")]
    Int8,
    #[dlpack("int64")]
    Int64,
    #[dlpack("uint8")]
    UInt8,
    #[dlpack("float16")]
    Float16,
    #[dlpack("bfloat16")]
    BFloat16,
    #[dlpack("float32")]
    Float32,
    #[dlpack("complex64")]
    Complex64,
    #[dlpack("float8_e4m3fn")]
    Float8E4M3FN,
    /// Another spelling of `float32` on the way out: on the way in, float32 is `Float32`.
    #[dlpack("float32", export_only)]
    Float32Fast,
    /// A type of our own with no DLPack data type.
    #[dlpack(skip)]
    Quantized,
}

#[dlpack_core::python::pymethods(data_type)]
impl DType {
    /// Bytes per element: a method of the author's, beside the generated ones.
    #[getter]
    fn itemsize(&self) -> PyResult<usize> {
        Ok(self.dlpack_data_type()?.itemsize())
    }

    /// The value with no DLPack data type, which Python cannot name otherwise.
    #[staticmethod]
    fn quantized() -> Self {
        Self::Quantized
    }
}

/// Where a tensor is: an enum with data, which PyO3 cannot make a class of (it refuses unit
/// variants in an enum with data), so [`Device`] wraps it.
#[derive(Clone, Copy, Debug, DlpackDevice)]
pub enum Where {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(u32),
    #[dlpack(cuda_host)]
    CudaHost,
}

/// `mini.Device`: the wrapper struct shape of a device class.
#[pyclass(module = "mini", frozen)]
#[derive(Clone, Copy, Debug, DlpackDevice)]
pub struct Device(Where);

#[dlpack_core::python::pymethods(device)]
impl Device {}

/// `mini.Place`: the fieldless-enum shape of a device class, with a `__repr__` of the
/// author's, which wins over the generated one.
#[pyclass(module = "mini", frozen)]
#[derive(Clone, Copy, Debug, DlpackDevice)]
pub enum Place {
    #[dlpack(cpu)]
    Host,
    #[dlpack(cuda_managed)]
    Managed,
}

#[dlpack_core::python::pymethods(device)]
impl Place {
    fn __repr__(&self) -> &'static str {
        match self {
            Self::Host => "<host memory>",
            Self::Managed => "<managed memory>",
        }
    }
}

/// `mini.Site`: the complex-enum shape of a device class. PyO3 makes each variant a class of
/// its own (`mini.Site.Cuda`, a subclass of `mini.Site`) and refuses unit variants in such an
/// enum, so the unit ones are written `Cpu()`. Values are objects of the variants' classes
/// whichever way they are made (the constructor, `from_dlpack`, pickle).
#[pyclass(module = "mini", frozen)]
#[derive(Clone, Copy, Debug, DlpackDevice)]
pub enum Site {
    #[dlpack(cpu)]
    Cpu(),
    #[dlpack(cuda)]
    Cuda(u32),
    #[dlpack(cuda_host)]
    Pinned(),
}

#[dlpack_core::python::pymethods(device)]
impl Site {}

/// A read-only float32 vector in host memory: the smallest DLPack producer and consumer.
#[pyclass(module = "mini", frozen)]
pub struct Tensor(Arc<[f32]>);

/// Its `__dlpack__` and `__dlpack_device__` are `#[pymethods(tensor)]`'s, around this: the
/// ready-made `TensorClass` of a tensor in host memory, which shares the `Arc` read-only (a
/// legacy consumer gets a copy) and copies it for `copy=True`.
impl CpuTensor for Tensor {
    fn cpu_tensor(&self) -> Result<ManagedTensor, dlpack_core::Error> {
        ManagedTensor::from_arc(Arc::clone(&self.0), &[self.0.len()])
    }
}

#[dlpack_core::python::pymethods(tensor)]
impl Tensor {
    #[new]
    fn new(values: Vec<f32>) -> Self {
        Self(values.into())
    }

    fn tolist(&self) -> Vec<f32> {
        self.0.to_vec()
    }

    #[getter]
    fn dtype(&self) -> DType {
        DType::Float32
    }
}

/// Bytes owned by the object alone (a `Vec`), which an export cannot keep alive without it:
/// `CpuTensor` exports a copy flagged `IS_COPIED`.
#[pyclass(module = "mini", frozen)]
pub struct Bytes(Vec<u8>);

#[dlpack_core::python::pymethods(tensor)]
impl Bytes {
    #[new]
    fn new(values: Vec<u8>) -> Self {
        Self(values)
    }
}

impl CpuTensor for Bytes {
    fn cpu_tensor(&self) -> Result<ManagedTensor, dlpack_core::Error> {
        dlpack_core::from_dlpack(&self.0)
    }
}

/// `from_dlpack(obj, /, *, device=None, copy=None)`: tensors, dtypes and devices, as the RFC proposes.
#[pyfunction]
#[pyo3(signature = (obj, /, *, device=None, copy=None))]
fn from_dlpack<'py>(
    obj: &Bound<'py, PyAny>,
    device: Option<DeviceLike<DlDevice>>,
    copy: Option<bool>,
) -> PyResult<Bound<'py, PyAny>> {
    dlpack_core::python::from_dlpack::<DType, Device, _>(
        obj,
        device.map(|d| d.0),
        copy,
        |obj, device, copy| {
            let tensor = dlpack_core::python::import_tensor(obj, device, copy)?;
            // A tensor of another dtype is the library's `BufferError`, in Python's terms:
            // "expected a float32 tensor, got float64".
            Ok(Tensor(tensor.view()?.to_vec::<f32>()?.into()))
        },
    )
}

/// `from_dlpack` with `Site` as the device class.
#[pyfunction]
fn site_from_dlpack<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    dlpack_core::python::from_dlpack::<DType, Site, Tensor>(obj, None, None, |_, _, _| {
        Err(pyo3::exceptions::PyTypeError::new_err(
            "dtypes and devices only",
        ))
    })
}

/// `fill(x, value)`: writes `value` into every element of a float32 tensor of any library, in
/// place: an extension of its own beside `dlpack_demo`, whose views share one borrow table
/// with it (`tests/python/test_borrows.py`).
#[dlpack_core::python::tensor_args]
#[pyfunction]
fn fill(
    mut x: dlpack_core::python::TensorArg<
        '_,
        f32,
        { dlpack_core::tensor::require::ANY_NDIM },
        dlpack_core::tensor::require::ReadWrite,
    >,
    value: f32,
) -> PyResult<()> {
    x.iter_mut()?.for_each(|v| *v = value);
    Ok(())
}

#[pymodule]
fn mini(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DType>()?;
    m.add_class::<Device>()?;
    m.add_class::<Place>()?;
    m.add_class::<Site>()?;
    m.add_class::<Tensor>()?;
    m.add_class::<Bytes>()?;
    m.add_function(wrap_pyfunction!(from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(site_from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(fill, m)?)?;
    dlpack_core::python::add_values::<DType>(m)?;
    dlpack_core::python::add_values::<Place>(m)
}
