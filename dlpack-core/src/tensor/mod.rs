//! Tensor exchange: owned DLPack tensors, validated views, zero-copy export.
//!
//! - [`ManagedTensor`] owns a tensor and calls its deleter exactly once. It is generic over the
//!   two C structs ([`Abi`]): `ManagedTensor` is the versioned `DLManagedTensorVersioned`,
//!   [`LegacyManagedTensor`] the legacy `DLManagedTensor`, and both read alike.
//! - [`TensorView`] and [`TensorViewMut`] borrow one after validation. Both dereference to the
//!   same [`TensorMeta`] (shape, strides, data type, device, flags), and give typed access:
//!   [`as_slice`](TensorView::as_slice) for compact tensors, [`iter`](TensorView::iter) for any
//!   strides, and with feature `ndarray`, `ArrayViewD`/`ArrayViewMutD`. The bytes of any
//!   layout of any data type (fp8, `int4`, lanes: types without a Rust [`Element`](crate::Element))
//!   come compact through [`copy_compact_into`](TensorMeta::copy_compact_into), into memory you
//!   give, or [`to_compact_bytes`](TensorMeta::to_compact_bytes), whose `Vec` is the one
//!   allocation.
//! - [`TensorOwner`] is what an export keeps alive; `Vec`, `Box<[T]>`, `Arc<[T]>` and `ndarray`
//!   arrays export without a copy.
//! - [`ToDlpackTensor`]/[`FromDlpackTensor`] are the tensor side of
//!   [`from_dlpack`](crate::from_dlpack).
//!
//! ```
//! use dlpack_core::{DataType, Device, ManagedTensor};
//!
//! let tensor = ManagedTensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
//! let view = tensor.view()?;
//! assert_eq!(view.shape(), [2, 3]);
//! assert_eq!((view.dtype(), view.device()), (DataType::F32, Device::CPU));
//! assert_eq!(view.as_slice::<f32>()?, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
//! # Ok::<(), dlpack_core::Error>(())
//! ```
//!
//! # Ownership
//!
//! A DLPack tensor is released by calling its `deleter` once. The rules:
//!
//! - **A `ManagedTensor` owns the tensor.** Dropping it calls the deleter, exactly once,
//!   including when a panic in your code unwinds past it. A null deleter (allowed by DLPack)
//!   means nothing to call.
//! - **[`into_raw`](ManagedTensor::into_raw) gives ownership away** without calling the deleter:
//!   whoever receives the pointer (a C consumer, a `PyCapsule`) must call the deleter once, or
//!   hand the pointer back to [`from_raw`](ManagedTensor::from_raw).
//! - **[`from_raw`](ManagedTensor::from_raw) takes ownership, even when it fails**: a null
//!   pointer is refused (there is nothing to release); a major version other than 1 is refused
//!   *after* the producer's deleter has been called, as the specification requires. Never use
//!   the pointer after passing it.
//! - **Views borrow.** A [`TensorView`] borrows its `ManagedTensor`, so the borrow checker ends
//!   every view, slice and `ndarray` view before the deleter can run.
//! - **Exports own their owner.** `from_vec`, `from_owner` and friends move the owner into one
//!   heap allocation with the header and the shape and strides; the deleter (run by our `Drop`
//!   or by a foreign consumer) drops the owner and frees that allocation.
//! - **DLPack shares memory.** Unless the producer set `IS_COPIED`, it may still hold the data;
//!   `from_raw`'s contract is that nobody writes it while you hold a view.
//!
//! ```
//! use std::sync::Arc;
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use dlpack_core::ManagedTensor;
//! use dlpack_core::ffi::DLManagedTensorVersioned;
//!
//! // The owner counts its drops, so we can watch the deleter run.
//! struct Counted(Vec<u8>, Arc<AtomicUsize>);
//! impl Drop for Counted {
//!     fn drop(&mut self) {
//!         self.1.fetch_add(1, Ordering::SeqCst);
//!     }
//! }
//! // SAFETY: the Vec's 4 bytes are the tensor, owned by `Counted` alone.
//! unsafe impl dlpack_core::tensor::TensorOwner for Counted {
//!     fn describe(&mut self) -> dlpack_core::tensor::TensorParts<'_> {
//!         dlpack_core::tensor::TensorParts::host(self.0.as_mut_ptr(), &[4_usize])
//!     }
//! }
//!
//! // A C consumer: reads the tensor, then releases it as the protocol says.
//! unsafe extern "C" fn consume(t: *mut DLManagedTensorVersioned) -> i64 {
//!     // SAFETY: a valid tensor handed over by the caller; released exactly once.
//!     unsafe {
//!         let n = *(*t).dl_tensor.shape;
//!         ((*t).deleter.unwrap())(t);
//!         n
//!     }
//! }
//!
//! let drops = Arc::new(AtomicUsize::new(0));
//! let tensor = ManagedTensor::from_owner(Counted(vec![1, 2, 3, 4], drops.clone()))?;
//! let raw = tensor.into_raw(); // ownership leaves Rust: no deleter call here
//! assert_eq!(drops.load(Ordering::SeqCst), 0);
//! assert_eq!(unsafe { consume(raw) }, 4); // the consumer released it
//! assert_eq!(drops.load(Ordering::SeqCst), 1);
//! # Ok::<(), dlpack_core::Error>(())
//! ```
//!
//! # Validation
//!
//! Nothing of a foreign tensor is trusted before [`view`](ManagedTensor::view) has checked it,
//! and every refusal is an [`Error::Tensor`](crate::Error::Tensor) naming the field and the
//! value ([`TensorError`]):
//!
//! 1. `ndim` is 0 to [`MAX_NDIM`].
//! 2. `dtype` is one DLPack allows ([`DataType::check`](crate::DataType::check)): unknown
//!    codes, 0 bits or lanes, and widths a code does not take are refused.
//! 3. `shape` is non-null (when `ndim > 0`) and aligned; no dimension is negative; the product
//!    of the non-zero dimensions is at most `isize::MAX`.
//! 4. `strides` is non-null (when `ndim > 0`) and aligned, for a producer that declares
//!    DLPack 1.2 or later, which made them mandatory. For legacy tensors and versions before
//!    1.2 a null `strides` means compact row-major, which is what it meant then: refusing it
//!    would reject tensors that were valid when they were made.
//! 5. Sub-byte types (`float4_e2m1fn`, `int4`, …) are packed, several per byte in little
//!    bit-endian order, unless `IS_SUBBYTE_TYPE_PADDED` says one per byte. Packed elements have
//!    no byte address, so only compact row-major strides are accepted for them.
//! 6. The bytes the elements reach, from the most negative stride offsets to the most positive,
//!    span at most `isize::MAX`, and `byte_offset` plus that extent stays within `isize`.
//!
//! A view of a tensor on any device can be made, for its metadata (a CUDA tensor's shape and
//! dtype, say). Reading its data adds, at the moment of reading:
//!
//! - the device must be readable by the CPU: `Device::CPU.can_access(device)`, i.e. `cpu`,
//!   `cuda_host`, `cuda_managed`, `rocm_host`, `tpu_host` (see
//!   [`Device::can_access`](crate::Device::can_access));
//! - the data pointer must be non-null, unless the tensor is empty (`dlpack.h` asks producers
//!   to pass null for empty tensors), and the extent must lie inside the address space;
//! - typed access needs the exact data type (`float32` is not read as `u32`), an address
//!   aligned for the Rust type, and compact strides for a slice (iteration and `ndarray` take
//!   any). `bool` data is checked to hold only bytes 0 and 1, since any other byte read as a
//!   Rust `bool` would be undefined behaviour and not every producer normalises;
//! - a mutable view refuses `READ_ONLY`, and mutable strided access refuses strides that reach
//!   an element from two indices (see below).
//!
//! # Mutable strided access
//!
//! [`iter_mut`](TensorViewMut::iter_mut) hands out one `&mut` per index, so it needs every
//! index to reach a different element. That is decided exactly: a zero stride or two equal
//! strides overlap; strides that *nest* (sorted by size, each steps past everything the
//! smaller ones reach) are disjoint at once; and the rest, such as shape `[3, 2]` with strides
//! `[2, 3]` (offsets 0, 3, 2, 5, 4, 7), go to an exact integer search of at most 2^20 steps,
//! which decides any layout of up to 16 384 elements, any with two interleaved axes, and most
//! others. A layout the search cannot decide within its bound is refused with
//! [`TensorError::OverlapUndecided`], which says so; read it, or copy it. Negative strides are
//! decided as their mirror images.
//!
//! A mutable `ndarray` view (feature `ndarray`) needs more: `ndarray` requires the strides of
//! a mutable view to nest (its constructor asserts it), so a disjoint layout that does not nest
//! is refused there with [`TensorError::NotNested`], and `iter_mut` still takes it.
//!
//! # Threads
//!
//! `ManagedTensor` and `LegacyManagedTensor` are `Send` and `Sync`. The only producer code they
//! run is the deleter, which needs ownership, so `Sync` adds nothing but concurrent reads of
//! plain memory. `Send` means the deleter may run on another thread than the one that
//! received the tensor. DLPack does not say this in words, but the ecosystem relies on it:
//! Python consumers free capsules from any thread, NumPy's deleter takes the GIL itself for
//! that reason, and PyTorch's and TVM's release reference counts that are atomic. `from_raw`
//! makes it part of its safety contract, so a producer with a thread-bound deleter must keep
//! its tensors on that thread by other means. Owners exported from Rust are `Send` by bound.
//!
//! # Exports
//!
//! An export is one heap allocation (header, owner, shape and strides), always carries strides
//! (DLPack 1.2), and is stamped version 1.3. The owner's description is validated with the
//! import rules above before the tensor is handed out; an owner that exports the same layout
//! many times can validate it once, as a [`CheckedLayout`], and describe itself with it. Shared owners (`Arc<[T]>`, `ArcArray`)
//! export `READ_ONLY`; copies export `IS_COPIED`. A legacy export refuses what the legacy struct
//! cannot say (`READ_ONLY`, padded sub-byte types, flag bits DLPack 1.3 does not define)
//! rather than lose it.
//!
//! # What a zero-copy export shares, path by path
//!
//! The rule every path keeps: no sequence of *safe* calls — on the source, on anything sharing
//! its memory, on any thread — may change, race with or free memory that a [`TensorView`], a
//! slice from it, an `ndarray` view or a consumer of the export reads. Where only the caller
//! can promise that, the path is `unsafe`; where nobody can, it copies. The tests that hold
//! each path to it run under Miri in CI.
//!
//! | path | shares | why no safe call can write what it shares |
//! |---|---|---|
//! | [`ManagedTensor::from_vec`], [`from_boxed`](ManagedTensor::from_boxed), [`from_owner`](ManagedTensor::from_owner) of `ndarray::Array` | the data, writable | the export owns it alone |
//! | [`ManagedTensor::from_arc`], `Arc<[T]>` as a [`ToDlpackTensor`] source | the data, `READ_ONLY` | an `Arc` gives no `&mut` while another clone lives (`get_mut` fails, `make_mut` copies), and `T: Element` is `Copy`, so it holds no interior mutability |
//! | `ndarray::ArcArray` | the data, `READ_ONLY` | `ndarray` copies on write while a clone is shared (every `&mut` access calls `ensure_unique` first) |
//! | `ndarray::{Array, ArrayView}` as a [`ToDlpackTensor`] source | nothing: a copy | a shared reference cannot give the data away; `CowArray` is no source (`into_owned()` first) |
//! | `bridges::safetensors` over an `Arc<B>` (`Vec<u8>`, `Arc<[u8]>`, `bytes::Bytes`, a memory map) | the file's bytes, `READ_ONLY` | `B` is reached through the `Arc` alone, which gives no `&mut`; a memory map is as stable as its file, the promise `memmap2::Mmap::map` (an `unsafe fn`) already takes from its caller; a misaligned payload is copied |
//! | `candle_core::Tensor` (`bridges::candle`) | nothing: a copy under candle's lock | candle writes storages in place through shared references (`slice_set`, `Var::set`, in-place ops that may replace the `Vec`): sharing is `unsafe` (`candle::share`, `candle::Shared::new`), the caller's promise |
//! | `burn::tensor::TensorData` (`bridges::burn::data_to_dlpack`) | its bytes, writable | they are taken for writing through burn first (`Bytes::write`), which copies a buffer another `TensorData` shares, and the export then owns them alone; a shared burn `Tensor` (`&Tensor` as a source) is read into a copy |
//! | `bridges::burn::data_from_dlpack` (the other way) | the DLPack tensor's memory, to burn | burn's `Bytes` over it answer a request to write with a copy of their own (`memory_mut`), so no safe burn call writes the producer's memory |
//! | [`TensorOwner`] impls of your own | what the description names | an `unsafe` trait: its contract ("exclusive or read-only") is the implementer's promise |
//! | [`ToDlpackTensor::lend_view`] of any source | the source's memory, for the call | the borrow of the source (or candle's read lock) lasts as long as the view |
//! | Python: `DlpackRequest`, `PyTensor`, the C exchange API producer | what the source or owner shares, by the rows above | they hand on an export made by the rows above, with its flags |
//!
//! **Consumers that break the read-only contract.** PyTorch (2.15) and PaddlePaddle (3.3)
//! import a `READ_ONLY` tensor as a writable one: `torch.from_dlpack(t)[0] = 42` writes into a
//! Rust `Arc<[f32]>` that other code reads as immutable. A C consumer is outside Rust's
//! guarantees, so this is the consumer's breach, not safe Rust's; but a producer can refuse to
//! take the risk: `python::DataAccess::Immutable` in an export plan, or
//! `python::PyTensor::immutable`, gives every Python consumer a copy of read-only data.
//!
//! **Imports** read memory a producer lends: [`ManagedTensor::from_raw`] is `unsafe`, and its
//! contract includes that nobody writes the tensor while a view of it lives. A Python
//! producer may lend one array to any number of consumers, so Rust's side of that contract
//! is kept by a borrow table (`python::TensorArg`, "Borrows"): every typed argument, every
//! `python::with_tensor_view` is registered in it while it lives, a writable argument is
//! refused where it overlaps any other, `python::import_tensor` (of an object or of a
//! capsule) refuses memory a live writable argument holds, and a tensor it hands over that its
//! producer did not copy gives no mutable view ([`TensorError::LentByProducer`]). Python code
//! that writes the array (`array.fill(0)`), or calls a function whose typed argument writes
//! it, while a Rust view reads it still breaks the contract, as Python code writing a NumPy
//! array does for every Rust binding of NumPy: no table can see it.
//!
//! # Where user code hands the crate pointers
//!
//! The rule at every boundary: a pointer, length or stride that your code hands the crate, and
//! that the crate later reads, comes through an `unsafe` trait or function whose `# Safety`
//! says what you promise; a safe item only describes (nothing reads through it on trust) or
//! hands over values the crate checks. Item by item, in the public API:
//!
//! | item | what it hands the crate | `unsafe`? | why no safe code can make the crate read bad memory |
//! |---|---|---|---|
//! | [`TensorOwner`] | the data pointer, shape, strides, byte offset and device of an export, read by every consumer until the deleter runs | `unsafe trait` | the implementer promises the same answer each call, memory valid until the owner drops, exclusive or `READ_ONLY`; the layout is checked by the import rules too |
//! | [`TensorParts::new`], [`host`](TensorParts::host), [`with_strides`](TensorParts::with_strides), [`with_byte_offset`](TensorParts::with_byte_offset), [`with_flags`](TensorParts::with_flags), [`from_layout`](TensorParts::from_layout) | a raw data pointer and dimensions | safe | they only describe: the crate reads parts only as an `unsafe` trait's answer ([`TensorOwner`], `python::exchange::ExchangeTensor`) |
//! | [`TensorParts::to_dl_tensor`] | gives a `DLTensor` back | safe | a plain C struct: reading through it takes [`TensorView::from_dl_tensor`], which is `unsafe` |
//! | [`CheckedLayout::new`], `From<&TensorMeta>` | a shape, strides, data type, offset: no pointer | safe | values, checked by the export's rules (a view's were checked by the import's) |
//! | [`ManagedTensor::from_owner`], [`LegacyManagedTensor::from_legacy_owner`] | an owner | safe | the bound `O: TensorOwner` carries the promise |
//! | [`ManagedTensor::from_vec`], [`from_boxed`](ManagedTensor::from_boxed), [`from_arc`](ManagedTensor::from_arc) | a Rust buffer and a shape | safe | the crate owns (or shares read-only) the buffer and checks the shape against its length |
//! | [`ManagedTensor::from_raw`] (both ABIs) | a C tensor, with its deleter | `unsafe fn` | the caller promises a live tensor handed over, unwritten while a view lives, its deleter callable on any thread; the metadata is validated anyway |
//! | [`TensorView::from_dl_tensor`], [`TensorViewMut::from_dl_tensor`] | a `DLTensor` | `unsafe fn` | the caller promises the memory for the view's lifetime; no safe constructor of a view exists, so nothing can forge one |
//! | [`ToDlpackTensor`] | a [`ManagedTensor`], or a `&TensorView` lent to `with_tensor_view` | safe trait | it can hand on only what a checked or `unsafe` constructor made: a view cannot be made from a pointer in safe code |
//! | [`FromDlpackTensor`], [`DlpackDataType`](trait@crate::DlpackDataType), [`DlpackDevice`](trait@crate::DlpackDevice), the traits of [`dispatch`](crate::dispatch) | values (data types, devices), or nothing: they receive | safe | every typed read checks the tensor's data type against [`Element::DATA_TYPE`](crate::Element::DATA_TYPE) itself |
//! | [`Element`](crate::Element) | a Rust type that a tensor's bytes are read as | `unsafe trait` | the implementer promises its size and that every bit pattern of the data type is a valid value |
//! | `python::exchange::ExchangeTensor` | the data, shape and strides `borrow_parts` lends through the C exchange table, and a work stream | `unsafe trait` | the implementer promises them valid, unmoved and unwritten behind the reader for as long as the object lives (a non-frozen class's `&mut self` methods included), and a stream live |
//! | `python::exchange::ExchangeApi::new` | a type's table | safe | the bound `T: ExchangeTensor` carries the promise |
//! | `python::TensorClass`, `python::CpuTensor`, `python::PyTensor::new`, `python::DlpackRequest::capsule` | a [`ManagedTensor`], a [`ToDlpackTensor`] source or a [`TensorOwner`] | safe | by the rows above |
//! | `python::DlpackRequest::cuda_capsule`, `sync_for_consumer`, `cuda::sync_for_consumer`, `cuda::CudaBuffer::into_dlpack_for` | a consumer's CUDA stream handle (`cuda::StreamArg::Handle`) | `unsafe fn` | the caller promises a live stream of the device; `StreamArg` itself is a value nothing else hands the driver |
//! | `cuda::CudaBuffer::new`, `from_host`, `cuda::CudaTensorView::new` | a cudarc `CudaSlice`, a host slice, a view | safe | cudarc owns the allocation; a view was validated (or made `unsafe`ly) first |
//! | `bridges::candle::share`, `bridges::candle::Shared::new` | a candle tensor whose storage candle writes in place | `unsafe fn` | the caller promises no in-place write while the export lives |
//! | `bridges::safetensors::Tensors::new`, `bridges::safetensors::tensors` | an `Arc<B>` of bytes (`B: AsRef<[u8]>`) | safe | `as_ref` is asked once, every tensor checked to lie in the slice it gave, and an `Arc` gives no `&mut` while the export holds a clone |
//! | `bridges::burn` | burn's `TensorData` and tensors | safe | the bytes are checked against the data type and shape, and taken for writing through burn (a copy if shared) |
//! | `ffi::DLPackExchangeAPI::from_chain` | a table's header pointer | `unsafe fn` | the caller promises a live chain of tables |
//! | every consumer (`import_tensor`, `with_tensor_view`, `TensorArg`) of a Python object's `__dlpack__` capsule or `__dlpack_c_exchange_api__` table | a `PyCapsule` named `dltensor`, `dltensor_versioned` or `dlpack_exchange_api` | safe | the DLPack protocol: a capsule's name is its maker's promise of what it holds, trusted as NumPy's and PyTorch's `from_dlpack` trust it, and as rust-numpy trusts NumPy's `_ARRAY_API` capsule. Making such a capsule over something else is outside what this crate can check: C code, `ctypes`, or PyO3's `PyCapsule::new` given one of these names |

pub(crate) mod convert;
pub(crate) mod error;
pub(crate) mod export;
pub(crate) mod flags;
pub(crate) mod import;
pub(crate) mod legacy;
pub(crate) mod limits;
pub(crate) mod managed;
pub mod require;

#[cfg(feature = "ndarray")]
mod ndarray;

pub use convert::{FromDlpackTensor, ToDlpackTensor, with_tensor_view};
pub use error::TensorError;
pub use export::dims::Dims;
pub use export::owner::TensorOwner;
pub use export::parts::{CheckedLayout, TensorParts};
pub use flags::Flags;
pub use import::abi::Abi;
pub use import::iter::{Iter, IterMut};
pub use import::meta::TensorMeta;
pub use import::view::TensorView;
pub use import::view_mut::TensorViewMut;
pub use legacy::LegacyManagedTensor;
pub use limits::MAX_NDIM;
pub use managed::ManagedTensor;
