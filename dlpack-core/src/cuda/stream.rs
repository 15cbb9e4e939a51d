//! The stream rule of `__dlpack__`: the consumer names the stream it will use the tensor on,
//! and the producer makes its pending work on the tensor visible there.
//!
//! The array API standard defines the `stream` argument of `__dlpack__` for CUDA as:
//!
//! | `stream`       | meaning                                         | [`StreamArg`]                   |
//! |----------------|-------------------------------------------------|---------------------------------|
//! | `None`         | the consumer's stream is the legacy default one | [`LegacyDefault`](StreamArg::LegacyDefault) |
//! | `1`            | the legacy default stream                       | [`LegacyDefault`](StreamArg::LegacyDefault) |
//! | `2`            | the per-thread default stream                   | [`PerThreadDefault`](StreamArg::PerThreadDefault) |
//! | `n > 2`        | a `cudaStream_t` handle on the tensor's device  | [`Handle(n)`](StreamArg::Handle) |
//! | `-1`           | do not synchronise                              | [`NoSync`](StreamArg::NoSync)   |
//! | `0`            | refused: ambiguous (legacy or per-thread?)      | an error                        |
//! | anything else  | refused                                         | an error                        |
//!
//! The producer then calls [`sync_for_consumer`]: it records an event on its own stream and
//! makes the consumer's stream wait for it (`cuEventRecord` + `cuStreamWaitEvent`). The host
//! does not wait and no other stream is touched; the device is never synchronised as a whole.

use cudarc::driver::CudaStream;

use super::driver::driver;
use super::error::CudaError;
use super::raw::{Cuda, Driver, LEGACY, PER_THREAD, RawContext, RawStream, canonical};
use super::scope::{Scope, raw_context};
use crate::error::Error;

/// The `stream` argument of `__dlpack__` for a CUDA tensor, parsed: where the consumer will
/// use the tensor.
///
/// ```
/// use dlpack_core::cuda::StreamArg;
///
/// assert_eq!(StreamArg::from_python(None)?, StreamArg::LegacyDefault);
/// assert_eq!(StreamArg::from_python(Some(1))?, StreamArg::LegacyDefault);
/// assert_eq!(StreamArg::from_python(Some(2))?, StreamArg::PerThreadDefault);
/// assert_eq!(StreamArg::from_python(Some(-1))?, StreamArg::NoSync);
/// assert_eq!(StreamArg::from_python(Some(0x5581_2000))?, StreamArg::Handle(0x5581_2000));
/// assert_eq!(
///     StreamArg::from_python(Some(0)).unwrap_err().to_string(),
///     "stream=0 is not allowed for a CUDA tensor: 0 is ambiguous; pass 1 for the legacy \
///      default stream, 2 for the per-thread default stream, or a stream handle"
/// );
/// // What a consumer passes to `__dlpack__`:
/// assert_eq!(StreamArg::PerThreadDefault.to_python(), 2);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamArg {
    /// `None` (the default) or `1`: the consumer uses the legacy default stream.
    LegacyDefault,
    /// `2`: the consumer uses the per-thread default stream of the calling thread.
    PerThreadDefault,
    /// An integer above 2: a `cudaStream_t` (`CUstream`) of the consumer's, on the tensor's
    /// device. `Handle(1)` and `Handle(2)` mean what the driver makes of those handles, the
    /// two default streams, and `Handle(0)` the null stream, which the driver API takes as
    /// the legacy default.
    Handle(usize),
    /// `-1`: the consumer asks the producer not to synchronise at all.
    NoSync,
}

/// [`LegacyDefault`](StreamArg::LegacyDefault): what `stream=None`, the standard's
/// default, means.
///
/// ```
/// use dlpack_core::cuda::StreamArg;
/// assert_eq!(StreamArg::default(), StreamArg::from_python(None)?);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl Default for StreamArg {
    fn default() -> Self {
        Self::LegacyDefault
    }
}

impl StreamArg {
    /// Parses the Python-level `stream` argument of `__dlpack__` for a CUDA tensor.
    ///
    /// Refuses `0` (the standard calls it ambiguous), negative values other than `-1`, and
    /// handles that do not fit in a pointer, with a
    /// [`CudaError::InvalidStream`] that says what is allowed.
    ///
    /// ```
    /// use dlpack_core::{Error, cuda::{CudaError, StreamArg}};
    ///
    /// assert_eq!(StreamArg::from_python(Some(2))?, StreamArg::PerThreadDefault);
    /// assert!(matches!(
    ///     StreamArg::from_python(Some(-3)),
    ///     Err(Error::Cuda(CudaError::InvalidStream { stream: -3, .. }))
    /// ));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn from_python(stream: Option<i128>) -> Result<Self, Error> {
        let Some(value) = stream else {
            return Ok(Self::LegacyDefault);
        };
        let invalid = |reason| {
            Err(CudaError::InvalidStream {
                stream: value,
                reason,
            }
            .into())
        };
        match value {
            -1 => Ok(Self::NoSync),
            0 => invalid(
                "0 is ambiguous; pass 1 for the legacy default stream, 2 for the per-thread \
                 default stream, or a stream handle",
            ),
            1 => Ok(Self::LegacyDefault),
            2 => Ok(Self::PerThreadDefault),
            v if v < 0 => invalid(
                "expected None, -1 (no synchronisation), 1 (legacy default stream), 2 \
                 (per-thread default stream) or a stream handle above 2",
            ),
            v => match usize::try_from(v) {
                Ok(handle) => Ok(Self::Handle(handle)),
                Err(_) => invalid("the stream handle does not fit in a pointer"),
            },
        }
    }

    /// The Python-level integer a consumer passes to `__dlpack__(stream=…)`: `1`, `2`, the
    /// handle, or `-1`. [`from_python`](Self::from_python) reads it back as the same value
    /// (a `Handle` of 0, 1 or 2 comes back as the default stream it denotes).
    ///
    /// ```
    /// use dlpack_core::cuda::StreamArg;
    ///
    /// assert_eq!(StreamArg::LegacyDefault.to_python(), 1);
    /// assert_eq!(StreamArg::NoSync.to_python(), -1);
    /// assert_eq!(StreamArg::Handle(0x7f00_2000).to_python(), 0x7f00_2000);
    /// ```
    pub fn to_python(self) -> i128 {
        match self.normalized() {
            Self::LegacyDefault => LEGACY as i128,
            Self::PerThreadDefault => PER_THREAD as i128,
            Self::Handle(handle) => handle as i128,
            Self::NoSync => -1,
        }
    }

    /// The argument naming `stream`: what a consumer that works on `stream` passes to the
    /// producer's `__dlpack__`.
    ///
    /// ```
    /// use dlpack_core::{Device, cuda::{self, StreamArg}};
    ///
    /// let Ok(context) = cuda::context(Device::cuda(0)) else {
    ///     return Ok(()); // no CUDA device here
    /// };
    /// assert_eq!(StreamArg::of(&context.default_stream()), StreamArg::LegacyDefault);
    /// assert_eq!(StreamArg::of(&context.per_thread_stream()), StreamArg::PerThreadDefault);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn of(stream: &CudaStream) -> Self {
        Self::Handle(stream.cu_stream().expose_provenance()).normalized()
    }

    /// The same argument with the driver's special handles named: `Handle(0 | 1)` is
    /// `LegacyDefault`, `Handle(2)` is `PerThreadDefault`.
    ///
    /// ```
    /// use dlpack_core::cuda::StreamArg;
    ///
    /// assert_eq!(StreamArg::Handle(0).normalized(), StreamArg::LegacyDefault);
    /// assert_eq!(StreamArg::Handle(2).normalized(), StreamArg::PerThreadDefault);
    /// assert_eq!(StreamArg::Handle(9).normalized(), StreamArg::Handle(9));
    /// ```
    #[must_use]
    pub const fn normalized(self) -> Self {
        match self {
            Self::Handle(0 | LEGACY) => Self::LegacyDefault,
            Self::Handle(PER_THREAD) => Self::PerThreadDefault,
            other => other,
        }
    }

    /// The raw `CUstream` value the driver takes for this argument, or `None` for
    /// [`NoSync`](Self::NoSync): `CU_STREAM_LEGACY` (1), `CU_STREAM_PER_THREAD` (2) or the
    /// handle.
    ///
    /// ```
    /// use dlpack_core::cuda::StreamArg;
    ///
    /// assert_eq!(StreamArg::LegacyDefault.raw(), Some(1));
    /// assert_eq!(StreamArg::Handle(0).raw(), Some(1)); // the null stream is the legacy one
    /// assert_eq!(StreamArg::NoSync.raw(), None);
    /// ```
    pub const fn raw(self) -> Option<usize> {
        match self.normalized() {
            Self::LegacyDefault => Some(LEGACY),
            Self::PerThreadDefault => Some(PER_THREAD),
            Self::Handle(handle) => Some(handle),
            Self::NoSync => None,
        }
    }
}

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
/// let consumer = StreamArg::from_python(Some(1))?;
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
    if scope.is_ok()
        && let Some(wait) = consumer.and_then(|consumer| wait_plan(consumer.raw()?, Some(producer)))
    {
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
    use proptest::prelude::*;

    fn reason(stream: i128) -> &'static str {
        match StreamArg::from_python(Some(stream)) {
            Err(Error::Cuda(CudaError::InvalidStream { stream: s, reason })) => {
                assert_eq!(s, stream);
                reason
            }
            other => panic!("stream={stream} gave {other:?}"),
        }
    }

    #[test]
    fn the_standard_values() {
        assert_eq!(StreamArg::from_python(None), Ok(StreamArg::LegacyDefault));
        assert_eq!(
            StreamArg::from_python(Some(1)),
            Ok(StreamArg::LegacyDefault)
        );
        assert_eq!(
            StreamArg::from_python(Some(2)),
            Ok(StreamArg::PerThreadDefault)
        );
        assert_eq!(StreamArg::from_python(Some(-1)), Ok(StreamArg::NoSync));
        assert_eq!(StreamArg::from_python(Some(3)), Ok(StreamArg::Handle(3)));
        assert_eq!(StreamArg::default(), StreamArg::LegacyDefault);
    }

    #[test]
    fn zero_and_other_negatives_are_refused() {
        assert!(reason(0).contains("ambiguous"));
        for stream in [-2, -3, i128::from(i64::MIN), i128::MIN] {
            assert!(reason(stream).starts_with("expected None, -1"), "{stream}");
        }
        let too_big = usize::MAX as i128 + 1;
        assert_eq!(
            reason(too_big),
            "the stream handle does not fit in a pointer"
        );
        assert_eq!(
            StreamArg::from_python(Some(usize::MAX as i128)),
            Ok(StreamArg::Handle(usize::MAX))
        );
    }

    #[test]
    fn messages_name_the_value() {
        let err = StreamArg::from_python(Some(-7)).unwrap_err().to_string();
        assert!(
            err.starts_with("stream=-7 is not allowed for a CUDA tensor: expected None, -1"),
            "{err}"
        );
    }

    #[test]
    fn special_handles_normalise() {
        assert_eq!(StreamArg::Handle(0).normalized(), StreamArg::LegacyDefault);
        assert_eq!(StreamArg::Handle(1).normalized(), StreamArg::LegacyDefault);
        assert_eq!(
            StreamArg::Handle(2).normalized(),
            StreamArg::PerThreadDefault
        );
        assert_eq!(StreamArg::Handle(3).normalized(), StreamArg::Handle(3));
        assert_eq!(StreamArg::Handle(0).raw(), Some(1));
        assert_eq!(StreamArg::NoSync.raw(), None);
        assert_eq!(StreamArg::LegacyDefault.to_python(), 1);
        assert_eq!(StreamArg::Handle(0).to_python(), 1);
        assert_eq!(StreamArg::NoSync.to_python(), -1);
    }

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

    proptest! {
        #[test]
        fn python_round_trip(stream in prop_oneof![-3i128..8, any::<i128>(), 0..=usize::MAX as i128]) {
            match StreamArg::from_python(Some(stream)) {
                Ok(arg) => {
                    prop_assert_eq!(arg.to_python(), stream);
                    prop_assert_eq!(StreamArg::from_python(Some(arg.to_python())), Ok(arg));
                }
                Err(_) => prop_assert!(
                    stream == 0 || stream < -1 || stream > usize::MAX as i128
                ),
            }
        }

        #[test]
        fn every_handle_round_trips(handle in any::<usize>()) {
            let arg = StreamArg::Handle(handle);
            prop_assert_eq!(StreamArg::from_python(Some(arg.to_python())), Ok(arg.normalized()));
        }
    }
}
