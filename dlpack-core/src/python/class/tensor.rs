//! `#[pymethods(tensor)]`: a tensor class's `__dlpack__` and `__dlpack_device__`, written from
//! the two decisions only the framework can make ([`TensorClass`]).

use pyo3::PyClass;
use pyo3::exceptions::PyBufferError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use super::names::class_name;
use crate::Device;
use crate::python::error::buffer_error;
use crate::python::{DataAccess, DlpackRequest, ExportPlan};
use crate::tensor::managed::compact_copy;
use crate::tensor::{Flags, ManagedTensor};

/// A Python tensor class, as [`pymethods(tensor)`](crate::python::pymethods) completes it: you
/// say where a tensor is and how it answers one consumer's request (for a tensor in host
/// memory, [`CpuTensor`] says both), and the attribute writes
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
    note = "for a tensor in host memory, implement `dlpack_core::python::CpuTensor` for `{Self}` (its one method gives the tensor; `TensorClass` comes with it)",
    note = "otherwise implement `dlpack_core::python::TensorClass`: `dlpack_device` says where a tensor is, `dlpack` answers one `__dlpack__` request (see its docs)"
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
    /// # use dlpack_core::python::{DataAccess, DlpackRequest, ExportPlan, TensorClass, import_tensor};
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
    /// assert!(import_tensor(&capsule, None, None)?.flags().contains(Flags::IS_COPIED)); // copy=True
    /// # Ok(()) })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    fn dlpack<'py>(
        &self,
        py: Python<'py>,
        request: &DlpackRequest,
    ) -> PyResult<Bound<'py, PyCapsule>>;
}

/// A tensor class whose tensors are in host memory (`kDLCPU`), ready-made: say what the
/// tensor is, and [`TensorClass`] (so [`pymethods(tensor)`](crate::python::pymethods)) is
/// written for you: `__dlpack_device__()` is `(1, 0)`, and `__dlpack__` shares the tensor or
/// copies it, as the consumer asks and the tensor allows.
///
/// [`cpu_tensor`](Self::cpu_tensor) gives a [`ManagedTensor`] over the object's elements,
/// whose flags say what it is:
///
/// - over storage that can be shared, it shares: `Arc<[T]>`
///   ([`ManagedTensor::from_arc`], read-only: a legacy consumer, which cannot be told so, gets a
///   copy), `ndarray::ArcArray` and a candle tensor ([`from_dlpack`](crate::from_dlpack),
///   features `ndarray` and `candle`), any [`TensorOwner`](crate::tensor::TensorOwner)
///   ([`ManagedTensor::from_owner`]);
/// - over storage the object owns alone (`Vec<T>`, `Box<[T]>`), which an export cannot keep
///   alive without the object, it is a copy flagged `IS_COPIED` (`from_dlpack(&self.data)`, or
///   `data.to_dlpack_tensor()` of [`ToDlpackTensor`](crate::tensor::ToDlpackTensor)): every
///   consumer gets that copy, and `copy=False` is a `BufferError`. Hold the elements as
///   `Arc<[T]>` to share them.
///
/// With `copy=True` a shared tensor is copied (one compact host copy, flagged `IS_COPIED`); a
/// `dl_device` other than the CPU is a `BufferError`. Set [`IMMUTABLE`](Self::IMMUTABLE) when
/// Rust code reads the elements as immutable while Python holds them (see
/// [`DataAccess::Immutable`](crate::python::DataAccess::Immutable): PyTorch and PaddlePaddle
/// write through a read-only tensor).
///
/// ```
/// use std::sync::Arc;
///
/// use dlpack_core::python::{CpuTensor, import_tensor};
/// use dlpack_core::tensor::Flags;
/// use dlpack_core::{Error, ManagedTensor};
/// use pyo3::prelude::*;
///
/// #[pyclass(module = "mini", frozen)]
/// struct Tensor {
///     data: Arc<[f32]>,
///     shape: Vec<usize>,
/// }
///
/// #[dlpack_core::python::pymethods(tensor)]
/// impl Tensor {}
///
/// impl CpuTensor for Tensor {
///     fn cpu_tensor(&self) -> Result<ManagedTensor, Error> {
///         ManagedTensor::from_arc(Arc::clone(&self.data), &self.shape)
///     }
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let data: Arc<[f32]> = Arc::from([1.0, 2.0, 3.0, 4.0]);
///     let tensor = Bound::new(py, Tensor { data: Arc::clone(&data), shape: vec![2, 2] })?;
///     let shared = import_tensor(tensor.as_any(), None, None)?;
///     let view = shared.view()?;
///     assert_eq!((view.shape(), view.as_slice::<f32>()?), (&[2, 2][..], &data[..]));
///     assert_eq!(view.data_ptr(), data.as_ptr().cast()); // shared, read-only
///     assert!(view.flags().contains(Flags::READ_ONLY));
///     let copied = import_tensor(tensor.as_any(), None, Some(true))?;
///     assert!(copied.flags().contains(Flags::IS_COPIED));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub trait CpuTensor: PyClass {
    /// Whether every consumer gets a copy, however it asks (`copy=False` is then a
    /// `BufferError`): for elements that Rust code reads as immutable while Python holds them
    /// ([`DataAccess::Immutable`](crate::python::DataAccess::Immutable)). `false`: a read-only
    /// tensor is shared with the consumers that can be told it is read-only.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use dlpack_core::python::{CpuTensor, import_tensor};
    /// # use dlpack_core::{Error, ManagedTensor, tensor::Flags};
    /// # use pyo3::prelude::*;
    /// #[pyclass(frozen)]
    /// struct Weights(Arc<[f32]>); // read by Rust code while Python holds them
    ///
    /// # #[dlpack_core::python::pymethods(tensor)]
    /// # impl Weights {}
    /// impl CpuTensor for Weights {
    ///     const IMMUTABLE: bool = true;
    ///     fn cpu_tensor(&self) -> Result<ManagedTensor, Error> {
    ///         ManagedTensor::from_arc(Arc::clone(&self.0), &[self.0.len()])
    ///     }
    /// }
    /// # pyo3::Python::initialize();
    /// # Python::attach(|py| -> PyResult<()> {
    /// let weights = Bound::new(py, Weights(Arc::from([0.5_f32])))?;
    /// assert!(import_tensor(weights.as_any(), None, None)?.flags().contains(Flags::IS_COPIED));
    /// # Ok(()) })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    const IMMUTABLE: bool = false;

    /// A tensor over this object's elements: shared where the storage allows it, a copy
    /// flagged `IS_COPIED` where it does not (see the trait's documentation).
    ///
    /// ```
    /// # use dlpack_core::python::CpuTensor;
    /// # use dlpack_core::{Error, ManagedTensor, from_dlpack, tensor::Flags};
    /// # use pyo3::prelude::*;
    /// #[pyclass(frozen)]
    /// struct Bytes(Vec<u8>); // owned alone: exported as a copy
    ///
    /// # #[dlpack_core::python::pymethods(tensor)]
    /// # impl Bytes {}
    /// impl CpuTensor for Bytes {
    ///     fn cpu_tensor(&self) -> Result<ManagedTensor, Error> {
    ///         from_dlpack(&self.0)
    ///     }
    /// }
    ///
    /// assert_eq!(Bytes(vec![1, 2]).cpu_tensor()?.flags(), Flags::IS_COPIED);
    /// # Ok::<(), Error>(())
    /// ```
    fn cpu_tensor(&self) -> Result<ManagedTensor, crate::Error>;
}

/// Every [`CpuTensor`] is a tensor class: `__dlpack_device__()` is the CPU's, and a request is
/// answered from [`cpu_tensor`](CpuTensor::cpu_tensor)'s flags (shared, copied, or refused).
///
/// ```
/// use std::sync::Arc;
///
/// use dlpack_core::python::{CpuTensor, DlpackRequest, TensorClass, import_tensor};
/// use dlpack_core::{Device, Error, ManagedTensor, tensor::Flags};
/// use pyo3::prelude::*;
///
/// #[pyclass(frozen)]
/// struct Floats(Arc<[f32]>);
///
/// impl CpuTensor for Floats {
///     fn cpu_tensor(&self) -> Result<ManagedTensor, Error> {
///         ManagedTensor::from_arc(Arc::clone(&self.0), &[self.0.len()])
///     }
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let floats = Floats(Arc::from([1.0_f32, 2.0]));
///     assert_eq!(floats.dlpack_device()?, Device::CPU);
///     // A legacy consumer cannot be told the data is read-only: it gets a copy.
///     let capsule = floats.dlpack(py, &DlpackRequest::LEGACY)?;
///     assert_eq!(import_tensor(&capsule, None, None)?.view()?.as_slice::<f32>()?, [1.0, 2.0]);
///     let version = (1, 3).into_pyobject(py)?;
///     let shared = floats.dlpack(py, &DlpackRequest::new(None, Some(version.as_any()), None, None)?)?;
///     assert_eq!(import_tensor(&shared, None, None)?.flags(), Flags::READ_ONLY);
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
impl<T: CpuTensor> TensorClass for T {
    fn dlpack_device(&self) -> PyResult<Device> {
        Ok(Device::CPU)
    }

    fn dlpack<'py>(
        &self,
        py: Python<'py>,
        request: &DlpackRequest,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let tensor = self.cpu_tensor().map_err(buffer_error)?;
        if tensor.device() != Device::CPU {
            return Err(PyBufferError::new_err(format!(
                "{}.cpu_tensor() gave a tensor on {}, not on the CPU",
                class_name(&T::type_object(py))?,
                tensor.device()
            )));
        }
        let copied = tensor.flags().contains(Flags::IS_COPIED);
        let access = if T::IMMUTABLE {
            DataAccess::Immutable
        } else if copied {
            // The consumer's own copy: nothing else reads it.
            DataAccess::Writable
        } else {
            DataAccess::of(tensor.flags())
        };
        let plan = request.plan(Device::CPU, access, |to| to == Device::CPU)?;
        match plan {
            ExportPlan::Share if copied && request.copy == Some(false) => {
                Err(PyBufferError::new_err(format!(
                    "{} exports copies of its elements, which it owns alone, and copy=False was \
                     asked",
                    class_name(&T::type_object(py))?
                )))
            }
            ExportPlan::Copy(_) if !copied => {
                let view = tensor.view().map_err(buffer_error)?;
                let copy = compact_copy(&view).map_err(|err| buffer_error(err.into()))?;
                drop(view);
                drop(tensor);
                request.answer(py, plan, copy)
            }
            _ => request.answer(py, plan, tensor),
        }
    }
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
