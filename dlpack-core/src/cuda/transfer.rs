//! Copies between host and device: [`to_device`], `from_dlpack(x, device=…, copy=…)` between
//! `cpu` and `cuda:n`, [`CudaTensorView::to_host_vec`], and [`sync_for_host`].

use core::ffi::c_void;
use core::mem::ManuallyDrop;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, sys};

use super::context::{context, present};
use super::copy::{CopyMode, HostSync, Route, Side, StreamOn, host_sync, route, stream_on};
use super::driver::{Check, attribute, device_count, device_of, driver, ordinal};
use super::error::CudaError;
use super::export::{CudaBytes, Pending};
use super::plan::{Block, Plan};
use super::raw::{Cuda, Driver, Dst, RawContext, RawStream, Rect, Src, copy_on_host};
use super::scope::{Scope, enter, preserve, raw_context};
use super::stream::{StreamArg, raw_stream};
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
            gather_on_host(&view, out.bytes_mut().as_mut_ptr())?;
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

/// A copy of a tensor in `cuda:n` memory on the same device, queued on `stream` (after the
/// work queued there) without waiting: what a producer exports for `__dlpack__(copy=True)`.
/// The copy keeps `tensor` until it is released itself and the copy is done; its memory is
/// freed on `stream`, after the work queued on `consumer`'s stream by then.
#[cfg_attr(not(feature = "pyo3"), allow(dead_code))]
pub(crate) fn copy_queued(
    tensor: ManagedTensor,
    stream: &Arc<CudaStream>,
    consumer: StreamArg,
) -> Result<ManagedTensor, Error> {
    let view = tensor.view()?;
    let mut out = alloc_device(view.device(), stream, &view)?;
    let copied = {
        let _scope = enter(stream.context())?;
        queue(&view, Dst::Device(out.ptr), stream)?;
        // An event after the copy: the source is released once it has passed.
        let _cudarc = preserve()?;
        stream.record_event(None).check("cuEventRecord")?
    };
    drop(view);
    out.after = Some(consumer);
    out.source = Some(Pending { tensor, copied });
    ManagedTensor::from_owner(out)
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

/// Makes the host wait until the GPU work on memory on `memory` is done, before the host reads
/// (or writes) it: for `cuda_host` (pinned) and `cuda_managed` memory, which the CPU reads in
/// place. Nothing for other devices, and nothing without a driver (no GPU work can be pending).
///
/// It waits for `stream`, the stream the producer ordered its work before (the one you named to
/// its `__dlpack__`), or the legacy default stream of `cuda:{id}` (of `cuda:0` if there is no
/// such device) when `None`, the standard's default. For managed memory on a device without
/// concurrent managed access (`CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS` is 0: Windows and
/// WSL, Jetson), the host may touch managed memory only while the device runs nothing, or the
/// access faults: there it waits for the whole context, the one wait that makes the read safe
/// (and the host must not read while other work is launched meanwhile).
///
/// The context current on the calling thread before the call is current after it.
///
/// ```
/// use dlpack_core::{Device, cuda};
///
/// // Host memory needs no wait.
/// cuda::sync_for_host(Device::CPU, None)?;
/// // Managed memory: cuda:0's legacy default stream (the whole device where managed memory
/// // has no concurrent access); nothing without a driver, where no GPU work can be pending.
/// cuda::sync_for_host(Device::CUDA_MANAGED, None)?;
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub fn sync_for_host(memory: Device, stream: Option<&Arc<CudaStream>>) -> Result<(), Error> {
    if host_sync(memory, true) == HostSync::Nothing {
        return Ok(());
    }
    if !present()? {
        return Ok(());
    }
    let stream = match stream {
        Some(stream) => Arc::clone(stream),
        None => {
            let id = usize::try_from(memory.device_id).unwrap_or(0);
            let ordinal = if id < device_count()? { id } else { 0 };
            context(Device::cuda(ordinal as i32))?.default_stream()
        }
    };
    let context = stream.context();
    let concurrent = attribute(
        context,
        sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS,
    )? != 0;
    // SAFETY: the stream and its context are held.
    unsafe {
        sync_host_with(
            &Cuda,
            raw_context(context),
            raw_stream(&stream),
            host_sync(memory, concurrent),
        )
    }
}

/// [`sync_for_host`] with any driver, once decided.
///
/// # Safety
///
/// `context` is live and `stream` a live stream of it.
pub(crate) unsafe fn sync_host_with<D: Driver>(
    driver: &D,
    context: RawContext,
    stream: RawStream,
    wait: HostSync,
) -> Result<(), Error> {
    if wait == HostSync::Nothing {
        return Ok(());
    }
    // SAFETY: live, by this function's contract.
    let _scope = unsafe { Scope::enter(driver, context) }?;
    match wait {
        // SAFETY: as above.
        HostSync::Stream => unsafe { driver.synchronize(stream) },
        _ => driver.synchronize_context(),
    }
}

/// Blocks the host until the work queued on `stream` is done, restoring the thread's context.
#[cfg_attr(not(feature = "pyo3"), allow(dead_code))]
pub(crate) fn synchronize(stream: &Arc<CudaStream>) -> Result<(), Error> {
    let _scope = enter(stream.context())?;
    // SAFETY: a stream we hold, of the current context.
    unsafe { Cuda.synchronize(raw_stream(stream)) }
}

/// Whether `stream` is one a copy from `from` to `to` may run on (see [`stream_on`]).
#[cfg_attr(not(feature = "pyo3"), allow(dead_code))]
pub(crate) fn copy_stream_fits(stream: &CudaStream, from: Device, to: Device) -> bool {
    match stream_on(from, to) {
        Some(StreamOn::Device(device)) => {
            usize::try_from(device.device_id) == Ok(stream.context().ordinal())
        }
        Some(StreamOn::Any { .. }) | None => true,
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

/// The copies that gather `view` into compact memory, and the offset of the byte they start
/// from. A compact tensor (packed sub-byte types included) is its byte range, in one run.
fn plan(view: &TensorView<'_>, max_pitch: usize) -> (Plan, isize) {
    if view.is_contiguous() {
        let range = view.byte_range();
        let len = i64::try_from(range.len()).unwrap_or(i64::MAX);
        return (Plan::new(&[len], &[1], 1, max_pitch), range.start);
    }
    let plan = Plan::new(
        view.shape(),
        view.strides(),
        view.dtype().itemsize(),
        max_pitch,
    );
    // `byte_offset <= isize::MAX` (validated with the view).
    (plan, view.byte_offset() as isize)
}

/// Queues on `stream` (whose context is current) the copies of `view`'s elements into compact
/// memory at `dst`, which holds [`compact_len`] bytes.
fn queue(view: &TensorView<'_>, dst: Dst, stream: &CudaStream) -> Result<(), Error> {
    if view.is_empty() {
        return Ok(());
    }
    check_address(view)?;
    let src = match view.device().device_type {
        DLDeviceType::CPU | DLDeviceType::CUDA_HOST => Src::Host(view.data_ptr().cast()),
        _ => Src::Device(view.data_ptr().addr() as u64),
    };
    let max_pitch = attribute(
        stream.context(),
        sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_PITCH,
    )?;
    let (plan, start) = plan(view, usize::try_from(max_pitch).unwrap_or(0));
    // SAFETY: the plan reads only the elements of the validated view, which its producer keeps
    // alive while the view lives (and the caller waits for the copies before it drops the
    // view, or keeps the source alive until they are done), and writes the `compact_len` bytes
    // at `dst`, memory the caller owns; a source handle of the same memory cannot overlap a
    // fresh destination.
    unsafe { run(&Cuda, &plan, src.offset(start), dst, raw_stream(stream)) }
}

/// Queues the copies of `plan` on `stream`: from the block starts relative to `first`, into
/// compact memory at `dst`.
///
/// # Safety
///
/// As for [`Driver::copy`], for every block of the plan.
pub(crate) unsafe fn run<D: Driver>(
    driver: &D,
    plan: &Plan,
    first: Src,
    dst: Dst,
    stream: RawStream,
) -> Result<(), Error> {
    let block = plan.block();
    for (src, at) in plan.starts() {
        let rect = Rect {
            src: first.offset(src),
            dst: dst.offset(at),
            block,
        };
        // SAFETY: this function's contract.
        unsafe { driver.copy(&rect, stream) }?;
    }
    Ok(())
}

impl Src {
    fn offset(self, bytes: isize) -> Self {
        match self {
            Self::Host(host) => Self::Host(host.wrapping_offset(bytes)),
            Self::Device(device) => Self::Device(device.wrapping_add_signed(bytes as i64)),
        }
    }
}

impl Dst {
    fn offset(self, bytes: usize) -> Self {
        match self {
            Self::Host(host) => Self::Host(host.wrapping_add(bytes)),
            Self::Device(device) => Self::Device(device.wrapping_add(bytes as u64)),
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
        && !view.is_contiguous()
        && usize::try_from(view.device().device_id) != Ok(stream.context().ordinal());
    if !across {
        queue(view, Dst::Device(dst), stream)?;
        return Ok(None);
    }
    let len = compact_len(view);
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
fn alloc_device(
    device: Device,
    stream: &Arc<CudaStream>,
    view: &TensorView<'_>,
) -> Result<CudaBytes, Error> {
    let len = compact_len(view);
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
        flags: copy_flags(view),
        after: None,
        source: None,
    })
}

/// Gathers the elements of a host-readable `view` into the compact bytes at `dst`, with the
/// CPU.
fn gather_on_host(view: &TensorView<'_>, dst: *mut u8) -> Result<(), Error> {
    if view.is_empty() {
        return Ok(());
    }
    if !Device::CPU.can_access(view.device()) {
        return Err(crate::tensor::TensorError::NotHostAccessible {
            device: view.device(),
        }
        .into());
    }
    check_address(view)?;
    let (plan, start) = plan(view, usize::MAX);
    let first = view.data_ptr().cast::<u8>().wrapping_offset(start);
    let block = plan.block();
    for (src, at) in plan.starts() {
        // SAFETY: the view is host-readable (checked above) and its elements lie in the
        // validated byte range, which its constructor's contract makes readable and unwritten
        // while the view lives (pinned memory after `sync_for_host`); the plan reads only
        // elements and writes the `compact_len` bytes at `dst`, a fresh buffer of the caller's.
        unsafe { copy_on_host(first.wrapping_offset(src), dst.wrapping_add(at), block) };
    }
    Ok(())
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
        let len = compact_len(view);
        Self {
            blocks: vec![Block16([0; 16]); len.div_ceil(16)],
            len,
            dtype: view.dtype(),
            shape: view.shape().into(),
            flags: copy_flags(view),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::fake::{Call, Fake};

    #[test]
    fn a_plan_runs_as_one_driver_copy_per_block() {
        // Column 1 of a 3 x 4 matrix of u16, and its transpose.
        let matrix: Vec<u16> = (0..12).collect();
        let fake = Fake::default();
        let plan = Plan::new(&[3], &[4], 2, usize::MAX);
        let mut column = [0_u16; 3];
        let first = matrix.as_ptr().cast::<u8>().wrapping_add(2);
        // SAFETY: the plan reads elements 1, 5 and 9 of `matrix` and writes `column`.
        unsafe {
            run(
                &fake,
                &plan,
                Src::Host(first),
                Dst::Host(column.as_mut_ptr().cast()),
                7,
            )
        }
        .unwrap();
        assert_eq!(column, [1, 5, 9]);
        assert_eq!(
            fake.calls(),
            [Call::Copy {
                stream: 7,
                block: Block {
                    width: 2,
                    height: 3,
                    depth: 1,
                    src_pitch: 8,
                    src_slice: 24
                }
            }]
        );
        let fake = Fake::default();
        let plan = Plan::new(&[4, 3], &[1, 4], 2, usize::MAX);
        let mut transposed = [0_u16; 12];
        // SAFETY: the plan reads the 12 elements of `matrix` and writes `transposed`.
        unsafe {
            run(
                &fake,
                &plan,
                Src::Host(matrix.as_ptr().cast()),
                Dst::Host(transposed.as_mut_ptr().cast()),
                7,
            )
        }
        .unwrap();
        assert_eq!(transposed, [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]);
        assert_eq!(fake.calls().len(), 4);
        // A failing copy stops the plan with the driver's error.
        let fake = Fake::default();
        fake.fail("copy");
        // SAFETY: as above.
        let failed = unsafe {
            run(
                &fake,
                &plan,
                Src::Host(matrix.as_ptr().cast()),
                Dst::Host(transposed.as_mut_ptr().cast()),
                7,
            )
        };
        assert!(failed.is_err());
        assert_eq!(fake.calls().len(), 1);
    }

    #[test]
    fn the_host_waits_in_the_streams_context() {
        let fake = Fake::with_current(0xd0);
        // SAFETY: the fake checks nothing.
        unsafe { sync_host_with(&fake, 0xc0, 0x5000, HostSync::Stream) }.unwrap();
        assert_eq!(
            fake.work(),
            [
                Call::SetCurrent(0xc0),
                Call::Synchronize(0x5000),
                Call::SetCurrent(0xd0)
            ]
        );
        let fake = Fake::with_current(0xc0);
        // SAFETY: as above.
        unsafe { sync_host_with(&fake, 0xc0, 0x5000, HostSync::Context) }.unwrap();
        assert_eq!(fake.work(), [Call::SynchronizeContext]);
        let fake = Fake::with_current(0xc0);
        // SAFETY: as above.
        unsafe { sync_host_with(&fake, 0xc0, 0x5000, HostSync::Nothing) }.unwrap();
        assert_eq!(fake.calls(), []);
    }
}
