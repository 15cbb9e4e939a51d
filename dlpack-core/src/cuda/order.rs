//! Ordering between the producer's and the consumer's streams: the wait `__dlpack__` enqueues
//! for the consumer ([`sync_for_consumer`]), and the one a release enqueues for the producer
//! before the memory is freed.

use cudarc::driver::CudaStream;

use super::driver::driver;
use super::raw::{Cuda, Driver, LEGACY, PER_THREAD, RawContext, RawStream, canonical};
use super::scope::{Scope, raw_context};
use super::stream::StreamArg;
use crate::error::Error;

/// One stream made to wait for another: an event recorded on `record_on`, waited for by
/// `waiter`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Wait {
    pub(crate) record_on: RawStream,
    pub(crate) waiter: RawStream,
}

/// What makes the work queued on `record_on` so far visible to the work queued on `waiter`
/// from now on: nothing when there is no waiter (`stream=-1`) or both are one stream, else a
/// [`Wait`].
///
/// A per-thread default stream denotes the *calling* thread's in every driver call, but the
/// work to wait for may have been queued on another thread's: the producer's on the thread that
/// wrote the tensor, the consumer's on the thread that imported it, while `__dlpack__` or the
/// deleter runs on yet another. So the event is recorded on the legacy default stream instead,
/// which waits for the work of every per-thread default stream of the context (they are
/// blocking streams): two threads' per-thread streams are never taken for one.
pub(crate) fn wait_plan(record_on: RawStream, waiter: Option<RawStream>) -> Option<Wait> {
    let waiter = canonical(waiter?);
    let record_on = match canonical(record_on) {
        PER_THREAD => LEGACY,
        other => other,
    };
    (record_on != waiter).then_some(Wait { record_on, waiter })
}

/// The producer side of `__dlpack__(stream=consumer)` with any driver: makes `producer`'s work
/// visible on the consumer's stream, in `context` (the producer's).
///
/// # Safety
///
/// `context` is live; `producer` and a handle in `consumer` are live streams of it.
pub(crate) unsafe fn sync_with<D: Driver>(
    driver: &D,
    context: RawContext,
    producer: RawStream,
    consumer: StreamArg,
) -> Result<Synced, Error> {
    let Some(wait) = wait_plan(producer, consumer.raw()) else {
        return Ok(if consumer == StreamArg::NoSync {
            Synced::NotRequested
        } else {
            Synced::SameStream
        });
    };
    // SAFETY: live, by this function's contract.
    let _scope = unsafe { Scope::enter(driver, context) }?;
    // SAFETY: as above.
    unsafe { driver.wait(wait.record_on, wait.waiter) }?;
    Ok(Synced::Waited)
}

/// What [`sync_for_consumer`] did.
///
/// ```
/// use dlpack_core::cuda::Synced;
///
/// // A producer may log it, or count the waits it enqueued.
/// let done = Synced::Waited;
/// assert_ne!(done, Synced::SameStream);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Synced {
    /// The consumer passed `-1`: nothing was done.
    NotRequested,
    /// The consumer works on the producer's stream, where the work is ordered already.
    SameStream,
    /// An event was recorded on the producer's stream and the consumer's stream waits for it.
    Waited,
}

/// The producer side of `__dlpack__(stream=consumer)`: makes the work queued so far on
/// `producer` (the stream that writes the tensor) visible to work the consumer queues on its
/// stream afterwards.
///
/// It records an event on `producer` and enqueues a wait for it on the consumer's stream
/// (`cuEventRecord` + `cuStreamWaitEvent`), then releases the event (the driver keeps it until
/// the wait is done). The host does not block, and nothing is synchronised beyond the two
/// streams. With [`StreamArg::NoSync`] or the producer's own stream it does nothing. A
/// per-thread default stream as `producer` is recorded on through the legacy default stream,
/// which waits for every thread's per-thread stream: the producer's work may have been queued on
/// another thread than this call's.
///
/// The legacy and per-thread default streams are those of `producer`'s context, which is the
/// device's primary context when it comes from [`context`](super::context): the one PyTorch,
/// CuPy and JAX use. The context current on the calling thread before the call is current
/// after it.
///
/// # Safety
///
/// When `consumer` is a [`StreamArg::Handle`] other than 0, 1 or 2, it must be a live CUDA
/// stream on the tensor's device, as the array API standard requires of the consumer that
/// passes it. The driver dereferences the handle; nothing can check it beforehand.
///
/// ```
/// use dlpack_core::{Device, Error, cuda::{self, CudaError, StreamArg, Synced}};
///
/// let context = match cuda::context(Device::cuda(0)) {
///     Ok(context) => context,
///     Err(Error::Cuda(CudaError::NoDriver | CudaError::DeviceNotFound { .. })) => {
///         eprintln!("skipping: no CUDA device");
///         return Ok(());
///     }
///     Err(other) => return Err(other),
/// };
/// let producer = cuda::with_current(&context, || context.new_stream())??;
/// // A consumer calls `__dlpack__(stream=1)`:
/// let consumer = StreamArg::try_from(Some(1))?;
/// // SAFETY: the legacy default stream needs no promise.
/// let done = unsafe { cuda::sync_for_consumer(&producer, consumer) }?;
/// assert_eq!(done, Synced::Waited);
/// # Ok::<(), Error>(())
/// ```
pub unsafe fn sync_for_consumer(
    producer: &CudaStream,
    consumer: StreamArg,
) -> Result<Synced, Error> {
    driver()?;
    // SAFETY: the stream's context lives while the stream does; a consumer handle is live by
    // this function's contract.
    unsafe {
        sync_with(
            &Cuda,
            raw_context(producer.context()),
            raw_stream(producer),
            consumer,
        )
    }
}

/// The raw handle of a cudarc stream.
pub(crate) fn raw_stream(stream: &CudaStream) -> RawStream {
    stream.cu_stream().expose_provenance()
}

/// Releases what a CUDA export owns, in `producer`'s context and after the work the consumer
/// queued on its stream before the release (`consumer`, or nothing for `None` or `-1`):
/// `producer` waits for an event recorded on the consumer's stream, and `release` then frees
/// the memory in `producer`'s order (a cudarc slice of that stream frees on it, and a
/// synchronous free waits for it).
///
/// Runs in a deleter, on any thread, where nothing can be reported: when the wait cannot be
/// enqueued (a failing driver), the release waits for the whole context instead; and the
/// context current before is current after.
///
/// # Safety
///
/// As for [`sync_with`].
pub(crate) unsafe fn release_with<D: Driver>(
    driver: &D,
    context: RawContext,
    producer: RawStream,
    consumer: Option<StreamArg>,
    release: impl FnOnce(),
) {
    // SAFETY: live, by this function's contract.
    let scope = unsafe { Scope::enter(driver, context) };
    let wait = consumer.and_then(|consumer| wait_plan(consumer.raw()?, Some(producer)));
    if let (Ok(_), Some(wait)) = (&scope, wait) {
        // SAFETY: as above.
        if unsafe { driver.wait(wait.record_on, wait.waiter) }.is_err() {
            let _ = driver.synchronize_context();
        }
    }
    release();
    drop(scope);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::fake::{Call, Fake};

    #[test]
    fn waits_are_planned_between_different_streams_only() {
        let (null, legacy, per_thread, mine, theirs) = (0, 1, 2, 0x7f00_1000, 0x7f00_2000);
        let wait = |record_on, waiter| Some(Wait { record_on, waiter });
        // -1: nothing, whatever the producer's stream.
        for producer in [null, legacy, per_thread, mine] {
            assert_eq!(wait_plan(producer, StreamArg::NoSync.raw()), None);
        }
        // The null stream and CU_STREAM_LEGACY are the same stream in the driver API.
        assert_eq!(wait_plan(null, StreamArg::LegacyDefault.raw()), None);
        assert_eq!(wait_plan(legacy, StreamArg::Handle(0).raw()), None);
        assert_eq!(wait_plan(mine, StreamArg::Handle(mine).raw()), None);
        // Different streams: wait on the consumer's raw handle.
        assert_eq!(
            wait_plan(mine, StreamArg::LegacyDefault.raw()),
            wait(mine, 1)
        );
        assert_eq!(
            wait_plan(null, StreamArg::PerThreadDefault.raw()),
            wait(1, 2)
        );
        assert_eq!(wait_plan(mine, Some(theirs)), wait(mine, theirs));
    }

    #[test]
    fn two_threads_per_thread_streams_are_not_one() {
        // A producer on a per-thread default stream may be another thread's: the event goes on
        // the legacy default stream, which waits for every thread's per-thread stream.
        assert_eq!(
            wait_plan(PER_THREAD, Some(PER_THREAD)),
            Some(Wait {
                record_on: LEGACY,
                waiter: PER_THREAD
            })
        );
        assert_eq!(
            wait_plan(PER_THREAD, Some(0x7f00_2000)),
            Some(Wait {
                record_on: LEGACY,
                waiter: 0x7f00_2000
            })
        );
        // …and a consumer on the legacy stream is ordered after it already.
        assert_eq!(wait_plan(PER_THREAD, Some(LEGACY)), None);
    }

    const CONTEXT: RawContext = 0xc0;
    const THEIRS: RawContext = 0xd0;

    #[test]
    fn the_producer_waits_in_its_context_and_restores_the_callers() {
        let fake = Fake::with_current(THEIRS);
        // SAFETY: the fake checks nothing.
        let done = unsafe { sync_with(&fake, CONTEXT, 0x5000, StreamArg::Handle(0x6000)) };
        assert_eq!(done, Ok(Synced::Waited));
        assert_eq!(
            fake.work(),
            [
                Call::SetCurrent(CONTEXT),
                Call::Wait {
                    record_on: 0x5000,
                    waiter: 0x6000
                },
                Call::SetCurrent(THEIRS),
            ]
        );
        // Nothing to do: the driver is not even asked for the current context.
        let fake = Fake::with_current(THEIRS);
        // SAFETY: as above.
        let done = unsafe { sync_with(&fake, CONTEXT, 0x5000, StreamArg::NoSync) };
        assert_eq!(done, Ok(Synced::NotRequested));
        // SAFETY: as above.
        let done = unsafe { sync_with(&fake, CONTEXT, 0, StreamArg::LegacyDefault) };
        assert_eq!(done, Ok(Synced::SameStream));
        assert_eq!(fake.calls(), []);
        // A failing wait is reported, and the caller's context still restored.
        fake.fail("wait");
        // SAFETY: as above.
        let done = unsafe { sync_with(&fake, CONTEXT, 0x5000, StreamArg::LegacyDefault) };
        assert!(done.is_err());
        assert_eq!(fake.current_context(), THEIRS);
    }

    #[test]
    fn a_release_waits_for_the_consumers_stream_first() {
        let released = core::cell::Cell::new(false);
        let fake = Fake::with_current(THEIRS);
        // SAFETY: the fake checks nothing.
        unsafe {
            release_with(
                &fake,
                CONTEXT,
                0x5000,
                Some(StreamArg::Handle(0x6000)),
                || {
                    assert_eq!(fake.current_context(), CONTEXT, "the release runs bound");
                    released.set(true);
                },
            );
        }
        assert!(released.get());
        assert_eq!(
            fake.work(),
            [
                Call::SetCurrent(CONTEXT),
                Call::Wait {
                    record_on: 0x6000,
                    waiter: 0x5000
                },
                Call::SetCurrent(THEIRS),
            ]
        );
        // The consumer's per-thread stream may be another thread's than the deleter's: the
        // legacy stream stands for it. `-1`, no stream, or the producer's own: no wait.
        for (consumer, wait) in [
            (
                Some(StreamArg::PerThreadDefault),
                vec![Call::Wait {
                    record_on: LEGACY,
                    waiter: 0x5000,
                }],
            ),
            (Some(StreamArg::NoSync), vec![]),
            (None, vec![]),
            (Some(StreamArg::Handle(0x5000)), vec![]),
        ] {
            let fake = Fake::with_current(CONTEXT);
            // SAFETY: as above.
            unsafe { release_with(&fake, CONTEXT, 0x5000, consumer, || {}) };
            assert_eq!(fake.work(), wait, "{consumer:?}");
        }
    }

    #[test]
    fn a_release_whose_wait_fails_waits_for_the_device() {
        let fake = Fake::with_current(0);
        fake.fail("wait");
        // SAFETY: the fake checks nothing.
        unsafe {
            release_with(
                &fake,
                CONTEXT,
                0x5000,
                Some(StreamArg::LegacyDefault),
                || {},
            )
        };
        assert_eq!(
            fake.work(),
            [
                Call::SetCurrent(CONTEXT),
                Call::Wait {
                    record_on: LEGACY,
                    waiter: 0x5000
                },
                Call::SynchronizeContext,
                Call::SetCurrent(0),
            ]
        );
    }
}
