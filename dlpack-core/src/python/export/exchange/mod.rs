//! DLPack 1.3's C exchange API, `__dlpack_c_exchange_api__`, producer side: a table of C
//! functions a tensor *type* publishes, through which C, C++ and Rust code exchanges its
//! tensors without a Python call.
//!
//! DLPack 1.3 lets a tensor *type* publish a table of C functions, `__dlpack_c_exchange_api__`
//! (a capsule named `dlpack_exchange_api`): an allocator, an owning export, a non-owning
//! export into the caller's `DLTensor`, an import back into the type, and the current work
//! stream. A consumer in C, C++ or Rust then takes the type's tensors with one C call instead of
//! a `__dlpack__` call and a capsule, and a foreign function returns tensors of the caller's
//! type. PaddlePaddle and TVM FFI publish and consume it.
//!
//! **Producer.** Implement [`ExchangeTensor`] for your `#[pyclass]` (what each function does for
//! your type; `unsafe`, since consumers read the memory it lends on its word: see its
//! `# Safety`), make its table once as a `static` ([`ExchangeApi::new`]: version 1.3,
//! `prev_api` null), and publish it as a class attribute:
//!
//! ```
//! use std::sync::Arc;
//!
//! use dlpack_core::python::exchange::{AllocError, ExchangeApi, ExchangeTensor};
//! use dlpack_core::python::with_tensor_view;
//! use dlpack_core::tensor::{CheckedLayout, TensorParts};
//! use dlpack_core::{DataType, Device, ManagedTensor};
//! use pyo3::prelude::*;
//! use pyo3::types::PyCapsule;
//!
//! /// Immutable float32 vectors.
//! #[pyclass(frozen)]
//! struct Floats {
//!     data: Arc<[f32]>,
//!     /// Its shape and strides as `int64_t`, which the non-owning export points at.
//!     layout: CheckedLayout,
//! }
//!
//! impl Floats {
//!     fn new(data: Arc<[f32]>) -> PyResult<Self> {
//!         let shape = [data.len()];
//!         let parts = TensorParts::host(data.as_ptr().cast_mut(), &shape);
//!         Ok(Self { layout: CheckedLayout::new(&parts).map_err(dlpack_core::Error::from)?, data })
//!     }
//! }
//!
//! static EXCHANGE: ExchangeApi = ExchangeApi::new::<Floats>();
//!
//! // SAFETY: `data` is an `Arc<[f32]>` that the frozen class never replaces and nobody writes
//! // (an `Arc` gives no `&mut` while shared), and `layout`, checked for it, stays beside it.
//! unsafe impl ExchangeTensor for Floats {
//!     // May run without the GIL: no Python here.
//!     fn allocate(dtype: DataType, shape: &[i64], device: Device) -> Result<ManagedTensor, AllocError> {
//!         if (dtype, device) != (DataType::F32, Device::CPU) {
//!             return Err(AllocError::Value(format!("Floats holds float32 on the CPU, not {dtype} on {device}")));
//!         }
//!         let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
//!         Ok(ManagedTensor::from_vec(vec![0_f32; shape.iter().product()], &shape)?)
//!     }
//!     fn export(&self, _py: Python<'_>) -> PyResult<ManagedTensor> {
//!         Ok(ManagedTensor::from_arc(Arc::clone(&self.data), &[self.data.len()])?)
//!     }
//!     fn borrow_parts(&self) -> PyResult<TensorParts<'_>> {
//!         Ok(TensorParts::from_layout(self.data.as_ptr().cast_mut().cast(), Device::CPU, &self.layout))
//!     }
//!     fn import(_py: Python<'_>, tensor: ManagedTensor) -> PyResult<Self> {
//!         Self::new(tensor.view()?.to_vec::<f32>()?.into())
//!     }
//! }
//!
//! #[pymethods]
//! impl Floats {
//!     #[classattr]
//!     fn __dlpack_c_exchange_api__(py: Python<'_>) -> PyResult<Bound<'_, PyCapsule>> {
//!         EXCHANGE.capsule(py)
//!     }
//!     // `__dlpack__` and `__dlpack_device__` as in "Tensors" above: consumers without the
//!     // table (NumPy) still need them. This one only refuses.
//!     #[pyo3(signature = (**_kwargs))]
//!     fn __dlpack__(&self, _kwargs: Option<&Bound<'_, pyo3::types::PyDict>>) -> PyResult<()> {
//!         Err(pyo3::exceptions::PyBufferError::new_err("use the exchange API"))
//!     }
//! }
//!
//! # pyo3::Python::initialize();
//! Python::attach(|py| -> PyResult<()> {
//!     let floats = Bound::new(py, Floats::new(Arc::from([1.0_f32, 2.0, 4.0]))?)?;
//!     // A kernel borrows it through the table: no allocation, no Python call.
//!     let sum = with_tensor_view(floats.as_any(), |view| -> PyResult<f32> { Ok(view.iter::<f32>()?.sum()) })??;
//!     assert_eq!(sum, 7.0);
//!     Ok(())
//! })?;
//! # Ok::<(), PyErr>(())
//! ```
//!
//! The functions around your methods catch panics (none unwinds into C) and report as
//! `dlpack.h` asks: a Python exception for the four that take or make Python objects (your
//! `PyErr`, a `TypeError` for an object of another type, a `BufferError` for a tensor a
//! `DLTensor` cannot describe), `SetError` for the allocator, with the exception's name as its
//! kind ([`AllocError`]). The allocator is the one function that may run without the GIL (TVM
//! FFI releases it around some calls); the others are called attached, as the header's
//! Python exceptions require. A foreign function called with your tensor (TVM FFI's) allocates
//! its results through your allocator and hands them back as your type.
//!
//! **Consumer.** [`import_tensor`](crate::python::import_tensor) looks `__dlpack_c_exchange_api__` up on the object's *type*,
//! once per type (with the protocol kind, in the same cache, as TVM FFI caches its per-type
//! decision), takes the first table of major version 1 in the `prev_api` chain (a newer table
//! alone is no table: `__dlpack__` is asked), and exports through it before `__dlpack__`. Only
//! a table the type publishes itself is used: a subclass that inherits its base's table (and
//! may override `__dlpack__`) is asked through `__dlpack__`. Any exception from the table, a
//! tensor on another device than `device=` asks for, or a device where the producer names a
//! current work stream (the table does not synchronise) sends it to `__dlpack__` as before,
//! as does a consumer stream of its own: a table's failure never reaches the caller as it is.
//!
//! PyTorch's table (2.10 and later) skips the checks its `__dlpack__` makes, and would hand
//! over a conjugate view's underlying values, or a tensor that requires gradient, without an
//! error. A `torch.Tensor` goes through the table only when it requires no gradient and is no
//! conjugate view (a sparse or other non-strided tensor makes the table raise); otherwise
//! `__dlpack__` refuses it with PyTorch's own `BufferError`. A negated view (`t.conj().imag`), which PyTorch 2.15's `__dlpack__` exports
//! with wrong values too, is refused with a `BufferError` whichever way it would go. A check
//! that raises is no refusal: the tensor goes to `__dlpack__`, which decides (PyTorch 2.15's
//! `torch.utils.dlpack.ReadOnlyTensorWrapper` allows no method but the protocol's, and arrives
//! read-only). (TVM FFI 0.1.15's `from_dlpack` takes PyTorch's table without these checks.)

mod api;
mod producer;
mod tensor_type;
#[cfg(test)]
mod tests;

pub use api::ExchangeApi;
pub use tensor_type::{AllocError, ExchangeTensor};

#[doc(inline)]
pub use crate::python::values::classify::EXCHANGE_API as CAPSULE_NAME;
