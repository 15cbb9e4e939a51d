//! A fake driver for the unit tests: it records every call, keeps a current context, fails on
//! request, and performs copies between host buffers, so that the order of the backend's
//! driver work is checked without a GPU.

use core::cell::{Cell, RefCell};

use super::plan::Block;
use super::raw::{Driver, Dst, RawContext, RawStream, Rect, Src};
use crate::cuda::error::CudaError;
use crate::error::Error;

/// A call the backend made, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Call {
    Current,
    SetCurrent(RawContext),
    Wait {
        record_on: RawStream,
        waiter: RawStream,
    },
    Synchronize(RawStream),
    SynchronizeContext,
    Copy {
        stream: RawStream,
        block: Block,
    },
}

/// The fake driver.
#[derive(Debug, Default)]
pub(crate) struct Fake {
    current: Cell<RawContext>,
    calls: RefCell<Vec<Call>>,
    failing: Cell<Option<&'static str>>,
}

impl Fake {
    /// A fake whose thread has `context` current.
    pub(crate) fn with_current(context: RawContext) -> Self {
        Self {
            current: Cell::new(context),
            ..Self::default()
        }
    }

    /// Makes the method `name` (and only it) fail from now on, after recording the call.
    pub(crate) fn fail(&self, name: &'static str) {
        self.failing.set(Some(name));
    }

    /// The calls so far.
    pub(crate) fn calls(&self) -> Vec<Call> {
        self.calls.borrow().clone()
    }

    /// The calls so far, without the reads of the current context.
    pub(crate) fn work(&self) -> Vec<Call> {
        self.calls()
            .into_iter()
            .filter(|call| *call != Call::Current)
            .collect()
    }

    /// The context current now.
    pub(crate) fn current_context(&self) -> RawContext {
        self.current.get()
    }

    fn record(&self, name: &'static str, call: Call) -> Result<(), Error> {
        self.calls.borrow_mut().push(call);
        if self.failing.get() == Some(name) {
            return Err(CudaError::Driver {
                call: name,
                code: 999,
                name: "CUDA_ERROR_UNKNOWN".into(),
                description: "the fake driver was told to fail".into(),
            }
            .into());
        }
        Ok(())
    }
}

impl Driver for Fake {
    fn current(&self) -> Result<RawContext, Error> {
        self.record("current", Call::Current)?;
        Ok(self.current.get())
    }

    unsafe fn set_current(&self, context: RawContext) -> Result<(), Error> {
        self.record("set_current", Call::SetCurrent(context))?;
        self.current.set(context);
        Ok(())
    }

    unsafe fn wait(&self, record_on: RawStream, waiter: RawStream) -> Result<(), Error> {
        self.record("wait", Call::Wait { record_on, waiter })
    }

    unsafe fn synchronize(&self, stream: RawStream) -> Result<(), Error> {
        self.record("synchronize", Call::Synchronize(stream))
    }

    fn synchronize_context(&self) -> Result<(), Error> {
        self.record("synchronize_context", Call::SynchronizeContext)
    }

    unsafe fn copy(&self, rect: &Rect, stream: RawStream) -> Result<(), Error> {
        self.record(
            "copy",
            Call::Copy {
                stream,
                block: rect.block,
            },
        )?;
        match (rect.src, rect.dst) {
            // SAFETY: the caller's contract for the copy.
            (Src::Host(src), Dst::Host(dst)) => unsafe { copy_on_host(src, dst, rect.block) },
            _ => panic!("the fake driver has no device memory: pass host buffers"),
        }
        Ok(())
    }
}

/// Copies `block` with the CPU, from `src` into compact rows at `dst`: what the fake driver
/// of the unit tests does for every copy (host tensors are gathered by the crate's one host
/// copy instead).
///
/// # Safety
///
/// As for [`Driver::copy`], with both ends host pointers whose provenance covers the bytes.
pub(crate) unsafe fn copy_on_host(src: *const u8, dst: *mut u8, block: Block) {
    for z in 0..block.depth {
        for y in 0..block.height {
            let from = src.wrapping_add(z * block.src_slice + y * block.src_pitch);
            let to = dst.wrapping_add((z * block.height + y) * block.width);
            // SAFETY: row `y` of slice `z` of the block, inside what the contract covers.
            unsafe { core::ptr::copy_nonoverlapping(from, to, block.width) };
        }
    }
}
