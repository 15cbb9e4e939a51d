//! Export: CUDA allocations as `kDLCUDA` tensors, owned by the export until its deleter runs.

use core::ffi::c_void;
use core::mem::ManuallyDrop;
use core::ptr;
use std::sync::Arc;

use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DevicePtrMut, DeviceRepr};

use super::driver::{Check, device_of, driver};
use super::order::{raw_stream, release_with, sync_for_consumer};
use super::raw::Cuda;
use super::scope::{preserve, raw_context};
use super::stream::StreamArg;
use crate::DataType;
use crate::Device;
use crate::ManagedTensor;
use crate::element::Element;
use crate::error::Error;
use crate::tensor::{Flags, TensorError, TensorOwner, TensorParts};

/// A CUDA allocation with a shape: what a Rust producer of CUDA tensors holds, and exports as
/// a `kDLCUDA` tensor without a copy.
///
/// It owns a [`CudaSlice<T>`], and with it the slice's stream and the device's context, so
/// the export keeps all three alive until the consumer's deleter drops them; the memory is
/// then freed in order on the slice's stream (see [`into_dlpack`](Self::into_dlpack)), with the
/// slice's context bound for the drop and the thread's current context restored after it,
/// whatever thread the deleter runs on.
///
/// ```
/// use dlpack_core::{Device, Error, cuda::{self, CudaBuffer, CudaError}};
///
/// let context = match cuda::context(Device::cuda(0)) {
///     Ok(context) => context,
///     Err(Error::Cuda(CudaError::NoDriver | CudaError::DeviceNotFound { .. })) => return Ok(()),
///     Err(other) => return Err(other),
/// };
/// let stream = context.default_stream();
/// let buffer = CudaBuffer::from_host(&stream, &[1.0_f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// assert_eq!(buffer.device(), Device::cuda(0));
/// let tensor = buffer.into_dlpack()?;
/// assert_eq!(tensor.view()?.shape(), [2, 2]);
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug)]
pub struct CudaBuffer<T> {
    /// Dropped by hand, in the slice's context (see `Drop`).
    slice: ManuallyDrop<CudaSlice<T>>,
    shape: Box<[usize]>,
    /// The first element, read once (so that `describe` makes no driver call).
    ptr: u64,
    device: Device,
    flags: Flags,
}

impl<T: Element> CudaBuffer<T> {
    /// The `slice.len()` elements of `slice` as a tensor of `shape` (compact row-major).
    ///
    /// Refuses a shape that does not hold `slice.len()` elements, except that a shape with no
    /// elements may wrap any slice (the driver cannot allocate zero bytes, so an empty tensor
    /// still needs a slice of some length). Makes the slice's stream wait
    /// for work cudarc tracks on the slice from other streams, so that the slice's stream is
    /// the one [`sync_for_consumer`](super::sync_for_consumer) has to order consumers after.
    ///
    /// ```
    /// # use dlpack_core::{Device, cuda::{self, CudaBuffer}};
    /// # let Ok(context) = cuda::context(Device::cuda(0)) else { return Ok(()) }; // no GPU
    /// # let stream = context.default_stream();
    /// let slice = stream.alloc_zeros::<f32>(6)?;
    /// let buffer = CudaBuffer::new(slice, &[2, 3])?;
    /// assert_eq!(buffer.shape(), [2, 3]);
    /// let wrong = stream.alloc_zeros::<f32>(5)?;
    /// assert!(CudaBuffer::new(wrong, &[2, 3]).is_err());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn new(slice: CudaSlice<T>, shape: &[usize]) -> Result<Self, Error> {
        driver()?;
        // cudarc binds the slice's context for the waits and the record below, and to free a
        // slice refused here; declared first, the scope is dropped last.
        let _scope = preserve()?;
        let mut slice = slice;
        let count = shape.iter().try_fold(1_usize, |n, &d| n.checked_mul(d));
        if count != Some(slice.len()) && count != Some(0) {
            return Err(TensorError::ShapeMismatch {
                shape: shape.into(),
                len: slice.len(),
            }
            .into());
        }
        let stream = Arc::clone(slice.stream());
        let ptr = {
            // Waits on `stream` for earlier reads and writes of the slice, and records this
            // (consumer) write when the guard drops.
            let (ptr, _record) = slice.device_ptr_mut(&stream);
            ptr
        };
        let device = device_of(stream.context());
        Ok(Self {
            slice: ManuallyDrop::new(slice),
            shape: shape.into(),
            ptr,
            device,
            flags: Flags::EMPTY,
        })
    }

    /// Copies `data` to a new allocation on `stream`'s device and wraps it with `shape`.
    ///
    /// ```
    /// # use dlpack_core::{Device, cuda::{self, CudaBuffer}};
    /// # let Ok(context) = cuda::context(Device::cuda(0)) else { return Ok(()) }; // no GPU
    /// # let stream = context.default_stream();
    /// let buffer = CudaBuffer::from_host(&stream, &[1_i64, 2, 3], &[3])?;
    /// assert_eq!(buffer.slice().len(), 3);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn from_host(stream: &Arc<CudaStream>, data: &[T], shape: &[usize]) -> Result<Self, Error>
    where
        T: DeviceRepr,
    {
        driver()?;
        let count = shape.iter().try_fold(1_usize, |n, &d| n.checked_mul(d));
        if count != Some(data.len()) {
            return Err(TensorError::ShapeMismatch {
                shape: shape.into(),
                len: data.len(),
            }
            .into());
        }
        let slice = {
            // cudarc binds the stream's context to allocate and copy.
            let _scope = preserve()?;
            if data.is_empty() {
                // SAFETY: a tensor with no elements reads none of it.
                unsafe { stream.alloc::<T>(1) }.check("cuMemAlloc")?
            } else {
                stream.clone_htod(data).check("cuMemcpyHtoDAsync")?
            }
        };
        Self::new(slice, shape)
    }

    /// Flagged `READ_ONLY` on export: consumers must not write through the tensor.
    ///
    /// ```
    /// # use dlpack_core::{Device, cuda::{self, CudaBuffer}};
    /// # let Ok(context) = cuda::context(Device::cuda(0)) else { return Ok(()) }; // no GPU
    /// # let stream = context.default_stream();
    /// use dlpack_core::tensor::Flags;
    /// let tensor = CudaBuffer::from_host(&stream, &[1_u8], &[1])?.read_only().into_dlpack()?;
    /// assert!(tensor.view()?.flags().contains(Flags::READ_ONLY));
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[must_use]
    pub fn read_only(mut self) -> Self {
        self.flags |= Flags::READ_ONLY;
        self
    }

    /// The device, `cuda:n`.
    ///
    /// ```
    /// # use dlpack_core::{Device, cuda::{self, CudaBuffer}};
    /// # let Ok(context) = cuda::context(Device::cuda(0)) else { return Ok(()) }; // no GPU
    /// # let stream = context.default_stream();
    /// let buffer = CudaBuffer::from_host(&stream, &[0_u16; 4], &[4])?;
    /// assert_eq!(buffer.device(), Device::cuda(0));
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn device(&self) -> Device {
        self.device
    }

    /// The shape.
    ///
    /// ```
    /// # use dlpack_core::{Device, cuda::{self, CudaBuffer}};
    /// # let Ok(context) = cuda::context(Device::cuda(0)) else { return Ok(()) }; // no GPU
    /// # let stream = context.default_stream();
    /// let buffer = CudaBuffer::from_host(&stream, &[0_u16; 4], &[2, 2])?;
    /// assert_eq!(buffer.shape(), [2, 2]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The stream the slice was allocated on, where its pending work is ordered: the
    /// `producer` of [`sync_for_consumer`](super::sync_for_consumer).
    ///
    /// ```
    /// # use dlpack_core::{Device, cuda::{self, CudaBuffer}};
    /// # let Ok(context) = cuda::context(Device::cuda(0)) else { return Ok(()) }; // no GPU
    /// # let stream = context.default_stream();
    /// let buffer = CudaBuffer::from_host(&stream, &[0_u16; 4], &[4])?;
    /// assert_eq!(buffer.stream(), &stream);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn stream(&self) -> &Arc<CudaStream> {
        self.slice.stream()
    }

    /// The slice.
    ///
    /// ```
    /// # use dlpack_core::{Device, cuda::{self, CudaBuffer}};
    /// # let Ok(context) = cuda::context(Device::cuda(0)) else { return Ok(()) }; // no GPU
    /// # let stream = context.default_stream();
    /// let buffer = CudaBuffer::from_host(&stream, &[5_i32, 6], &[2])?;
    /// assert_eq!(stream.clone_dtoh(buffer.slice())?, [5, 6]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn slice(&self) -> &CudaSlice<T> {
        &self.slice
    }

    /// The slice back, without its shape.
    ///
    /// ```
    /// # use dlpack_core::{Device, cuda::{self, CudaBuffer}};
    /// # let Ok(context) = cuda::context(Device::cuda(0)) else { return Ok(()) }; // no GPU
    /// # let stream = context.default_stream();
    /// let buffer = CudaBuffer::from_host(&stream, &[5_i32, 6], &[2])?;
    /// let slice = buffer.into_slice();
    /// assert_eq!(slice.len(), 2);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn into_slice(self) -> CudaSlice<T> {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped, so the slice is taken out once, and the shape (the
        // one other field that owns anything) is dropped here, once.
        unsafe {
            drop(ptr::read(&this.shape));
            ManuallyDrop::take(&mut this.slice)
        }
    }

    /// Exports the buffer as a `kDLCUDA` tensor that owns it.
    ///
    /// The consumer's deleter drops the buffer: the memory is freed on the slice's stream,
    /// after the work queued there. Work the consumer queued on *other* streams is not
    /// tracked, so a consumer releases the tensor once that work is finished or ordered before
    /// the slice's stream, as with any DLPack producer. When the consumer named its stream,
    /// [`into_dlpack_for`](Self::into_dlpack_for) does both sides of the stream rule instead.
    ///
    /// ```
    /// # use dlpack_core::{Device, cuda::{self, CudaBuffer}};
    /// # let Ok(context) = cuda::context(Device::cuda(0)) else { return Ok(()) }; // no GPU
    /// # let stream = context.default_stream();
    /// use dlpack_core::cuda::CudaTensorView;
    /// let buffer = CudaBuffer::from_host(&stream, &[1.5_f64, 2.5], &[2])?;
    /// let tensor = buffer.into_dlpack()?;
    /// let view = CudaTensorView::<f64>::new(tensor.view()?)?;
    /// assert_eq!(view.to_host_vec(Some(&stream))?, [1.5, 2.5]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn into_dlpack(self) -> Result<ManagedTensor, Error> {
        ManagedTensor::from_owner(self)
    }

    /// Exports the buffer for a consumer that named the stream it will use the tensor on
    /// (`__dlpack__(stream=…)`), both sides of the stream rule in one call: the consumer's
    /// stream waits for the work queued on the buffer's stream so far
    /// ([`sync_for_consumer`](super::sync_for_consumer)), and when the consumer releases the
    /// tensor, the buffer's stream waits for an event recorded then on the consumer's stream
    /// before the memory is freed on it, so that kernels the consumer queued there and did not
    /// wait for do not read freed memory. For `stream=-1` neither happens.
    ///
    /// What remains the consumer's duty: work on streams other than the one it named is its to
    /// finish (or order before that stream) before it releases the tensor; and a stream handle
    /// it named must still be a live stream when it releases the tensor, as the release records
    /// on it. (The default streams, 1 and 2, always are; a released per-thread default stream
    /// is reached through the legacy default stream, which waits for every thread's.)
    ///
    /// # Safety
    ///
    /// A [`StreamArg::Handle`] other than 0, 1 or 2 is a live CUDA stream of the buffer's
    /// device, now and when the tensor is released.
    ///
    /// ```
    /// use dlpack_core::cuda::{self, CudaBuffer, CudaTensorView, StreamArg};
    /// use dlpack_core::Device;
    /// # let Ok(context) = cuda::context(Device::cuda(0)) else { return Ok(()) }; // no GPU
    /// let producer = cuda::with_current(&context, || context.new_stream())??;
    /// let buffer = CudaBuffer::from_host(&producer, &[1_i32, 2, 3], &[3])?;
    /// // A consumer on the legacy default stream, as `__dlpack__(stream=1)` says.
    /// // SAFETY: the legacy default stream is always there.
    /// let tensor = unsafe { buffer.into_dlpack_for(StreamArg::LegacyDefault) }?;
    /// let legacy = context.default_stream();
    /// let view = CudaTensorView::<i32>::new(tensor.view()?)?;
    /// assert_eq!(view.to_host_vec(Some(&legacy))?, [1, 2, 3]);
    /// drop(view);
    /// drop(tensor); // freed on `producer` after what is queued on the legacy stream now
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub unsafe fn into_dlpack_for(self, consumer: StreamArg) -> Result<ManagedTensor, Error> {
        let producer = Arc::clone(self.stream());
        // SAFETY: a handle in `consumer` is live (this function's contract).
        unsafe { sync_for_consumer(&producer, consumer) }?;
        ManagedTensor::from_owner(ReleaseAfter::new(self, producer, consumer))
    }
}

/// Frees the slice in its context, restoring the thread's current context after.
impl<T> Drop for CudaBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: dropped once, here; `into_slice` takes it out of a buffer that never drops.
        let slice = unsafe { ManuallyDrop::take(&mut self.slice) };
        release_slice(slice, None, || {});
    }
}

/// Drops `slice` (and then runs `after`) in the slice's context, after the work queued on
/// `consumer` when given (see [`release_with`]), restoring the thread's context afterwards.
fn release_slice<T>(slice: CudaSlice<T>, consumer: Option<StreamArg>, after: impl FnOnce()) {
    let stream = Arc::clone(slice.stream());
    let (context, producer) = (raw_context(stream.context()), raw_stream(&stream));
    // SAFETY: `stream` (and so its context) lives until the end of the closure; a consumer
    // handle is live by the contract of whoever recorded it (`into_dlpack_for`,
    // `cuda_capsule`).
    unsafe {
        release_with(&Cuda, context, producer, consumer, move || {
            drop(slice);
            after();
            // The last reference to a stream or context destroys it, which binds its
            // context: done inside the scope too.
            drop(stream);
        });
    }
}

/// Any owner of CUDA memory, exported for a consumer that named `consumer`: the release waits
/// for the consumer's stream before the owner drops (see [`CudaBuffer::into_dlpack_for`]).
pub(crate) struct ReleaseAfter<O> {
    owner: ManuallyDrop<O>,
    producer: ManuallyDrop<Arc<CudaStream>>,
    consumer: StreamArg,
}

impl<O> ReleaseAfter<O> {
    /// `owner`, whose memory is released in the order of `producer`.
    pub(crate) fn new(owner: O, producer: Arc<CudaStream>, consumer: StreamArg) -> Self {
        Self {
            owner: ManuallyDrop::new(owner),
            producer: ManuallyDrop::new(producer),
            consumer,
        }
    }
}

impl<O> Drop for ReleaseAfter<O> {
    fn drop(&mut self) {
        // SAFETY: both are taken once, here.
        let (owner, producer) = unsafe {
            (
                ManuallyDrop::take(&mut self.owner),
                ManuallyDrop::take(&mut self.producer),
            )
        };
        let (context, stream) = (raw_context(producer.context()), raw_stream(&producer));
        // SAFETY: `producer` lives until the end of the closure; a consumer handle is live by
        // the contract of `into_dlpack_for` and `cuda_capsule`, which made this value.
        unsafe {
            release_with(&Cuda, context, stream, Some(self.consumer), move || {
                drop(owner);
                drop(producer);
            });
        }
    }
}

// SAFETY: forwards the owner's description, which keeps its promises while the owner lives;
// the owner lives as long as this value. `Send`: both fields are.
unsafe impl<O: TensorOwner> TensorOwner for ReleaseAfter<O> {
    fn describe(&mut self) -> TensorParts<'_> {
        self.owner.describe()
    }
}

/// Export without a copy: the tensor describes the buffer's memory on `cuda:n` and owns the
/// buffer.
///
/// ```
/// use dlpack_core::{Device, ManagedTensor, cuda::{self, CudaBuffer}};
/// # let Ok(context) = cuda::context(Device::cuda(0)) else { return Ok(()) }; // no GPU
/// # let stream = context.default_stream();
///
/// let buffer = CudaBuffer::from_host(&stream, &[7_u32; 6], &[3, 2])?;
/// let tensor = ManagedTensor::from_owner(buffer)?; // what `into_dlpack` does
/// assert_eq!(tensor.view()?.strides(), [2, 1]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
// SAFETY: `ptr` is the first element of `slice`, an allocation of `slice.len()` `T`s on
// `device`, which the buffer owns: it is neither freed nor moved (moving the `CudaSlice` handle
// does not move device memory) until the buffer is dropped, and nothing else holds it. Its
// elements are initialised by whoever made the slice: cudarc's `alloc_zeros` and `clone_htod`
// write every element, and its `unsafe fn alloc` leaves that to its caller, whose promise this
// relies on (`from_host` uses it only for a tensor with no elements, which reads none). The host
// never dereferences the memory: it reaches the host only through driver copies, and `bool`
// elements are checked when a copy is read. The shape holds exactly `slice.len()` elements or
// none (checked in `new`) and `describe` returns the same answer every time. The drop records
// driver errors instead of panicking, and `CudaSlice` is `Send`.
unsafe impl<T: Element> TensorOwner for CudaBuffer<T> {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(
            device_address(self.ptr),
            self.device,
            T::DATA_TYPE,
            &*self.shape,
        )
        .with_flags(self.flags)
    }
}

/// A buffer of bytes on a CUDA device holding a tensor of any data type: the result of a copy
/// to the device.
#[derive(Debug)]
pub(crate) struct CudaBytes {
    /// The allocation, freed (in its context, after `after`) when the copy is released.
    pub(crate) slice: ManuallyDrop<CudaSlice<u8>>,
    pub(crate) ptr: u64,
    pub(crate) dtype: DataType,
    pub(crate) shape: Box<[i64]>,
    pub(crate) flags: Flags,
    /// The consumer's stream, when the copy was exported to one that named it.
    pub(crate) after: Option<StreamArg>,
    /// For a copy queued without waiting: its source, kept until the copy is done.
    pub(crate) source: Option<Pending>,
}

/// The source of a queued copy, and the event recorded after the copy.
#[derive(Debug)]
pub(crate) struct Pending {
    pub(crate) tensor: ManagedTensor,
    pub(crate) copied: CudaEvent,
}

impl Drop for CudaBytes {
    fn drop(&mut self) {
        // SAFETY: dropped once, here.
        let slice = unsafe { ManuallyDrop::take(&mut self.slice) };
        let source = self.source.take();
        release_slice(slice, self.after, move || {
            if let Some(Pending { tensor, copied }) = source {
                // The copy read the source: it must be done before the source is released.
                // (Nearly always it is: the consumer used the copy after it.) A failed wait
                // leaves the source alive rather than free memory a copy may still read.
                if copied.synchronize().is_ok() {
                    drop(tensor);
                } else {
                    core::mem::forget(tensor);
                }
            }
        });
    }
}

// SAFETY: as for `CudaBuffer`: `ptr` is the start of `slice`, owned by this value, which the
// copy that made it fills with the compact row-major bytes of `shape` elements of `dtype`
// (queued on the slice's stream before any consumer is ordered after it).
unsafe impl TensorOwner for CudaBytes {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(
            device_address(self.ptr),
            device_of(self.slice.stream().context()),
            self.dtype,
            &*self.shape,
        )
        .with_flags(self.flags)
    }
}

/// A device address as the `data` pointer of a `DLTensor`: an address in the device's (unified)
/// address space, which the host never dereferences, so it carries no host provenance.
pub(crate) fn device_address(ptr: u64) -> *mut c_void {
    // CUDA is 64-bit only: device addresses fit in `usize`.
    core::ptr::without_provenance_mut(ptr as usize)
}
