//! [`ManagedTensor`]: an owned DLPack tensor of either ABI ([`Abi`]), and what only the versioned
//! one does. [`legacy`](super::legacy) holds what only the legacy one does.

use alloc::sync::Arc;
use alloc::{boxed::Box, vec::Vec};
use core::fmt;
use core::mem::MaybeUninit;
use core::ptr::NonNull;

use super::export::allocation;
use super::export::describe::{ByOwner, Describe, Reexport, Shaped};
use super::export::owner::TensorOwner;
use super::export::parts::TensorParts;
use super::import::compact;
use crate::DataType;
use crate::Device;
use crate::element::Element;
use crate::error::Error;
use crate::ffi::{DLManagedTensor, DLManagedTensorVersioned};
use crate::tensor::Flags;
use crate::tensor::TensorError;
use crate::tensor::import::abi::{self, Abi, Owned};
use crate::tensor::import::meta::TensorMeta;
use crate::tensor::import::view::TensorView;
use crate::tensor::import::view_mut::TensorViewMut;

/// An owned DLPack tensor: the producer's deleter runs exactly once, when this value is
/// dropped, unless ownership is handed on with [`into_raw`](Self::into_raw).
///
/// `ManagedTensor` with no parameter owns a `DLManagedTensorVersioned` (DLPack 1.0 and later);
/// [`LegacyManagedTensor`](crate::tensor::LegacyManagedTensor), `ManagedTensor<DLManagedTensor>`, owns
/// the legacy struct. Both read the same way (views, raw access, release), and convert into each
/// other without a copy ([`into_legacy`](Self::into_legacy),
/// [`into_versioned`](crate::tensor::LegacyManagedTensor::into_versioned)); see [`Abi`] for where the two
/// structs differ.
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
///
/// A tensor imported from a Python producer without a copy (`python::import_tensor`, of
/// an object or of a capsule) gives no mutable view: the producer may lend the same memory to
/// any number of other consumers (each `__dlpack__` call is another capsule over it), so two
/// such tensors could otherwise hand out two `&mut` over one array. Write Python-owned memory
/// through a typed argument (`python::TensorArg<…, ReadWrite>`), whose views are
/// borrow-checked, or import a copy (`copy=True`), which is the tensor's own.
pub struct ManagedTensor<M: Abi = DLManagedTensorVersioned> {
    owned: Owned<M>,
    /// Imported from a Python producer that may lend the same memory again: no mutable view.
    lent: bool,
}

/// The exports, which make versioned tensors: `ManagedTensor::from_vec(..)` needs no annotation
/// (a constructor defined for both structs would need one). A legacy tensor is an export
/// re-wrapped by [`into_legacy`](Self::into_legacy), or an import ([`from_raw`](Self::from_raw)).
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
        Ok(Self::from_owned(allocation::export(data, &how)?))
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
        Ok(Self::from_owned(allocation::export(data, &how)?))
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
        Ok(Self::export_owner(owner)?)
    }

    /// [`from_owner`](Self::from_owner) with flags added, which the caller knows are true
    /// (`IS_COPIED` for a fresh copy).
    #[cfg(feature = "ndarray")]
    pub(crate) fn from_owner_flagged<O: TensorOwner>(
        owner: O,
        flags: Flags,
    ) -> Result<Self, TensorError> {
        Ok(Self::from_owned(allocation::export(
            owner,
            &super::export::describe::Flagged(flags),
        )?))
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
    ///
    /// // READ_ONLY is a flag only the versioned struct can say: refused, the tensor released.
    /// let shared = ManagedTensor::from_arc(vec![1_u8].into(), &[1])?;
    /// let err = shared.into_legacy().unwrap_err();
    /// assert!(err.to_string().starts_with("a legacy DLManagedTensor cannot carry the flags READ_ONLY"));
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    ///
    /// This costs one allocation (the legacy header, holding this tensor), on top of the
    /// export's own.
    pub fn into_legacy(self) -> Result<ManagedTensor<DLManagedTensor>, Error> {
        Ok(self.reexport()?)
    }
}

/// What both ABIs do alike: take and hand over ownership, read the struct, validate a view.
impl<M: Abi> ManagedTensor<M> {
    pub(crate) fn from_owned(owned: Owned<M>) -> Self {
        Self { owned, lent: false }
    }

    /// Marks a tensor a Python producer exported without a copy (not `IS_COPIED`): the
    /// producer may lend its memory to other consumers, so it gives no mutable view.
    #[cfg_attr(not(feature = "pyo3"), allow(dead_code))]
    pub(crate) fn lent_by_producer(mut self) -> Self {
        self.lent = !self.flags().contains(Flags::IS_COPIED);
        self
    }

    /// Takes ownership of a managed tensor from a producer (a `dltensor_versioned` or
    /// `dltensor` capsule, a C API, [`into_raw`](Self::into_raw)). The pointer's type says which
    /// ABI it follows: `*mut DLManagedTensorVersioned` gives a `ManagedTensor`,
    /// `*mut DLManagedTensor` a [`LegacyManagedTensor`](crate::tensor::LegacyManagedTensor).
    ///
    /// Checks the version of a versioned struct as the DLPack specification requires: a major
    /// version other than 1 means a layout this crate cannot read, so the producer's deleter is
    /// called (its position is stable across major versions) and an error returned. Null is
    /// refused. The metadata is validated later, by [`view`](Self::view).
    ///
    /// ```
    /// use dlpack_core::{Error, ManagedTensor, ffi::DLManagedTensorVersioned, tensor::TensorError};
    ///
    /// let null: *mut DLManagedTensorVersioned = core::ptr::null_mut();
    /// // SAFETY: null is always allowed.
    /// let err = unsafe { ManagedTensor::from_raw(null) }.unwrap_err();
    /// assert_eq!(err, Error::Tensor(TensorError::NullPointer));
    /// ```
    ///
    /// A legacy struct, as a pre-1.2 producer hands it over:
    ///
    /// ```
    /// use dlpack_core::{DataType, Device, LegacyManagedTensor, ManagedTensor};
    /// use dlpack_core::ffi::{DLManagedTensor, DLTensor};
    ///
    /// // No strides (compact row-major), and here no deleter either, since the data lives on
    /// // our stack and there is nothing to release.
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
    /// let tensor: LegacyManagedTensor = unsafe { ManagedTensor::from_raw(&mut managed)? };
    /// assert_eq!(tensor.view()?.strides(), [3, 1]);
    /// assert_eq!(tensor.view()?.as_slice::<i32>()?, [1, 2, 3, 4, 5, 6]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    ///
    /// # Safety
    ///
    /// `ptr` is null or a managed struct of `M`'s ABI handed over by its producer: ownership
    /// passes to this call whatever it returns (nobody else calls the deleter, and the caller
    /// must not use `ptr` again). Until the deleter runs, the struct and its `shape` and
    /// `strides` arrays stay valid and unchanged, the memory the metadata describes is readable
    /// on its device (and writable unless `READ_ONLY`), nobody else writes it while a view
    /// exists, and the deleter may be called from any thread.
    pub unsafe fn from_raw(ptr: *mut M) -> Result<Self, Error> {
        let Some(ptr) = NonNull::new(ptr) else {
            return Err(TensorError::NullPointer.into());
        };
        // SAFETY: the caller hands the struct over, whatever this returns.
        unsafe { M::refuse_unreadable(ptr)? };
        // SAFETY: a readable struct handed over with the guarantees `Owned` needs.
        Ok(Self::from_owned(unsafe { Owned::from_raw(ptr) }))
    }

    /// Exports `owner` as `M`: [`from_owner`](ManagedTensor::from_owner) for either ABI, in
    /// one allocation. Public exports are versioned (a constructor for both structs would need
    /// a type annotation at every call); the Python producer makes its legacy capsules here.
    pub(crate) fn export_owner<O: TensorOwner>(owner: O) -> Result<Self, TensorError> {
        Ok(Self::from_owned(allocation::export(owner, &ByOwner)?))
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
    pub fn into_raw(self) -> *mut M {
        self.owned.into_raw()
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
    pub fn as_raw(&self) -> &M {
        self.owned.get()
    }

    /// The producer's flags; none for a legacy tensor, whose struct has no field for them.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, from_dlpack, tensor::Flags};
    ///
    /// let moved = ManagedTensor::from_vec(vec![1_u8, 2], &[2])?;
    /// assert_eq!(moved.flags(), Flags::EMPTY);
    /// let copied: ManagedTensor = from_dlpack(&moved)?;
    /// assert_eq!(copied.flags(), Flags::IS_COPIED);
    /// assert_eq!(copied.into_legacy()?.flags(), Flags::EMPTY); // IS_COPIED cannot be said
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn flags(&self) -> Flags {
        self.owned.get().flags()
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
        self.owned.get().dl_tensor().device
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
        self.owned.get().dl_tensor().dtype
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
        Ok(self.validated()?)
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
        // READ_ONLY first: no layout makes a read-only tensor writable, and the producer's
        // refusal is the answer a caller can act on.
        if self.flags().contains(Flags::READ_ONLY) {
            return Err(TensorError::ReadOnly.into());
        }
        if self.lent {
            return Err(TensorError::LentByProducer.into());
        }
        let meta = self.meta()?;
        // SAFETY: as for `validated`; `&mut self` makes the access exclusive on our side, and
        // `from_raw`'s contract excludes other writers.
        Ok(unsafe { TensorViewMut::from_meta(meta)? })
    }

    /// [`view`](Self::view), with the reason of a refusal as it is.
    #[inline]
    pub(crate) fn validated(&self) -> Result<TensorView<'_>, TensorError> {
        let meta = self.meta()?;
        // SAFETY: `from_raw`'s contract (or our own export) keeps the data valid and unchanged
        // while `self` lives, which bounds the view's lifetime.
        Ok(unsafe { TensorView::from_meta(meta) })
    }

    /// The validated metadata, for a holder that keeps it beside the tensor (a typed Python
    /// argument).
    ///
    /// # Safety
    ///
    /// The metadata must not be used after `self` is dropped. Moving `self` is allowed: the
    /// shape and strides it borrows live in the producer's allocation, not in `self`.
    #[inline]
    #[cfg_attr(not(feature = "pyo3"), allow(dead_code))]
    pub(crate) unsafe fn meta_detached<'x>(&self) -> Result<TensorMeta<'x>, TensorError> {
        let meta = self.meta()?;
        // SAFETY: only the lifetime changes. The shape and strides `meta` borrows belong to the
        // producer's tensor (our own export's allocation, or the foreign one), which lives
        // until `self`'s deleter runs, wherever `self` is moved; the caller drops the result
        // first.
        Ok(unsafe { core::mem::transmute::<TensorMeta<'_>, TensorMeta<'x>>(meta) })
    }

    /// The validated metadata.
    #[inline]
    fn meta(&self) -> Result<TensorMeta<'_>, TensorError> {
        let m = self.owned.get();
        // SAFETY: `from_raw`'s contract (or our own export) keeps the shape and strides valid
        // and unchanged while `self` lives.
        unsafe { TensorMeta::new(m.dl_tensor(), m.flags(), abi::strides_rule(m)) }
    }

    /// Re-exports as the other ABI's struct without copying: the new tensor owns this one,
    /// carries its flags, and is refused when the struct cannot carry them. On any error this
    /// tensor is released.
    pub(crate) fn reexport<N: Abi>(self) -> Result<ManagedTensor<N>, TensorError> {
        let how = Reexport {
            ndim: self.validated()?.ndim(),
            flags: self.flags(),
        };
        let Self { owned, lent } = self;
        Ok(ManagedTensor {
            owned: allocation::export(owned, &how)?,
            lent,
        })
    }
}

impl<M: Abi> fmt::Debug for ManagedTensor<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let version = self.owned.get().version();
        let mut s = f.debug_struct(M::NAME);
        if let Some(version) = version {
            s.field(
                "version",
                &format_args!("{}.{}", version.major, version.minor),
            );
        }
        match self.validated() {
            Ok(view) => s
                .field("dtype", &view.dtype())
                .field("device", &view.device())
                .field("shape", &view.shape())
                .field("strides", &view.strides()),
            Err(err) => s.field("invalid", &format_args!("{err}")),
        };
        // The legacy struct has no flags to show.
        if version.is_some() {
            s.field("flags", &self.flags());
        }
        s.finish()
    }
}

const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<ManagedTensor>();
    send_sync::<ManagedTensor<DLManagedTensor>>();
    send_sync::<TensorView<'static>>();
    send_sync::<TensorViewMut<'static>>();
};

/// Bytes with the alignment every element type needs (and SIMD code likes).
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Block([u8; 64]);

/// A fresh compact copy in a `Vec<Block>`, whose shape the source view holds.
struct Copied<'s> {
    shape: &'s [i64],
    dtype: DataType,
    flags: Flags,
}

// SAFETY: the buffer was sized for the compact layout of `shape` and `dtype` and filled; it is
// owned by the export alone, does not move with the Vec, and `as_mut_ptr` makes no reference.
unsafe impl Describe<Vec<Block>> for Copied<'_> {
    fn describe<'a>(&'a self, owner: &'a mut Vec<Block>) -> TensorParts<'a> {
        TensorParts::new(
            owner.as_mut_ptr().cast(),
            Device::CPU,
            self.dtype,
            self.shape,
        )
        .with_flags(self.flags)
    }
}

/// A compact row-major copy of `meta` in fresh host memory, 64-byte aligned, flagged as
/// [`compact::copy_flags`] says: the one conversion that works for any data type, sub-byte
/// ones included (which stay packed or padded as they were). Refuses data the CPU cannot read.
pub(crate) fn compact_copy(meta: &TensorMeta<'_>) -> Result<ManagedTensor, TensorError> {
    let bytes = meta.compact_len();
    let mut buf: Vec<Block> = Vec::new();
    let blocks = bytes.div_ceil(size_of::<Block>());
    if bytes > isize::MAX as usize || buf.try_reserve_exact(blocks).is_err() {
        return Err(TensorError::AllocationFailed { bytes });
    }
    // The elements go straight into the spare capacity: one write of each byte, not a zero
    // fill and then the copy (which made a compact export of 4 MB cost 1.7 of candle's own
    // `to_vec1`).
    let spare = buf.spare_capacity_mut();
    let capacity = spare.len() * size_of::<Block>();
    // SAFETY: the reserved capacity is `blocks * 64 >= bytes` bytes of `buf`'s allocation,
    // borrowed mutably here alone; `MaybeUninit<Block>` is plain bytes, as `MaybeUninit<u8>`.
    let out = unsafe {
        core::slice::from_raw_parts_mut(spare.as_mut_ptr().cast::<MaybeUninit<u8>>(), capacity)
    };
    let written = meta.gather_into_uninit(out)?;
    out[written..blocks * size_of::<Block>()].fill(MaybeUninit::new(0));
    // SAFETY: the first `blocks` blocks are initialised: `written` bytes by the copy, the
    // rest of them zeroed just above; a `Block` is any 64 bytes.
    unsafe { buf.set_len(blocks) };
    let how = Copied {
        shape: meta.shape(),
        dtype: meta.dtype(),
        flags: compact::copy_flags(meta.dtype(), meta.flags()),
    };
    Ok(ManagedTensor::from_owned(allocation::export(buf, &how)?))
}

#[cfg(test)]
mod tests {
    use std::prelude::rust_2024::*;

    use super::ManagedTensor;
    use crate::tensor::{TensorOwner, TensorParts, TensorView};

    /// A legacy-style owner with null strides, so that the metadata owns its compact strides.
    struct NoStrides(Vec<u16>);
    // SAFETY: the Vec's 6 elements are the tensor, owned by `NoStrides` alone.
    unsafe impl TensorOwner for NoStrides {
        fn describe(&mut self) -> TensorParts<'_> {
            TensorParts::host(self.0.as_mut_ptr(), &[2_usize, 3])
        }
    }

    #[test]
    fn detached_metadata_outlives_moves_of_the_tensor() {
        let tensor = ManagedTensor::from_vec(vec![1_u32, 2, 3, 4, 5, 6], &[3, 2]).unwrap();
        // SAFETY: `meta` is dropped before `moved`, the tensor it was taken from.
        let meta = unsafe { tensor.meta_detached().unwrap() };
        let moved = Box::new(tensor);
        let moved = *moved;
        assert_eq!((meta.shape(), meta.strides()), (&[3, 2][..], &[2, 1][..]));
        // SAFETY: the data is `moved`'s, alive and written by nobody for the view's life.
        let view = unsafe { TensorView::from_meta(meta.reborrow()) };
        assert_eq!(view.as_slice::<u32>().unwrap(), [1, 2, 3, 4, 5, 6]);
        drop(view);
        drop(meta);
        drop(moved);

        let owned = ManagedTensor::from_owner(NoStrides(vec![7; 6])).unwrap();
        // SAFETY: as above.
        let meta = unsafe { owned.meta_detached().unwrap() };
        let owned = [owned];
        assert_eq!(meta.strides(), [3, 1]);
        // SAFETY: as above.
        let view = unsafe { TensorView::from_meta(meta.reborrow()) };
        assert_eq!(view.iter::<u16>().unwrap().sum::<u16>(), 42);
        drop(view);
        drop(meta);
        drop(owned);
    }
}
