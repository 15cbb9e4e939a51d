//! CUDA tensors (feature `cuda`): device discovery, export and import of `kDLCUDA` tensors,
//! host-device copies, and the stream rule of `__dlpack__`.
//!
//! Built on [`cudarc`] (re-exported as `dlpack_core::cuda::cudarc`, so that your code uses the
//! same version) with the driver loaded at run time: the crate builds without a CUDA toolkit,
//! and on a machine without a driver every function here returns
//! [`CudaError::NoDriver`] ("no CUDA driver found: libcuda could not be loaded") instead of
//! panicking, and [`cuda_devices`] is empty.
//!
//! # A round trip
//!
//! A producer exports a device buffer, the consumer names its stream, the tensor crosses the C
//! ABI, and the consumer gets a typed device view and a host copy. On a machine without a GPU
//! the example stops at the first line, with the reason.
//!
//! ```
//! use dlpack_core::cuda::{self, CopyMode, CudaBuffer, CudaTensorView, StreamArg};
//! use dlpack_core::{Device, Error, ManagedTensor};
//!
//! let Some(&gpu) = cuda::cuda_devices().first() else {
//!     let why = cuda::try_cuda_devices().err().map_or("no CUDA device".into(), |e| e.to_string());
//!     println!("skipping the CUDA round trip: {why}");
//!     return Ok(());
//! };
//! let context = cuda::context(gpu)?;
//! let stream = cuda::with_current(&context, || context.new_stream())??;
//!
//! // Producer: a device buffer, written on `stream`.
//! let buffer = CudaBuffer::from_host(&stream, &[1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
//! // The consumer calls `__dlpack__(stream=1)`: it works on the legacy default stream, which
//! // must wait for the upload queued on `stream`.
//! let consumer = StreamArg::try_from(Some(1))?;
//! // SAFETY: the legacy default stream is not a handle the driver has to trust.
//! unsafe { cuda::sync_for_consumer(buffer.stream(), consumer) }?;
//! let exported: ManagedTensor = buffer.into_dlpack()?;
//!
//! // Across the C ABI, as a `DLManagedTensorVersioned*`, and back.
//! let raw = exported.into_raw();
//! // SAFETY: `raw` comes from `into_raw` and is taken back once.
//! let imported = unsafe { ManagedTensor::from_raw(raw) }?;
//!
//! // Consumer: a typed device view (metadata checked, device memory untouched)…
//! let view = CudaTensorView::<f32>::new(imported.view()?)?;
//! assert_eq!((view.device(), view.shape()), (gpu, &[2, 3][..]));
//! let pointer = view.device_ptr(); // for a kernel launch
//! assert_ne!(pointer, 0);
//! drop(view);
//! // …and `from_dlpack(x, device="cpu")`: the CPU cannot read `cuda:0`, so this copies.
//! let host = cuda::to_device(imported, Device::CPU, CopyMode::IfNeeded, None)?;
//! assert_eq!(host.view()?.as_slice::<f32>()?, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
//! # Ok::<(), Error>(())
//! ```
//!
//! # What lives where
//!
//! - Discovery: [`cuda_devices`], [`try_cuda_devices`], [`cuda_device_info`] (name, compute
//!   capability, memory), [`context`] (the device's primary context, the one PyTorch, CuPy and
//!   JAX use).
//! - Export: [`CudaBuffer`], a cudarc [`CudaSlice`](cudarc::driver::CudaSlice) with a shape,
//!   implements [`TensorOwner`](crate::tensor::TensorOwner): the tensor owns the buffer, its
//!   stream and context until the consumer's deleter runs. [`CudaBuffer::into_dlpack_for`]
//!   exports it for a consumer that named its stream, ordering both ways.
//! - Import: [`CudaTensorView`], a typed view of a `kDLCUDA` or `kDLCUDAManaged` tensor. A
//!   `kDLCUDAHost` (pinned) tensor is host memory, read through a plain
//!   [`TensorView`](crate::TensorView) without a copy ([`Device::can_access`](crate::Device::can_access))
//!   once [`sync_for_host`] has waited for the GPU work on it.
//! - Copies: [`to_device`] with [`CopyMode`], `from_dlpack(x, device=…, copy=…)` between `cpu`
//!   and `cuda:n`.
//! - Streams: [`StreamArg`] is the `stream` argument of `__dlpack__` parsed by the array API
//!   standard's rules (`None` and `1` legacy default, `2` per-thread default, a handle, `-1` no
//!   synchronisation, `0` refused: ROCm's default, ambiguous for CUDA), and
//!   [`sync_for_consumer`] is what the producer does with it: an event recorded on the
//!   producer's stream that the consumer's stream waits for, never a device-wide
//!   synchronisation. A consumer passes `i128::from(`[`StreamArg::of`]`(&its_stream))` to the
//!   producer's `__dlpack__`.
//! - Contexts: [`with_current`] runs cudarc calls of yours without leaving a context bound.
//!
//! # Context discipline
//!
//! The CUDA runtime takes the calling thread's current context as its current device, and
//! cudarc binds the context of every object it touches without unbinding it. So every function
//! here saves the current context, binds the one its work needs, and restores the saved one
//! before it returns: on success, on error, and in deleters, which run on whatever thread the
//! consumer releases a tensor. After `torch.from_dlpack(x)` of a tensor of ours on `cuda:1`,
//! PyTorch's current device is what it was. [`context`] hands out one cudarc context per
//! device for the life of the process (cudarc counts streams per object and synchronises the
//! device on an object's first stream; it keeps errors of drops in the object), and reports an
//! error a drop recorded since the last call once.
//!
//! # Streams, and what stays the consumer's duty
//!
//! The producer orders its pending work before the stream the consumer names, with an event;
//! when the consumer releases the tensor, the producer's stream waits for an event recorded
//! then on the consumer's stream before the memory is freed on it (`DlpackRequest::cuda_capsule`
//! and [`CudaBuffer::into_dlpack_for`]). What the producer cannot see stays with the consumer:
//! work on other streams than the one it named must be finished (or ordered before that stream)
//! before it releases the tensor; a stream handle it named must still be a live stream then;
//! and with `stream=-1` all ordering is its own.
//!
//! A per-thread default stream (`2`) is the calling thread's in every driver call, so where
//! work queued on one may have to be waited for from another thread (a deleter, a `__dlpack__`
//! on another thread than the producer's), the event is recorded on the legacy default stream,
//! which waits for every thread's per-thread stream. A consumer of this crate working on its
//! per-thread default stream names `1` to producers: PyTorch refuses `2`, and the per-thread
//! stream waits for the legacy one by itself.
//!
//! Pinned (`cuda_host`) and managed (`cuda_managed`) memory is ordered like device memory, and
//! the host waits ([`sync_for_host`]) before it reads it: for the stream named, or for the whole
//! context on a device without concurrent managed access, where a host access to managed memory
//! while the device runs anything faults.
//!
//! # Decisions
//!
//! - [`cuda_devices`] returns a plain `Vec`, empty when there is no driver, no device, or a
//!   driver that fails to initialise; [`try_cuda_devices`] tells these apart.
//! - Device ids are the driver's ordinals, after `CUDA_VISIBLE_DEVICES`, as PyTorch and CuPy
//!   number them.
//! - Copies return when complete (a wait on the copy's stream, nothing wider) and come out
//!   compact row-major. Strided sources are gathered by the driver with `cuMemcpy2D` and
//!   `cuMemcpy3D`, reading each element where it lies: no copy stages the source's span, and a
//!   copy between devices never touches the host. Layouts the rectangular copies cannot express
//!   (a transpose, negative or zero strides, more than three uneven axes) take one call per
//!   index of the axes they loop over; a device kernel would need PTX built for each
//!   architecture, which this backend, loading only the driver, does not ship. A producer's
//!   copy for `__dlpack__(copy=True)` on the device is queued without blocking the host.
//! - Driver errors are stored as their code, name and description, so [`Error`](crate::Error)
//!   stays `Clone + Eq`; `?` on a cudarc result converts it.
//!
//! # Minimum Rust version
//!
//! The feature needs Rust 1.88 (cudarc's `libloading` dependency), above the crate's 1.85.
/// The [`cudarc`](https://docs.rs/cudarc) crate this backend is built on, re-exported so that
/// your `CudaSlice`s, streams and contexts are of the same version as this crate's.
///
/// ```
/// use dlpack_core::cuda::cudarc::driver::CudaContext;
/// use dlpack_core::{Device, cuda};
///
/// // `cuda::context` hands out cudarc's own context type.
/// let context: Option<std::sync::Arc<CudaContext>> = cuda::context(Device::cuda(0)).ok();
/// if let Some(context) = context {
///     assert_eq!(context.ordinal(), 0);
/// }
/// ```
pub use cudarc;

mod context;
mod copy;
mod device;
mod driver;
pub(crate) mod error;
mod export;
#[cfg(test)]
mod fake;
mod gather;
pub(crate) mod interop;
mod order;
mod plan;
mod raw;
mod scope;
mod stream;
mod transfer;
mod view;
mod wait;

pub use context::context;
pub use copy::CopyMode;
pub use device::{CudaDeviceInfo, cuda_device_info, cuda_devices, try_cuda_devices};
pub use error::CudaError;
pub use export::CudaBuffer;
pub use order::{Synced, sync_for_consumer};
pub use scope::with_current;
pub use stream::StreamArg;
pub use transfer::to_device;
pub use view::CudaTensorView;
pub use wait::sync_for_host;
