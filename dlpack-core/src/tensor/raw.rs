//! The RAII core shared by the versioned and the legacy managed tensor: a non-null pointer to
//! the C struct whose deleter runs exactly once, in `Drop`.

use core::ffi::c_void;
use core::marker::PhantomData;
use core::ptr::NonNull;

use super::error::TensorError;
use super::flags::Flags;
use super::validate::StridesRule;
use crate::ffi::{DLManagedTensor, DLManagedTensorVersioned, DLPackVersion, DLTensor};

/// The deleter of a managed struct.
pub(crate) type Deleter<M> = unsafe extern "C" fn(*mut M);

/// What differs between `DLManagedTensorVersioned` and the legacy `DLManagedTensor`.
pub(crate) trait Abi: Sized + 'static {
    fn dl_tensor(&self) -> &DLTensor;
    fn flags(&self) -> Flags;
    fn strides_rule(&self) -> StridesRule;
    fn deleter(&self) -> Option<Deleter<Self>>;

    /// The header of an export, or an error when the struct cannot carry `flags`.
    fn exported(
        dl_tensor: DLTensor,
        flags: Flags,
        manager_ctx: *mut c_void,
        deleter: Deleter<Self>,
    ) -> Result<Self, TensorError>;
}

impl Abi for DLManagedTensorVersioned {
    fn dl_tensor(&self) -> &DLTensor {
        &self.dl_tensor
    }

    fn flags(&self) -> Flags {
        Flags::from_bits_retain(self.flags)
    }

    fn strides_rule(&self) -> StridesRule {
        StridesRule::for_version(self.version)
    }

    fn deleter(&self) -> Option<Deleter<Self>> {
        self.deleter
    }

    fn exported(
        dl_tensor: DLTensor,
        flags: Flags,
        manager_ctx: *mut c_void,
        deleter: Deleter<Self>,
    ) -> Result<Self, TensorError> {
        Ok(Self {
            version: DLPackVersion::CURRENT,
            manager_ctx,
            deleter: Some(deleter),
            flags: flags.bits(),
            dl_tensor,
        })
    }
}

impl Abi for DLManagedTensor {
    fn dl_tensor(&self) -> &DLTensor {
        &self.dl_tensor
    }

    fn flags(&self) -> Flags {
        Flags::EMPTY
    }

    fn strides_rule(&self) -> StridesRule {
        StridesRule::NullIsCompact
    }

    fn deleter(&self) -> Option<Deleter<Self>> {
        self.deleter
    }

    /// Refuses `READ_ONLY` (a consumer would write to data it must not, as NumPy refuses too),
    /// `IS_SUBBYTE_TYPE_PADDED` on a sub-byte type (the consumer would read padded bytes as
    /// packed), and bits DLPack 1.3 does not define (a newer producer's flag may restrict use
    /// as `READ_ONLY` does, and this crate cannot tell). `IS_COPIED` is dropped: a consumer
    /// that does not know it owns the copy alone merely treats it as shared.
    fn exported(
        dl_tensor: DLTensor,
        flags: Flags,
        manager_ctx: *mut c_void,
        deleter: Deleter<Self>,
    ) -> Result<Self, TensorError> {
        let mut lost = (flags & Flags::READ_ONLY) | (flags - Flags::KNOWN);
        if dl_tensor.dtype.is_sub_byte() {
            lost |= flags & Flags::IS_SUBBYTE_TYPE_PADDED;
        }
        if !lost.is_empty() {
            return Err(TensorError::LegacyFlags { flags: lost });
        }
        Ok(Self {
            dl_tensor,
            manager_ctx,
            deleter: Some(deleter),
        })
    }
}

/// Owns one managed struct: calls its deleter (when not null) exactly once, on drop, unless
/// ownership is handed back with [`Owned::into_raw`].
///
/// Invariant: `ptr` points to a valid, aligned `M` of major version 1 (for the versioned
/// struct), which stays valid and unchanged by anyone else until the deleter runs.
pub(crate) struct Owned<M: Abi> {
    ptr: NonNull<M>,
    _owns: PhantomData<M>,
}

// SAFETY: `Owned` is used only through `&self` reads of plain-old-data fields and the deleter
// call in `Drop`, which needs `&mut self`; `from_raw`'s contract (and, for our own exports,
// `TensorOwner: Send`) makes the deleter callable from any thread. Shared references allow
// only reads of the struct and, through views, of the data, which is plain memory.
unsafe impl<M: Abi> Send for Owned<M> {}
// SAFETY: see `Send`: `&Owned` gives only reads.
unsafe impl<M: Abi> Sync for Owned<M> {}

impl<M: Abi> Owned<M> {
    /// Takes ownership of `ptr`.
    ///
    /// # Safety
    ///
    /// `ptr` must satisfy the struct invariant, ownership passes to the result (nobody else
    /// may call the deleter), and the deleter must be safe to call from any thread.
    pub(crate) unsafe fn from_raw(ptr: NonNull<M>) -> Self {
        Self {
            ptr,
            _owns: PhantomData,
        }
    }

    /// Gives ownership back without calling the deleter.
    pub(crate) fn into_raw(self) -> *mut M {
        let ptr = self.ptr.as_ptr();
        core::mem::forget(self);
        ptr
    }

    pub(crate) fn get(&self) -> &M {
        // SAFETY: the invariant: valid, aligned and unchanged while `self` lives.
        unsafe { self.ptr.as_ref() }
    }
}

impl<M: Abi> Drop for Owned<M> {
    fn drop(&mut self) {
        if let Some(deleter) = self.get().deleter() {
            // SAFETY: we own the struct and give it up here, once; the deleter is the
            // producer's own, called with the pointer it handed out.
            unsafe { deleter(self.ptr.as_ptr()) }
        }
    }
}
