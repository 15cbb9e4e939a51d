//! The driver operations whose order the backend decides, behind a small trait: [`Cuda`], the
//! real driver, and in unit tests a fake that records each call (and performs copies in host
//! memory), so that the order of binds, restores, waits, synchronisations and copies is tested
//! on machines without a GPU.
//!
//! Contexts and streams cross the trait as the values of their handles: the logic compares
//! and forwards them, and only the real driver turns them back into handles.

use core::ffi::c_void;
use core::ptr;

use cudarc::driver::{result, sys};

use super::driver::Check;
use super::plan::Block;
use crate::error::Error;

/// A `CUcontext` as its address; 0 is "no context".
pub(crate) type RawContext = usize;
/// A `CUstream` as its address: 0 and [`LEGACY`] are the legacy default stream,
/// [`PER_THREAD`] the calling thread's per-thread default stream.
pub(crate) type RawStream = usize;

/// `CU_STREAM_LEGACY`.
pub(crate) const LEGACY: RawStream = 1;
/// `CU_STREAM_PER_THREAD`.
pub(crate) const PER_THREAD: RawStream = 2;

/// The same stream under one name: the null stream is the legacy default stream in the driver
/// API.
pub(crate) const fn canonical(stream: RawStream) -> RawStream {
    if stream == 0 { LEGACY } else { stream }
}

/// One end of a copy: host memory (through a pointer) or memory the driver addresses (device,
/// managed or pinned memory, through its address in the unified address space).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    Host(*const u8),
    Device(u64),
}

/// The destination of a copy; see [`Src`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dst {
    Host(*mut u8),
    Device(u64),
}

/// One rectangular copy: `block` from `src`, into compact rows at `dst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rect {
    pub(crate) src: Src,
    pub(crate) dst: Dst,
    pub(crate) block: Block,
}

/// What the backend asks of a driver. Every method runs in the calling thread's current
/// context; callers make the right one current first ([`Scope`](super::scope::Scope)).
pub(crate) trait Driver {
    /// The calling thread's current context (`cuCtxGetCurrent`), 0 for none.
    fn current(&self) -> Result<RawContext, Error>;

    /// Makes `context` current on the calling thread (`cuCtxSetCurrent`); 0 unbinds.
    ///
    /// # Safety
    ///
    /// `context` is 0 or a live context.
    unsafe fn set_current(&self, context: RawContext) -> Result<(), Error>;

    /// Makes work queued on `waiter` from now on wait for the work queued on `record_on` so
    /// far: an event recorded on one and waited for by the other, then released.
    ///
    /// # Safety
    ///
    /// Both are live streams of the current context, or default-stream handles.
    unsafe fn wait(&self, record_on: RawStream, waiter: RawStream) -> Result<(), Error>;

    /// Blocks the host until the work queued on `stream` is done.
    ///
    /// # Safety
    ///
    /// As for [`wait`](Self::wait).
    unsafe fn synchronize(&self, stream: RawStream) -> Result<(), Error>;

    /// Blocks the host until all work of the current context is done (`cuCtxSynchronize`).
    fn synchronize_context(&self) -> Result<(), Error>;

    /// Queues `rect` on `stream`.
    ///
    /// # Safety
    ///
    /// `stream` as for [`wait`](Self::wait); the block's bytes at `src` are readable and those
    /// at `dst` writable until the copy is done, and the two do not overlap.
    unsafe fn copy(&self, rect: &Rect, stream: RawStream) -> Result<(), Error>;
}

/// The CUDA driver, loaded at run time.
///
/// Only reached after [`driver`](super::driver::driver) found a driver: cudarc panics on the
/// first call into a library that is not there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cuda;

fn stream(raw: RawStream) -> sys::CUstream {
    ptr::with_exposed_provenance_mut(raw)
}

impl Driver for Cuda {
    fn current(&self) -> Result<RawContext, Error> {
        let current = result::ctx::get_current().check("cuCtxGetCurrent")?;
        Ok(current.map_or(0, |context| context.expose_provenance()))
    }

    unsafe fn set_current(&self, context: RawContext) -> Result<(), Error> {
        // SAFETY: 0 or a live context, by this function's contract.
        unsafe { result::ctx::set_current(ptr::with_exposed_provenance_mut(context)) }
            .check("cuCtxSetCurrent")
    }

    unsafe fn wait(&self, record_on: RawStream, waiter: RawStream) -> Result<(), Error> {
        let event = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
            .check("cuEventCreate")?;
        // SAFETY: the event was just created; the streams are live by this function's contract.
        let waited = unsafe { result::event::record(event, stream(record_on)) }
            .check("cuEventRecord")
            .and_then(|()| {
                // SAFETY: as above; the event is recorded.
                unsafe {
                    result::stream::wait_event(
                        stream(waiter),
                        event,
                        sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
                    )
                }
                .check("cuStreamWaitEvent")
            });
        // SAFETY: created above and used by no one else; the driver defers the release until
        // the wait is satisfied.
        let destroyed = unsafe { result::event::destroy(event) }.check("cuEventDestroy");
        waited.and(destroyed)
    }

    unsafe fn synchronize(&self, raw: RawStream) -> Result<(), Error> {
        // SAFETY: a live stream by this function's contract.
        unsafe { result::stream::synchronize(stream(raw)) }.check("cuStreamSynchronize")
    }

    fn synchronize_context(&self) -> Result<(), Error> {
        result::ctx::synchronize().check("cuCtxSynchronize")
    }

    unsafe fn copy(&self, rect: &Rect, raw: RawStream) -> Result<(), Error> {
        let Block {
            width,
            height,
            depth,
            src_pitch,
            src_slice,
        } = rect.block;
        if height == 1 && depth == 1 {
            // One run of bytes: no pitch, so no limit on its length.
            let address = |src: Src| match src {
                Src::Host(host) => host.expose_provenance() as u64,
                Src::Device(device) => device,
            };
            let dst = match rect.dst {
                Dst::Host(host) => host.expose_provenance() as u64,
                Dst::Device(device) => device,
            };
            // SAFETY: this function's contract; with unified addressing the driver tells host
            // from device addresses itself.
            return unsafe { sys::cuMemcpyAsync(dst, address(rect.src), width, stream(raw)) }
                .result()
                .check("cuMemcpyAsync");
        }
        let (src_type, src_host, src_device) = match rect.src {
            Src::Host(host) => (sys::CUmemorytype::CU_MEMORYTYPE_HOST, host.cast(), 0),
            Src::Device(device) => (
                sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED,
                ptr::null(),
                device,
            ),
        };
        let (dst_type, dst_host, dst_device) = match rect.dst {
            Dst::Host(host) => (sys::CUmemorytype::CU_MEMORYTYPE_HOST, host.cast(), 0),
            Dst::Device(device) => (
                sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED,
                ptr::null_mut::<c_void>(),
                device,
            ),
        };
        if depth == 1 {
            let copy = sys::CUDA_MEMCPY2D {
                srcXInBytes: 0,
                srcY: 0,
                srcMemoryType: src_type,
                srcHost: src_host,
                srcDevice: src_device,
                srcArray: ptr::null_mut(),
                srcPitch: src_pitch,
                dstXInBytes: 0,
                dstY: 0,
                dstMemoryType: dst_type,
                dstHost: dst_host,
                dstDevice: dst_device,
                dstArray: ptr::null_mut(),
                dstPitch: width,
                WidthInBytes: width,
                Height: height,
            };
            // SAFETY: this function's contract covers the rows the descriptor names.
            return unsafe { sys::cuMemcpy2DAsync_v2(&copy, stream(raw)) }
                .result()
                .check("cuMemcpy2DAsync");
        }
        let copy = sys::CUDA_MEMCPY3D {
            srcXInBytes: 0,
            srcY: 0,
            srcZ: 0,
            srcLOD: 0,
            srcMemoryType: src_type,
            srcHost: src_host,
            srcDevice: src_device,
            srcArray: ptr::null_mut(),
            reserved0: ptr::null_mut(),
            srcPitch: src_pitch,
            srcHeight: src_slice / src_pitch,
            dstXInBytes: 0,
            dstY: 0,
            dstZ: 0,
            dstLOD: 0,
            dstMemoryType: dst_type,
            dstHost: dst_host,
            dstDevice: dst_device,
            dstArray: ptr::null_mut(),
            reserved1: ptr::null_mut(),
            dstPitch: width,
            dstHeight: height,
            WidthInBytes: width,
            Height: height,
            Depth: depth,
        };
        // SAFETY: as above, for the slices the descriptor names.
        unsafe { sys::cuMemcpy3DAsync_v2(&copy, stream(raw)) }
            .result()
            .check("cuMemcpy3DAsync")
    }
}
