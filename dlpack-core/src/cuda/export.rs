//! Export: CUDA allocations as `kDLCUDA` tensors, owned by the export until its deleter runs.

use core::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtrMut, DeviceRepr};

use super::driver::{Check, driver};
use crate::ManagedTensor;
use crate::data_type::DataType;
use crate::device::Device;
use crate::element::Element;
use crate::error::Error;
use crate::tensor::{Flags, TensorError, TensorOwner, TensorParts};

/// A CUDA allocation with a shape: what a Rust producer of CUDA tensors holds, and exports as
/// a `kDLCUDA` tensor without a copy.
///
/// It owns a [`CudaSlice<T>`], and with it the slice's stream and the device's context, so
/// the export keeps all three alive until the consumer's deleter drops them; the memory is
/// then freed in order on the slice's stream (see [`into_dlpack`](Self::into_dlpack)).
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
    _bind: BindOnDrop,
    slice: CudaSlice<T>,
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
    pub fn new(mut slice: CudaSlice<T>, shape: &[usize]) -> Result<Self, Error> {
        driver()?;
        let count = shape.iter().try_fold(1_usize, |n, &d| n.checked_mul(d));
        if count != Some(slice.len()) && count != Some(0) {
            return Err(TensorError::ShapeMismatch {
                shape: shape.into(),
                len: slice.len(),
            }
            .into());
        }
        let stream = Arc::clone(slice.stream());
        stream.context().bind_to_thread().check("cuCtxSetCurrent")?;
        let ptr = {
            // Waits on `stream` for earlier reads and writes of the slice, and records this
            // (consumer) write when the guard drops.
            let (ptr, _record) = slice.device_ptr_mut(&stream);
            ptr
        };
        let device = Device::cuda(i32::try_from(slice.ordinal()).unwrap_or(i32::MAX));
        Ok(Self {
            _bind: BindOnDrop(Arc::clone(stream.context())),
            slice,
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
        let slice = if data.is_empty() {
            // SAFETY: a tensor with no elements reads none of it.
            unsafe { stream.alloc::<T>(1) }.check("cuMemAlloc")?
        } else {
            stream.clone_htod(data).check("cuMemcpyHtoDAsync")?
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
        self.flags.insert(Flags::READ_ONLY);
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
        self.slice
    }

    /// Exports the buffer as a `kDLCUDA` tensor that owns it.
    ///
    /// The consumer's deleter drops the buffer: the memory is freed on the slice's stream,
    /// after the work queued there. Work the consumer queued on *other* streams is not
    /// tracked (DLPack gives the producer no way to know of it), so a consumer releases the
    /// tensor once that work is finished or ordered before the slice's stream, as with any
    /// DLPack producer. Call [`sync_for_consumer`](super::sync_for_consumer) with
    /// [`stream`](Self::stream) first when the consumer named a stream.
    ///
    /// ```
    /// # use dlpack_core::{Device, cuda::{self, CudaBuffer}};
    /// # let Ok(context) = cuda::context(Device::cuda(0)) else { return Ok(()) }; // no GPU
    /// # let stream = context.default_stream();
    /// use dlpack_core::cuda::{CudaTensorView, StreamArg};
    /// let buffer = CudaBuffer::from_host(&stream, &[1.5_f64, 2.5], &[2])?;
    /// // SAFETY: the per-thread default stream needs no promise.
    /// unsafe { cuda::sync_for_consumer(buffer.stream(), StreamArg::PerThreadDefault) }?;
    /// let tensor = buffer.into_dlpack()?;
    /// let view = CudaTensorView::<f64>::new(tensor.view()?)?;
    /// assert_eq!(view.to_host_vec(Some(&stream))?, [1.5, 2.5]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn into_dlpack(self) -> Result<ManagedTensor, Error> {
        ManagedTensor::from_owner(self)
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
// SAFETY: `ptr` is the first element of `slice`, an allocation of `slice.len()` initialised
// `T`s on `device` (cudarc allocates zeroed or copied memory; an empty tensor reads none),
// which the buffer owns: it is
// neither freed nor moved (moving the `CudaSlice` handle does not move device memory) until
// the buffer is dropped, and nothing else holds it. The shape holds exactly `slice.len()`
// elements or none (checked in `new`) and `describe` returns the same answer every time. Dropping
// the slice records driver errors instead of panicking, and `CudaSlice` is `Send`.
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
    pub(crate) _bind: BindOnDrop,
    /// The allocation, kept alive (and freed) with the tensor.
    pub(crate) _slice: CudaSlice<u8>,
    pub(crate) ptr: u64,
    pub(crate) device: Device,
    pub(crate) dtype: DataType,
    pub(crate) shape: Box<[i64]>,
    pub(crate) flags: Flags,
}

// SAFETY: as for `CudaBuffer`: `ptr` is the start of `slice`, owned by this value, which the
// copy that made it filled with the compact row-major bytes of `shape` elements of `dtype`.
unsafe impl TensorOwner for CudaBytes {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(
            device_address(self.ptr),
            self.device,
            self.dtype,
            &*self.shape,
        )
        .with_flags(self.flags)
    }
}

/// Makes a context current when dropped. Declared before the slice in the owners below,
/// so that it drops first: the deleter may run on any thread, and the slice's free (on its
/// stream, or synchronous) needs the slice's context.
#[derive(Debug)]
pub(crate) struct BindOnDrop(pub(crate) Arc<CudaContext>);

impl Drop for BindOnDrop {
    fn drop(&mut self) {
        // An error here (a context already torn down at exit) is cudarc's to record when the
        // slice drops; nothing can be done about it in a deleter.
        let _ = self.0.bind_to_thread();
    }
}

/// A device address as the `data` pointer of a `DLTensor`: an address in the device's (unified)
/// address space, which the host never dereferences, so it carries no host provenance.
fn device_address(ptr: u64) -> *mut c_void {
    // CUDA is 64-bit only: device addresses fit in `usize`.
    core::ptr::without_provenance_mut(ptr as usize)
}
