//! [`LegacyManagedTensor`]: an owned legacy (pre-1.0) `DLManagedTensor`.

use core::fmt;
use core::ptr::NonNull;

use super::error::TensorError;
use super::export::{self, ByOwner, Reexport, Shaped};
use super::flags::Flags;
use super::owned::ManagedTensor;
use super::owner::TensorOwner;
use super::raw::{Abi, Owned};
use super::view::TensorView;
use super::view_mut::TensorViewMut;
use crate::data_type::DataType;
use crate::device::Device;
use crate::element::Element;
use crate::error::Error;
use crate::ffi::{DLManagedTensor, DLManagedTensorVersioned};

/// An owned legacy DLPack tensor (`DLManagedTensor`, the `dltensor` capsule of consumers that
/// ask `__dlpack__` for `max_version < 1.0` or none): the deleter runs exactly once, on drop,
/// unless ownership is handed on with [`into_raw`](Self::into_raw).
///
/// The legacy struct has no version and no flags. On import, a null `strides` means compact
/// row-major (it did before DLPack 1.2), a sub-byte type is packed, and nothing is read-only.
/// On export, what it cannot say is refused rather than lost: a `READ_ONLY` owner (as NumPy
/// refuses to export a read-only array this way) and a padded sub-byte type. `IS_COPIED` is
/// dropped, which is harmless: the consumer treats the copy as shared.
///
/// ```
/// use dlpack_core::{LegacyManagedTensor, ManagedTensor};
///
/// let legacy = LegacyManagedTensor::from_vec(vec![1_i64, 2, 3], &[3])?;
/// assert_eq!(legacy.view()?.as_slice::<i64>()?, [1, 2, 3]);
///
/// // Converting either way wraps the original without copying the data.
/// let versioned: ManagedTensor = legacy.into_versioned()?;
/// assert_eq!(versioned.view()?.as_slice::<i64>()?, [1, 2, 3]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub struct LegacyManagedTensor(Owned<DLManagedTensor>);

impl LegacyManagedTensor {
    /// Exports a `Vec` with `shape`, compact row-major, without copying.
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Self, Error> {
        let how = Shaped::new(shape, data.len())?;
        Ok(Self(export::export(data, &how)?))
    }

    /// Exports a boxed slice with `shape`, compact row-major, without copying.
    pub fn from_boxed<T: Element>(data: Box<[T]>, shape: &[usize]) -> Result<Self, Error> {
        Self::from_vec(data.into_vec(), shape)
    }

    /// Exports any [`TensorOwner`] without copying; refuses (and drops) an owner whose flags
    /// the legacy struct cannot carry.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dlpack_core::{LegacyManagedTensor, ManagedTensor};
    ///
    /// // A shared slice is exported READ_ONLY, which only a versioned tensor can say.
    /// let shared = ManagedTensor::from_arc(Arc::from(vec![1_u8]), &[1])?;
    /// let err = shared.into_legacy().unwrap_err();
    /// assert!(err.to_string().starts_with("a legacy DLManagedTensor cannot carry the flags READ_ONLY"));
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn from_owner<O: TensorOwner>(owner: O) -> Result<Self, Error> {
        Ok(Self(export::export(owner, &ByOwner)?))
    }

    /// Takes ownership of a legacy managed tensor from a producer (a `dltensor` capsule, a C
    /// API, [`into_raw`](Self::into_raw)). Null is refused; the metadata is validated later,
    /// by [`view`](Self::view).
    ///
    /// # Safety
    ///
    /// As [`ManagedTensor::from_raw`]: `ptr` is null or a `DLManagedTensor` whose ownership
    /// passes to this call; the struct, its arrays and the data stay valid until the deleter
    /// runs, nobody else writes the data while a view exists, and the deleter may be called
    /// from any thread.
    pub unsafe fn from_raw(ptr: *mut DLManagedTensor) -> Result<Self, Error> {
        match NonNull::new(ptr) {
            // SAFETY: a valid struct handed over with the guarantees `Owned` needs.
            Some(ptr) => Ok(Self(unsafe { Owned::from_raw(ptr) })),
            None => Err(TensorError::NullPointer.into()),
        }
    }

    /// Hands ownership to the caller, who must call the deleter exactly once, or pass the
    /// pointer back to [`from_raw`](Self::from_raw).
    pub fn into_raw(self) -> *mut DLManagedTensor {
        self.0.into_raw()
    }

    /// The C struct, to read.
    pub fn as_raw(&self) -> &DLManagedTensor {
        self.0.get()
    }

    /// The device the data lives on.
    pub fn device(&self) -> Device {
        self.0.get().dl_tensor.device
    }

    /// The data type of the elements, as the producer wrote it.
    pub fn dtype(&self) -> DataType {
        self.0.get().dl_tensor.dtype
    }

    /// A validated read-only view (null strides read as compact row-major).
    pub fn view(&self) -> Result<TensorView<'_>, Error> {
        let m = self.0.get();
        // SAFETY: `from_raw`'s contract (or our own export) keeps the metadata and data valid
        // and unchanged while `self` lives.
        Ok(unsafe { TensorView::new(&m.dl_tensor, Flags::EMPTY, m.strides_rule())? })
    }

    /// A validated mutable view. A legacy tensor cannot be flagged read-only; producers that
    /// need that refuse to export legacy tensors.
    pub fn view_mut(&mut self) -> Result<TensorViewMut<'_>, Error> {
        let m = self.0.get();
        // SAFETY: as for `view`, with `&mut self` for exclusivity on our side.
        Ok(unsafe { TensorViewMut::new(&m.dl_tensor, Flags::EMPTY, m.strides_rule())? })
    }

    /// Re-exports as a versioned tensor (DLPack 1.3, strides always present) without copying:
    /// the new tensor owns this one. On error this tensor is released.
    pub fn into_versioned(self) -> Result<ManagedTensor, Error> {
        let ndim = self.view()?.ndim();
        let how = Reexport {
            ndim,
            flags: Flags::EMPTY,
        };
        let owned = export::export::<DLManagedTensorVersioned, _, _>(self.0, &how)?;
        Ok(ManagedTensor::from_owned(owned))
    }

    pub(crate) fn from_owned(owned: Owned<DLManagedTensor>) -> Self {
        Self(owned)
    }
}

impl fmt::Debug for LegacyManagedTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("LegacyManagedTensor");
        match self.view() {
            Ok(view) => s
                .field("dtype", &view.dtype())
                .field("device", &view.device())
                .field("shape", &view.shape())
                .field("strides", &view.strides()),
            Err(err) => s.field("invalid", &format_args!("{err}")),
        };
        s.finish()
    }
}
