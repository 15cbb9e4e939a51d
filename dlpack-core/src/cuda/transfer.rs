//! Host-device copies: [`to_device`], `from_dlpack(x, device=…, copy=…)` between `cpu` and
//! `cuda:n`, and [`CudaTensorView::to_host_vec`].

use core::ffi::c_void;
use std::borrow::Cow;
use std::sync::Arc;

use cudarc::driver::{CudaStream, sys};

use super::copy::{CopyMode, Route, Side, route};
use super::driver::{Check, context, driver, ordinal};
use super::error::CudaError;
use super::export::{BindOnDrop, CudaBytes};
use super::view::{CudaTensorView, check_address};
use crate::ManagedTensor;
use crate::data_type::DataType;
use crate::device::Device;
use crate::element::Element;
use crate::error::Error;
use crate::ffi::DLDeviceType;
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
/// A CPU consumer reads `cuda_host` and `cuda_managed` tensors where they are, and a `cuda:n`
/// consumer reads `cuda_host` and `cuda_managed` ones. Copies go to `cpu` or `cuda:n`, from
/// `cpu`, `cuda_host`, `cuda:n` or `cuda_managed` memory, and come out compact row-major
/// whatever the source's strides (a strided device source is gathered on the host, so its
/// copy crosses the bus twice).
///
/// The copy runs on `stream`, or on the legacy default stream of the CUDA device involved (the
/// target's, for a copy between two devices) when `None`, the standard's default. The
/// source's pending work must be ordered before that stream: pass the stream you named to the
/// producer's `__dlpack__`. The function returns when the copy is complete (a wait on that
/// stream alone), so the source can be released and the copy used on any stream. A copy
/// between `cpu` tensors needs no driver.
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
    let (from, to) = match route(tensor.view()?.device(), device, copy)? {
        Route::Keep => return Ok(tensor),
        Route::Copy { from, to } => (from, to),
    };
    let view = tensor.view()?;
    let copied = match (from, to) {
        (Side::Host, Side::Host) => {
            let mut out = HostBytes::for_copy(&view);
            out.bytes_mut().copy_from_slice(&host_compact(&view)?);
            ManagedTensor::from_owner(out)?
        }
        (Side::Cuda, Side::Host) => {
            let stream = copy_stream(stream, cuda_side(view.device()))?;
            let mut out = HostBytes::for_copy(&view);
            device_to_host(&view, &stream, out.bytes_mut())?;
            ManagedTensor::from_owner(out)?
        }
        (_, Side::Cuda) => {
            let stream = copy_stream(stream, Some(device))?;
            let len = compact_len(&view);
            let out = alloc_device(&stream, &view, len)?;
            // A compact device source is copied device to device; anything else is staged on
            // the host as compact bytes first.
            let staged: Option<Cow<'_, [u8]>> = match from {
                Side::Cuda if view.is_contiguous() => {
                    check_address(&view)?;
                    None
                }
                Side::Cuda => {
                    let mut bytes = vec![0; len];
                    device_to_host(&view, &stream, &mut bytes)?;
                    Some(Cow::Owned(bytes))
                }
                Side::Host => Some(host_compact(&view)?),
            };
            let src = match &staged {
                None => first_address(&view),
                Some(bytes) => bytes.as_ptr().addr() as u64,
            };
            memcpy(&stream, out.ptr, src, len)?;
            stream.synchronize().check("cuStreamSynchronize")?;
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
        let stream = copy_stream(stream, cuda_side(view.device()))?;
        let mut out = HostBytes::for_copy(view);
        device_to_host(view, &stream, out.bytes_mut())?;
        ManagedTensor::from_owner(out)?.view()?.to_vec::<T>()
    }
}

/// The `cuda:n` device whose stream copies from CUDA memory on `device`: itself, or `None`
/// for managed memory, which any device's stream can copy.
fn cuda_side(device: Device) -> Option<Device> {
    (device.device_type != DLDeviceType::CUDA_MANAGED).then_some(device)
}

/// The stream a copy involving `device` runs on: the caller's, if it is on that device (any
/// device's for `None`), or the legacy default stream of `device` (of `cuda:0` for `None`).
fn copy_stream(
    stream: Option<&Arc<CudaStream>>,
    device: Option<Device>,
) -> Result<Arc<CudaStream>, Error> {
    driver()?;
    let Some(device) = device else {
        return match stream {
            Some(stream) => Ok(Arc::clone(stream)),
            None => Ok(context(Device::cuda(0))?.default_stream()),
        };
    };
    let ordinal = ordinal(device)?;
    match stream {
        Some(stream) if stream.context().ordinal() == ordinal => Ok(Arc::clone(stream)),
        Some(stream) => Err(CudaError::WrongStream {
            stream: Device::cuda(i32::try_from(stream.context().ordinal()).unwrap_or(i32::MAX)),
            device,
        }
        .into()),
        None => Ok(context(device)?.default_stream()),
    }
}

/// The size in bytes of the compact copy of `view`.
fn compact_len(view: &TensorView<'_>) -> usize {
    if view.is_contiguous() {
        // Compact (packed sub-byte types included): the elements are exactly the byte range.
        view.byte_range().len()
    } else {
        // Validation bounds `len * itemsize` by the extent, which fits in `isize`.
        view.len() * view.dtype().itemsize()
    }
}

/// The flags of a copy: `IS_COPIED`, and the source's sub-byte padding (the bytes are the
/// same).
fn copy_flags(view: &TensorView<'_>) -> Flags {
    Flags::IS_COPIED | view.flags().intersection(Flags::IS_SUBBYTE_TYPE_PADDED)
}

/// The address of the first element of a non-empty view (`data + byte_offset`).
fn first_address(view: &TensorView<'_>) -> u64 {
    view.data_ptr()
        .addr()
        .wrapping_add(view.byte_offset() as usize) as u64
}

/// Copies the elements of `src`, whose element `[0, …, 0]` starts at byte `first`, into the
/// compact `dst`, one element per offset.
fn gather(src: &[u8], first: usize, view: &TensorView<'_>, dst: &mut [u8]) {
    let itemsize = view.dtype().itemsize();
    for (out, offset) in dst.chunks_exact_mut(itemsize).zip(view.offsets()) {
        let at = first.wrapping_add_signed(offset);
        out.copy_from_slice(&src[at..at + itemsize]);
    }
}

/// The compact bytes of a host-readable view: borrowed when it is compact already.
fn host_compact<'v>(view: &TensorView<'v>) -> Result<Cow<'v, [u8]>, Error> {
    if view.is_contiguous() {
        return Ok(Cow::Borrowed(view.as_bytes()?));
    }
    let Some(first) = view.host_first()? else {
        return Ok(Cow::Borrowed(&[]));
    };
    let range = view.byte_range();
    // SAFETY: the view is host-readable (checked by `host_first`), and its elements lie in
    // the validated byte range, which its constructor's contract makes readable and unwritten
    // while the view lives; `first` is `data + byte_offset`, so the range starts at
    // `first - (byte_offset - lo)`.
    let span = unsafe {
        let start = first.wrapping_offset(range.start - view.byte_offset() as isize);
        core::slice::from_raw_parts(start, range.len())
    };
    let mut out = vec![0; compact_len(view)];
    gather(
        span,
        view.byte_offset() as usize - range.start as usize,
        view,
        &mut out,
    );
    Ok(Cow::Owned(out))
}

/// Copies the elements of a CUDA-side view into the compact `dst` on the host, on `stream`,
/// and waits for the copy.
fn device_to_host(view: &TensorView<'_>, stream: &CudaStream, dst: &mut [u8]) -> Result<(), Error> {
    if view.is_empty() {
        return Ok(());
    }
    check_address(view)?;
    if view.is_contiguous() {
        memcpy(
            stream,
            dst.as_mut_ptr().addr() as u64,
            first_address(view),
            dst.len(),
        )?;
        return stream.synchronize().check("cuStreamSynchronize");
    }
    let range = view.byte_range();
    let mut span = vec![0; range.len()];
    let lo = view.data_ptr().addr().wrapping_add_signed(range.start) as u64;
    memcpy(stream, span.as_mut_ptr().addr() as u64, lo, span.len())?;
    stream.synchronize().check("cuStreamSynchronize")?;
    let first = (view.byte_offset() as isize - range.start) as usize;
    gather(&span, first, view, dst);
    Ok(())
}

/// New device memory on `stream`'s device for the compact copy of `view`.
fn alloc_device(
    stream: &Arc<CudaStream>,
    view: &TensorView<'_>,
    len: usize,
) -> Result<CudaBytes, Error> {
    // SAFETY: the bytes are written by the copy that follows before anyone reads them. One
    // byte at least: the driver refuses to allocate zero.
    let slice = unsafe { stream.alloc::<u8>(len.max(1)) }.check("cuMemAlloc")?;
    let ptr = {
        let (ptr, _record) = cudarc::driver::DevicePtr::device_ptr(&slice, stream);
        ptr
    };
    Ok(CudaBytes {
        _bind: BindOnDrop(Arc::clone(stream.context())),
        device: Device::cuda(i32::try_from(slice.ordinal()).unwrap_or(i32::MAX)),
        _slice: slice,
        ptr,
        dtype: view.dtype(),
        shape: view.shape().into(),
        flags: copy_flags(view),
    })
}

/// `cuMemcpyAsync` on `stream`: the driver infers the direction from the addresses (unified
/// addressing), host, device, managed or pinned.
fn memcpy(stream: &CudaStream, dst: u64, src: u64, len: usize) -> Result<(), Error> {
    driver()?;
    if len == 0 {
        return Ok(());
    }
    stream.context().bind_to_thread().check("cuCtxSetCurrent")?;
    // SAFETY: the callers pass `len` bytes they own at `dst` (a host buffer or a fresh device
    // allocation) and `len` readable bytes at `src` (a validated tensor's elements), and wait
    // on `stream` before either is released or read.
    unsafe { sys::cuMemcpyAsync(dst, src, len, stream.cu_stream()) }
        .result()
        .check("cuMemcpyAsync")
}

/// A 16-byte aligned block: host copies are aligned for every [`Element`] type.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
struct Block([u8; 16]);

/// Host memory holding a compact copy: the result of a copy to the CPU.
#[derive(Debug)]
struct HostBytes {
    blocks: Vec<Block>,
    len: usize,
    dtype: DataType,
    shape: Box<[i64]>,
    flags: Flags,
}

impl HostBytes {
    /// Zeroed memory for the compact copy of `view`.
    fn for_copy(view: &TensorView<'_>) -> Self {
        let len = compact_len(view);
        Self {
            blocks: vec![Block([0; 16]); len.div_ceil(16)],
            len,
            dtype: view.dtype(),
            shape: view.shape().into(),
            flags: copy_flags(view),
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: `blocks` is `len.div_ceil(16) * 16 >= len` initialised bytes with no padding
        // (`Block` is a byte array), borrowed mutably with `self`.
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
