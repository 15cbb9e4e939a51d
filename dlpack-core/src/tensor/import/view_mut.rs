//! [`TensorViewMut`]: a validated, exclusive view that may write the elements.

use core::fmt;
use core::marker::PhantomData;
use core::ops::Deref;

use super::host::{Walk, check_align, check_bools, check_distinct};
use super::iter::IterMut;
use super::meta::TensorMeta;
use super::validate::StridesRule;
use super::view::TensorView;
use crate::element::Element;
use crate::error::Error;
use crate::ffi::{DLPackVersion, DLTensor};
use crate::tensor::Flags;
use crate::tensor::TensorError;

/// A validated, exclusive view of a tensor that may write its elements: mutable slices, mutable
/// iteration and (feature `ndarray`) `ArrayViewMutD`. It dereferences to the metadata
/// ([`TensorMeta`]), as [`TensorView`] does, and lends a [`TensorView`] to read
/// ([`view`](Self::view)).
///
/// Made by [`ManagedTensor::view_mut`](crate::ManagedTensor::view_mut), which refuses a tensor
/// flagged `READ_ONLY`. Mutable strided access refuses strides that reach an element from two
/// indices (a zero stride, say), since two `&mut` to one element would be undefined behaviour;
/// this is decided exactly, within a search bound (see the [module docs](crate::tensor#mutable-strided-access)).
///
/// ```
/// use dlpack_core::ManagedTensor;
///
/// let mut tensor = ManagedTensor::from_vec(vec![0_i32; 4], &[2, 2])?;
/// tensor.view_mut()?.as_slice_mut::<i32>()?.copy_from_slice(&[1, 2, 3, 4]);
/// assert_eq!(tensor.view()?.as_slice::<i32>()?, [1, 2, 3, 4]);
///
/// let mut shared = ManagedTensor::from_arc(vec![1_i32, 2].into(), &[2])?;
/// assert!(shared.view_mut().is_err()); // exported READ_ONLY
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub struct TensorViewMut<'a> {
    meta: TensorMeta<'a>,
    /// What the view grants: exclusive access to the elements, for `'a`.
    _data: PhantomData<&'a mut [u8]>,
}

impl<'a> TensorViewMut<'a> {
    /// A view that may write the tensor `meta` describes; refuses one flagged `READ_ONLY`.
    ///
    /// # Safety
    ///
    /// For `'a`, when the device is host-readable, the memory the metadata describes is
    /// readable, initialised, writable and accessed by nobody else.
    #[inline]
    pub(crate) unsafe fn from_meta(meta: TensorMeta<'a>) -> Result<Self, TensorError> {
        if meta.flags().contains(Flags::READ_ONLY) {
            return Err(TensorError::ReadOnly);
        }
        Ok(Self {
            meta,
            _data: PhantomData,
        })
    }

    /// A mutable view of a bare `DLTensor`, after validation; refuses `READ_ONLY` in `flags`.
    /// See [`TensorView::from_dl_tensor`] for `version`.
    ///
    /// ```
    /// use dlpack_core::ffi::{DLPackVersion, DLTensor};
    /// use dlpack_core::tensor::{Flags, TensorViewMut};
    /// use dlpack_core::{DataType, Device};
    ///
    /// let mut data = [1_i32, 2, 3, 4];
    /// let (mut shape, mut strides) = ([2_i64, 2], [2_i64, 1]);
    /// let raw = DLTensor {
    ///     data: data.as_mut_ptr().cast(),
    ///     device: Device::CPU,
    ///     ndim: 2,
    ///     dtype: DataType::I32,
    ///     shape: shape.as_mut_ptr(),
    ///     strides: strides.as_mut_ptr(),
    ///     byte_offset: 0,
    /// };
    /// // SAFETY: `raw` describes `data`, `shape` and `strides`, which outlive the view; nothing
    /// // else reads or writes them while it lives.
    /// let version = DLPackVersion::CURRENT;
    /// let mut view = unsafe { TensorViewMut::from_dl_tensor(&raw, Flags::EMPTY, version)? };
    /// view.as_slice_mut::<i32>()?.iter_mut().for_each(|x| *x *= -1);
    /// assert_eq!(view.view().as_slice::<i32>()?, [-1, -2, -3, -4]);
    /// // SAFETY: as above.
    /// let read_only = unsafe { TensorViewMut::from_dl_tensor(&raw, Flags::READ_ONLY, version) };
    /// assert!(read_only.is_err());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    ///
    /// # Safety
    ///
    /// As [`TensorView::from_dl_tensor`], and the memory is writable and accessed by nobody
    /// else for `'a`.
    pub unsafe fn from_dl_tensor(
        tensor: &'a DLTensor,
        flags: Flags,
        version: DLPackVersion,
    ) -> Result<Self, Error> {
        // SAFETY: the caller's contract is `TensorMeta::new`'s and `from_meta`'s together.
        unsafe {
            let meta = TensorMeta::new(tensor, flags, StridesRule::for_version(version))?;
            Ok(Self::from_meta(meta)?)
        }
    }

    /// A read-only view for as long as this one is borrowed.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    ///
    /// let mut tensor = ManagedTensor::from_vec(vec![1_u8, 2], &[2])?;
    /// let mut view = tensor.view_mut()?;
    /// view.as_slice_mut::<u8>()?[0] = 9;
    /// assert_eq!(view.view().as_slice::<u8>()?, [9, 2]);
    /// view.as_slice_mut::<u8>()?[1] = 8; // still writable afterwards
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn view(&self) -> TensorView<'_> {
        // SAFETY: the elements are readable for the borrow of `self`, during which nothing
        // writes them: writing needs `&mut self`.
        unsafe { TensorView::from_meta(self.meta.reborrow()) }
    }

    /// Gives up writing: a read-only view for the whole lifetime.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    ///
    /// let mut tensor = ManagedTensor::from_vec(vec![1_u8, 2], &[2])?;
    /// let data: &[u8] = {
    ///     let mut view = tensor.view_mut()?;
    ///     view.as_slice_mut::<u8>()?.fill(5);
    ///     view.into_view().as_slice()? // outlives the block, unlike `view.view()`
    /// };
    /// assert_eq!(data, [5, 5]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn into_view(self) -> TensorView<'a> {
        // SAFETY: `self` is consumed, so nothing writes the elements for the rest of 'a.
        unsafe { TensorView::from_meta(self.meta) }
    }

    /// The elements as a mutable slice, with the checks of [`TensorView::as_slice`].
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// let mut tensor = ManagedTensor::from_vec(vec![3_u8, 1, 2], &[3])?;
    /// tensor.view_mut()?.as_slice_mut::<u8>()?.sort();
    /// assert_eq!(tensor.view()?.as_slice::<u8>()?, [1, 2, 3]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn as_slice_mut<T: Element>(&mut self) -> Result<&mut [T], Error> {
        let (first, len) = self.meta.slice_ptr::<T>()?;
        // SAFETY: `slice_ptr` checked the layout, type, alignment and bools; the memory is
        // exclusively ours for 'a (constructor's contract), lent out for the borrow of `self`.
        Ok(unsafe { core::slice::from_raw_parts_mut(first, len) })
    }

    /// The elements as a mutable slice for the whole lifetime.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// let mut tensor = ManagedTensor::from_vec(vec![0.0_f32; 3], &[3])?;
    /// // The view is a temporary; the slice outlives it.
    /// let slice: &mut [f32] = tensor.view_mut()?.into_slice_mut()?;
    /// slice.fill(0.5);
    /// assert_eq!(tensor.view()?.as_slice::<f32>()?, [0.5; 3]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn into_slice_mut<T: Element>(self) -> Result<&'a mut [T], Error> {
        let (first, len) = self.meta.slice_ptr::<T>()?;
        // SAFETY: as `as_slice_mut`, for 'a: `self` is consumed, so nothing else can reach it.
        Ok(unsafe { core::slice::from_raw_parts_mut(first, len) })
    }

    /// The raw bytes of a compact tensor of any data type, to write.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// let mut tensor = ManagedTensor::from_vec(vec![0_u16; 2], &[2])?;
    /// let bytes = [7_u16.to_ne_bytes(), 8_u16.to_ne_bytes()].concat();
    /// tensor.view_mut()?.as_bytes_mut()?.copy_from_slice(&bytes);
    /// assert_eq!(tensor.view()?.as_slice::<u16>()?, [7, 8]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn as_bytes_mut(&mut self) -> Result<&mut [u8], Error> {
        let (first, len) = self.meta.bytes_ptr()?;
        // SAFETY: the bytes `bytes_ptr` checked, exclusively ours for the borrow of `self`.
        Ok(unsafe { core::slice::from_raw_parts_mut(first, len) })
    }

    /// Mutable references to the elements in row-major index order, for any strides that
    /// reach each element once (negative ones included), whether or not they nest.
    ///
    /// Refuses strides that reach some element from two indices ([`TensorError::Overlapping`]),
    /// and the rare layout the exact search cannot decide within its bound
    /// ([`TensorError::OverlapUndecided`]; see the [module docs](crate::tensor#mutable-strided-access)).
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// // Shape [3, 2] with strides [2, 3]: offsets 0, 3, 2, 5, 4, 7, each once, though the
    /// // strides do not nest. Bytes 1 and 6 belong to no element.
    /// struct Interleaved(Vec<u8>);
    /// // SAFETY: the 8 bytes hold every element the shape and strides reach, ours alone.
    /// unsafe impl TensorOwner for Interleaved {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(self.0.as_mut_ptr(), &[3_usize, 2]).with_strides(&[2_i64, 3])
    ///     }
    /// }
    /// let mut tensor = ManagedTensor::from_owner(Interleaved(vec![0; 8]))?;
    /// for (i, x) in tensor.view_mut()?.iter_mut::<u8>()?.enumerate() {
    ///     *x = 10 + i as u8;
    /// }
    /// assert_eq!(tensor.view()?.to_vec::<u8>()?, [10, 11, 12, 13, 14, 15]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// let mut tensor = ManagedTensor::from_vec(vec![1_i32, 2, 3, 4], &[2, 2])?;
    /// for (i, x) in tensor.view_mut()?.iter_mut::<i32>()?.enumerate() {
    ///     *x += i as i32 * 10;
    /// }
    /// assert_eq!(tensor.view()?.as_slice::<i32>()?, [1, 12, 23, 34]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn iter_mut<T: Element>(&mut self) -> Result<IterMut<'_, T>, Error> {
        self.reborrow_mut().into_iter_mut()
    }

    /// This view for a shorter lifetime: what `iter_mut` iterates through.
    fn reborrow_mut(&mut self) -> TensorViewMut<'_> {
        TensorViewMut {
            meta: self.meta.reborrow(),
            _data: PhantomData,
        }
    }

    /// [`iter_mut`](Self::iter_mut) for the whole lifetime.
    pub(crate) fn into_iter_mut<T: Element>(self) -> Result<IterMut<'a, T>, Error> {
        let view = &self.meta;
        view.check_type::<T>()?;
        let layout = view.layout();
        check_distinct(layout.shape, &layout.strides)?;
        let offsets = view.offsets();
        let Some(first) = view.host_first()? else {
            // SAFETY: no offsets, so nothing is reached.
            return Ok(unsafe { IterMut::new(core::ptr::null_mut(), offsets) });
        };
        check_align::<T>(first)?;
        // SAFETY: the offsets are distinct (no overlap), inside the validated extent, aligned,
        // and exclusively ours for 'a (`self` is consumed); bools are checked first.
        unsafe {
            check_bools::<T>(first, || Walk::Strided(offsets.clone()))?;
            Ok(IterMut::new(first, offsets))
        }
    }
}

/// The metadata: shape, strides, data type, device, flags and where the elements lie.
///
/// ```
/// use dlpack_core::{DataType, ManagedTensor};
///
/// let mut tensor = ManagedTensor::from_vec(vec![0_i16; 6], &[3, 2])?;
/// let view = tensor.view_mut()?;
/// assert_eq!((view.dtype(), view.shape(), view.strides()), (DataType::I16, &[3, 2][..], &[2, 1][..]));
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<'a> Deref for TensorViewMut<'a> {
    type Target = TensorMeta<'a>;

    #[inline]
    fn deref(&self) -> &TensorMeta<'a> {
        &self.meta
    }
}

impl fmt::Debug for TensorViewMut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.meta.debug_as("TensorViewMut", f)
    }
}
