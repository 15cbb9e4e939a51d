//! What the versioned and the legacy managed tensor share and where they differ: [`Abi`], the
//! two C structs, and [`Owned`], a non-null pointer to one whose deleter runs exactly once, in
//! `Drop`.

use core::ffi::c_void;
use core::marker::PhantomData;
use core::ptr::NonNull;

use super::validate::StridesRule;
use crate::ffi::{
    DLManagedTensor, DLManagedTensorVersioned, DLPACK_MAJOR_VERSION, DLPackVersion, DLTensor,
};
use crate::tensor::Flags;
use crate::tensor::TensorError;

/// The deleter of a managed struct.
pub(crate) type Deleter<M> = unsafe extern "C" fn(*mut M);

/// The two managed-tensor structs of the DLPack ABI, which a [`ManagedTensor`] owns:
/// `DLManagedTensorVersioned` (DLPack 1.0 and later, the default) and the legacy
/// `DLManagedTensor`. Sealed: implemented for exactly these two.
///
/// What differs between them, and how [`ManagedTensor`] treats each:
///
/// | | `DLManagedTensorVersioned` | `DLManagedTensor` (legacy) |
/// |---|---|---|
/// | version | checked by `from_raw`: major 1 only | none |
/// | flags | as the producer wrote them | none: [`Flags::EMPTY`] |
/// | null `strides` | compact row-major before 1.2, refused from 1.2 on | compact row-major |
/// | exports | stamped 1.3, any flags | refuse `READ_ONLY` and padded sub-byte types |
///
/// [`ManagedTensor`]: crate::tensor::ManagedTensor
///
/// ```
/// use dlpack_core::{LegacyManagedTensor, ManagedTensor};
/// use dlpack_core::ffi::{DLManagedTensor, DLManagedTensorVersioned};
/// use dlpack_core::tensor::Abi;
///
/// /// The elements of a tensor of either ABI.
/// fn sum<M: Abi>(tensor: &ManagedTensor<M>) -> Result<i64, dlpack_core::Error> {
///     Ok(tensor.view()?.iter::<i64>()?.sum())
/// }
/// let versioned: ManagedTensor<DLManagedTensorVersioned> = ManagedTensor::from_vec(vec![1_i64, 2], &[2])?;
/// let legacy: ManagedTensor<DLManagedTensor> = ManagedTensor::from_vec(vec![3_i64, 4], &[2])?.into_legacy()?;
/// assert_eq!((sum(&versioned)?, sum(&legacy)?), (3, 7));
/// # let _: LegacyManagedTensor = legacy;
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub trait Abi: sealed::Managed {}

/// The versioned struct: [`ManagedTensor`](crate::tensor::ManagedTensor) with no parameter.
///
/// ```
/// use dlpack_core::{ManagedTensor, ffi::{DLManagedTensorVersioned, DLPackVersion}};
///
/// let tensor: ManagedTensor<DLManagedTensorVersioned> = ManagedTensor::from_vec(vec![1_u8], &[1])?;
/// assert_eq!(tensor.as_raw().version, DLPackVersion::CURRENT);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl Abi for DLManagedTensorVersioned {}

/// The legacy struct: [`LegacyManagedTensor`](crate::tensor::LegacyManagedTensor).
///
/// ```
/// use dlpack_core::{LegacyManagedTensor, ManagedTensor, ffi::DLManagedTensor, tensor::Flags};
///
/// let legacy: ManagedTensor<DLManagedTensor> = ManagedTensor::from_vec(vec![1_u8], &[1])?.into_legacy()?;
/// assert_eq!(legacy.flags(), Flags::EMPTY); // the struct has no flags field
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl Abi for DLManagedTensor {}

/// What [`Abi`] hides: reachable only inside the crate, so that nobody else implements it.
pub(crate) mod sealed {
    use core::ptr::NonNull;

    use crate::ffi::{DLPackVersion, DLTensor};
    use crate::tensor::import::abi::Deleter;
    use crate::tensor::{Flags, TensorError};

    /// What differs between `DLManagedTensorVersioned` and the legacy `DLManagedTensor`.
    pub trait Managed: Sized + 'static {
        /// The name of the owning type, for `Debug`.
        const NAME: &'static str;

        fn dl_tensor(&self) -> &DLTensor;
        fn flags(&self) -> Flags;
        /// The version the producer declared; `None` for the legacy struct, which has none.
        fn version(&self) -> Option<DLPackVersion>;
        fn deleter(&self) -> Option<Deleter<Self>>;

        /// Refuses a struct whose layout this crate cannot read, after releasing it through
        /// its deleter, as the specification asks of a consumer.
        ///
        /// # Safety
        ///
        /// `ptr` points to a struct handed over by its producer, whose ownership passes to
        /// this call when it refuses.
        unsafe fn refuse_unreadable(ptr: NonNull<Self>) -> Result<(), TensorError>;

        /// The header of an export, or an error when the struct cannot carry `flags`.
        fn exported(
            dl_tensor: DLTensor,
            flags: Flags,
            manager_ctx: *mut core::ffi::c_void,
            deleter: Deleter<Self>,
        ) -> Result<Self, TensorError>;
    }
}

impl sealed::Managed for DLManagedTensorVersioned {
    const NAME: &'static str = "ManagedTensor";

    fn dl_tensor(&self) -> &DLTensor {
        &self.dl_tensor
    }

    fn flags(&self) -> Flags {
        Flags::from_bits_retain(self.flags)
    }

    fn version(&self) -> Option<DLPackVersion> {
        Some(self.version)
    }

    fn deleter(&self) -> Option<Deleter<Self>> {
        self.deleter
    }

    /// A major version other than 1 means a layout this crate cannot read.
    #[inline]
    unsafe fn refuse_unreadable(ptr: NonNull<Self>) -> Result<(), TensorError> {
        // SAFETY: the caller hands over a valid struct. Field reads through the raw pointer
        // make no reference: `version` and `deleter` sit where every major version keeps them
        // ("everything until `flags` is stable"), whatever the rest of the layout.
        let (version, deleter) = unsafe { ((*ptr.as_ptr()).version, (*ptr.as_ptr()).deleter) };
        if version.major == DLPACK_MAJOR_VERSION {
            return Ok(());
        }
        if let Some(deleter) = deleter {
            // SAFETY: ownership is ours; the producer's deleter releases it, once.
            unsafe { deleter(ptr.as_ptr()) };
        }
        Err(TensorError::UnsupportedVersion { version })
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

impl sealed::Managed for DLManagedTensor {
    const NAME: &'static str = "LegacyManagedTensor";

    fn dl_tensor(&self) -> &DLTensor {
        &self.dl_tensor
    }

    fn flags(&self) -> Flags {
        Flags::EMPTY
    }

    fn version(&self) -> Option<DLPackVersion> {
        None
    }

    fn deleter(&self) -> Option<Deleter<Self>> {
        self.deleter
    }

    /// The legacy struct has no version: every one is read as it is.
    #[inline]
    unsafe fn refuse_unreadable(_: NonNull<Self>) -> Result<(), TensorError> {
        Ok(())
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

/// What a null `strides` means in `managed`: the rule of the version it declares, and compact
/// row-major for the legacy struct, which declares none.
pub(crate) fn strides_rule<M: Abi>(managed: &M) -> StridesRule {
    match managed.version() {
        Some(version) => StridesRule::for_version(version),
        None => StridesRule::NullIsCompact,
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
