//! The table of one tensor type, [`ExchangeApi`], made at compile time from its
//! [`ExchangeTensor`] methods wrapped in the C functions of `producer.rs`.

use core::ffi::c_void;
use core::fmt;
use core::ptr::NonNull;

use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use super::producer;
use super::tensor_type::ExchangeTensor;
use crate::ffi::{DLPackExchangeAPI, DLPackExchangeAPIHeader, DLPackVersion};
use crate::python::values::classify::EXCHANGE_API;

/// The exchange table of one tensor type: a `static`, made at compile time by
/// [`ExchangeApi::new`], published on the type by [`capsule`](Self::capsule) from a
/// `#[classattr]` named `__dlpack_c_exchange_api__`. Version 1.3, no older table in the chain,
/// all five functions.
///
/// ```
/// # use dlpack_core::python::exchange::{AllocError, ExchangeTensor};
/// # use dlpack_core::tensor::TensorParts;
/// # use dlpack_core::{DataType, Device, ManagedTensor};
/// use dlpack_core::python::exchange::{CAPSULE_NAME, ExchangeApi};
/// use pyo3::prelude::*;
/// use pyo3::types::{PyCapsule, PyCapsuleMethods};
///
/// #[pyclass(frozen)]
/// struct Tensor(Vec<f32>);
/// # // SAFETY: `borrow_parts` lends nothing; it only refuses.
/// # unsafe impl ExchangeTensor for Tensor {
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
///     let table = capsule.pointer_checked(Some(CAPSULE_NAME))?;
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
    /// # use dlpack_core::python::exchange::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::TensorParts;
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Tensor;
    /// # // SAFETY: `borrow_parts` lends nothing; it only refuses.
    /// # unsafe impl ExchangeTensor for Tensor {
    /// #     fn allocate(_: DataType, _: &[i64], _: Device) -> Result<ManagedTensor, AllocError> { Err(AllocError::Value("no".into())) }
    /// #     fn export(&self, _: Python<'_>) -> PyResult<ManagedTensor> { Err(pyo3::exceptions::PyBufferError::new_err("no")) }
    /// #     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> { Err(pyo3::exceptions::PyBufferError::new_err("no")) }
    /// #     fn import(_: Python<'_>, _: ManagedTensor) -> PyResult<Self> { Ok(Tensor) }
    /// # }
    /// use dlpack_core::python::exchange::ExchangeApi;
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
    /// # use dlpack_core::python::exchange::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::TensorParts;
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Tensor;
    /// # // SAFETY: `borrow_parts` lends nothing; it only refuses.
    /// # unsafe impl ExchangeTensor for Tensor {
    /// #     fn allocate(_: DataType, _: &[i64], _: Device) -> Result<ManagedTensor, AllocError> { Err(AllocError::Value("no".into())) }
    /// #     fn export(&self, _: Python<'_>) -> PyResult<ManagedTensor> { Err(pyo3::exceptions::PyBufferError::new_err("no")) }
    /// #     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> { Err(pyo3::exceptions::PyBufferError::new_err("no")) }
    /// #     fn import(_: Python<'_>, _: ManagedTensor) -> PyResult<Self> { Ok(Tensor) }
    /// # }
    /// use dlpack_core::ffi::DLPackVersion;
    /// use dlpack_core::python::exchange::ExchangeApi;
    ///
    /// static EXCHANGE: ExchangeApi = ExchangeApi::new::<Tensor>();
    /// assert_eq!(EXCHANGE.as_raw().header.version, DLPackVersion::CURRENT);
    /// ```
    pub const fn as_raw(&self) -> &DLPackExchangeAPI {
        &self.0
    }

    /// A capsule named `dlpack_exchange_api` ([`CAPSULE_NAME`](super::CAPSULE_NAME)) holding this table, without
    /// a destructor (the table is a `static`): the value of `__dlpack_c_exchange_api__`. See
    /// [`ExchangeApi`] for its place in a `#[pymethods]` block.
    ///
    /// ```
    /// # use dlpack_core::python::exchange::{AllocError, ExchangeTensor};
    /// # use dlpack_core::tensor::TensorParts;
    /// # use dlpack_core::{DataType, Device, ManagedTensor};
    /// # use pyo3::prelude::*;
    /// # #[pyclass(frozen)] struct Tensor;
    /// # // SAFETY: `borrow_parts` lends nothing; it only refuses.
    /// # unsafe impl ExchangeTensor for Tensor {
    /// #     fn allocate(_: DataType, _: &[i64], _: Device) -> Result<ManagedTensor, AllocError> { Err(AllocError::Value("no".into())) }
    /// #     fn export(&self, _: Python<'_>) -> PyResult<ManagedTensor> { Err(pyo3::exceptions::PyBufferError::new_err("no")) }
    /// #     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> { Err(pyo3::exceptions::PyBufferError::new_err("no")) }
    /// #     fn import(_: Python<'_>, _: ManagedTensor) -> PyResult<Self> { Ok(Tensor) }
    /// # }
    /// use dlpack_core::python::exchange::{CAPSULE_NAME, ExchangeApi};
    /// use pyo3::types::PyCapsuleMethods;
    ///
    /// static EXCHANGE: ExchangeApi = ExchangeApi::new::<Tensor>();
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let capsule = EXCHANGE.capsule(py)?;
    ///     assert!(capsule.is_valid_checked(Some(CAPSULE_NAME))); // named `dlpack_exchange_api`
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
