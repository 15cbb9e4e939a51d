//! Host-device copies with the `copy` semantics of the array API's
//! `from_dlpack(x, /, *, device=None, copy=None)`.

use core::ffi::c_void;
use std::borrow::Cow;
use std::sync::Arc;

use cudarc::driver::{CudaStream, sys};

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

/// The `copy` argument of `from_dlpack`: whether the result may, must not, or must be a copy.
///
/// ```
/// use dlpack_core::cuda::CopyMode;
///
/// assert_eq!(CopyMode::from_python(None), CopyMode::IfNeeded);
/// assert_eq!(CopyMode::from_python(Some(false)), CopyMode::Never);
/// assert_eq!(CopyMode::from(Some(true)), CopyMode::Always);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopyMode {
    /// `copy=None`: share the memory when the target device can read it, copy otherwise.
    IfNeeded,
    /// `copy=False`: share the memory, or fail with
    /// [`CudaError::CopyRequired`] when the target device cannot read it.
    Never,
    /// `copy=True`: always copy; the result is flagged `IS_COPIED`.
    Always,
}

/// [`IfNeeded`](CopyMode::IfNeeded): what `copy=None`, the standard's default, means.
///
/// ```
/// use dlpack_core::cuda::CopyMode;
/// assert_eq!(CopyMode::default(), CopyMode::from_python(None));
/// ```
impl Default for CopyMode {
    fn default() -> Self {
        Self::IfNeeded
    }
}

impl CopyMode {
    /// From the Python-level `copy` argument.
    ///
    /// ```
    /// use dlpack_core::cuda::CopyMode;
    /// assert_eq!(CopyMode::from_python(Some(false)), CopyMode::Never);
    /// ```
    pub const fn from_python(copy: Option<bool>) -> Self {
        match copy {
            None => Self::IfNeeded,
            Some(false) => Self::Never,
            Some(true) => Self::Always,
        }
    }

    /// Back to the Python-level value.
    ///
    /// ```
    /// use dlpack_core::cuda::CopyMode;
    /// assert_eq!(CopyMode::Always.to_python(), Some(true));
    /// assert_eq!(CopyMode::IfNeeded.to_python(), None);
    /// ```
    pub const fn to_python(self) -> Option<bool> {
        match self {
            Self::IfNeeded => None,
            Self::Never => Some(false),
            Self::Always => Some(true),
        }
    }
}

/// [`CopyMode::from_python`].
///
/// ```
/// use dlpack_core::cuda::CopyMode;
/// let copy: CopyMode = Some(true).into();
/// assert_eq!(copy, CopyMode::Always);
/// ```
impl From<Option<bool>> for CopyMode {
    fn from(copy: Option<bool>) -> Self {
        Self::from_python(copy)
    }
}

/// Which side of the host-device divide a device's memory is on, for copying.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// Readable by the CPU: `cpu`, `cuda_host`; copied with plain memory copies.
    Host,
    /// CUDA memory the CPU may not read directly: `cuda:n` and `cuda_managed` (which the
    /// driver copies safely whatever the GPU is doing); copied by the driver.
    Cuda,
}

impl Side {
    fn of(device: Device) -> Option<Self> {
        match device.device_type {
            DLDeviceType::CPU | DLDeviceType::CUDA_HOST => Some(Self::Host),
            DLDeviceType::CUDA | DLDeviceType::CUDA_MANAGED => Some(Self::Cuda),
            _ => None,
        }
    }
}

/// What [`to_device`](super::to_device) does with a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// Hand the tensor back as it is: the target reads its memory.
    Keep,
    /// Copy from `from` to new memory on the target (`cpu` or `cuda:n`).
    Copy { from: Side, to: Side },
}

/// Decides the route: the pure part of `to_device`, shared by its tests.
///
/// Targets are `cpu` and `cuda:n`, plus any device that can already read the tensor when no
/// copy is asked for. Sources are host memory (`cpu`, `cuda_host`) and CUDA memory (`cuda:n`,
/// `cuda_managed`).
pub(crate) fn route(from: Device, to: Device, copy: CopyMode) -> Result<Route, Error> {
    let readable = to.can_access(from);
    match copy {
        CopyMode::IfNeeded | CopyMode::Never if readable => return Ok(Route::Keep),
        CopyMode::Never => return Err(CudaError::CopyRequired { from, to }.into()),
        CopyMode::IfNeeded | CopyMode::Always => {}
    }
    let target = match to.device_type {
        DLDeviceType::CPU => Side::Host,
        DLDeviceType::CUDA => Side::Cuda,
        _ => {
            return Err(CudaError::UnsupportedDevice {
                device: to,
                expected: "cpu or a cuda:n device as the target of a copy",
            }
            .into());
        }
    };
    let Some(source) = Side::of(from) else {
        return Err(CudaError::UnsupportedDevice {
            device: from,
            expected: "a tensor in host or CUDA memory (cpu, cuda_host, cuda:n, cuda_managed)",
        }
        .into());
    };
    Ok(Route::Copy {
        from: source,
        to: target,
    })
}

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

#[cfg(test)]
mod tests {
    use super::*;

    const CPU: Device = Device::CPU;
    const PINNED: Device = Device::CUDA_HOST;
    const MANAGED: Device = Device::CUDA_MANAGED;
    const GPU0: Device = Device::cuda(0);
    const GPU1: Device = Device::cuda(1);
    const fn copy(from: Side, to: Side) -> Route {
        Route::Copy { from, to }
    }

    #[test]
    fn copy_none_shares_what_the_target_reads() {
        let keep = Ok(Route::Keep);
        assert_eq!(route(CPU, CPU, CopyMode::IfNeeded), keep);
        assert_eq!(route(PINNED, CPU, CopyMode::IfNeeded), keep);
        assert_eq!(route(MANAGED, CPU, CopyMode::IfNeeded), keep);
        assert_eq!(route(GPU0, GPU0, CopyMode::IfNeeded), keep);
        assert_eq!(route(PINNED, GPU0, CopyMode::IfNeeded), keep);
        assert_eq!(route(MANAGED, GPU1, CopyMode::IfNeeded), keep);
        // … and copies what it does not.
        assert_eq!(
            route(GPU0, CPU, CopyMode::IfNeeded),
            Ok(copy(Side::Cuda, Side::Host))
        );
        assert_eq!(
            route(CPU, GPU0, CopyMode::IfNeeded),
            Ok(copy(Side::Host, Side::Cuda))
        );
        assert_eq!(
            route(GPU0, GPU1, CopyMode::IfNeeded),
            Ok(copy(Side::Cuda, Side::Cuda))
        );
    }

    #[test]
    fn copy_false_refuses_what_needs_a_copy() {
        assert_eq!(route(PINNED, CPU, CopyMode::Never), Ok(Route::Keep));
        for (from, to) in [(GPU0, CPU), (CPU, GPU0), (GPU0, GPU1)] {
            let err = route(from, to, CopyMode::Never).unwrap_err();
            assert_eq!(err, Error::Cuda(CudaError::CopyRequired { from, to }));
        }
        assert_eq!(
            route(GPU0, CPU, CopyMode::Never).unwrap_err().to_string(),
            "copy=False, but a tensor on cuda:0 cannot be used on cpu without a copy"
        );
    }

    #[test]
    fn copy_true_always_copies() {
        let always = CopyMode::Always;
        assert_eq!(route(CPU, CPU, always), Ok(copy(Side::Host, Side::Host)));
        assert_eq!(route(PINNED, CPU, always), Ok(copy(Side::Host, Side::Host)));
        assert_eq!(
            route(MANAGED, CPU, always),
            Ok(copy(Side::Cuda, Side::Host))
        );
        assert_eq!(route(GPU0, GPU0, always), Ok(copy(Side::Cuda, Side::Cuda)));
        assert_eq!(route(CPU, GPU1, always), Ok(copy(Side::Host, Side::Cuda)));
    }

    #[test]
    fn other_devices_are_refused_with_the_reason() {
        let err = route(Device::rocm(0), CPU, CopyMode::IfNeeded).unwrap_err();
        assert!(
            err.to_string().starts_with(
                "rocm:0 is not supported here: expected a tensor in host or CUDA memory"
            ),
            "{err}"
        );
        let err = route(CPU, PINNED, CopyMode::Always).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("cuda_host is not supported here: expected cpu or a cuda:n"),
            "{err}"
        );
        let err = route(GPU0, Device::rocm(0), CopyMode::IfNeeded).unwrap_err();
        assert!(
            err.to_string().contains("expected cpu or a cuda:n device"),
            "{err}"
        );
        // A target that already reads the memory needs no support for copies.
        assert_eq!(route(CPU, PINNED, CopyMode::IfNeeded), Ok(Route::Keep));
    }
}
