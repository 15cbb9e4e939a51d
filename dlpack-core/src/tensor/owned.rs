//! [`ManagedTensor`]: an owned `DLManagedTensorVersioned`.

use core::fmt;
use core::ptr::NonNull;
use std::sync::Arc;

use super::error::TensorError;
use super::export::{self, ByOwner, Reexport, Shaped};
use super::flags::Flags;
use super::legacy::LegacyManagedTensor;
use super::owner::TensorOwner;
use super::raw::{Abi, Owned};
use super::view::TensorView;
use super::view_mut::TensorViewMut;
use crate::data_type::DataType;
use crate::device::Device;
use crate::element::Element;
use crate::error::Error;
use crate::ffi::{DLManagedTensor, DLManagedTensorVersioned, DLPACK_MAJOR_VERSION, DLPackVersion};

/// An owned DLPack tensor (`DLManagedTensorVersioned`): the producer's deleter runs exactly
/// once, when this value is dropped, unless ownership is handed on with
/// [`into_raw`](Self::into_raw).
///
/// Export Rust data with [`from_vec`](Self::from_vec), [`from_boxed`](Self::from_boxed),
/// [`from_arc`](Self::from_arc) or [`from_owner`](Self::from_owner) (zero-copy: one heap
/// allocation holds the header, the owner, and the shape and strides); import a foreign one
/// with [`from_raw`](Self::from_raw); read it through a validated [`view`](Self::view).
///
/// ```
/// use dlpack_core::{DataType, ManagedTensor};
///
/// let tensor = ManagedTensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// assert_eq!(tensor.dtype(), DataType::F32);
///
/// // Hand it to C, which calls the deleter when it is done; here we take it straight back.
/// let raw = tensor.into_raw();
/// // SAFETY: `raw` came from `into_raw` and is owned by nobody else.
/// let tensor = unsafe { ManagedTensor::from_raw(raw)? };
/// assert_eq!(tensor.view()?.as_slice::<f32>()?, [1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
///
/// `ManagedTensor` is `Send` and `Sync`: shared references give only reads, and the deleter,
/// the only producer code it calls, needs ownership; [`from_raw`](Self::from_raw) requires a
/// deleter that may run on any thread, as NumPy's, PyTorch's and TVM's are.
pub struct ManagedTensor(Owned<DLManagedTensorVersioned>);

impl ManagedTensor {
    /// Exports a `Vec` with `shape`, compact row-major, without copying. Refuses a shape that
    /// does not hold exactly `data.len()` elements.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// let t = ManagedTensor::from_vec(vec![0_u8; 6], &[2, 3])?;
    /// assert_eq!(t.view()?.shape(), [2, 3]);
    /// let err = ManagedTensor::from_vec(vec![0_u8; 5], &[2, 3]).unwrap_err();
    /// assert_eq!(err.to_string(), "shape [2, 3] holds 6 elements; the data has 5");
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Self, Error> {
        let how = Shaped::new(shape, data.len())?;
        Ok(Self(export::export(data, &how)?))
    }

    /// Exports a boxed slice with `shape`, compact row-major, without copying.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    ///
    /// let data: Box<[i32]> = Box::new([1, 2, 3, 4]);
    /// let address = data.as_ptr();
    /// let tensor = ManagedTensor::from_boxed(data, &[2, 2])?;
    /// assert_eq!(tensor.view()?.data_ptr(), address.cast()); // the same memory: no copy
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn from_boxed<T: Element>(data: Box<[T]>, shape: &[usize]) -> Result<Self, Error> {
        Self::from_vec(data.into_vec(), shape)
    }

    /// Exports a shared slice with `shape`, without copying, flagged `READ_ONLY` (other clones
    /// may read it). The export holds one clone until it is released.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dlpack_core::{ManagedTensor, tensor::Flags};
    ///
    /// let data: Arc<[f64]> = vec![1.0, 2.0].into();
    /// let t = ManagedTensor::from_arc(Arc::clone(&data), &[2])?;
    /// assert_eq!(t.flags(), Flags::READ_ONLY);
    /// assert_eq!(Arc::strong_count(&data), 2);
    /// drop(t);
    /// assert_eq!(Arc::strong_count(&data), 1);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn from_arc<T: Element>(data: Arc<[T]>, shape: &[usize]) -> Result<Self, Error> {
        let how = Shaped::new(shape, data.len())?;
        Ok(Self(export::export(data, &how)?))
    }

    /// Exports any [`TensorOwner`] without copying: the owner moves into the export's
    /// allocation and is dropped by the deleter. The description is validated with the rules
    /// an importer applies; on error the owner is dropped.
    ///
    /// ```
    /// use dlpack_core::{DataType, ManagedTensor};
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// /// A framework's buffer that knows its own shape.
    /// struct Buffer {
    ///     data: Vec<u16>,
    ///     shape: [usize; 2],
    /// }
    /// // SAFETY: the Vec holds the shape's 6 elements and is owned by `Buffer` alone.
    /// unsafe impl TensorOwner for Buffer {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(self.data.as_mut_ptr(), &self.shape)
    ///     }
    /// }
    ///
    /// let tensor = ManagedTensor::from_owner(Buffer { data: vec![7; 6], shape: [3, 2] })?;
    /// let view = tensor.view()?;
    /// assert_eq!((view.dtype(), view.shape()), (DataType::U16, &[3, 2][..]));
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn from_owner<O: TensorOwner>(owner: O) -> Result<Self, Error> {
        Ok(Self(export::export(owner, &ByOwner)?))
    }

    /// [`from_owner`](Self::from_owner) with flags added, which the caller knows are true
    /// (`IS_COPIED` for a fresh copy).
    #[cfg(feature = "ndarray")]
    pub(crate) fn from_owner_flagged<O: TensorOwner>(
        owner: O,
        flags: Flags,
    ) -> Result<Self, Error> {
        Ok(Self(export::export(owner, &export::Flagged(flags))?))
    }

    /// Takes ownership of a managed tensor from a producer (a `dltensor_versioned` capsule, a
    /// C API, [`into_raw`](Self::into_raw)).
    ///
    /// Checks the version as the DLPack specification requires: a major version other than 1
    /// means a layout this crate cannot read, so the producer's deleter is called (its position
    /// is stable across major versions) and an error returned. Null is refused. The metadata
    /// is validated later, by [`view`](Self::view).
    ///
    /// ```
    /// use dlpack_core::{Error, ManagedTensor, tensor::TensorError};
    /// // SAFETY: null is always allowed.
    /// let err = unsafe { ManagedTensor::from_raw(core::ptr::null_mut()) }.unwrap_err();
    /// assert_eq!(err, Error::Tensor(TensorError::NullPointer));
    /// ```
    ///
    /// # Safety
    ///
    /// `ptr` is null or a `DLManagedTensorVersioned` handed over by its producer: ownership
    /// passes to this call whatever it returns (nobody else calls the deleter, and the caller
    /// must not use `ptr` again). Until the deleter runs, the struct and its `shape` and
    /// `strides` arrays stay valid and unchanged, the memory the metadata describes is readable
    /// on its device (and writable unless `READ_ONLY`), nobody else writes it while a view
    /// exists, and the deleter may be called from any thread.
    pub unsafe fn from_raw(ptr: *mut DLManagedTensorVersioned) -> Result<Self, Error> {
        let Some(ptr) = NonNull::new(ptr) else {
            return Err(TensorError::NullPointer.into());
        };
        // SAFETY: the caller hands over a valid struct. Field reads through the raw pointer
        // make no reference: `version` and `deleter` sit where every major version keeps them
        // ("everything until `flags` is stable"), whatever the rest of the layout.
        let (version, deleter) = unsafe { ((*ptr.as_ptr()).version, (*ptr.as_ptr()).deleter) };
        if version.major != DLPACK_MAJOR_VERSION {
            if let Some(deleter) = deleter {
                // SAFETY: ownership is ours; the producer's deleter releases it, once.
                unsafe { deleter(ptr.as_ptr()) };
            }
            return Err(TensorError::UnsupportedVersion { version }.into());
        }
        // SAFETY: a version-1 struct handed over with the guarantees `Owned` needs.
        Ok(Self(unsafe { Owned::from_raw(ptr) }))
    }

    /// Hands ownership to the caller (typically a C consumer, or a `PyCapsule`), who must
    /// call the deleter exactly once, or pass the pointer back to [`from_raw`](Self::from_raw).
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    ///
    /// let raw = ManagedTensor::from_vec(vec![1_u8, 2, 3], &[3])?.into_raw();
    /// // What a C consumer does: read the tensor, then release it.
    /// // SAFETY: `raw` is a live tensor handed to us; its deleter is called once, then never
    /// // used again.
    /// unsafe {
    ///     assert_eq!(*(*raw).dl_tensor.shape, 3);
    ///     ((*raw).deleter.unwrap())(raw);
    /// }
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn into_raw(self) -> *mut DLManagedTensorVersioned {
        self.0.into_raw()
    }

    /// The C struct, to read. Following its `shape`, `strides` or `data` pointers is up to
    /// you; [`view`](Self::view) does it after validation.
    ///
    /// ```
    /// use dlpack_core::{DataType, ManagedTensor, ffi::DLPackVersion};
    ///
    /// let tensor = ManagedTensor::from_vec(vec![0.0_f64; 6], &[2, 3])?;
    /// let raw = tensor.as_raw();
    /// assert_eq!(raw.version, DLPackVersion::CURRENT);
    /// assert_eq!((raw.dl_tensor.ndim, raw.dl_tensor.dtype), (2, DataType::F64));
    /// assert!(!raw.dl_tensor.strides.is_null()); // exports always carry strides
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn as_raw(&self) -> &DLManagedTensorVersioned {
        self.0.get()
    }

    /// The DLPack version the producer wrote (major 1).
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, ffi::DLPackVersion};
    /// let tensor = ManagedTensor::from_vec(vec![1_u8], &[1])?;
    /// assert_eq!(tensor.version(), DLPackVersion { major: 1, minor: 3 }); // our exports
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn version(&self) -> DLPackVersion {
        self.0.get().version
    }

    /// The producer's flags.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, from_dlpack, tensor::Flags};
    ///
    /// let moved = ManagedTensor::from_vec(vec![1_u8, 2], &[2])?;
    /// assert_eq!(moved.flags(), Flags::EMPTY);
    /// let copied: ManagedTensor = from_dlpack(&moved)?;
    /// assert_eq!(copied.flags(), Flags::IS_COPIED);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn flags(&self) -> Flags {
        self.0.get().flags()
    }

    /// The device the data lives on.
    ///
    /// ```
    /// use dlpack_core::{Device, ManagedTensor};
    /// let tensor = ManagedTensor::from_vec(vec![1_u8], &[1])?;
    /// assert_eq!(tensor.device(), Device::CPU);
    /// assert!(Device::CPU.can_access(tensor.device())); // so its data can be read here
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn device(&self) -> Device {
        self.0.get().dl_tensor.device
    }

    /// The data type of the elements, as the producer wrote it (checked by
    /// [`view`](Self::view), not here).
    ///
    /// ```
    /// use dlpack_core::{DataType, ManagedTensor};
    /// let tensor = ManagedTensor::from_vec(vec![true, false], &[2])?;
    /// assert_eq!(tensor.dtype(), DataType::BOOL);
    /// assert_eq!(tensor.dtype().to_string(), "bool");
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn dtype(&self) -> DataType {
        self.0.get().dl_tensor.dtype
    }

    /// A validated read-only view: shape, strides, data type, device, and typed access to
    /// host-readable data. See [`TensorView`] for what is checked.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    ///
    /// let tensor = ManagedTensor::from_vec(vec![1_i64, 2, 3, 4, 5, 6], &[3, 2])?;
    /// let view = tensor.view()?;
    /// assert_eq!((view.shape(), view.strides()), (&[3, 2][..], &[2, 1][..]));
    /// assert_eq!(view.as_slice::<i64>()?[4], 5);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    pub fn view(&self) -> Result<TensorView<'_>, Error> {
        let m = self.0.get();
        // SAFETY: `from_raw`'s contract (or our own export) keeps the metadata and data valid
        // and unchanged while `self` lives, which bounds the view's lifetime.
        Ok(unsafe { TensorView::new(&m.dl_tensor, m.flags(), m.strides_rule())? })
    }

    /// A validated mutable view; refuses a tensor flagged `READ_ONLY`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dlpack_core::{Error, ManagedTensor, tensor::TensorError};
    ///
    /// let mut tensor = ManagedTensor::from_vec(vec![1_u32, 2, 3], &[3])?;
    /// tensor.view_mut()?.as_slice_mut::<u32>()?[0] = 10;
    /// assert_eq!(tensor.view()?.as_slice::<u32>()?, [10, 2, 3]);
    ///
    /// let mut shared = ManagedTensor::from_arc(Arc::from(vec![1_u32]), &[1])?;
    /// assert_eq!(shared.view_mut().unwrap_err(), Error::Tensor(TensorError::ReadOnly));
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    pub fn view_mut(&mut self) -> Result<TensorViewMut<'_>, Error> {
        let m = self.0.get();
        // SAFETY: as for `view`; `&mut self` makes the access exclusive on our side, and
        // `from_raw`'s contract excludes other writers.
        Ok(unsafe { TensorViewMut::new(&m.dl_tensor, m.flags(), m.strides_rule())? })
    }

    /// Re-exports as a legacy `DLManagedTensor` (for a consumer that asked for
    /// `max_version < 1.0`) without copying: the legacy tensor owns this one. Refuses a tensor
    /// the legacy struct cannot describe faithfully (`READ_ONLY`, a padded sub-byte type, flag
    /// bits DLPack 1.3 does not define), and on any error this tensor is released.
    /// `IS_COPIED` is dropped.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    ///
    /// let tensor = ManagedTensor::from_vec(vec![1.0_f32, 2.0], &[2])?;
    /// let data = tensor.view()?.data_ptr();
    /// let legacy = tensor.into_legacy()?;
    /// assert_eq!(legacy.view()?.data_ptr(), data); // the same memory: no copy
    /// assert_eq!(legacy.view()?.as_slice::<f32>()?, [1.0, 2.0]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn into_legacy(self) -> Result<LegacyManagedTensor, Error> {
        let ndim = self.view()?.ndim();
        let how = Reexport {
            ndim,
            flags: self.flags(),
        };
        let owned = export::export::<DLManagedTensor, _, _>(self.0, &how)?;
        Ok(LegacyManagedTensor::from_owned(owned))
    }

    pub(crate) fn from_owned(owned: Owned<DLManagedTensorVersioned>) -> Self {
        Self(owned)
    }
}

impl fmt::Debug for ManagedTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let version = self.version();
        let mut s = f.debug_struct("ManagedTensor");
        s.field(
            "version",
            &format_args!("{}.{}", version.major, version.minor),
        );
        match self.view() {
            Ok(view) => s
                .field("dtype", &view.dtype())
                .field("device", &view.device())
                .field("shape", &view.shape())
                .field("strides", &view.strides()),
            Err(err) => s.field("invalid", &format_args!("{err}")),
        };
        s.field("flags", &self.flags()).finish()
    }
}

const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<ManagedTensor>();
    send_sync::<LegacyManagedTensor>();
    send_sync::<TensorView<'static>>();
    send_sync::<TensorViewMut<'static>>();
};
