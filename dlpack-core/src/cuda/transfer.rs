//! Copies between host and device: [`to_device`], `from_dlpack(x, device=…, copy=…)` between
//! `cpu` and `cuda:n`, [`CudaTensorView::to_host_vec`], and [`sync_for_host`].

use core::ffi::c_void;
use core::mem::ManuallyDrop;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};

use super::context::context;
use super::copy::{CopyMode, Route, Side, StreamOn, route, stream_on};
use super::driver::{Check, device_of, driver, ordinal};
use super::export::CudaBytes;
use super::gather::queue;
use super::order::raw_stream;
use super::plan::Block;
use super::raw::{Cuda, Driver, Dst, Rect, Src};
use super::scope::{enter, preserve};
use super::view::CudaTensorView;
use super::wait::sync_for_host;
use crate::DataType;
use crate::Device;
use crate::ManagedTensor;
use crate::cuda::error::CudaError;
use crate::element::Element;
use crate::error::Error;
use crate::ffi::DLDeviceType;
use crate::tensor::import::compact::copy_flags;
use crate::tensor::{Flags, TensorOwner, TensorParts, TensorView};

/// `from_dlpack(x, device=device, copy=copy)` for CPU and CUDA: the tensor itself when
/// `device` can read its memory and no copy is forced, else a copy on `device` flagged
/// `IS_COPIED`.
///
/// | `copy`                | `device` can read the tensor ([`Device::can_access`]) | it cannot     |
/// |-----------------------|--------------------------------------------|---------------------------|
/// | [`CopyMode::IfNeeded`] | the tensor, unchanged                     | a copy                    |
/// | [`CopyMode::Never`]    | the tensor, unchanged                     | [`CudaError::CopyRequired`] |
/// | [`CopyMode::Always`]   | a copy                                    | a copy                    |
///
/// A CPU consumer reads `cuda_host` and `cuda_managed` tensors where they are (after waiting
/// for them, see below), and a `cuda:n` consumer reads `cuda_host` and `cuda_managed` ones.
/// Copies go to `cpu` or `cuda:n`, from `cpu`, `cuda_host`, `cuda:n` or `cuda_managed` memory,
/// and come out compact row-major whatever the source's strides.
///
/// **Streams.** The copy runs on a stream of the device whose memory it reads (where the
/// producer ordered its pending work: pass the stream you named to the producer's
/// `__dlpack__`), or of the target device for a copy from host memory; any device's stream for
/// `cuda_managed` and `cuda_host` memory. `stream` must be such a stream
/// ([`CudaError::WrongStream`] otherwise); `None` means that device's legacy default stream,
/// the standard's default. The function returns when the copy is complete (a wait on that
/// stream alone), so the source can be released and the copy used on any stream. A tensor in
/// `cuda_managed` or `cuda_host` memory handed back unchanged to the CPU is waited for the same
/// way ([`sync_for_host`]) before it is returned. Copies between `cpu` tensors need no driver.
///
/// **Strides.** The driver gathers a strided source with rectangular copies
/// (`cuMemcpy2D`/`cuMemcpy3D`), reading each element where it lies: no copy stages more host
/// memory than its result (a copy to the CPU) or any (a copy to a device). A column, a block of
/// rows, or a batch of blocks is one call; a transposed source is one call per row of the
/// result, and each axis with a negative or zero stride (reversed or broadcast) multiplies the
/// calls by its extent. A strided copy between two devices is gathered on the source device
/// first (into a compact buffer there, freed when the copy is done).
///
/// The context current on the calling thread before the call is current after it.
///
/// ```
/// use dlpack_core::{Device, Error, ManagedTensor, cuda::{self, CopyMode, CudaError}};
///
/// let host = ManagedTensor::from_vec(vec![1_i32, 2, 3, 4], &[2, 2])?;
/// // copy=None to the CPU: nothing to do.
/// let same = cuda::to_device(host, Device::CPU, CopyMode::IfNeeded, None)?;
/// assert!(!same.view()?.flags().contains(dlpack_core::tensor::Flags::IS_COPIED));
/// // copy=True: a copy, flagged.
/// let copy = cuda::to_device(same, Device::CPU, CopyMode::Always, None)?;
/// assert!(copy.view()?.flags().contains(dlpack_core::tensor::Flags::IS_COPIED));
/// // copy=False to a GPU: refused, whether or not there is one.
/// let err = cuda::to_device(copy, Device::cuda(0), CopyMode::Never, None).unwrap_err();
/// assert_eq!(err, Error::Cuda(CudaError::CopyRequired { from: Device::CPU, to: Device::cuda(0) }));
/// # Ok::<(), Error>(())
/// ```
pub fn to_device(
    tensor: ManagedTensor,
    device: Device,
    copy: CopyMode,
    stream: Option<&Arc<CudaStream>>,
) -> Result<ManagedTensor, Error> {
    let from = tensor.device();
    let (from_side, to_side) = match route(from, device, copy)? {
        Route::Keep => {
            if device.device_type == DLDeviceType::CPU {
                sync_for_host(from, stream)?;
            }
            return Ok(tensor);
        }
        Route::Copy { from, to } => (from, to),
    };
    let view = tensor.view()?;
    let copied = match (from_side, to_side) {
        (Side::Host, Side::Host) => {
            sync_for_host(from, stream)?;
            let mut out = HostBytes::for_copy(&view);
            view.gather_into(out.bytes_mut())?;
            ManagedTensor::from_owner(out)?
        }
        (Side::Cuda, Side::Host) => {
            let stream = copy_stream(stream, from, device)?;
            let mut out = HostBytes::for_copy(&view);
            let dst = Dst::Host(out.bytes_mut().as_mut_ptr());
            let _scope = enter(stream.context())?;
            queue(&view, dst, &stream)?;
            // SAFETY: a stream we hold, of the current context.
            unsafe { Cuda.synchronize(raw_stream(&stream)) }?;
            ManagedTensor::from_owner(out)?
        }
        (_, Side::Cuda) => {
            let stream = copy_stream(stream, from, device)?;
            let out = alloc_device(device, &stream, &view)?;
            let _scope = enter(stream.context())?;
            let staged = queue_to_device(&view, out.ptr, &stream)?;
            // SAFETY: a stream we hold, of the current context.
            unsafe { Cuda.synchronize(raw_stream(&stream)) }?;
            // Freed on its stream after the copy that read it (done, too).
            drop(staged);
            ManagedTensor::from_owner(out)?
        }
    };
    drop(view);
    // The copy is complete (every path above waited for it): the source can go.
    drop(tensor);
    Ok(copied)
}

impl<T: Element> CudaTensorView<'_, T> {
    /// Copies the elements to the host, in row-major order, on `stream` (or the legacy
    /// default stream of the tensor's device when `None`; see [`to_device`]).
    ///
    /// A `bool` tensor is refused if a byte is neither 0 nor 1, as host views refuse it.
    ///
    /// ```
    /// use dlpack_core::{Device, cuda::{self, CudaBuffer, CudaTensorView}};
    /// # let Ok(context) = cuda::context(Device::cuda(0)) else { return Ok(()) }; // no GPU
    /// # let stream = context.default_stream();
    ///
    /// let tensor = CudaBuffer::from_host(&stream, &[1_u8, 2, 3, 4], &[2, 2])?.into_dlpack()?;
    /// let view = CudaTensorView::<u8>::new(tensor.view()?)?;
    /// assert_eq!(view.to_host_vec(None)?, [1, 2, 3, 4]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn to_host_vec(&self, stream: Option<&Arc<CudaStream>>) -> Result<Vec<T>, Error> {
        let view: &TensorView<'_> = self;
        let stream = copy_stream(stream, view.device(), Device::CPU)?;
        let mut out = HostBytes::for_copy(view);
        let dst = Dst::Host(out.bytes_mut().as_mut_ptr());
        {
            let _scope = enter(stream.context())?;
            queue(view, dst, &stream)?;
            // SAFETY: a stream we hold, of the current context.
            unsafe { Cuda.synchronize(raw_stream(&stream)) }?;
        }
        ManagedTensor::from_owner(out)?.view()?.to_vec::<T>()
    }
}

/// The stream a copy from `from` to `to` runs on: `stream` when it is one of the right device
/// (see [`stream_on`]), else the legacy default stream of that device.
fn copy_stream(
    stream: Option<&Arc<CudaStream>>,
    from: Device,
    to: Device,
) -> Result<Arc<CudaStream>, Error> {
    driver()?;
    let on = stream_on(from, to).ok_or(CudaError::UnsupportedDevice {
        device: to,
        expected: "cpu or a cuda:n device as the target of a copy",
    })?;
    match (on, stream) {
        (StreamOn::Any { .. }, Some(stream)) => Ok(Arc::clone(stream)),
        (StreamOn::Any { default: device }, None) | (StreamOn::Device(device), None) => {
            ordinal(device)?;
            Ok(context(device)?.default_stream())
        }
        (StreamOn::Device(device), Some(stream)) => {
            if usize::try_from(device.device_id) == Ok(stream.context().ordinal()) {
                Ok(Arc::clone(stream))
            } else {
                ordinal(device)?;
                Err(CudaError::WrongStream {
                    stream: device_of(stream.context()),
                    device,
                }
                .into())
            }
        }
    }
}

/// Queues the copies of `view`'s elements into the compact device memory at `dst` on `stream`
/// (whose context is current). A strided copy from one device to another is gathered into a
/// compact buffer on the source's device first (rectangular copies between devices are left
/// to the driver's peer path only as one run); the buffer is returned, to be dropped in the
/// stream's context once the copy is done.
fn queue_to_device(
    view: &TensorView<'_>,
    dst: u64,
    stream: &Arc<CudaStream>,
) -> Result<Option<CudaSlice<u8>>, Error> {
    let across = view.device().device_type == DLDeviceType::CUDA
        && !view.is_compact()
        && usize::try_from(view.device().device_id) != Ok(stream.context().ordinal());
    if !across {
        queue(view, Dst::Device(dst), stream)?;
        return Ok(None);
    }
    let len = view.compact_len();
    let staged = {
        let _cudarc = preserve()?;
        // SAFETY: written by the gather below before the copy reads it.
        unsafe { stream.alloc::<u8>(len.max(1)) }.check("cuMemAlloc")?
    };
    let address = staged.device_ptr(stream).0;
    queue(view, Dst::Device(address), stream)?;
    let run = Block {
        width: len,
        height: 1,
        depth: 1,
        src_pitch: len,
        src_slice: len,
    };
    let rect = Rect {
        src: Src::Device(address),
        dst: Dst::Device(dst),
        block: run,
    };
    // SAFETY: both are `len` bytes of device memory alive until the stream has passed the
    // copy (the staging buffer is freed on this stream after it; the destination is the
    // caller's, which waits); one run, so no pitch applies.
    unsafe { Cuda.copy(&rect, raw_stream(stream)) }?;
    Ok(Some(staged))
}

/// New device memory on `device` for the compact copy of `view`, freed on `stream` when it is of
/// that device (so that the free follows the copy), else on the device's legacy default stream.
pub(crate) fn alloc_device(
    device: Device,
    stream: &Arc<CudaStream>,
    view: &TensorView<'_>,
) -> Result<CudaBytes, Error> {
    let len = view.compact_len();
    let home = if usize::try_from(device.device_id) == Ok(stream.context().ordinal()) {
        Arc::clone(stream)
    } else {
        context(device)?.default_stream()
    };
    let _cudarc = preserve()?;
    // SAFETY: the bytes are written by the copy that follows before anyone reads them. One
    // byte at least: the driver refuses to allocate zero.
    let slice = unsafe { home.alloc::<u8>(len.max(1)) }.check("cuMemAlloc")?;
    let ptr = slice.device_ptr(&home).0;
    Ok(CudaBytes {
        slice: ManuallyDrop::new(slice),
        ptr,
        dtype: view.dtype(),
        shape: view.shape().into(),
        flags: copy_flags(view.dtype(), view.flags()),
        after: None,
        source: None,
    })
}

/// A 16-byte aligned block: host copies are aligned for every [`Element`] type.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
struct Block16([u8; 16]);

/// Host memory holding a compact copy: the result of a copy to the CPU.
#[derive(Debug)]
struct HostBytes {
    blocks: Vec<Block16>,
    len: usize,
    dtype: DataType,
    shape: Box<[i64]>,
    flags: Flags,
}

impl HostBytes {
    /// Zeroed memory for the compact copy of `view`.
    fn for_copy(view: &TensorView<'_>) -> Self {
        let len = view.compact_len();
        Self {
            blocks: vec![Block16([0; 16]); len.div_ceil(16)],
            len,
            dtype: view.dtype(),
            shape: view.shape().into(),
            flags: copy_flags(view.dtype(), view.flags()),
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: `blocks` is `len.div_ceil(16) * 16 >= len` initialised bytes with no padding
        // (`Block16` is a byte array), borrowed mutably with `self`.
        unsafe { core::slice::from_raw_parts_mut(self.blocks.as_mut_ptr().cast::<u8>(), self.len) }
    }
}

// SAFETY: `blocks` holds the `len` bytes of the compact copy (filled before export), stays
// put while the owner lives (the Vec is never resized), and nothing else holds it. The
// description never changes.
unsafe impl TensorOwner for HostBytes {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(
            self.blocks.as_mut_ptr().cast::<c_void>(),
            Device::CPU,
            self.dtype,
            &*self.shape,
        )
        .with_flags(self.flags)
    }
}
