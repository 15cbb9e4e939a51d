//! The two bounds the checks enforce, kept apart from the checks because the refusals
//! ([`TensorError`](super::TensorError)) quote them too: the rank an import accepts and the
//! steps the overlap search of a mutable strided view may take.

/// The most dimensions a tensor may have: 64, NumPy 2's `NPY_MAXDIMS` and the largest rank a
/// mainstream producer emits. DLPack sets no limit, but `ndim` is read before anything else
/// and bounds how much shape memory is read, so it is checked first.
///
/// ```
/// use dlpack_core::{ManagedTensor, tensor::MAX_NDIM};
///
/// let shape = [1_usize; MAX_NDIM];
/// assert_eq!(ManagedTensor::from_vec(vec![0_u8], &shape)?.view()?.ndim(), 64);
/// let err = ManagedTensor::from_vec(vec![0_u8], &[1; MAX_NDIM + 1]).unwrap_err();
/// assert_eq!(err.to_string(), "ndim is 65; expected 0 to 64");
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub const MAX_NDIM: usize = 64;

/// The most steps the exact overlap search (`import/overlap.rs`'s `decide`) takes: enumerated
/// values of `δ`, or offsets marked in a bitset of at most this many bits (128 KiB). A layout
/// it cannot decide within it is refused with
/// [`TensorError::OverlapUndecided`](super::TensorError::OverlapUndecided), which quotes it.
pub(crate) const SEARCH_BOUND: u128 = 1 << 20;
