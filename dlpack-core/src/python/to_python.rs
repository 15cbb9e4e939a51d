//! A Rust tensor as a Python object in one call: [`to_python`] wraps any
//! [`ToDlpackTensor`] value (a candle tensor, an `ndarray` array, an `Arc<[T]>`) in a
//! [`PyTensor`], whose `__dlpack__` and `__dlpack_device__` answer every consumer
//! (`numpy.from_dlpack`, `torch.from_dlpack`, JAX, this crate's own `from_dlpack`) through
//! [`DlpackRequest`]. A framework with its own Python tensor class writes `__dlpack__` itself
//! (see the [module docs](crate::python#tensors)); this is for handing a tensor to Python
//! without one.

use std::sync::{Mutex, PoisonError};

use pyo3::exceptions::PyBufferError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::python::TensorClass;
use crate::python::error::buffer_error;
use crate::python::export::request::{DataAccess, DlpackRequest, ExportPlan};
use crate::tensor::ToDlpackTensor;
use crate::{Device, Error, ManagedTensor};

/// A host tensor held for Python: a `#[pyclass]` (`Tensor` in Python) with the DLPack
/// protocol, `__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)` and
/// `__dlpack_device__()`, around any [`ToDlpackTensor`] value. Make one with [`to_python`] (or
/// [`PyTensor::new`] and `Bound::new`).
///
/// - **What a consumer gets.** Each `__dlpack__` call hands out an export of its own: the
///   first the one made when the object was made (so a tensor exported once is exported once),
///   each later one a new [`to_dlpack_tensor`](ToDlpackTensor::to_dlpack_tensor) call. So the
///   source decides sharing: an `Arc<[T]>` (or a candle tensor wrapped in
///   `bridges::candle::Shared`) is shared, zero-copy and `READ_ONLY` (NumPy makes such an array
///   read-only); a `Vec` or a candle tensor is copied, at that export.
/// - **Consumers that ignore `READ_ONLY`.** PyTorch and PaddlePaddle import a read-only tensor
///   as a writable one, and a write through it changes the memory that the `Arc`'s other
///   holders read. [`immutable`](Self::immutable) makes every consumer get a copy of read-only
///   data instead ([`DataAccess::Immutable`]).
/// - **The request.** `max_version` of 1.0 or more gets a versioned capsule with the export's
///   flags, otherwise a legacy one; `copy=True` and a legacy consumer of read-only data get a
///   compact copy (flagged `IS_COPIED` where the capsule can say it); `copy=False` where a copy
///   is needed, and any `dl_device` but the CPU, are a `BufferError`; a `stream` but `None` or
///   `-1` is a `ValueError` (a CPU tensor has no streams): [`DlpackRequest::plan`]'s rules.
/// - **Host tensors only.** A source that exports to another device is refused when the object
///   is made (a `BufferError`): a CUDA producer must order its stream before the consumer's,
///   which `DlpackRequest::cuda_capsule` (feature `cuda`) does and this object cannot.
///
/// ```
/// use std::sync::Arc;
/// use dlpack_core::python::{PyTensor, import_tensor};
/// use dlpack_core::tensor::Flags;
/// use pyo3::prelude::*;
/// use pyo3::types::{IntoPyDict, PyCapsule};
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let data: Arc<[f32]> = Arc::from([1.0, 2.0, 3.0]);
///     let object = Bound::new(py, PyTensor::new(Arc::clone(&data))?)?;
///     assert_eq!(object.call_method0("__dlpack_device__")?.extract::<(i32, i32)>()?, (1, 0));
///
///     // A DLPack 1.x consumer shares the memory, read-only.
///     let kwargs = [("max_version", (1, 0))].into_py_dict(py)?;
///     let capsule = object.call_method("__dlpack__", (), Some(&kwargs))?.cast_into::<PyCapsule>()?;
///     let tensor = import_tensor(&capsule, None, None)?;
///     assert_eq!(tensor.view()?.data_ptr(), data.as_ptr().cast());
///     assert_eq!(tensor.flags(), Flags::READ_ONLY);
///
///     // A legacy consumer cannot be told "read-only": it gets a copy of its own.
///     let capsule = object.call_method0("__dlpack__")?.cast_into::<PyCapsule>()?;
///     let copy = import_tensor(&capsule, None, None)?;
///     assert_ne!(copy.view()?.data_ptr(), data.as_ptr().cast());
///     assert_eq!(copy.view()?.as_slice::<f32>()?, [1.0, 2.0, 3.0]);
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[pyclass(name = "Tensor", frozen)]
pub struct PyTensor {
    source: Box<dyn ToDlpackTensor + Send + Sync>,
    /// Where the source's exports are: the CPU, checked by `new`.
    device: Device,
    /// Read-only exports go to every consumer as a copy ([`DataAccess::Immutable`]).
    immutable: bool,
    /// The export `new` made, for the first `__dlpack__` call.
    first: Mutex<Option<ManagedTensor>>,
}

impl PyTensor {
    /// Holds `source` for Python, exporting it once now: an error (a `BufferError` in Python)
    /// when it cannot be exported, or when its export is not on the CPU.
    ///
    /// ```
    /// use dlpack_core::python::PyTensor;
    ///
    /// let tensor = PyTensor::new(vec![1_u8, 2, 3])?;
    /// assert_eq!(tensor.device(), dlpack_core::Device::CPU);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn new<T: ToDlpackTensor + Send + Sync + 'static>(source: T) -> Result<Self, Error> {
        let first = source.to_dlpack_tensor()?;
        let device = first.device();
        if device != Device::CPU {
            return Err(Error::msg(format_args!(
                "a tensor on {device} cannot be handed to Python by `to_python`, which exports \
                 host tensors: a device producer orders its stream before the consumer's \
                 (`DlpackRequest::cuda_capsule` with feature `cuda`); copy it to the CPU first"
            )));
        }
        Ok(Self {
            source: Box::new(source),
            device,
            immutable: false,
            first: Mutex::new(Some(first)),
        })
    }

    /// Hands every consumer a copy of the source's read-only exports, never the memory itself:
    /// for data that Rust code reads meanwhile, since PyTorch and PaddlePaddle write read-only
    /// tensors. Writable exports (a `Vec`'s copy) are unaffected.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dlpack_core::python::{PyTensor, import_tensor};
    /// use pyo3::prelude::*;
    /// use pyo3::types::{IntoPyDict, PyCapsule};
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let data: Arc<[f32]> = Arc::from([1.0, 2.0]);
    ///     let object = Bound::new(py, PyTensor::new(Arc::clone(&data))?.immutable())?;
    ///     let kwargs = [("max_version", (1, 3))].into_py_dict(py)?;
    ///     let capsule = object.call_method("__dlpack__", (), Some(&kwargs))?.cast_into::<PyCapsule>()?;
    ///     let tensor = import_tensor(&capsule, None, None)?;
    ///     assert_ne!(tensor.view()?.data_ptr(), data.as_ptr().cast()); // a copy of its own
    ///     assert_eq!(tensor.view()?.as_slice::<f32>()?, [1.0, 2.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    #[must_use]
    pub fn immutable(mut self) -> Self {
        self.immutable = true;
        self
    }

    /// The device of the tensor's exports: the CPU.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dlpack_core::{Device, python::PyTensor};
    ///
    /// let data: Arc<[i64]> = Arc::from([7, 8]);
    /// assert_eq!(PyTensor::new(data)?.device(), Device::CPU);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn device(&self) -> Device {
        self.device
    }

    /// `tensor` for its first consumer, as it is (no copy, and writable unless flagged
    /// `READ_ONLY`); a second consumer is refused with a `BufferError`. What a kernel returns
    /// to Python when one `from_dlpack` will take it, as
    /// [`Framework::from_dlpack`](crate::python::Framework::from_dlpack) does. Host tensors
    /// only.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// use dlpack_core::python::{PyTensor, import_tensor};
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let tensor = ManagedTensor::from_vec(vec![1_i32, 2], &[2])?;
    ///     let address = tensor.view()?.data_ptr();
    ///     let object = Bound::new(py, PyTensor::from_managed(tensor)?)?;
    ///     let taken = import_tensor(object.as_any(), None, None)?;
    ///     assert_eq!(taken.view()?.data_ptr(), address); // the tensor itself
    ///     assert!(import_tensor(object.as_any(), None, None).is_err()); // handed over once
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn from_managed(tensor: ManagedTensor) -> Result<Self, Error> {
        /// What is left once the tensor was handed over: nothing to export.
        struct HandedOver;

        impl ToDlpackTensor for HandedOver {
            fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
                Err(Error::msg(
                    "the tensor was handed over to its first consumer, which owns it now",
                ))
            }
        }

        let device = tensor.device();
        if device != Device::CPU {
            return Err(Error::msg(format_args!(
                "a tensor on {device} cannot be handed to a framework's from_dlpack here, which \
                 exports host tensors; copy it to the CPU first"
            )));
        }
        Ok(Self {
            source: Box::new(HandedOver),
            device,
            immutable: false,
            first: Mutex::new(Some(tensor)),
        })
    }

    /// The export for one consumer: the first one, or a new one.
    fn next_export(&self) -> Result<ManagedTensor, Error> {
        let first = self
            .first
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        match first {
            Some(tensor) => Ok(tensor),
            None => self.source.to_dlpack_tensor(),
        }
    }
}

/// The rules in the type's docs: the source decides sharing, [`DlpackRequest::plan`] the
/// rest, and a copy is a compact host copy.
///
/// ```
/// use std::sync::Arc;
/// use dlpack_core::Device;
/// use dlpack_core::python::{DlpackRequest, PyTensor, TensorClass};
///
/// let tensor = PyTensor::new(Arc::<[u8]>::from([1, 2]))?;
/// assert_eq!(TensorClass::dlpack_device(&tensor)?, Device::CPU);
/// # Ok::<(), pyo3::PyErr>(())
/// ```
impl TensorClass for PyTensor {
    fn dlpack_device(&self) -> PyResult<Device> {
        Ok(self.device)
    }

    fn dlpack<'py>(
        &self,
        py: Python<'py>,
        request: &DlpackRequest,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let tensor = self.next_export().map_err(buffer_error)?;
        if tensor.device() != self.device {
            return Err(PyBufferError::new_err(format!(
                "the tensor was exported on {} and now on {}: a `ToDlpackTensor` source must \
                 export to one device",
                self.device,
                tensor.device()
            )));
        }
        let access = match DataAccess::of(tensor.flags()) {
            DataAccess::ReadOnly if self.immutable => DataAccess::Immutable,
            access => access,
        };
        let plan = request.plan(self.device, access, |to| to == Device::CPU)?;
        // The only target `plan` may choose here is the CPU: a compact copy, `IS_COPIED`.
        let tensor = match plan {
            ExportPlan::Share => tensor,
            ExportPlan::Copy(_) => tensor
                .view()
                .and_then(|view| view.to_dlpack_tensor())
                .map_err(buffer_error)?,
        };
        request.answer(py, plan, tensor)
    }
}

// `__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)` and
// `__dlpack_device__()`, written as for any tensor class.
#[dlpack_derive::pymethods(tensor, crate = "crate")]
impl PyTensor {}

/// Hands `source` to Python as a [`PyTensor`], ready for `numpy.from_dlpack` (or any DLPack
/// consumer) in one call. The object keeps an owned copy of `source` (`to_owned`: for a
/// candle tensor or an `Arc`, a reference count), and exports it once now, so that a tensor
/// that cannot be exported is refused here, with the reason, as a `BufferError`.
///
/// ```
/// use dlpack_core::python::{PyTensor, import_tensor, to_python};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let object: Bound<'_, PyTensor> = to_python(py, &[1.5_f64, 2.5][..])?;
///     // `numpy.from_dlpack(object)` reads it the same way as this crate's consumer:
///     let tensor = import_tensor(object.as_any(), None, None)?;
///     assert_eq!(tensor.view()?.as_slice::<f64>()?, [1.5, 2.5]);
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn to_python<'py, T>(py: Python<'py>, source: &T) -> PyResult<Bound<'py, PyTensor>>
where
    T: ToOwned + ?Sized,
    T::Owned: ToDlpackTensor + Send + Sync + 'static,
{
    let tensor = PyTensor::new(source.to_owned()).map_err(buffer_error)?;
    Bound::new(py, tensor)
}
