//! DLPack 1.3's C exchange API, `__dlpack_c_exchange_api__`, producer side: a table of C
//! functions a tensor *type* publishes, through which C, C++ and Rust code exchanges its
//! tensors without a Python call (see the [module documentation](crate::python), "The C
//! exchange API"). The consumer side is `python/import/` (`table.rs`, `view.rs`).

mod producer;
#[cfg(test)]
mod tests;

use core::ffi::{CStr, c_void};
use core::fmt;
use core::ptr::NonNull;

use pyo3::PyClass;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::data_type::DataType;
use crate::device::Device;
use crate::error::Error;
use crate::ffi::{DLPackExchangeAPI, DLPackExchangeAPIHeader, DLPackVersion};
use crate::python::values::classify::EXCHANGE_API;
use crate::tensor::{ManagedTensor, TensorParts};

/// A `#[pyclass]` tensor type that publishes DLPack's C exchange API: what each of the table's
/// five functions does for it. [`ExchangeApi::new`] makes the table from these methods, and
/// the functions around them catch panics and turn every error into what `dlpack.h` asks for.
///
/// See the [module documentation](crate::python), "The C exchange API", for a whole producer.
///
/// ```
/// use dlpack_core::python::{AllocError, ExchangeApi, ExchangeTensor};
/// use dlpack_core::tensor::TensorParts;
/// use dlpack_core::{DataType, Device, ManagedTensor};
/// use pyo3::prelude::*;
///
/// /// A producer whose tensors are always the same empty float32 vector.
/// #[pyclass(frozen)]
/// struct Empty;
///
/// impl ExchangeTensor for Empty {
///     fn allocate(_: DataType, _: &[i64], _: Device) -> Result<ManagedTensor, AllocError> {
///         Err(AllocError::Value("Empty allocates nothing".into()))
///     }
///     fn export(&self, _: Python<'_>) -> PyResult<ManagedTensor> {
///         Ok(ManagedTensor::from_vec(Vec::<f32>::new(), &[0])?)
///     }
///     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> {
///         Ok(TensorParts::new(std::ptr::null_mut(), Device::CPU, DataType::F32, &[0_i64]).with_strides(&[1_i64]))
///     }
///     fn import(_: Python<'_>, _: ManagedTensor) -> PyResult<Self> {
///         Ok(Empty)
///     }
/// }
///
/// static API: ExchangeApi = ExchangeApi::new::<Empty>();
/// assert_eq!(API.as_raw().header.version.minor, 3);
/// ```
pub trait ExchangeTensor: PyClass + Into<pyo3::PyClassInitializer<Self>> {
    /// `managed_tensor_allocator`: a new tensor of this library of `dtype`, `shape` and
    /// `device` (the prototype's, checked as an import checks them). It may run without the
    /// GIL (TVM FFI releases it around some calls), so it must not touch Python objects; its
    /// error reaches the consumer through `SetError`, as the exception it names.
    ///
    /// ```
    /// # use dlpack_core::python::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::{CheckedLayout, TensorParts};
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Floats(Vec<f32>, CheckedLayout);
    /// # impl Floats { fn new(data: Vec<f32>) -> Self { let n = [data.len()]; let l = CheckedLayout::new(&TensorParts::host(data.as_ptr().cast_mut(), &n)).unwrap(); Floats(data, l) } }
    /// # impl ExchangeTensor for Floats {
    /// #     fn allocate(dtype: DataType, shape: &[i64], device: Device) -> Result<ManagedTensor, AllocError> {
    /// #         if (dtype, device) != (DataType::F32, Device::CPU) { return Err(AllocError::Value(format!("no {dtype} on {device}"))); }
    /// #         let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    /// #         Ok(ManagedTensor::from_vec(vec![0_f32; shape.iter().product()], &shape)?)
    /// #     }
    /// #     fn export(&self, _: Python<'_>) -> PyResult<ManagedTensor> { Ok(ManagedTensor::from_vec(self.0.clone(), &[self.0.len()])?) }
    /// #     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> { Ok(TensorParts::from_layout(self.0.as_ptr().cast_mut().cast(), Device::CPU, &self.1)) }
    /// #     fn import(_: Python<'_>, t: ManagedTensor) -> PyResult<Self> { Ok(Floats::new(t.view()?.to_vec()?)) }
    /// # }
    /// let zeros = Floats::allocate(DataType::F32, &[2, 3], Device::CPU)?;
    /// assert_eq!(zeros.view()?.shape(), [2, 3]);
    /// let err = Floats::allocate(DataType::I8, &[2], Device::CPU).unwrap_err();
    /// assert_eq!(err.to_string(), "ValueError: no int8 on cpu");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn allocate(
        dtype: DataType,
        shape: &[i64],
        device: Device,
    ) -> Result<ManagedTensor, AllocError>;

    /// `managed_tensor_from_py_object_no_sync`: an owned export of `self`, as `__dlpack__`
    /// would share it, without synchronising any stream. A `BufferError` for data DLPack
    /// cannot describe.
    ///
    /// ```
    /// # use dlpack_core::python::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::{CheckedLayout, TensorParts};
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Floats(Vec<f32>, CheckedLayout);
    /// # impl Floats { fn new(data: Vec<f32>) -> Self { let n = [data.len()]; let l = CheckedLayout::new(&TensorParts::host(data.as_ptr().cast_mut(), &n)).unwrap(); Floats(data, l) } }
    /// # impl ExchangeTensor for Floats {
    /// #     fn allocate(dtype: DataType, shape: &[i64], device: Device) -> Result<ManagedTensor, AllocError> {
    /// #         if (dtype, device) != (DataType::F32, Device::CPU) { return Err(AllocError::Value(format!("no {dtype} on {device}"))); }
    /// #         let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    /// #         Ok(ManagedTensor::from_vec(vec![0_f32; shape.iter().product()], &shape)?)
    /// #     }
    /// #     fn export(&self, _: Python<'_>) -> PyResult<ManagedTensor> { Ok(ManagedTensor::from_vec(self.0.clone(), &[self.0.len()])?) }
    /// #     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> { Ok(TensorParts::from_layout(self.0.as_ptr().cast_mut().cast(), Device::CPU, &self.1)) }
    /// #     fn import(_: Python<'_>, t: ManagedTensor) -> PyResult<Self> { Ok(Floats::new(t.view()?.to_vec()?)) }
    /// # }
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let floats = Floats::new(vec![1.0, 2.0]);
    ///     assert_eq!(floats.export(py)?.view()?.as_slice::<f32>()?, [1.0, 2.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    fn export(&self, py: Python<'_>) -> PyResult<ManagedTensor>;

    /// `dltensor_from_py_object_no_sync`: `self` described with shape and strides `self`
    /// holds as `int64_t` ([`Dims::I64`](crate::tensor::Dims::I64)), which the consumer's
    /// `DLTensor` points at without an allocation ([`TensorParts::to_dl_tensor`]); a
    /// [`CheckedLayout`](crate::tensor::CheckedLayout) gives them and spares the checks.
    ///
    /// ```
    /// # use dlpack_core::python::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::{CheckedLayout, TensorParts};
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Floats(Vec<f32>, CheckedLayout);
    /// # impl Floats { fn new(data: Vec<f32>) -> Self { let n = [data.len()]; let l = CheckedLayout::new(&TensorParts::host(data.as_ptr().cast_mut(), &n)).unwrap(); Floats(data, l) } }
    /// # impl ExchangeTensor for Floats {
    /// #     fn allocate(dtype: DataType, shape: &[i64], device: Device) -> Result<ManagedTensor, AllocError> {
    /// #         if (dtype, device) != (DataType::F32, Device::CPU) { return Err(AllocError::Value(format!("no {dtype} on {device}"))); }
    /// #         let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    /// #         Ok(ManagedTensor::from_vec(vec![0_f32; shape.iter().product()], &shape)?)
    /// #     }
    /// #     fn export(&self, _: Python<'_>) -> PyResult<ManagedTensor> { Ok(ManagedTensor::from_vec(self.0.clone(), &[self.0.len()])?) }
    /// #     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> { Ok(TensorParts::from_layout(self.0.as_ptr().cast_mut().cast(), Device::CPU, &self.1)) }
    /// #     fn import(_: Python<'_>, t: ManagedTensor) -> PyResult<Self> { Ok(Floats::new(t.view()?.to_vec()?)) }
    /// # }
    /// let floats = Floats::new(vec![1.0, 2.0, 3.0]);
    /// let raw = floats.borrow_parts()?.to_dl_tensor()?; // what the table's function hands out
    /// assert_eq!(raw.shape.cast_const(), floats.1.shape().as_ptr());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn borrow_parts(&self) -> PyResult<TensorParts<'_>>;

    /// `managed_tensor_to_py_object_no_sync`: a new object of this type over `tensor`, an
    /// owned tensor (often one [`allocate`](Self::allocate) made, coming back from a foreign
    /// function). Dropping `tensor` releases it.
    ///
    /// ```
    /// # use dlpack_core::python::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::{CheckedLayout, TensorParts};
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Floats(Vec<f32>, CheckedLayout);
    /// # impl Floats { fn new(data: Vec<f32>) -> Self { let n = [data.len()]; let l = CheckedLayout::new(&TensorParts::host(data.as_ptr().cast_mut(), &n)).unwrap(); Floats(data, l) } }
    /// # impl ExchangeTensor for Floats {
    /// #     fn allocate(dtype: DataType, shape: &[i64], device: Device) -> Result<ManagedTensor, AllocError> {
    /// #         if (dtype, device) != (DataType::F32, Device::CPU) { return Err(AllocError::Value(format!("no {dtype} on {device}"))); }
    /// #         let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    /// #         Ok(ManagedTensor::from_vec(vec![0_f32; shape.iter().product()], &shape)?)
    /// #     }
    /// #     fn export(&self, _: Python<'_>) -> PyResult<ManagedTensor> { Ok(ManagedTensor::from_vec(self.0.clone(), &[self.0.len()])?) }
    /// #     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> { Ok(TensorParts::from_layout(self.0.as_ptr().cast_mut().cast(), Device::CPU, &self.1)) }
    /// #     fn import(_: Python<'_>, t: ManagedTensor) -> PyResult<Self> { Ok(Floats::new(t.view()?.to_vec()?)) }
    /// # }
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let back = Floats::import(py, ManagedTensor::from_vec(vec![4.0_f32], &[1])?)?;
    ///     assert_eq!(back.0, [4.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    fn import(py: Python<'_>, tensor: ManagedTensor) -> PyResult<Self>;

    /// `current_work_stream`: the stream this library queues its work on, on `device`
    /// (`cudaStream_t`, `hipStream_t`), or null for none: the default, right on the CPU and
    /// for a library that uses the default stream.
    ///
    /// ```
    /// # use dlpack_core::python::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::{CheckedLayout, TensorParts};
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Floats(Vec<f32>, CheckedLayout);
    /// # impl Floats { fn new(data: Vec<f32>) -> Self { let n = [data.len()]; let l = CheckedLayout::new(&TensorParts::host(data.as_ptr().cast_mut(), &n)).unwrap(); Floats(data, l) } }
    /// # impl ExchangeTensor for Floats {
    /// #     fn allocate(dtype: DataType, shape: &[i64], device: Device) -> Result<ManagedTensor, AllocError> {
    /// #         if (dtype, device) != (DataType::F32, Device::CPU) { return Err(AllocError::Value(format!("no {dtype} on {device}"))); }
    /// #         let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    /// #         Ok(ManagedTensor::from_vec(vec![0_f32; shape.iter().product()], &shape)?)
    /// #     }
    /// #     fn export(&self, _: Python<'_>) -> PyResult<ManagedTensor> { Ok(ManagedTensor::from_vec(self.0.clone(), &[self.0.len()])?) }
    /// #     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> { Ok(TensorParts::from_layout(self.0.as_ptr().cast_mut().cast(), Device::CPU, &self.1)) }
    /// #     fn import(_: Python<'_>, t: ManagedTensor) -> PyResult<Self> { Ok(Floats::new(t.view()?.to_vec()?)) }
    /// # }
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     // The default: no stream anywhere, which is right for a CPU library.
    ///     assert!(Floats::current_work_stream(py, Device::CPU)?.is_null());
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    fn current_work_stream(py: Python<'_>, device: Device) -> PyResult<*mut c_void> {
        let _ = (py, device);
        Ok(core::ptr::null_mut())
    }
}

/// Why an [`ExchangeTensor::allocate`] failed: the variant names the Python exception the
/// consumer raises (`SetError`'s `kind`), the text is its message.
///
/// ```
/// use dlpack_core::python::AllocError;
///
/// let err = AllocError::Memory("cannot allocate 1 TiB".into());
/// assert_eq!(err.to_string(), "MemoryError: cannot allocate 1 TiB");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AllocError {
    /// `MemoryError`: the memory could not be had.
    Memory(String),
    /// `ValueError`: a data type, shape or device this library does not allocate.
    Value(String),
    /// `BufferError`: a tensor that cannot be described or exchanged.
    Buffer(String),
    /// `RuntimeError`: anything else (a failing driver, a panic).
    Runtime(String),
}

impl AllocError {
    /// The message.
    fn message(&self) -> &str {
        match self {
            Self::Memory(m) | Self::Value(m) | Self::Buffer(m) | Self::Runtime(m) => m,
        }
    }

    /// `SetError`'s `kind`: the Python exception's name, as TVM FFI reads it.
    fn kind(&self) -> &'static CStr {
        match self {
            Self::Memory(_) => c"MemoryError",
            Self::Value(_) => c"ValueError",
            Self::Buffer(_) => c"BufferError",
            Self::Runtime(_) => c"RuntimeError",
        }
    }
}

/// `MemoryError: …`, as Python prints the exception.
///
/// ```
/// use dlpack_core::python::AllocError;
/// assert_eq!(AllocError::Value("no int4".into()).to_string(), "ValueError: no int4");
/// ```
impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind().to_string_lossy(), self.message())
    }
}

/// An `AllocError` is an error like any other, for `?` into `Box<dyn Error>`.
///
/// ```
/// use dlpack_core::python::AllocError;
///
/// let err: Box<dyn std::error::Error> = AllocError::Memory("out of memory".into()).into();
/// assert_eq!(err.to_string(), "MemoryError: out of memory");
/// ```
impl std::error::Error for AllocError {}

/// The crate's errors allocate as they raise ([`From<Error> for PyErr`](crate::Error)): a
/// refused tensor is a `BufferError`, a bad value a `ValueError`.
///
/// ```
/// use dlpack_core::python::AllocError;
/// use dlpack_core::ManagedTensor;
///
/// let err = ManagedTensor::from_vec(vec![0_u8; 3], &[2]).unwrap_err();
/// assert!(matches!(AllocError::from(err), AllocError::Buffer(_)));
/// ```
impl From<Error> for AllocError {
    fn from(err: Error) -> Self {
        match err {
            Error::Tensor(_) => Self::Buffer(err.to_string()),
            #[cfg(feature = "cuda")]
            Error::Cuda(_) => Self::Runtime(err.to_string()),
            _ => Self::Value(err.to_string()),
        }
    }
}

/// The exchange table of one tensor type: a `static`, made at compile time by
/// [`ExchangeApi::new`], published on the type by [`capsule`](Self::capsule) from a
/// `#[classattr]` named `__dlpack_c_exchange_api__`. Version 1.3, no older table in the chain,
/// all five functions.
///
/// ```
/// # use dlpack_core::python::{AllocError, ExchangeTensor};
/// # use dlpack_core::tensor::TensorParts;
/// # use dlpack_core::{DataType, Device, ManagedTensor};
/// use dlpack_core::python::{ExchangeApi, EXCHANGE_API};
/// use pyo3::prelude::*;
/// use pyo3::types::{PyCapsule, PyCapsuleMethods};
///
/// #[pyclass(frozen)]
/// struct Tensor(Vec<f32>);
/// # impl ExchangeTensor for Tensor {
/// #     fn allocate(_: DataType, _: &[i64], _: Device) -> Result<ManagedTensor, AllocError> { Err(AllocError::Value("no".into())) }
/// #     fn export(&self, _: Python<'_>) -> PyResult<ManagedTensor> { Ok(ManagedTensor::from_vec(self.0.clone(), &[self.0.len()])?) }
/// #     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> { Err(pyo3::exceptions::PyBufferError::new_err("no")) }
/// #     fn import(_: Python<'_>, t: ManagedTensor) -> PyResult<Self> { Ok(Tensor(t.view()?.to_vec()?)) }
/// # }
///
/// static EXCHANGE: ExchangeApi = ExchangeApi::new::<Tensor>();
///
/// #[pymethods]
/// impl Tensor {
///     #[classattr]
///     fn __dlpack_c_exchange_api__(py: Python<'_>) -> PyResult<Bound<'_, PyCapsule>> {
///         EXCHANGE.capsule(py)
///     }
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let class = py.get_type::<Tensor>();
///     let capsule = class.getattr("__dlpack_c_exchange_api__")?.cast_into::<PyCapsule>()?;
///     let table = capsule.pointer_checked(Some(EXCHANGE_API))?;
///     assert_eq!(table.as_ptr().cast_const(), (&raw const *EXCHANGE.as_raw()).cast());
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[repr(transparent)]
pub struct ExchangeApi(DLPackExchangeAPI);

// SAFETY: the table is immutable after it is made, and its one pointer (`prev_api`) is null.
unsafe impl Sync for ExchangeApi {}

impl ExchangeApi {
    /// The table of `T`: version 1.3 ([`DLPackVersion::CURRENT`]), `prev_api` null, and the
    /// five functions, each calling `T`'s method, catching panics and reporting errors as
    /// `dlpack.h` asks.
    ///
    /// ```
    /// # use dlpack_core::python::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::TensorParts;
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Tensor;
    /// # impl ExchangeTensor for Tensor {
    /// #     fn allocate(_: DataType, _: &[i64], _: Device) -> Result<ManagedTensor, AllocError> { Err(AllocError::Value("no".into())) }
    /// #     fn export(&self, _: Python<'_>) -> PyResult<ManagedTensor> { Err(pyo3::exceptions::PyBufferError::new_err("no")) }
    /// #     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> { Err(pyo3::exceptions::PyBufferError::new_err("no")) }
    /// #     fn import(_: Python<'_>, _: ManagedTensor) -> PyResult<Self> { Ok(Tensor) }
    /// # }
    /// use dlpack_core::python::ExchangeApi;
    ///
    /// static EXCHANGE: ExchangeApi = ExchangeApi::new::<Tensor>();
    /// let raw = EXCHANGE.as_raw();
    /// assert!(raw.header.prev_api.is_null());
    /// assert!(raw.managed_tensor_allocator.is_some() && raw.dltensor_from_py_object_no_sync.is_some());
    /// ```
    pub const fn new<T: ExchangeTensor>() -> Self {
        Self(DLPackExchangeAPI {
            header: DLPackExchangeAPIHeader {
                version: DLPackVersion::CURRENT,
                prev_api: core::ptr::null_mut(),
            },
            managed_tensor_allocator: Some(producer::allocate::<T>),
            managed_tensor_from_py_object_no_sync: Some(producer::from_py_object::<T>),
            managed_tensor_to_py_object_no_sync: Some(producer::to_py_object::<T>),
            dltensor_from_py_object_no_sync: Some(producer::dltensor_from_py_object::<T>),
            current_work_stream: Some(producer::current_work_stream::<T>),
        })
    }

    /// The C table.
    ///
    /// ```
    /// # use dlpack_core::python::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::TensorParts;
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Tensor;
    /// # impl ExchangeTensor for Tensor {
    /// #     fn allocate(_: DataType, _: &[i64], _: Device) -> Result<ManagedTensor, AllocError> { Err(AllocError::Value("no".into())) }
    /// #     fn export(&self, _: Python<'_>) -> PyResult<ManagedTensor> { Err(pyo3::exceptions::PyBufferError::new_err("no")) }
    /// #     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> { Err(pyo3::exceptions::PyBufferError::new_err("no")) }
    /// #     fn import(_: Python<'_>, _: ManagedTensor) -> PyResult<Self> { Ok(Tensor) }
    /// # }
    /// use dlpack_core::ffi::DLPackVersion;
    /// use dlpack_core::python::ExchangeApi;
    ///
    /// static EXCHANGE: ExchangeApi = ExchangeApi::new::<Tensor>();
    /// assert_eq!(EXCHANGE.as_raw().header.version, DLPackVersion::CURRENT);
    /// ```
    pub const fn as_raw(&self) -> &DLPackExchangeAPI {
        &self.0
    }

    /// A capsule named `dlpack_exchange_api` ([`EXCHANGE_API`]) holding this table, without
    /// a destructor (the table is a `static`): the value of `__dlpack_c_exchange_api__`. See
    /// [`ExchangeApi`] for its place in a `#[pymethods]` block.
    ///
    /// ```
    /// # use dlpack_core::python::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::TensorParts;
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Tensor;
    /// # impl ExchangeTensor for Tensor {
    /// #     fn allocate(_: DataType, _: &[i64], _: Device) -> Result<ManagedTensor, AllocError> { Err(AllocError::Value("no".into())) }
    /// #     fn export(&self, _: Python<'_>) -> PyResult<ManagedTensor> { Err(pyo3::exceptions::PyBufferError::new_err("no")) }
    /// #     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> { Err(pyo3::exceptions::PyBufferError::new_err("no")) }
    /// #     fn import(_: Python<'_>, _: ManagedTensor) -> PyResult<Self> { Ok(Tensor) }
    /// # }
    /// use dlpack_core::python::{EXCHANGE_API, ExchangeApi};
    /// use pyo3::types::PyCapsuleMethods;
    ///
    /// static EXCHANGE: ExchangeApi = ExchangeApi::new::<Tensor>();
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let capsule = EXCHANGE.capsule(py)?;
    ///     assert!(capsule.is_valid_checked(Some(EXCHANGE_API))); // named `dlpack_exchange_api`
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn capsule<'py>(&'static self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let table = NonNull::from(&self.0).cast::<c_void>();
        // SAFETY: a `static` table, alive for the whole process, which consumers only read.
        unsafe { PyCapsule::new_with_pointer(py, table, EXCHANGE_API) }
    }
}

impl fmt::Debug for ExchangeApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExchangeApi")
            .field("version", &self.0.header.version)
            .finish_non_exhaustive()
    }
}
