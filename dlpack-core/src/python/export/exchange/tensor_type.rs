//! What a tensor type implements to publish the table ([`ExchangeTensor`]), and how its
//! allocator fails ([`AllocError`]): the layer the table's C functions (`producer.rs`) and the
//! table itself (`api.rs`) are written over.

use core::ffi::{CStr, c_void};
use core::fmt;

use pyo3::PyClass;
use pyo3::prelude::*;

use crate::DataType;
use crate::Device;
use crate::error::Error;
use crate::tensor::{ManagedTensor, TensorParts};

/// A `#[pyclass]` tensor type that publishes DLPack's C exchange API: what each of the table's
/// five functions does for it. [`ExchangeApi::new`](crate::python::exchange::ExchangeApi::new) makes the
/// table from these methods, and the functions around them catch panics and turn every error
/// into what `dlpack.h` asks for.
///
/// See the [module documentation](crate::python), "The C exchange API", for a whole producer.
///
/// The trait is `unsafe` to implement because of [`borrow_parts`](Self::borrow_parts): the
/// table hands its pointers (data, shape, strides) to C consumers and to this crate's own
/// ([`with_tensor_view`](crate::python::with_tensor_view),
/// [`TensorArg`](crate::python::TensorArg)), which read them for as long as they hold the
/// Python object, long after the `&self` borrow has ended, and check nothing the pointers
/// lead to. Only the implementor knows that the memory stays put that long, so the promise is
/// the implementor's (as with [`TensorOwner`](crate::tensor::TensorOwner), and rust-numpy's
/// `Element`); calling the method is harmless (it only describes), so it is not an
/// `unsafe fn`, whose contract would bind the caller instead.
///
/// # Safety
///
/// What [`borrow_parts`](Self::borrow_parts) returns on success is read on trust, from the
/// moment it returns for as long as the Python object it was called on is alive. An
/// implementation must ensure, for that whole time:
///
/// - **Valid memory.** `data + byte_offset` plus every offset the shape and strides reach, in
///   elements of the data type, is memory on the named device that holds an initialised
///   element of that type (no byte other than 0 or 1 for `bool`). The device is the truth:
///   memory a CPU cannot read is never described as `kDLCPU`, and a device pointer is one of
///   that device's. An empty tensor may have any data pointer, null included.
/// - **Not freed, moved or replaced.** The memory stays where it is: the object does not drop,
///   reallocate or swap its storage, through any method (a `&mut self` method of a class that
///   is not `frozen` runs while a consumer reads, since the table holds no borrow of the
///   object), nor does anything else that holds the storage (an `Arc`'s other clones).
/// - **Not written behind the reader.** Nothing but Python code writes the elements: no other
///   thread, no atomic or cell the storage is made of, no Rust method that writes without
///   Python asking. An in-place method that Python calls (`fill`) is Python code writing the
///   array, like NumPy's `ndarray.fill`, and is held to what the [`tensor`](crate::tensor)
///   module says of Python code during a view (its table of what a zero-copy export shares,
///   "Imports").
/// - **Shape and strides stay.** The shape and strides the parts point at (the `int64_t`
///   slices, which a borrowed `DLTensor` points at without a copy) live, unchanged, as long as
///   the object: fields of the object that no method replaces (a
///   [`CheckedLayout`](crate::tensor::CheckedLayout) is the usual holder), or `'static` data.
///
/// A `#[pyclass(frozen)]` whose storage is set once at construction (a `Vec` never touched
/// again, an `Arc<[T]>` whose other clones are only read) keeps these four. A class whose
/// storage can change keeps them by refusing (`Err`) in `borrow_parts`: this crate's consumers
/// then import it through [`export`](Self::export) (or `__dlpack__`), whose tensor keeps its
/// memory alive by itself.
///
/// And [`current_work_stream`](Self::current_work_stream), whose answer the table hands C
/// consumers (TVM FFI, PaddlePaddle) to queue work on, gives null (the default, always right)
/// or a live stream of the device it was asked for (this crate's consumers only ask whether
/// there is one).
///
/// ```
/// use dlpack_core::python::exchange::{AllocError, ExchangeApi, ExchangeTensor};
/// use dlpack_core::tensor::TensorParts;
/// use dlpack_core::{DataType, Device, ManagedTensor};
/// use pyo3::prelude::*;
///
/// /// A producer whose tensors are always the same empty float32 vector.
/// #[pyclass(frozen)]
/// struct Empty;
///
/// // SAFETY: `borrow_parts` describes an empty tensor, whose data is never read, with a
/// // `'static` shape and strides.
/// unsafe impl ExchangeTensor for Empty {
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
///
/// Without `unsafe`, an implementation does not compile (E0200): here, one that would lend a
/// vector it then lets a `&mut self` method replace.
///
/// ```compile_fail,E0200
/// use dlpack_core::python::exchange::{AllocError, ExchangeTensor};
/// use dlpack_core::tensor::TensorParts;
/// use dlpack_core::{DataType, Device, ManagedTensor};
/// use pyo3::prelude::*;
///
/// #[pyclass]
/// struct Resizable(Vec<u32>, [i64; 1]);
///
/// impl ExchangeTensor for Resizable {
///     fn allocate(_: DataType, _: &[i64], _: Device) -> Result<ManagedTensor, AllocError> {
///         Err(AllocError::Value("no".into()))
///     }
///     fn export(&self, _: Python<'_>) -> PyResult<ManagedTensor> {
///         Ok(ManagedTensor::from_vec(self.0.clone(), &[self.0.len()])?)
///     }
///     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> {
///         Ok(TensorParts::host(self.0.as_ptr().cast_mut(), &self.1).with_strides(&[1_i64]))
///     }
///     fn import(_: Python<'_>, t: ManagedTensor) -> PyResult<Self> {
///         let data = t.view()?.to_vec::<u32>()?;
///         let n = [data.len() as i64];
///         Ok(Resizable(data, n))
///     }
/// }
/// ```
pub unsafe trait ExchangeTensor: PyClass + Into<pyo3::PyClassInitializer<Self>> {
    /// `managed_tensor_allocator`: a new tensor of this library of `dtype`, `shape` and
    /// `device` (the prototype's, checked as an import checks them). It may run without the
    /// GIL (TVM FFI releases it around some calls), so it must not touch Python objects; its
    /// error reaches the consumer through `SetError`, as the exception it names.
    ///
    /// ```
    /// # use dlpack_core::python::exchange::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::{CheckedLayout, TensorParts};
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Floats(Vec<f32>, CheckedLayout);
    /// # impl Floats { fn new(data: Vec<f32>) -> Self { let n = [data.len()]; let l = CheckedLayout::new(&TensorParts::host(data.as_ptr().cast_mut(), &n)).unwrap(); Floats(data, l) } }
    /// # // SAFETY: a frozen class whose `Vec` no method writes or replaces, described by a
    /// # // layout checked for its length and kept beside it.
    /// # unsafe impl ExchangeTensor for Floats {
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
    /// # use dlpack_core::python::exchange::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::{CheckedLayout, TensorParts};
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Floats(Vec<f32>, CheckedLayout);
    /// # impl Floats { fn new(data: Vec<f32>) -> Self { let n = [data.len()]; let l = CheckedLayout::new(&TensorParts::host(data.as_ptr().cast_mut(), &n)).unwrap(); Floats(data, l) } }
    /// # // SAFETY: a frozen class whose `Vec` no method writes or replaces, described by a
    /// # // layout checked for its length and kept beside it.
    /// # unsafe impl ExchangeTensor for Floats {
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
    /// The answer is read on trust for as long as the object lives: see the trait's
    /// `# Safety` section for what it must satisfy. A tensor whose storage may change
    /// refuses here (any `Err`), and is imported through [`export`](Self::export) instead.
    ///
    /// ```
    /// # use dlpack_core::python::exchange::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::{CheckedLayout, TensorParts};
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Floats(Vec<f32>, CheckedLayout);
    /// # impl Floats { fn new(data: Vec<f32>) -> Self { let n = [data.len()]; let l = CheckedLayout::new(&TensorParts::host(data.as_ptr().cast_mut(), &n)).unwrap(); Floats(data, l) } }
    /// # // SAFETY: a frozen class whose `Vec` no method writes or replaces, described by a
    /// # // layout checked for its length and kept beside it.
    /// # unsafe impl ExchangeTensor for Floats {
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
    /// # use dlpack_core::python::exchange::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::{CheckedLayout, TensorParts};
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Floats(Vec<f32>, CheckedLayout);
    /// # impl Floats { fn new(data: Vec<f32>) -> Self { let n = [data.len()]; let l = CheckedLayout::new(&TensorParts::host(data.as_ptr().cast_mut(), &n)).unwrap(); Floats(data, l) } }
    /// # // SAFETY: a frozen class whose `Vec` no method writes or replaces, described by a
    /// # // layout checked for its length and kept beside it.
    /// # unsafe impl ExchangeTensor for Floats {
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
    /// # use dlpack_core::python::exchange::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::{CheckedLayout, TensorParts};
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Floats(Vec<f32>, CheckedLayout);
    /// # impl Floats { fn new(data: Vec<f32>) -> Self { let n = [data.len()]; let l = CheckedLayout::new(&TensorParts::host(data.as_ptr().cast_mut(), &n)).unwrap(); Floats(data, l) } }
    /// # // SAFETY: a frozen class whose `Vec` no method writes or replaces, described by a
    /// # // layout checked for its length and kept beside it.
    /// # unsafe impl ExchangeTensor for Floats {
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
/// use dlpack_core::python::exchange::AllocError;
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
    pub(super) fn message(&self) -> &str {
        match self {
            Self::Memory(m) | Self::Value(m) | Self::Buffer(m) | Self::Runtime(m) => m,
        }
    }

    /// `SetError`'s `kind`: the Python exception's name, as TVM FFI reads it.
    pub(super) fn kind(&self) -> &'static CStr {
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
/// use dlpack_core::python::exchange::AllocError;
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
/// use dlpack_core::python::exchange::AllocError;
///
/// let err: Box<dyn std::error::Error> = AllocError::Memory("out of memory".into()).into();
/// assert_eq!(err.to_string(), "MemoryError: out of memory");
/// ```
impl std::error::Error for AllocError {}

/// The crate's errors allocate as they raise ([`From<Error> for PyErr`](crate::Error)): a
/// refused tensor is a `BufferError`, a bad value a `ValueError`.
///
/// ```
/// use dlpack_core::python::exchange::AllocError;
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
