//! `#[pymethods(tensor)]`: a tensor class's `__dlpack__` and `__dlpack_device__`, written from
//! the two decisions only the framework can make ([`TensorClass`]).

use pyo3::PyClass;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::Device;
use crate::python::DlpackRequest;

/// A Python tensor class, as [`pymethods(tensor)`](crate::python::pymethods) completes it: you
/// say where a tensor is and how it answers one consumer's request, and the attribute writes
/// the two methods of the protocol, `__dlpack__(*, stream=None, max_version=None,
/// dl_device=None, copy=None)` with the array API standard's keyword-only signature and its
/// arguments checked ([`DlpackRequest::new`]), and `__dlpack_device__()` as plain ints.
///
/// A method of that name that you write in the block yourself wins, as for the data type and
/// device classes.
///
/// ```
/// use std::sync::Arc;
///
/// use dlpack_core::python::{DataAccess, DlpackRequest, ExportPlan, TensorClass, import_tensor};
/// use dlpack_core::{Device, ManagedTensor};
/// use pyo3::prelude::*;
/// use pyo3::types::PyCapsule;
///
/// /// Immutable floats, shared with every consumer without a copy.
/// #[pyclass(module = "mini", frozen)]
/// struct Floats(Arc<[f32]>);
///
/// #[dlpack_core::python::pymethods(tensor)]
/// impl Floats {
///     fn tolist(&self) -> Vec<f32> {
///         self.0.to_vec()
///     }
/// }
///
/// impl TensorClass for Floats {
///     fn dlpack_device(&self) -> PyResult<Device> {
///         Ok(Device::CPU)
///     }
///
///     fn dlpack<'py>(&self, py: Python<'py>, request: &DlpackRequest) -> PyResult<Bound<'py, PyCapsule>> {
///         let shape = [self.0.len()];
///         // Shared data is read-only; a copy can be made on the CPU only.
///         let plan = request.plan(Device::CPU, DataAccess::ReadOnly, |to| to == Device::CPU)?;
///         let tensor = match plan {
///             ExportPlan::Share => ManagedTensor::from_arc(Arc::clone(&self.0), &shape)?,
///             ExportPlan::Copy(_) => ManagedTensor::from_vec(self.0.to_vec(), &shape)?,
///         };
///         request.answer(py, plan, tensor)
///     }
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let floats = Bound::new(py, Floats(Arc::from([1.0_f32, 2.0, 3.0])))?;
///     assert_eq!(floats.call_method0("__dlpack_device__")?.extract::<(i32, i32)>()?, (1, 0));
///     // A consumer (here our own `from_dlpack`; NumPy's works the same) asks for DLPack 1.3.
///     let tensor = import_tensor(floats.as_any(), None, None)?;
///     let view = tensor.view()?;
///     assert_eq!(view.as_slice::<f32>()?, [1.0, 2.0, 3.0]);
///     assert!(view.flags().contains(dlpack_core::tensor::Flags::READ_ONLY));
///     // A CUDA consumer gets a BufferError: this producer has no CUDA memory.
///     let err = floats.call_method("__dlpack__", (), Some(&[("dl_device", (2, 0))].into_py_dict(py)?));
///     assert!(err.unwrap_err().is_instance_of::<pyo3::exceptions::PyBufferError>(py));
///     // The arguments are keyword-only, as the array API standard has them.
///     assert!(floats.call_method1("__dlpack__", (None::<i64>,)).is_err());
///     Ok(())
/// })?;
/// # use pyo3::types::IntoPyDict;
/// # Ok::<(), PyErr>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tensor class: `#[pymethods(tensor)]` needs `TensorClass`",
    label = "no `TensorClass` impl",
    note = "implement `dlpack_core::python::TensorClass` for `{Self}`: `dlpack_device` says where a tensor is, `dlpack` answers one `__dlpack__` request (see its docs)"
)]
pub trait TensorClass: PyClass {
    /// Where the tensor is: what `__dlpack_device__()` returns, as `(device_type,
    /// device_id)`.
    ///
    /// ```
    /// # use dlpack_core::{Device, python::{DlpackRequest, TensorClass}};
    /// # use pyo3::{prelude::*, types::PyCapsule};
    /// #[pyclass(frozen)]
    /// struct OnGpu(i32);
    ///
    /// # #[dlpack_core::python::pymethods(tensor)]
    /// # impl OnGpu {}
    /// impl TensorClass for OnGpu {
    ///     fn dlpack_device(&self) -> PyResult<Device> {
    ///         Ok(Device::cuda(self.0))
    ///     }
    ///     # fn dlpack<'py>(&self, _: Python<'py>, _: &DlpackRequest) -> PyResult<Bound<'py, PyCapsule>> { Err(pyo3::exceptions::PyBufferError::new_err("this example exports nothing")) }
    /// }
    ///
    /// # pyo3::Python::initialize();
    /// # Python::attach(|py| -> PyResult<()> {
    /// let tensor = Bound::new(py, OnGpu(1))?;
    /// assert_eq!(tensor.call_method0("__dlpack_device__")?.extract::<(i32, i32)>()?, (2, 1));
    /// # Ok(()) })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    fn dlpack_device(&self) -> PyResult<Device>;

    /// The capsule for one `__dlpack__` call, whose arguments `request` holds, checked: decide
    /// with [`DlpackRequest::plan`] whether to share or copy, and finish with
    /// [`DlpackRequest::answer`] (or [`DlpackRequest::capsule`] for a
    /// [`TensorOwner`](crate::tensor::TensorOwner); `DlpackRequest::cuda_capsule` for CUDA
    /// memory).
    ///
    /// ```
    /// use std::sync::Arc;
    ///
    /// # use dlpack_core::python::{DataAccess, DlpackRequest, ExportPlan, TensorClass, capsule_tensor};
    /// # use dlpack_core::{Device, ManagedTensor, tensor::Flags};
    /// # use pyo3::{prelude::*, types::PyCapsule};
    /// #[pyclass(frozen)]
    /// struct Bytes(Arc<[u8]>);
    ///
    /// # #[dlpack_core::python::pymethods(tensor)]
    /// # impl Bytes {}
    /// impl TensorClass for Bytes {
    ///     # fn dlpack_device(&self) -> PyResult<Device> { Ok(Device::CPU) }
    ///     fn dlpack<'py>(&self, py: Python<'py>, request: &DlpackRequest) -> PyResult<Bound<'py, PyCapsule>> {
    ///         let plan = request.plan(Device::CPU, DataAccess::ReadOnly, |to| to == Device::CPU)?;
    ///         let tensor = match plan {
    ///             ExportPlan::Share => ManagedTensor::from_arc(Arc::clone(&self.0), &[self.0.len()])?,
    ///             ExportPlan::Copy(_) => ManagedTensor::from_vec(self.0.to_vec(), &[self.0.len()])?,
    ///         };
    ///         request.answer(py, plan, tensor)
    ///     }
    /// }
    ///
    /// # pyo3::Python::initialize();
    /// # Python::attach(|py| -> PyResult<()> {
    /// let bytes = Bytes(Arc::from([1_u8, 2]));
    /// let version = (1, 3).into_pyobject(py)?;
    /// let request = DlpackRequest::new(None, Some(version.as_any()), None, Some(true))?;
    /// let capsule = bytes.dlpack(py, &request)?;
    /// assert!(capsule_tensor(&capsule)?.flags().contains(Flags::IS_COPIED)); // copy=True
    /// # Ok(()) })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    fn dlpack<'py>(
        &self,
        py: Python<'py>,
        request: &DlpackRequest,
    ) -> PyResult<Bound<'py, PyCapsule>>;
}

/// A class completed by `#[pymethods(tensor)]`, which implements this trait: the generated
/// methods need only it, so a class without [`TensorClass`] is one error, at the type.
#[doc(hidden)]
pub trait TensorClassOf: TensorClass {}

/// `__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)`.
#[doc(hidden)]
#[inline]
pub fn tensor_dlpack<'py, T: TensorClassOf>(
    value: &T,
    py: Python<'py>,
    stream: Option<&Bound<'py, PyAny>>,
    max_version: Option<&Bound<'py, PyAny>>,
    dl_device: Option<&Bound<'py, PyAny>>,
    copy: Option<bool>,
) -> PyResult<Bound<'py, PyCapsule>> {
    let request = DlpackRequest::new(stream, max_version, dl_device, copy)?;
    value.dlpack(py, &request)
}

/// `__dlpack_device__()`: `(device_type, device_id)`.
#[doc(hidden)]
#[inline]
pub fn tensor_dlpack_device<T: TensorClassOf>(value: &T) -> PyResult<(i32, i32)> {
    Ok(value.dlpack_device()?.into())
}
