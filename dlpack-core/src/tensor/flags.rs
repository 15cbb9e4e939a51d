//! [`Flags`]: the `flags` word of `DLManagedTensorVersioned` as a typed bitset.

use core::fmt;
use core::ops::{BitAnd, BitOr, BitOrAssign, Sub};

use crate::ffi;

/// The `flags` of a versioned managed tensor: `READ_ONLY`, `IS_COPIED` and
/// `IS_SUBBYTE_TYPE_PADDED`.
///
/// Bits this crate does not know (set by a producer newer than DLPack 1.3) are kept, not
/// dropped: [`Flags::from_bits_retain`] and [`Flags::bits`] round-trip every `u64`, and
/// [`Debug`](fmt::Debug) prints them in hex. Views ignore them; a legacy export, which has no
/// flags word, refuses them rather than drop what it cannot interpret.
///
/// Both sides honour the flags: an export of a shared owner (`Arc<[T]>`, `ArcArray`) sets
/// `READ_ONLY` and a copy sets `IS_COPIED`; on import, [`view_mut`](crate::ManagedTensor::view_mut)
/// refuses a `READ_ONLY` tensor and validation reads sub-byte element types as padded (one
/// element per byte) or packed according to `IS_SUBBYTE_TYPE_PADDED`.
///
/// ```
/// use dlpack_core::tensor::Flags;
///
/// let flags = Flags::READ_ONLY | Flags::IS_COPIED;
/// assert!(flags.contains(Flags::READ_ONLY));
/// assert!(!flags.contains(Flags::IS_SUBBYTE_TYPE_PADDED));
/// assert_eq!(flags.bits(), 0b011);
/// assert_eq!(format!("{flags:?}"), "Flags(READ_ONLY | IS_COPIED)");
/// assert_eq!(format!("{:?}", Flags::from_bits_retain(0x11)), "Flags(READ_ONLY | 0x10)");
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags(u64);

impl Flags {
    /// No flag set: what an export of an owned `Vec` carries (writable, not a copy).
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, tensor::Flags};
    /// let tensor = ManagedTensor::from_vec(vec![1_u8, 2], &[2])?;
    /// assert_eq!(tensor.flags(), Flags::EMPTY);
    /// assert!(Flags::EMPTY.is_empty());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub const EMPTY: Self = Self(0);
    /// `DLPACK_FLAG_BITMASK_READ_ONLY`: the consumer must not write through the tensor.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dlpack_core::{ManagedTensor, tensor::Flags};
    ///
    /// // Other clones of the Arc may read the data, so the export is read-only...
    /// let mut tensor = ManagedTensor::from_arc(Arc::from(vec![1_u8, 2]), &[2])?;
    /// assert_eq!(tensor.flags(), Flags::READ_ONLY);
    /// // ...and a mutable view of it is refused.
    /// assert!(tensor.view_mut().is_err());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub const READ_ONLY: Self = Self(ffi::DLPACK_FLAG_BITMASK_READ_ONLY);
    /// `DLPACK_FLAG_BITMASK_IS_COPIED`: the producer made a copy that the consumer owns alone
    /// until it calls the deleter.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, from_dlpack, tensor::Flags};
    ///
    /// // `from_dlpack` borrows the Vec, so the tensor holds a copy of its elements.
    /// let data = vec![1.5_f32, 2.5];
    /// let tensor: ManagedTensor = from_dlpack(&data)?;
    /// assert_eq!(tensor.flags(), Flags::IS_COPIED);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub const IS_COPIED: Self = Self(ffi::DLPACK_FLAG_BITMASK_IS_COPIED);
    /// `DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED`: elements of a sub-byte type (`float4_e2m1fn`,
    /// `int4`, …) take one byte each instead of sharing bytes.
    ///
    /// ```
    /// use dlpack_core::{DataType, Device, ManagedTensor};
    /// use dlpack_core::tensor::{Flags, TensorOwner, TensorParts};
    ///
    /// // Four float4_e2m1fn values, one per byte.
    /// struct Padded(Vec<u8>);
    /// // SAFETY: the Vec's 4 bytes hold the 4 padded elements, owned by `Padded` alone.
    /// unsafe impl TensorOwner for Padded {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         let data = self.0.as_mut_ptr().cast();
    ///         TensorParts::new(data, Device::CPU, DataType::FLOAT4_E2M1FN, &[4_usize])
    ///             .with_flags(Flags::IS_SUBBYTE_TYPE_PADDED)
    ///     }
    /// }
    /// let tensor = ManagedTensor::from_owner(Padded(vec![0x1, 0x2, 0x3, 0x4]))?;
    /// let view = tensor.view()?;
    /// assert!(!view.is_packed());
    /// assert_eq!(view.as_bytes()?, [0x1, 0x2, 0x3, 0x4]); // packed, they would take 2 bytes
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub const IS_SUBBYTE_TYPE_PADDED: Self = Self(ffi::DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED);
    /// Every flag DLPack 1.3 defines; the bits outside it come from a newer producer.
    pub(crate) const KNOWN: Self =
        Self(Self::READ_ONLY.0 | Self::IS_COPIED.0 | Self::IS_SUBBYTE_TYPE_PADDED.0);

    /// No flag set: [`EMPTY`](Self::EMPTY), spelled as the `bitflags` crate spells it.
    ///
    /// ```
    /// use dlpack_core::tensor::Flags;
    /// assert_eq!(Flags::empty(), Flags::EMPTY);
    /// assert_eq!(Flags::empty() | Flags::READ_ONLY, Flags::READ_ONLY);
    /// ```
    #[inline]
    pub const fn empty() -> Self {
        Self::EMPTY
    }

    /// The flags of a raw `flags` word, unknown bits included.
    ///
    /// ```
    /// use dlpack_core::tensor::Flags;
    /// let flags = Flags::from_bits_retain(0b011);
    /// assert_eq!(flags, Flags::READ_ONLY | Flags::IS_COPIED);
    /// assert_eq!(Flags::from_bits_retain(1 << 40).bits(), 1 << 40); // kept, not dropped
    /// ```
    #[inline]
    pub const fn from_bits_retain(bits: u64) -> Self {
        Self(bits)
    }

    /// The raw `flags` word.
    ///
    /// ```
    /// use dlpack_core::{ffi, tensor::Flags};
    /// assert_eq!(Flags::READ_ONLY.bits(), ffi::DLPACK_FLAG_BITMASK_READ_ONLY);
    /// assert_eq!((Flags::READ_ONLY | Flags::IS_SUBBYTE_TYPE_PADDED).bits(), 0b101);
    /// ```
    #[inline]
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Whether no bit is set.
    ///
    /// ```
    /// use dlpack_core::tensor::Flags;
    /// assert!(Flags::EMPTY.is_empty());
    /// assert!(!Flags::IS_COPIED.is_empty());
    /// assert!(!Flags::from_bits_retain(0x100).is_empty()); // unknown bits count too
    /// ```
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every bit of `other` is set in `self`.
    ///
    /// ```
    /// use dlpack_core::tensor::Flags;
    /// let flags = Flags::READ_ONLY | Flags::IS_COPIED;
    /// assert!(flags.contains(Flags::READ_ONLY));
    /// assert!(!Flags::READ_ONLY.contains(flags));
    /// assert!(flags.contains(Flags::EMPTY));
    /// ```
    #[inline]
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }
}

/// The bits set in either.
///
/// ```
/// use dlpack_core::tensor::Flags;
/// let flags = Flags::READ_ONLY | Flags::IS_COPIED;
/// assert_eq!(flags.bits(), 0b011);
/// ```
impl BitOr for Flags {
    type Output = Self;
    #[inline]
    fn bitor(self, rhs: Self) -> Self {
        Self(self.0 | rhs.0)
    }
}

/// Sets the bits of the right-hand side.
///
/// ```
/// use dlpack_core::tensor::Flags;
/// let mut flags = Flags::EMPTY;
/// flags |= Flags::IS_COPIED;
/// assert_eq!(flags, Flags::IS_COPIED);
/// ```
impl BitOrAssign for Flags {
    #[inline]
    fn bitor_assign(&mut self, rhs: Self) {
        self.0 |= rhs.0;
    }
}

/// The bits set in both.
///
/// ```
/// use dlpack_core::tensor::Flags;
/// let flags = Flags::READ_ONLY | Flags::IS_COPIED;
/// assert_eq!(flags & Flags::READ_ONLY, Flags::READ_ONLY);
/// assert_eq!(flags & Flags::IS_SUBBYTE_TYPE_PADDED, Flags::EMPTY);
/// ```
impl BitAnd for Flags {
    type Output = Self;
    #[inline]
    fn bitand(self, rhs: Self) -> Self {
        Self(self.0 & rhs.0)
    }
}

/// The bits of the left-hand side that are not in the right-hand side.
///
/// ```
/// use dlpack_core::tensor::Flags;
/// let flags = Flags::READ_ONLY | Flags::IS_COPIED;
/// assert_eq!(flags - Flags::READ_ONLY, Flags::IS_COPIED);
/// ```
impl Sub for Flags {
    type Output = Self;
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        Self(self.0 & !rhs.0)
    }
}

impl fmt::Debug for Flags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Flags(")?;
        fmt::Display::fmt(self, f)?;
        f.write_str(")")
    }
}

impl fmt::Display for Flags {
    /// `READ_ONLY | IS_COPIED`, unknown bits in hex, or `empty`.
    ///
    /// ```
    /// use dlpack_core::tensor::Flags;
    /// assert_eq!((Flags::READ_ONLY | Flags::IS_COPIED).to_string(), "READ_ONLY | IS_COPIED");
    /// assert_eq!(Flags::from_bits_retain(0x21).to_string(), "READ_ONLY | 0x20");
    /// assert_eq!(Flags::EMPTY.to_string(), "empty");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("empty");
        }
        let mut first = true;
        let mut sep = |f: &mut fmt::Formatter<'_>| {
            let s = if first { "" } else { " | " };
            first = false;
            f.write_str(s)
        };
        for (flag, name) in [
            (Self::READ_ONLY, "READ_ONLY"),
            (Self::IS_COPIED, "IS_COPIED"),
            (Self::IS_SUBBYTE_TYPE_PADDED, "IS_SUBBYTE_TYPE_PADDED"),
        ] {
            if self.contains(flag) {
                sep(f)?;
                f.write_str(name)?;
            }
        }
        let unknown = *self - Self::KNOWN;
        if !unknown.is_empty() {
            sep(f)?;
            write!(f, "{:#x}", unknown.0)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::prelude::rust_2024::*;

    #[test]
    fn bits_match_the_header() {
        assert_eq!(Flags::READ_ONLY.bits(), 1);
        assert_eq!(Flags::IS_COPIED.bits(), 2);
        assert_eq!(Flags::IS_SUBBYTE_TYPE_PADDED.bits(), 4);
        assert_eq!(Flags::KNOWN.bits(), 7);
    }

    #[test]
    fn set_operations() {
        let mut f = Flags::EMPTY;
        assert!(f.is_empty());
        f |= Flags::IS_COPIED;
        f |= Flags::READ_ONLY;
        assert_eq!(f, Flags::READ_ONLY | Flags::IS_COPIED);
        assert_eq!(f & Flags::READ_ONLY, Flags::READ_ONLY);
        assert_eq!(f - Flags::READ_ONLY, Flags::IS_COPIED);
        f = f - Flags::IS_COPIED;
        assert_eq!(f, Flags::READ_ONLY);
        assert!(!f.contains(Flags::READ_ONLY | Flags::IS_COPIED));
        assert_eq!(Flags::from_bits_retain(u64::MAX).bits(), u64::MAX);
    }

    #[test]
    fn display() {
        assert_eq!(Flags::EMPTY.to_string(), "empty");
        assert_eq!(
            Flags::KNOWN.to_string(),
            "READ_ONLY | IS_COPIED | IS_SUBBYTE_TYPE_PADDED"
        );
        assert_eq!(Flags::from_bits_retain(0x100).to_string(), "0x100");
    }
}
