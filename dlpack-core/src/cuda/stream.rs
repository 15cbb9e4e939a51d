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
//! The producer then calls [`sync_for_consumer`](super::sync_for_consumer): it records an
//! event on its own stream and makes the consumer's stream wait for it (`cuEventRecord` +
//! `cuStreamWaitEvent`). The host does not wait and no other stream is touched; the device is
//! never synchronised as a whole.

use cudarc::driver::CudaStream;

use super::raw::{LEGACY, PER_THREAD};
use crate::cuda::error::CudaError;
use crate::error::Error;

/// The `stream` argument of `__dlpack__` for a CUDA tensor, parsed: where the consumer will
/// use the tensor.
///
/// ```
/// use dlpack_core::cuda::StreamArg;
///
/// assert_eq!(StreamArg::try_from(None)?, StreamArg::LegacyDefault);
/// assert_eq!(StreamArg::try_from(Some(1))?, StreamArg::LegacyDefault);
/// assert_eq!(StreamArg::try_from(Some(2))?, StreamArg::PerThreadDefault);
/// assert_eq!(StreamArg::try_from(Some(-1))?, StreamArg::NoSync);
/// assert_eq!(StreamArg::try_from(Some(0x5581_2000))?, StreamArg::Handle(0x5581_2000));
/// assert_eq!(
///     StreamArg::try_from(Some(0)).unwrap_err().to_string(),
///     "stream=0 is not allowed for a CUDA tensor: 0 is ambiguous; pass 1 for the legacy \
///      default stream, 2 for the per-thread default stream, or a stream handle"
/// );
/// // What a consumer passes to `__dlpack__`:
/// assert_eq!(i128::from(StreamArg::PerThreadDefault), 2);
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
/// assert_eq!(StreamArg::default(), StreamArg::try_from(None)?);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl Default for StreamArg {
    fn default() -> Self {
        Self::LegacyDefault
    }
}

/// Parses the Python-level `stream` argument of `__dlpack__` for a CUDA tensor.
///
/// Refuses `0` (the standard calls it ambiguous), negative values other than `-1`, and
/// handles that do not fit in a pointer, with a
/// [`CudaError::InvalidStream`] that says what is allowed.
///
/// ```
/// use dlpack_core::{Error, cuda::{CudaError, StreamArg}};
///
/// assert_eq!(StreamArg::try_from(Some(2))?, StreamArg::PerThreadDefault);
/// assert!(matches!(
///     StreamArg::try_from(Some(-3)),
///     Err(Error::Cuda(CudaError::InvalidStream { stream: -3, .. }))
/// ));
/// # Ok::<(), Error>(())
/// ```
impl TryFrom<Option<i128>> for StreamArg {
    type Error = Error;

    fn try_from(stream: Option<i128>) -> Result<Self, Error> {
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
}

/// The Python-level integer a consumer passes to `__dlpack__(stream=…)`: `1`, `2`, the
/// handle, or `-1`. `StreamArg::try_from` reads it back as the same value (a `Handle` of 0, 1
/// or 2 comes back as the default stream it denotes).
///
/// ```
/// use dlpack_core::cuda::StreamArg;
///
/// assert_eq!(i128::from(StreamArg::LegacyDefault), 1);
/// assert_eq!(i128::from(StreamArg::NoSync), -1);
/// assert_eq!(i128::from(StreamArg::Handle(0x7f00_2000)), 0x7f00_2000);
/// ```
impl From<StreamArg> for i128 {
    fn from(arg: StreamArg) -> Self {
        match arg.normalized() {
            StreamArg::LegacyDefault => LEGACY as i128,
            StreamArg::PerThreadDefault => PER_THREAD as i128,
            StreamArg::Handle(handle) => handle as i128,
            StreamArg::NoSync => -1,
        }
    }
}

impl StreamArg {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reason(stream: i128) -> &'static str {
        match StreamArg::try_from(Some(stream)) {
            Err(Error::Cuda(CudaError::InvalidStream { stream: s, reason })) => {
                assert_eq!(s, stream);
                reason
            }
            other => panic!("stream={stream} gave {other:?}"),
        }
    }

    #[test]
    fn the_standard_values() {
        assert_eq!(StreamArg::try_from(None), Ok(StreamArg::LegacyDefault));
        assert_eq!(StreamArg::try_from(Some(1)), Ok(StreamArg::LegacyDefault));
        assert_eq!(
            StreamArg::try_from(Some(2)),
            Ok(StreamArg::PerThreadDefault)
        );
        assert_eq!(StreamArg::try_from(Some(-1)), Ok(StreamArg::NoSync));
        assert_eq!(StreamArg::try_from(Some(3)), Ok(StreamArg::Handle(3)));
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
            StreamArg::try_from(Some(usize::MAX as i128)),
            Ok(StreamArg::Handle(usize::MAX))
        );
    }

    #[test]
    fn messages_name_the_value() {
        let err = StreamArg::try_from(Some(-7)).unwrap_err().to_string();
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
        assert_eq!(i128::from(StreamArg::LegacyDefault), 1);
        assert_eq!(i128::from(StreamArg::Handle(0)), 1);
        assert_eq!(i128::from(StreamArg::NoSync), -1);
    }

    proptest! {
        #[test]
        fn python_round_trip(stream in prop_oneof![-3i128..8, any::<i128>(), 0..=usize::MAX as i128]) {
            match StreamArg::try_from(Some(stream)) {
                Ok(arg) => {
                    prop_assert_eq!(i128::from(arg), stream);
                    prop_assert_eq!(StreamArg::try_from(Some(i128::from(arg))), Ok(arg));
                }
                Err(_) => prop_assert!(
                    stream == 0 || stream < -1 || stream > usize::MAX as i128
                ),
            }
        }

        #[test]
        fn every_handle_round_trips(handle in any::<usize>()) {
            let arg = StreamArg::Handle(handle);
            prop_assert_eq!(StreamArg::try_from(Some(i128::from(arg))), Ok(arg.normalized()));
        }
    }
}
