//! The Python side of DLPack, through PyO3 (feature `pyo3`).
//!
//! Three protocols, each in both directions:
//!
//! | Protocol | Hand to Python | Take from Python |
//! |---|---|---|
//! | tensors: `__dlpack__`, `__dlpack_device__` | [`DlpackRequest`], [`versioned_capsule`], [`legacy_capsule`] | [`from_dlpack`], [`capsule_tensor`] |
//! | data types: `__dlpack_data_type__` | [`PyDataType`], [`DataTypeLike`], [`data_type_tuple`] | [`read_data_type`], [`DataTypeLike`] |
//! | devices: `__dlpack_device__` | [`PyDevice`], [`DeviceLike`], [`device_tuple`] | [`read_device`], [`DeviceLike`] |
//!
//! # Data types and devices
//!
//! A type that derives [`DlpackDataType`](crate::DlpackDataType) or
//! [`DlpackDevice`](crate::DlpackDevice) crosses into Python in one of two ways:
//!
//! - as an argument or return value of type [`DataTypeLike<T>`] / [`DeviceLike<T>`]: Python
//!   passes *any* object whose class has the protocol method (PaddlePaddle's
//!   `paddle.float16` and `paddle.CPUPlace()`, our own objects, a class of your own), a
//!   name such as `"bfloat16"` (TVM FFI's `dtype` is such a string), or a TVM FFI `device`,
//!   and gets back a [`PyDataType`] / [`PyDevice`];
//! - as your own `#[pyclass]`, whose `__dlpack_data_type__` / `__dlpack_device__` method
//!   returns [`data_type_tuple`] / [`device_tuple`].
//!
//! Either way Python sees plain-int tuples, as PaddlePaddle returns them and TVM FFI reads
//! them. What comes back from Python is range-checked: `(2, 300, 1)` is a `ValueError`
//! (TVM FFI reads it as 44 bits), as is a device id past `i32`; a list, a float or a tuple of
//! the wrong length is refused with a message that names the class, the method and the value.
//!
//! Which protocol an object speaks is decided from its class as TVM FFI decides it
//! ([`protocol_kind`]): a class with `__dlpack__` is a tensor, then one with
//! `__dlpack_data_type__` is a data type, then one with `__dlpack_device__` alone is a device.
//!
//! # Tensors
//!
//! **Producer.** Give your tensor class `__dlpack__` and `__dlpack_device__`. Check the
//! arguments with [`DlpackRequest::new`], decide with [`DlpackRequest::plan`] whether to share
//! the memory or copy it, and return a capsule: [`DlpackRequest::capsule`] for any
//! [`TensorOwner`](crate::tensor::TensorOwner), or [`versioned_capsule`] / [`legacy_capsule`]
//! for a tensor in hand. The capsule is named `dltensor_versioned` when the consumer's
//! `max_version` has a major version of 1 or more, `dltensor` otherwise. Its destructor frees
//! a tensor no consumer took, exactly once, and leaves a consumed (`used_…`) capsule alone.
//!
//! ```
//! use std::sync::Arc;
//!
//! use dlpack_core::python::{DlpackRequest, Export, from_dlpack, legacy_capsule, versioned_capsule};
//! use dlpack_core::{Device, ManagedTensor};
//! use pyo3::prelude::*;
//! use pyo3::types::PyCapsule;
//!
//! /// Immutable floats, shared with every consumer without a copy.
//! #[pyclass(frozen)]
//! struct Floats(Arc<[f32]>);
//!
//! #[pymethods]
//! impl Floats {
//!     #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
//!     fn __dlpack__<'py>(
//!         &self,
//!         py: Python<'py>,
//!         stream: Option<&Bound<'py, PyAny>>,
//!         max_version: Option<&Bound<'py, PyAny>>,
//!         dl_device: Option<&Bound<'py, PyAny>>,
//!         copy: Option<bool>,
//!     ) -> PyResult<Bound<'py, PyCapsule>> {
//!         let request = DlpackRequest::new(stream, max_version, dl_device, copy)?;
//!         let shape = [self.0.len()];
//!         // Shared data is read-only; a copy can be made on the CPU only.
//!         let tensor = match request.plan(Device::CPU, true, |to| to == Device::CPU)? {
//!             Export::Share => ManagedTensor::from_arc(Arc::clone(&self.0), &shape)?,
//!             Export::Copy(_) => ManagedTensor::from_vec(self.0.to_vec(), &shape)?,
//!         };
//!         if request.versioned() {
//!             versioned_capsule(py, tensor)
//!         } else {
//!             legacy_capsule(py, tensor.into_legacy()?)
//!         }
//!     }
//!
//!     fn __dlpack_device__(&self) -> (i32, i32) {
//!         Device::CPU.into()
//!     }
//! }
//!
//! # pyo3::Python::initialize();
//! Python::attach(|py| -> PyResult<()> {
//!     let floats = Bound::new(py, Floats(Arc::from([1.0_f32, 2.0, 3.0])))?;
//!     // A consumer (here our own `from_dlpack`; NumPy's works the same) asks for DLPack 1.3.
//!     let tensor = from_dlpack(floats.as_any(), None, None)?;
//!     let view = tensor.view()?;
//!     assert_eq!(view.as_slice::<f32>()?, [1.0, 2.0, 3.0]);
//!     assert!(view.flags().contains(dlpack_core::tensor::Flags::READ_ONLY));
//!     // A CUDA consumer gets a BufferError: this producer has no CUDA memory.
//!     let err = floats.call_method("__dlpack__", (), Some(&[("dl_device", (2, 0))].into_py_dict(py)?));
//!     assert!(err.unwrap_err().is_instance_of::<pyo3::exceptions::PyBufferError>(py));
//!     Ok(())
//! })?;
//! # use pyo3::types::IntoPyDict;
//! # Ok::<(), PyErr>(())
//! ```
//!
//! **Consumer.** [`from_dlpack`] takes anything with `__dlpack__`, or a capsule: it calls
//! `__dlpack__(max_version=(1, 3), …)`, falls back to the legacy `__dlpack__()` on a
//! `TypeError` (as NumPy does), renames the capsule it consumed, refuses a capsule consumed
//! before, checks the version, and honours `device=` and `copy=`. Both ABIs come back as a
//! [`ManagedTensor`](crate::ManagedTensor), released to its producer when dropped.
//!
//! # Errors
//!
//! [`Error`](crate::Error) converts into `PyErr`, so `?` works in `#[pyfunction]`s: a
//! `BufferError` for a tensor refused on import or export (`Error::Tensor`), a `ValueError`
//! for every other error (a bad name, an invalid data type or device, a value a type has no
//! DLPack equivalent for, an id out of range). Data that cannot be exported or imported as
//! asked is a `BufferError`, as the array API standard requires; arguments of the wrong type
//! are `TypeError`s; a capsule consumed twice is a `ValueError`.
//!
//! # Why PyO3 0.30
//!
//! PyO3 0.30 is the current release line: its `Bound` API is the only one (the GIL-ref API
//! and the 0.28 deprecations are gone), its minimum Rust version is 1.85 like this crate's,
//! and it builds for CPython 3.9 and newer. The dependency is optional: without the `pyo3`
//! feature nothing of it is compiled. PyO3 links one interpreter per build graph, so your
//! extension must depend on the same PyO3 minor version; the [`pyo3`] re-export names it.
//! Use `#[pyclass]` types from this module in an extension built with maturin (or any PyO3
//! build); the module itself needs no `abi3` or other PyO3 feature.

mod capsule;
mod error;
mod host_copy;
mod objects;
mod protocol;
mod request;
mod tensor;

pub use capsule::{LEGACY, USED_LEGACY, USED_VERSIONED, VERSIONED};
pub use objects::{DataTypeLike, DeviceLike, PyDataType, PyDevice, data_type_tuple, device_tuple};
pub use protocol::{
    ProtocolKind, extract_data_type, extract_device, protocol_kind, read_data_type, read_device,
    read_tensor_device,
};
pub use request::{DlpackRequest, Export};
pub use tensor::{MAX_VERSION, capsule_tensor, from_dlpack, legacy_capsule, versioned_capsule};

/// The PyO3 this module is built with: depend on the same version in your extension, or name
/// it through this re-export.
pub use pyo3;
