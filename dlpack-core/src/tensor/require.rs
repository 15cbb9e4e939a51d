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

/// What a marker requires: implemented by the markers of this module, and by no other type.
///
/// ```
/// use dlpack_core::tensor::require::{AnyDevice, Compact, Owned, Requirement};
/// type Both = AnyDevice<Compact<Owned>>;
/// assert!(Both::ANY_DEVICE && Both::COMPACT && Both::OWNED && !Both::WRITE);
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
    /// What makes a borrowed argument neither `Send` nor `Sync`.
    #[doc(hidden)]
    type Holds;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::ReadOnly {}
    impl Sealed for super::ReadWrite {}
    impl Sealed for super::Owned {}
    impl<A: Sealed> Sealed for super::Compact<A> {}
    impl<A: Sealed> Sealed for super::AnyDevice<A> {}
}

/// Borrowed, in place.
impl Requirement for ReadOnly {
    const WRITE: bool = false;
    const OWNED: bool = false;
    const COMPACT: bool = false;
    const ANY_DEVICE: bool = false;
    type Holds = PhantomData<*const ()>;
}

/// Held, written in place.
impl Requirement for ReadWrite {
    const WRITE: bool = true;
    const OWNED: bool = false;
    const COMPACT: bool = false;
    const ANY_DEVICE: bool = false;
    type Holds = PhantomData<*const ()>;
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
