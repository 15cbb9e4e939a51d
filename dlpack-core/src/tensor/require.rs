//! What a typed tensor argument requires of a tensor beyond its element type and number of
//! dimensions: whether it is written, held owned, compact, and on which device. The
//! markers are type parameters of `python::TensorArg` (feature `pyo3`), which checks them
//! before a `#[pyfunction]`'s body runs.
//!
//! | marker | the argument | holds |
//! |---|---|---|
//! | [`ReadOnly`] (the default) | reads the elements, in place | a borrow of the Python object: not `Send` |
//! | [`ReadWrite`] | writes them in place; a tensor its producer flags `READ_ONLY` is refused | the imported tensor: not `Send` |
//! | [`Owned`] | reads them, without the GIL if you like (`py.detach`) | the imported tensor: `Send` |
//! | [`Compact<A>`] | as `A`, and refuses strides that are not compact row-major | as `A` |
//! | [`AnyDevice<A>`] | as `A`, on any device (for its metadata: the host reads CPU-accessible memory only) | as `A` |
//! | [`Cuda<A, ORDINAL>`](Cuda) | as `A`, on a CUDA device (any, or the one numbered `ORDINAL`), asked for on the stream rule of `__dlpack__` | as `A` |
//!
//! ```
//! use dlpack_core::tensor::require::{Compact, ReadOnly, Requirement};
//!
//! assert!(<Compact<ReadOnly> as Requirement>::COMPACT);
//! assert!(!<ReadOnly as Requirement>::WRITE);
//! ```

use core::marker::PhantomData;

/// Any number of dimensions: the default of `TensorArg`'s `NDIM`.
///
/// ```
/// assert_eq!(dlpack_core::tensor::require::ANY_NDIM, usize::MAX);
/// ```
pub const ANY_NDIM: usize = usize::MAX;

/// Reads the elements in place (the default).
///
/// ```
/// use dlpack_core::tensor::require::{ReadOnly, Requirement};
/// assert!(!ReadOnly::WRITE && !ReadOnly::OWNED);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOnly;

/// Writes the elements in place; refuses a tensor its producer flags `READ_ONLY`.
///
/// ```
/// use dlpack_core::tensor::require::{ReadWrite, Requirement};
/// assert!(ReadWrite::WRITE);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadWrite;

/// Reads the elements of a tensor held owned, so that the argument is `Send` and the body may
/// release the GIL while it reads.
///
/// ```
/// use dlpack_core::tensor::require::{Owned, Requirement};
/// assert!(Owned::OWNED);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Owned;

/// As `A`, and only compact row-major strides.
///
/// ```
/// use dlpack_core::tensor::require::{Compact, ReadWrite, Requirement};
/// assert!(<Compact<ReadWrite> as Requirement>::COMPACT && <Compact<ReadWrite> as Requirement>::WRITE);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Compact<A = ReadOnly>(PhantomData<A>);

/// As `A`, on any device: for what the metadata says (the host can read the elements of
/// CPU-accessible memory only).
///
/// ```
/// use dlpack_core::tensor::require::{AnyDevice, ReadOnly, Requirement};
/// assert!(<AnyDevice<ReadOnly> as Requirement>::ANY_DEVICE);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct AnyDevice<A = ReadOnly>(PhantomData<A>);

/// As `A`, on a CUDA device (`kDLCUDA`), the one numbered `ORDINAL` unless it is
/// [`ANY_ORDINAL`]. A CUDA tensor is asked for on the stream rule of `__dlpack__` (with feature
/// `cuda`, the legacy default stream, as PyTorch asks; see `python::import_tensor`), and lent
/// in place through an exchange table only where its producer names no current work stream.
/// The host reads none of its elements: a kernel reaches them through the view's data pointer
/// (`TensorMeta::data_ptr`), on the device. A tensor elsewhere, or on another ordinal, is a
/// `TypeError` that says where it was (`… must be a float32 tensor on cuda:1, got a float32
/// torch.Tensor with shape (4,) on cuda:0`).
///
/// ```
/// use dlpack_core::tensor::require::{ANY_ORDINAL, Cuda, Owned, Requirement};
/// assert_eq!(<Cuda as Requirement>::CUDA, Some(ANY_ORDINAL));
/// assert_eq!(<Cuda<Owned, 1> as Requirement>::CUDA, Some(1));
/// assert!(<Cuda<Owned, 1> as Requirement>::OWNED);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Cuda<A = ReadOnly, const ORDINAL: i32 = ANY_ORDINAL>(PhantomData<A>);

/// [`Cuda`]'s ordinal for "any CUDA device".
///
/// ```
/// use dlpack_core::tensor::require::{ANY_ORDINAL, Cuda, ReadOnly, Requirement};
/// assert_eq!(<Cuda<ReadOnly, ANY_ORDINAL> as Requirement>::CUDA, <Cuda as Requirement>::CUDA);
/// ```
pub const ANY_ORDINAL: i32 = -1;

/// What a marker requires: implemented by the markers of this module, and by no other type.
///
/// ```
/// use dlpack_core::tensor::require::{AnyDevice, Compact, Cuda, Owned, Requirement};
/// type Both = AnyDevice<Compact<Owned>>;
/// assert!(Both::ANY_DEVICE && Both::COMPACT && Both::OWNED && !Both::WRITE);
/// assert_eq!(Both::CUDA, None);
/// assert_eq!(<Cuda<Owned, 1>>::CUDA, Some(1));
/// ```
pub trait Requirement: sealed::Sealed {
    /// The elements are written: `READ_ONLY` is refused.
    const WRITE: bool;
    /// The tensor is held owned, and the argument is `Send`.
    const OWNED: bool;
    /// Only compact row-major strides.
    const COMPACT: bool;
    /// Any device, rather than one the host can read.
    const ANY_DEVICE: bool;
    /// A CUDA device: `Some(ordinal)`, or `Some(ANY_ORDINAL)` for any; `None` where
    /// [`ANY_DEVICE`](Self::ANY_DEVICE) decides.
    const CUDA: Option<i32> = None;
    /// What makes a borrowed argument neither `Send` nor `Sync`.
    #[doc(hidden)]
    type Holds;
}

/// What a borrowed argument holds in its type: neither `Send` nor `Sync`, and when a closure
/// that uses it is sent to another thread (`py.detach`, `std::thread::spawn`), the compiler
/// says so through [`CrossesThreads`]'s message, not as "`*const ()` cannot be shared between
/// threads safely". Not public API.
#[doc(hidden)]
pub struct Lent<B>(PhantomData<B>);

/// The one `B` of [`Lent`], which is not [`CrossesThreads`]. Not public API.
#[doc(hidden)]
pub struct Borrowed;

/// What would let a borrowed argument cross threads: implemented by nothing. Not public API.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a borrowed tensor argument cannot be used on another thread, nor inside `py.detach`",
    label = "this closure uses a `ReadOnly` or `ReadWrite` tensor argument, which borrows the Python object under the interpreter's lock",
    note = "take the argument `Owned` (`TensorArg<'_, T, NDIM, Owned>`): it holds its imported tensor, is `Send`, and may be read inside `py.detach` or on any thread",
    note = "or read what the other thread needs into memory of its own (`as_slice()?.to_vec()`) before it starts"
)]
pub trait CrossesThreads {}

// SAFETY: no type implements `CrossesThreads`, so no `Lent` is `Send` or `Sync`: these impls
// only replace the compiler's message.
unsafe impl<B: CrossesThreads> Send for Lent<B> {}
// SAFETY: as for `Send`.
unsafe impl<B: CrossesThreads> Sync for Lent<B> {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::ReadOnly {}
    impl Sealed for super::ReadWrite {}
    impl Sealed for super::Owned {}
    impl<A: Sealed> Sealed for super::Compact<A> {}
    impl<A: Sealed> Sealed for super::AnyDevice<A> {}
    impl<A: Sealed, const ORDINAL: i32> Sealed for super::Cuda<A, ORDINAL> {}
}

/// Borrowed, in place.
impl Requirement for ReadOnly {
    const WRITE: bool = false;
    const OWNED: bool = false;
    const COMPACT: bool = false;
    const ANY_DEVICE: bool = false;
    type Holds = Lent<Borrowed>;
}

/// Held, written in place.
impl Requirement for ReadWrite {
    const WRITE: bool = true;
    const OWNED: bool = false;
    const COMPACT: bool = false;
    const ANY_DEVICE: bool = false;
    type Holds = Lent<Borrowed>;
}

/// Held owned, `Send`.
impl Requirement for Owned {
    const WRITE: bool = false;
    const OWNED: bool = true;
    const COMPACT: bool = false;
    const ANY_DEVICE: bool = false;
    type Holds = ();
}

/// `A`'s, compact.
impl<A: Requirement> Requirement for Compact<A> {
    const WRITE: bool = A::WRITE;
    const OWNED: bool = A::OWNED;
    const COMPACT: bool = true;
    const ANY_DEVICE: bool = A::ANY_DEVICE;
    const CUDA: Option<i32> = A::CUDA;
    type Holds = A::Holds;
}

/// `A`'s, on any device.
impl<A: Requirement> Requirement for AnyDevice<A> {
    const WRITE: bool = A::WRITE;
    const OWNED: bool = A::OWNED;
    const COMPACT: bool = A::COMPACT;
    const ANY_DEVICE: bool = true;
    type Holds = A::Holds;
}

/// As `A`, on a CUDA device.
impl<A: Requirement, const ORDINAL: i32> Requirement for Cuda<A, ORDINAL> {
    const WRITE: bool = A::WRITE;
    const OWNED: bool = A::OWNED;
    const COMPACT: bool = A::COMPACT;
    const ANY_DEVICE: bool = true;
    const CUDA: Option<i32> = Some(ORDINAL);
    type Holds = A::Holds;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `A` requires, as `(WRITE, OWNED, COMPACT, ANY_DEVICE, CUDA)`.
    type Flags = (bool, bool, bool, bool, Option<i32>);

    fn flags<A: Requirement>() -> Flags {
        (A::WRITE, A::OWNED, A::COMPACT, A::ANY_DEVICE, A::CUDA)
    }

    /// Every marker, and each wrapper over each access, in one table: the impls carry no
    /// examples of their own, and a changed flag shows here as one row's difference.
    #[test]
    fn flags_of_every_requirement() {
        macro_rules! rows {
            ($($marker:ty => $flags:expr,)*) => {
                [$((stringify!($marker), flags::<$marker>(), $flags)),*]
            };
        }
        const F: bool = false;
        const T: bool = true;
        let rows: [(&str, Flags, Flags); 16] = rows! {
            ReadOnly => (F, F, F, F, None),
            ReadWrite => (T, F, F, F, None),
            Owned => (F, T, F, F, None),
            Compact => (F, F, T, F, None),
            Compact<ReadWrite> => (T, F, T, F, None),
            Compact<Owned> => (F, T, T, F, None),
            AnyDevice => (F, F, F, T, None),
            AnyDevice<ReadWrite> => (T, F, F, T, None),
            AnyDevice<Owned> => (F, T, F, T, None),
            AnyDevice<Compact<Owned>> => (F, T, T, T, None),
            Compact<AnyDevice<ReadWrite>> => (T, F, T, T, None),
            Cuda => (F, F, F, T, Some(ANY_ORDINAL)),
            Cuda<ReadWrite, 0> => (T, F, F, T, Some(0)),
            Cuda<Owned, 1> => (F, T, F, T, Some(1)),
            Cuda<Compact<ReadWrite>, 0> => (T, F, T, T, Some(0)),
            Compact<Cuda<Owned, 2>> => (F, T, T, T, Some(2)),
        };
        for (marker, got, want) in rows {
            assert_eq!(got, want, "{marker}");
        }
    }
}
