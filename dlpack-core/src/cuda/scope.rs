//! Context discipline: every bind of a context is undone before control returns to the caller.
//!
//! The CUDA runtime reads the calling thread's current context as its current device: after a
//! call that left `cuda:1`'s context current, PyTorch allocates on `cuda:1`. cudarc binds the
//! context of every object it touches (allocations, copies, events, drops) and never unbinds,
//! so each entry point of this backend runs its driver work inside a [`Scope`], which saves the
//! current context, binds the one the work needs, and restores the saved one when dropped:
//! on success, on error, and in a deleter running on any thread.

use core::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::CudaContext;

use super::driver::driver;
use super::raw::{Cuda, Driver, RawContext};
use crate::error::Error;

/// The calling thread's current context, saved on entry and restored on drop.
///
/// Not `Send`: the current context is a property of the thread.
pub(crate) struct Scope<'d, D: Driver> {
    driver: &'d D,
    saved: RawContext,
    _thread: PhantomData<*const ()>,
}

impl<'d, D: Driver> Scope<'d, D> {
    /// Saves the current context and makes `context` current (when it is not already).
    ///
    /// # Safety
    ///
    /// `context` is a live context.
    pub(crate) unsafe fn enter(driver: &'d D, context: RawContext) -> Result<Self, Error> {
        let saved = driver.current()?;
        if saved != context {
            // SAFETY: live, by this function's contract.
            unsafe { driver.set_current(context) }?;
        }
        Ok(Self {
            driver,
            saved,
            _thread: PhantomData,
        })
    }

    /// Saves the current context, to restore it when dropped, and binds nothing: for work
    /// (such as cudarc's) that binds contexts of its own.
    pub(crate) fn preserve(driver: &'d D) -> Result<Self, Error> {
        Ok(Self {
            driver,
            saved: driver.current()?,
            _thread: PhantomData,
        })
    }
}

impl<D: Driver> Drop for Scope<'_, D> {
    fn drop(&mut self) {
        // Whatever the work bound (a context of its own, or one that a drop released), the
        // saved one comes back. A failure here cannot be reported: the driver keeps it for the
        // next call.
        if self
            .driver
            .current()
            .is_ok_and(|current| current != self.saved)
        {
            // SAFETY: `saved` was current when the scope began, so it is 0 or a context that
            // lives at least as long as whoever made it current keeps it bound.
            let _ = unsafe { self.driver.set_current(self.saved) };
        }
    }
}

/// The raw handle of a cudarc context.
pub(crate) fn raw_context(context: &CudaContext) -> RawContext {
    context.cu_ctx().expose_provenance()
}

/// Enters `context` with the real driver.
pub(crate) fn enter(context: &Arc<CudaContext>) -> Result<Scope<'static, Cuda>, Error> {
    driver()?;
    // SAFETY: the `Arc` keeps the context alive for the call, and the caller keeps it (or the
    // objects of it the work uses) alive while the scope lasts.
    unsafe { Scope::enter(&Cuda, raw_context(context)) }
}

/// Saves the current context with the real driver, for work that binds its own.
pub(crate) fn preserve() -> Result<Scope<'static, Cuda>, Error> {
    driver()?;
    Scope::preserve(&Cuda)
}

/// Runs `work` with `context` current on the calling thread, then makes current again the
/// context that was current before (or none), whatever `work` bound in between.
///
/// Every function of this backend does this around its own driver work. Use it around
/// cudarc calls of your own on the contexts [`context`](super::context) hands out: cudarc binds
/// the context of every object it touches and leaves it bound, and the CUDA runtime (PyTorch,
/// CuPy, JAX) takes the thread's current context as its current device.
///
/// Errors only when the driver is missing or the contexts cannot be read or bound; what `work`
/// returns is passed through.
///
/// ```
/// use dlpack_core::{Device, Error, cuda};
///
/// let Ok(context) = cuda::context(Device::cuda(0)) else {
///     return Ok(()); // no CUDA device here
/// };
/// // Allocate and upload without leaving cuda:0's context bound to this thread.
/// let slice = cuda::with_current(&context, || context.default_stream().clone_htod(&[1_u8, 2, 3]))??;
/// assert_eq!(slice.len(), 3);
/// cuda::with_current(&context, || drop(slice))?; // dropping frees on the device: bound too
/// # Ok::<(), Error>(())
/// ```
pub fn with_current<R>(context: &Arc<CudaContext>, work: impl FnOnce() -> R) -> Result<R, Error> {
    let scope = enter(context)?;
    let result = work();
    drop(scope);
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::fake::{Call, Fake};

    const OURS: RawContext = 0xa000;
    const THEIRS: RawContext = 0xb000;

    #[test]
    fn entering_binds_and_dropping_restores() {
        let fake = Fake::with_current(THEIRS);
        {
            // SAFETY: the fake checks nothing.
            let _scope = unsafe { Scope::enter(&fake, OURS) }.unwrap();
            assert_eq!(fake.current_context(), OURS);
        }
        assert_eq!(fake.current_context(), THEIRS);
        assert_eq!(
            fake.calls(),
            [
                Call::Current,
                Call::SetCurrent(OURS),
                Call::Current,
                Call::SetCurrent(THEIRS)
            ]
        );
    }

    #[test]
    fn no_context_before_means_none_after() {
        let fake = Fake::with_current(0);
        // SAFETY: the fake checks nothing.
        drop(unsafe { Scope::enter(&fake, OURS) }.unwrap());
        assert_eq!(fake.current_context(), 0);
    }

    #[test]
    fn the_current_context_is_left_alone() {
        let fake = Fake::with_current(OURS);
        // SAFETY: the fake checks nothing.
        drop(unsafe { Scope::enter(&fake, OURS) }.unwrap());
        assert_eq!(fake.calls(), [Call::Current, Call::Current]);
    }

    #[test]
    fn whatever_the_work_bound_is_undone() {
        // cudarc binds the context of what it touches: a preserving scope undoes that.
        let fake = Fake::with_current(THEIRS);
        {
            let _scope = Scope::preserve(&fake).unwrap();
            // SAFETY: the fake checks nothing.
            unsafe { fake.set_current(OURS) }.unwrap();
        }
        assert_eq!(fake.current_context(), THEIRS);
        // Nested scopes unwind in order.
        {
            // SAFETY: the fake checks nothing.
            let _outer = unsafe { Scope::enter(&fake, OURS) }.unwrap();
            {
                // SAFETY: as above.
                let _inner = unsafe { Scope::enter(&fake, 0xc000) }.unwrap();
                assert_eq!(fake.current_context(), 0xc000);
            }
            assert_eq!(fake.current_context(), OURS);
        }
        assert_eq!(fake.current_context(), THEIRS);
    }

    #[test]
    fn a_failing_work_still_restores() {
        let fake = Fake::with_current(THEIRS);
        fake.fail("wait");
        let result = (|| -> Result<(), Error> {
            // SAFETY: the fake checks nothing.
            let _scope = unsafe { Scope::enter(&fake, OURS) }?;
            // SAFETY: as above.
            unsafe { fake.wait(5, 6) }?;
            Ok(())
        })();
        assert!(result.is_err());
        assert_eq!(fake.current_context(), THEIRS);
    }

    #[test]
    fn a_failing_bind_changes_nothing() {
        let fake = Fake::with_current(THEIRS);
        fake.fail("set_current");
        // SAFETY: the fake checks nothing.
        assert!(unsafe { Scope::enter(&fake, OURS) }.is_err());
        assert_eq!(fake.current_context(), THEIRS);
        // The failed bind, and no restore after it.
        assert_eq!(fake.calls(), [Call::Current, Call::SetCurrent(OURS)]);
    }

    #[test]
    fn a_panic_in_the_work_still_restores() {
        let fake = Fake::with_current(THEIRS);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: the fake checks nothing.
            let _scope = unsafe { Scope::enter(&fake, OURS) }.unwrap();
            panic!("the work panics");
        }));
        assert!(caught.is_err());
        assert_eq!(fake.current_context(), THEIRS);
    }
}
