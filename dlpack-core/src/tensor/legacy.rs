//! [`LegacyManagedTensor`]: [`ManagedTensor`] over the legacy (pre-1.0) `DLManagedTensor`, and
//! what only it does: the conversion to the versioned struct.

use super::export::owner::TensorOwner;
use super::managed::ManagedTensor;
use crate::error::Error;
use crate::ffi::DLManagedTensor;

/// An owned legacy DLPack tensor (`DLManagedTensor`, the `dltensor` capsule of consumers that
/// ask `__dlpack__` for `max_version < 1.0` or none): the deleter runs exactly once, on drop,
/// unless ownership is handed on with [`into_raw`](ManagedTensor::into_raw).
///
/// The legacy struct has no version and no flags. On import, a null `strides` means compact
/// row-major (it did before DLPack 1.2), a sub-byte type is packed, and nothing is read-only.
/// On export, what it cannot say is refused rather than lost: a `READ_ONLY` owner (as NumPy
/// refuses to export a read-only array this way), a padded sub-byte type, and flag bits
/// DLPack 1.3 does not define (kept by [`ManagedTensor`], but a newer producer's flag may
/// restrict use as `READ_ONLY` does, so dropping it is not known to be safe). `IS_COPIED` is
/// dropped, which is harmless: the consumer treats the copy as shared.
///
/// It is [`ManagedTensor`] over the legacy struct: the same views, raw access and release (see
/// [`Abi`](crate::tensor::Abi) for what differs). Make one with [`ManagedTensor::into_legacy`] (any
/// versioned tensor, exported from Rust or imported, without a copy) or
/// [`from_raw`](ManagedTensor::from_raw) with a `*mut DLManagedTensor` (an import).
///
/// ```
/// use dlpack_core::{LegacyManagedTensor, ManagedTensor};
///
/// let legacy: LegacyManagedTensor = ManagedTensor::from_vec(vec![1_i64, 2, 3], &[3])?.into_legacy()?;
/// assert_eq!(legacy.view()?.as_slice::<i64>()?, [1, 2, 3]);
///
/// // Converting either way wraps the original without copying the data.
/// let versioned: ManagedTensor = legacy.into_versioned()?;
/// assert_eq!(versioned.view()?.as_slice::<i64>()?, [1, 2, 3]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub type LegacyManagedTensor = ManagedTensor<DLManagedTensor>;

/// What only the legacy struct does.
impl ManagedTensor<DLManagedTensor> {
    /// Exports any [`TensorOwner`] as a legacy `DLManagedTensor`, without copying and in one
    /// allocation, for a consumer of DLPack before 1.0: what
    /// [`ManagedTensor::from_owner`] is for the versioned struct. The legacy struct has no
    /// flags, so a description that says `READ_ONLY`, padded sub-byte elements or flag bits
    /// DLPack 1.3 does not define is refused (`IS_COPIED` is dropped); on error the owner is
    /// dropped.
    ///
    /// ```
    /// use dlpack_core::LegacyManagedTensor;
    /// use dlpack_core::tensor::{Flags, TensorOwner, TensorParts};
    ///
    /// struct Bytes(Vec<u8>, Flags);
    /// // SAFETY: the Vec holds the 3 elements, owned by `Bytes` alone.
    /// unsafe impl TensorOwner for Bytes {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(self.0.as_mut_ptr(), &[3_usize]).with_flags(self.1)
    ///     }
    /// }
    ///
    /// let legacy = LegacyManagedTensor::from_legacy_owner(Bytes(vec![1, 2, 3], Flags::EMPTY))?;
    /// assert_eq!(legacy.view()?.as_slice::<u8>()?, [1, 2, 3]);
    /// let err = LegacyManagedTensor::from_legacy_owner(Bytes(vec![1, 2, 3], Flags::READ_ONLY)).unwrap_err();
    /// assert!(err.to_string().starts_with("a legacy DLManagedTensor cannot carry the flags READ_ONLY"));
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn from_legacy_owner<O: TensorOwner>(owner: O) -> Result<Self, Error> {
        Ok(Self::export_owner(owner)?)
    }

    /// Re-exports as a versioned tensor (DLPack 1.3, strides always present) without copying:
    /// the new tensor owns this one. On error this tensor is released.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, ffi::DLPackVersion};
    ///
    /// let legacy = ManagedTensor::from_vec(vec![1_u8, 2], &[2])?.into_legacy()?;
    /// let data = legacy.view()?.data_ptr();
    /// let versioned = legacy.into_versioned()?;
    /// assert_eq!(versioned.as_raw().version, DLPackVersion::CURRENT);
    /// assert_eq!(versioned.view()?.data_ptr(), data); // the same memory: no copy
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn into_versioned(self) -> Result<ManagedTensor, Error> {
        Ok(self.reexport()?)
    }
}
