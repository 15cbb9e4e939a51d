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
/// refuses to export a read-only array this way), a padded sub-byte type, and flag bits
/// DLPack 1.3 does not define (kept by [`ManagedTensor`], but a newer producer's flag may
/// restrict use as `READ_ONLY` does, so dropping it is not known to be safe). `IS_COPIED` is
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
    ///
    /// ```
    /// use dlpack_core::LegacyManagedTensor;
    /// let tensor = LegacyManagedTensor::from_vec(vec![1_u8, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(tensor.view()?.shape(), [2, 2]);
    /// assert!(LegacyManagedTensor::from_vec(vec![1_u8, 2, 3], &[2, 2]).is_err());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Self, Error> {
        let how = Shaped::new(shape, data.len())?;
        Ok(Self(export::export(data, &how)?))
    }

    /// Exports a boxed slice with `shape`, compact row-major, without copying.
    ///
    /// ```
    /// use dlpack_core::LegacyManagedTensor;
    ///
    /// let data: Box<[u16]> = Box::new([1, 2, 3]);
    /// let address = data.as_ptr();
    /// let tensor = LegacyManagedTensor::from_boxed(data, &[3])?;
    /// assert_eq!(tensor.view()?.data_ptr(), address.cast()); // the same memory: no copy
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn from_boxed<T: Element>(data: Box<[T]>, shape: &[usize]) -> Result<Self, Error> {
        Self::from_vec(data.into_vec(), shape)
    }

    /// Exports any [`TensorOwner`] without copying; refuses (and drops) an owner whose flags
    /// the legacy struct cannot carry.
    ///
    /// ```
    /// use dlpack_core::LegacyManagedTensor;
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// /// A vector exported as a column, optionally read-only.
    /// struct Column { data: Vec<i32>, shape: [usize; 1], read_only: bool }
    /// // SAFETY: the vector holds `shape[0]` elements, owned by `Column` alone.
    /// unsafe impl TensorOwner for Column {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         let parts = TensorParts::host(self.data.as_mut_ptr(), &self.shape[..]);
    ///         if self.read_only { parts.read_only() } else { parts }
    ///     }
    /// }
    /// let column = |data: Vec<i32>, read_only| Column { shape: [data.len()], data, read_only };
    ///
    /// let tensor = LegacyManagedTensor::from_owner(column(vec![1, 2, 3], false))?;
    /// assert_eq!(tensor.view()?.as_slice::<i32>()?, [1, 2, 3]);
    /// // READ_ONLY is a flag only the versioned struct can say: refused, the owner dropped.
    /// let err = LegacyManagedTensor::from_owner(column(vec![1], true)).unwrap_err();
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
    /// ```
    /// use dlpack_core::{DataType, Device, LegacyManagedTensor};
    /// use dlpack_core::ffi::{DLManagedTensor, DLTensor};
    ///
    /// // What a pre-1.2 producer hands over: no strides (compact row-major), and here no
    /// // deleter either, since the data lives on our stack and there is nothing to release.
    /// let mut data = [1_i32, 2, 3, 4, 5, 6];
    /// let mut shape = [2_i64, 3];
    /// let mut managed = DLManagedTensor {
    ///     dl_tensor: DLTensor {
    ///         data: data.as_mut_ptr().cast(),
    ///         device: Device::CPU,
    ///         ndim: 2,
    ///         dtype: DataType::I32,
    ///         shape: shape.as_mut_ptr(),
    ///         strides: core::ptr::null_mut(),
    ///         byte_offset: 0,
    ///     },
    ///     manager_ctx: core::ptr::null_mut(),
    ///     deleter: None,
    /// };
    /// // SAFETY: the struct, its shape and its data outlive `tensor` and nobody writes them
    /// // meanwhile; without a deleter, dropping `tensor` releases nothing.
    /// let tensor = unsafe { LegacyManagedTensor::from_raw(&mut managed)? };
    /// assert_eq!(tensor.view()?.strides(), [3, 1]);
    /// assert_eq!(tensor.view()?.as_slice::<i32>()?, [1, 2, 3, 4, 5, 6]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
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
    ///
    /// ```
    /// use dlpack_core::LegacyManagedTensor;
    ///
    /// let raw = LegacyManagedTensor::from_vec(vec![5_i8, 6], &[2])?.into_raw();
    /// // SAFETY: `raw` came from `into_raw`; ownership goes back to a `LegacyManagedTensor`.
    /// let tensor = unsafe { LegacyManagedTensor::from_raw(raw)? };
    /// assert_eq!(tensor.view()?.as_slice::<i8>()?, [5, 6]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn into_raw(self) -> *mut DLManagedTensor {
        self.0.into_raw()
    }

    /// The C struct, to read.
    ///
    /// ```
    /// use dlpack_core::LegacyManagedTensor;
    /// let tensor = LegacyManagedTensor::from_vec(vec![0_u8; 6], &[2, 3])?;
    /// let raw = tensor.as_raw();
    /// assert_eq!(raw.dl_tensor.ndim, 2);
    /// assert!(raw.deleter.is_some()); // our exports release themselves
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn as_raw(&self) -> &DLManagedTensor {
        self.0.get()
    }

    /// The device the data lives on.
    ///
    /// ```
    /// use dlpack_core::{Device, LegacyManagedTensor};
    /// let tensor = LegacyManagedTensor::from_vec(vec![1_u8], &[1])?;
    /// assert_eq!(tensor.device(), Device::CPU);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn device(&self) -> Device {
        self.0.get().dl_tensor.device
    }

    /// The data type of the elements, as the producer wrote it.
    ///
    /// ```
    /// use dlpack_core::{DataType, LegacyManagedTensor};
    /// let tensor = LegacyManagedTensor::from_vec(vec![1_u64], &[1])?;
    /// assert_eq!(tensor.dtype(), DataType::U64);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn dtype(&self) -> DataType {
        self.0.get().dl_tensor.dtype
    }

    /// A validated read-only view (null strides read as compact row-major; see
    /// [`from_raw`](Self::from_raw)).
    ///
    /// ```
    /// use dlpack_core::{LegacyManagedTensor, tensor::Flags};
    /// let tensor = LegacyManagedTensor::from_vec(vec![1_u8, 2, 3, 4], &[2, 2])?;
    /// let view = tensor.view()?;
    /// assert_eq!(view.to_vec::<u8>()?, [1, 2, 3, 4]);
    /// assert_eq!(view.flags(), Flags::EMPTY); // the legacy struct has none
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    pub fn view(&self) -> Result<TensorView<'_>, Error> {
        let m = self.0.get();
        // SAFETY: `from_raw`'s contract (or our own export) keeps the metadata and data valid
        // and unchanged while `self` lives.
        Ok(unsafe { TensorView::new(&m.dl_tensor, Flags::EMPTY, m.strides_rule())? })
    }

    /// A validated mutable view. A legacy tensor cannot be flagged read-only; producers that
    /// need that refuse to export legacy tensors.
    ///
    /// ```
    /// use dlpack_core::LegacyManagedTensor;
    /// let mut tensor = LegacyManagedTensor::from_vec(vec![1_i16, 2], &[2])?;
    /// tensor.view_mut()?.as_slice_mut::<i16>()?.reverse();
    /// assert_eq!(tensor.view()?.as_slice::<i16>()?, [2, 1]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    pub fn view_mut(&mut self) -> Result<TensorViewMut<'_>, Error> {
        let m = self.0.get();
        // SAFETY: as for `view`, with `&mut self` for exclusivity on our side.
        Ok(unsafe { TensorViewMut::new(&m.dl_tensor, Flags::EMPTY, m.strides_rule())? })
    }

    /// Re-exports as a versioned tensor (DLPack 1.3, strides always present) without copying:
    /// the new tensor owns this one. On error this tensor is released.
    ///
    /// ```
    /// use dlpack_core::{LegacyManagedTensor, ffi::DLPackVersion};
    ///
    /// let legacy = LegacyManagedTensor::from_vec(vec![1_u8, 2], &[2])?;
    /// let data = legacy.view()?.data_ptr();
    /// let versioned = legacy.into_versioned()?;
    /// assert_eq!(versioned.version(), DLPackVersion::CURRENT);
    /// assert_eq!(versioned.view()?.data_ptr(), data); // the same memory: no copy
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
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
