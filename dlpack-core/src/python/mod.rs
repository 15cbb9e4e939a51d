//! The Python side of DLPack, through PyO3 (feature `pyo3`).
//!
//! What a framework author reaches for, the recommended route first in each row:
//!
//! | You want to | Use |
//! |---|---|
//! | give Python your framework's tensors | [`pymethods(tensor)`](pymethods) on your `#[pyclass]`, with a [`CpuTensor`] impl for host memory (one method: the tensor), or a [`TensorClass`] impl ([`DlpackRequest`] decides share or copy) |
//! | hand Python a Rust tensor without a class of your own | [`to_python`] ([`PyTensor`]) |
//! | hand a result back in the caller's library (NumPy for NumPy, PyTorch for PyTorch, …) | [`Framework`] (`TensorArg::framework`) |
//! | take any Python tensor in a Rust function | [`TensorArg`] (typed, checked before the body runs), [`with_tensor_view`] (borrowed, for a kernel), [`import_tensor`] (owned) |
//! | dtype and device classes of your own | [`pymethods(data_type)`](pymethods) / [`pymethods(device)`](pymethods), [`add_values`] |
//! | read any dtype or device object (NumPy's, PyTorch's, JAX's, Paddle's, a name) | [`DataTypeLike`], [`DeviceLike`] (handing back a [`PyDataType`], [`PyDevice`]) |
//! | the RFC's `from_dlpack` over tensors, dtypes and devices | [`from_dlpack`] |
//! | DLPack 1.3's C exchange table, both ways | [`ExchangeTensor`], [`ExchangeApi`]; [`import_tensor`] and [`with_tensor_view`] use a type's table |
//! | CUDA tensors with streams (feature `cuda`) | `DlpackRequest::cuda_capsule`, `import_tensor_on_stream` |
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
//!   and gets back a [`PyDataType`] / [`PyDevice`]. `obj.extract::<DataTypeLike<T>>()` reads
//!   one out of any object the same way: it is the one reader, with one set of rules;
//! - as your own `#[pyclass]`, whose `__dlpack_data_type__` / `__dlpack_device__` method
//!   returns the value's DLPack tuple, which PyO3 hands to Python as plain ints. Write
//!   [`pymethods(data_type)`](pymethods) (or `(device)`) on its `impl` block and that method,
//!   the constructor, `repr()`, `==`, `hash()`, pickling and the rest of a protocol class are
//!   written for you; by hand, the protocol method alone is:
//!
//! ```
//! use dlpack_core::{DataType, DlpackDataType};
//! use dlpack_core::python::DataTypeLike;
//! use pyo3::prelude::*;
//!
//! #[derive(Clone, Copy, DlpackDataType)]
//! enum Kind {
//!     #[dlpack("float32")]
//!     F32,
//!     #[dlpack(skip)]
//!     Quantized,
//! }
//!
//! #[pyclass(frozen)]
//! struct Dtype(Kind);
//!
//! #[pymethods]
//! impl Dtype {
//!     /// `(code, bits, lanes)`; a `ValueError` for a value with no DLPack data type.
//!     fn __dlpack_data_type__(&self) -> PyResult<(u8, u8, u16)> {
//!         Ok(self.0.dlpack_data_type()?.into())
//!     }
//! }
//!
//! # pyo3::Python::initialize();
//! Python::attach(|py| -> PyResult<()> {
//!     let float32 = Bound::new(py, Dtype(Kind::F32))?;
//!     assert_eq!(float32.extract::<DataTypeLike<DataType>>()?.0, DataType::F32);
//!     let triple = float32.call_method0("__dlpack_data_type__")?;
//!     assert_eq!(triple.repr()?.to_str()?, "(2, 32, 1)");
//!     let quantized = Bound::new(py, Dtype(Kind::Quantized))?;
//!     let err = quantized.call_method0("__dlpack_data_type__").unwrap_err();
//!     assert!(err.is_instance_of::<pyo3::exceptions::PyValueError>(py));
//!     Ok(())
//! })?;
//! # Ok::<(), PyErr>(())
//! ```
//!
//! Either way Python sees plain-int tuples, as PaddlePaddle returns them and TVM FFI reads
//! them. What comes back from Python is range-checked: `(2, 300, 1)` is a `ValueError`
//! (TVM FFI reads it as 44 bits), as is a device id past `i32`; a list, a float or a tuple of
//! the wrong length is refused with a message that names the class, the method and the value.
//!
//! Which protocol an object speaks is decided from its class as TVM FFI decides it: a class
//! with `__dlpack__` is a tensor, then one with
//! `__dlpack_data_type__` is a data type, then one with `__dlpack_device__` alone is a device.
//! As in TVM FFI, the decision is made once per class and remembered, so that reading a data
//! type costs little more than its `__dlpack_data_type__()` call.
//!
//! ## Libraries without the protocol
//!
//! NumPy (and ml_dtypes), JAX, PyTorch and array-api-strict carry no `__dlpack_data_type__`
//! or `__dlpack_device__` yet, so [`DataTypeLike`] and [`DeviceLike`] also read their objects,
//! recognised by the module and name of their class (decided once per class, in the same
//! cache) and never by importing the library, which is not a dependency: NumPy dtypes and
//! scalar types (ml_dtypes' types among them), JAX's scalar types and devices, `torch.dtype`
//! and `torch.device`, array-api-strict's dtypes and devices, and `(device_type, device_id)`
//! tuples. Their public attributes are read (a NumPy dtype's `kind` and `itemsize`, a
//! `torch.device`'s `type` and `index`, a JAX device's `platform` and `local_hardware_id`);
//! where a name is read, it is the DLPack name, except PyTorch's `float4_e2m1fn_x2`, which is
//! `float4_e2m1fnx2`, as PyTorch exports it. The protocol wins when a class has it.
//! [`from_dlpack`] dispatches over tensors, data types and devices as the RFC proposes, by the
//! same reading.
//!
//! The other way, a data type class's `dtype` attribute is its NumPy dtype (ml_dtypes' for the
//! types NumPy lacks), NumPy's `dtype`-attribute protocol: [`PyDataType`] and every
//! [`pymethods(data_type)`](pymethods) class have one, so `numpy.empty(2, dtype=obj)` and
//! `jax.numpy.zeros(2, dtype=obj)` take them.
//!
//! # Tensors
//!
//! **Producer.** Write [`pymethods(tensor)`](pymethods) on your tensor class's `impl` block and
//! implement [`CpuTensor`] for a tensor in host memory (its one method gives the tensor, shared
//! or a copy, and the rest is written), or [`TensorClass`] for any other: the attribute writes
//! `__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)` with the arguments
//! checked ([`DlpackRequest::new`]) and `__dlpack_device__()`, and your `dlpack` decides with
//! [`DlpackRequest::plan`] whether to
//! share the memory or copy it, and finishes with [`DlpackRequest::answer`] (a tensor in
//! hand) or [`DlpackRequest::capsule`] (any [`TensorOwner`](crate::tensor::TensorOwner)); the
//! example is [`TensorClass`]'s. The capsule is named `dltensor_versioned` when the consumer's
//! `max_version` has a major version of 1 or more, `dltensor` otherwise. Its destructor frees
//! a tensor no consumer took, exactly once, and leaves a consumed (`used_…`) capsule alone.
//! A `__dlpack__` written by hand makes the same capsules with the same two calls.
//!
//! **Consumer.** [`import_tensor`] takes anything with `__dlpack__`, or a capsule: it calls
//! `__dlpack__(max_version=(1, 3), …)`, falls back to the legacy `__dlpack__()` on a
//! `TypeError` (as NumPy does), renames the capsule it consumed, refuses a capsule consumed
//! before, checks the version, and honours `device=` and `copy=`. Both ABIs come back as a
//! [`ManagedTensor`](crate::ManagedTensor), released to its producer when dropped.
//!
//! # The C exchange API
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
//! use dlpack_core::python::{AllocError, ExchangeApi, ExchangeTensor, with_tensor_view};
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
//! **Consumer.** [`import_tensor`] looks `__dlpack_c_exchange_api__` up on the object's *type*,
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
//!
//! **Kernels.** [`with_tensor_view`] lends a validated [`TensorView`](crate::tensor::TensorView)
//! of any Python tensor for the duration of a closure: through `dltensor_from_py_object_no_sync`
//! when the type publishes it (nothing allocated), through [`import_tensor`] otherwise. It is the
//! way to write a Rust kernel that takes tensors from Python.
//!
//! # CUDA tensors and streams (features `pyo3` and `cuda`)
//!
//! A consumer of a CUDA tensor names the stream it will use the tensor on, `__dlpack__(stream=…)`,
//! and the producer makes its pending work on the tensor visible there before it returns the
//! capsule: an event recorded on the producer's stream, waited for by the consumer's stream
//! (never a device-wide synchronisation, and the host does not wait). The values are the array
//! API standard's: `None` and `1` the legacy default stream, `2` the per-thread default stream,
//! a larger int a stream handle, `-1` "do not synchronise", `0` refused with a `ValueError` for
//! CUDA (ambiguous) and accepted for ROCm (its default stream). On the CPU only `None` and `-1`
//! are accepted, with or without the feature.
//!
//! - **Producer.** `DlpackRequest::cuda_capsule` takes the tensor (any
//!   [`TensorOwner`](crate::tensor::TensorOwner) in `cuda:n` or `cuda_managed` memory) and
//!   the stream its pending work is queued on, and does all of it: share or copy (to the CPU
//!   for `dl_device=(1, 0)`, or on the device for `copy=True`, queued without blocking the
//!   host), synchronise, order the release after the consumer's stream, make the capsule.
//!   `DlpackRequest::sync_for_consumer` is the synchronisation alone, and
//!   `DlpackRequest::cuda_stream` the parsed argument. They are `unsafe`: a stream handle is
//!   the consumer's promise (the standard requires a live stream of the tensor's device), which
//!   the driver cannot check before using it.
//! - **Consumer.** [`import_tensor`] picks the stream from where the tensor *is*
//!   (`obj.__dlpack_device__()`): `stream=1`, the legacy default stream, for `cuda:n`,
//!   `cuda_managed` and `cuda_host` tensors (what PyTorch passes for its default stream), none
//!   for a CPU tensor whatever `device=` asks; it makes the tensor's device current around the
//!   call (PyTorch exports only tensors of its current device), and when `device=` differs it
//!   imports the tensor where it is and copies it here. `import_tensor_on_stream` names a stream
//!   of yours instead, and makes the consumer's copies on it. A producer that cannot say where
//!   its tensor is (no `__dlpack_device__`, or one that fails) is asked without `stream=`, as
//!   without the feature, and `import_tensor_on_stream` then makes your stream wait for the
//!   legacy default stream, where such a producer ordered its work. Pinned and managed memory
//!   read on the host is waited for first.
//!
//! A producer object whose memory is on a CUDA stream, shared with every consumer:
//!
#![cfg_attr(feature = "cuda", doc = "```")]
#![cfg_attr(not(feature = "cuda"), doc = "```text")]
//! use std::sync::Arc;
//!
//! use dlpack_core::cuda::cudarc::driver::{CudaStream, DevicePtr};
//! use dlpack_core::cuda::{self, CudaBuffer, CudaTensorView};
//! use dlpack_core::python::{DlpackRequest, import_tensor_on_stream};
//! use dlpack_core::tensor::{TensorOwner, TensorParts};
//! use dlpack_core::{DataType, Device};
//! use pyo3::prelude::*;
//! use pyo3::types::PyCapsule;
//!
//! /// `float32`s in CUDA memory, written on `stream`: the producer stream of every export.
//! #[pyclass(frozen)]
//! struct CudaFloats {
//!     buffer: Arc<CudaBuffer<f32>>,
//!     stream: Arc<CudaStream>,
//! }
//!
//! /// An export: it keeps the buffer alive until the consumer's deleter runs.
//! struct Shared {
//!     _buffer: Arc<CudaBuffer<f32>>,
//!     address: u64,
//!     device: Device,
//!     shape: Vec<usize>,
//! }
//!
//! // SAFETY: `address` is the buffer's first element, allocated while `_buffer` lives, and the
//! // shape holds the buffer's elements; the description never changes.
//! unsafe impl TensorOwner for Shared {
//!     fn describe(&mut self) -> TensorParts<'_> {
//!         let data = std::ptr::without_provenance_mut(self.address as usize);
//!         TensorParts::new(data, self.device, DataType::F32, &self.shape[..])
//!     }
//! }
//!
//! #[pymethods]
//! impl CudaFloats {
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
//!         let shared = Shared {
//!             _buffer: Arc::clone(&self.buffer),
//!             address: self.buffer.slice().device_ptr(&self.stream).0,
//!             device: self.buffer.device(),
//!             shape: self.buffer.shape().to_vec(),
//!         };
//!         // SAFETY: the array API standard obliges the consumer to pass a live stream of the
//!         // tensor's device.
//!         unsafe { request.cuda_capsule(py, shared, &self.stream) }
//!     }
//!
//!     fn __dlpack_device__(&self) -> (i32, i32) {
//!         self.buffer.device().into()
//!     }
//! }
//!
//! let Ok(context) = cuda::context(Device::cuda(0)) else {
//!     return Ok(()); // no CUDA device here
//! };
//! let stream = context.new_stream().map_err(dlpack_core::Error::from)?;
//! let buffer = Arc::new(CudaBuffer::from_host(&stream, &[1.0_f32, 2.0, 3.0], &[3])?);
//! # pyo3::Python::initialize();
//! Python::attach(|py| -> PyResult<()> {
//!     let floats = Bound::new(py, CudaFloats { buffer, stream: Arc::clone(&stream) })?;
//!     // A consumer on a stream of its own (PyTorch and CuPy pass their current stream so).
//!     let consumer = context.new_stream().map_err(dlpack_core::Error::from)?;
//!     let tensor = import_tensor_on_stream(floats.as_any(), None, None, &consumer)?;
//!     let view = CudaTensorView::<f32>::new(tensor.view()?)?;
//!     // Read on the consumer's stream, which waits for the upload queued on `stream`.
//!     assert_eq!(view.to_host_vec(Some(&consumer))?, [1.0, 2.0, 3.0]);
//!     Ok(())
//! })?;
//! # Ok::<(), PyErr>(())
//! ```
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
//! In particular, a tensor of another data type than the one asked for is a `BufferError`
//! (`expected a float32 tensor, got float64`: `view.as_slice::<f32>()?`, `view.to_vec()?`), and so
//! is a tensor your framework has no data type or device for, when you make the error with
//! [`Error::into_buffer_error`](crate::Error::into_buffer_error): `DType::from_dlpack_data_type`
//! with `?` is a `ValueError`, which is right for `DType("float64")` and wrong for a tensor that
//! cannot be imported. Every message names Python things (`mini.DType`, `DType`), never a Rust
//! path: the type's own name, its `#[pyclass]`'s unless renamed, in place of
//! `core::any::type_name`'s `mini::dtype::DType`.
//!
//! # Names
//!
//! A name is read as `DataType`'s and `Device`'s `FromStr` read it: DLPack's names as TVM FFI
//! prints them (`bfloat16`, `float8_e4m3fn`, `cuda:1`) and the Rust spellings of the same types
//! (`bf16`, `f32`, `i64`, `u8`, `c64`, and `fp8_`/`fp6_`/`fp4_` before a small float's format,
//! as the OCP formats are written). Other frameworks' words for them (`half`, `fp16`, `double`,
//! `long`, `float` alone; `mps`, `xpu`, `gpu`) are refused with DLPack's name in the message
//! (`did you mean float16?`, `did you mean cuda:0?`), never guessed: one word means different
//! types in different places (`float` is 32 bits in C and PyTorch, 64 in Python and NumPy;
//! `gpu` is CUDA or ROCm). The grammar is the derive's too, so `#[dlpack("half")]` is the same
//! compile error. Objects of the libraries (`numpy.float16`, `torch.half`, `paddle.float16`)
//! are read by what they are, whatever they are called.
//!
//! # Modules
//!
//! Either of PyO3's module styles works: a `#[pymodule] fn mini(m: &Bound<'_, PyModule>)` that
//! calls `m.add_class::<DType>()?` and [`add_values`] (the examples here), or a `#[pymodule] mod
//! mini` with `#[pymodule_export] use super::DType;` and a `#[pymodule_init]` function that
//! calls [`add_values`] (the `dlpack_demo` extension, `examples/python`). The classes are the
//! same `#[pyclass]`es either way.
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
mod class;
mod class_cache;
mod error;
mod export;
mod framework;
mod import;
mod ints;
mod message;
mod named;
mod to_python;
mod tuples;
mod values;

// The capsules' names and functions, the classifier and a tensor's device: what a `__dlpack__`
// written by hand, the crate's own tests and the demo extension reach for. Hidden: the
// protocol classes, `DlpackRequest` and `import_tensor` are the way in for a framework.
#[doc(hidden)]
pub use capsule::{
    LEGACY, USED_LEGACY, USED_VERSIONED, VERSIONED, legacy_capsule, versioned_capsule,
};
#[doc(hidden)]
pub use class::generated as __generated;
pub use class::{CpuTensor, TensorClass, add_values, from_dlpack};
// The trait `#[pymethods]` implements for `add_values`: no author implements or names it
// (`add_values::<DType>` does), so it takes none of the module's 22 names.
#[doc(hidden)]
pub use class::ProtocolClass;
pub use export::exchange::{AllocError, ExchangeApi, ExchangeTensor};
pub use export::request::{DataAccess, DlpackRequest, ExportPlan};
pub use framework::Framework;
#[doc(hidden)]
pub use import::ArgType;
#[doc(hidden)]
pub use import::capsule_tensor;
#[cfg(feature = "cuda")]
pub use import::import_tensor_on_stream;
pub use import::{TensorArg, import_tensor, with_tensor_view};
#[doc(hidden)]
pub use named::{ArgNames as __ArgNames, Named as __Named, NamedArg as __NamedArg};
pub use to_python::{PyTensor, to_python};
#[doc(hidden)]
pub use values::classify::EXCHANGE_API;
pub use values::objects::{DataTypeLike, DeviceLike, PyDataType, PyDevice};
#[doc(hidden)]
pub use values::read::{ValueKind, read_tensor_device, value_kind};

#[cfg(feature = "derive")]
#[doc(inline)]
pub use dlpack_derive::pymethods;

/// Names the function and the argument in the errors of its [`TensorArg`] arguments: written
/// above `#[pyfunction]`; see [`TensorArg`]. (Listed there rather than here, to keep this
/// module's names few.)
#[doc(hidden)]
pub use dlpack_derive::tensor_args;

/// The PyO3 this module is built with: depend on the same version in your extension, or name
/// it through this re-export.
///
/// ```
/// use dlpack_core::python::pyo3::prelude::*;
///
/// # dlpack_core::python::pyo3::Python::initialize();
/// Python::attach(|py| {
///     // The interpreter this build links, 3.9 or newer.
///     let version = py.version_info();
///     assert!((version.major, version.minor) >= (3, 9));
/// });
/// ```
pub use pyo3;
