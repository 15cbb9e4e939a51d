//! [`TensorView`]: validated, borrowed read access to a tensor's elements, for host-readable
//! devices.

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::ops::Deref;

use super::host::{Walk, check_align, check_bools};
use super::iter::Iter;
use super::meta::TensorMeta;
use super::validate::StridesRule;
use crate::element::Element;
use crate::error::Error;
use crate::ffi::{DLPackVersion, DLTensor};
use crate::tensor::Flags;

/// A validated, read-only view of a tensor: its shape, strides, data type and device, and
/// typed access to its elements when the CPU can read them.
///
/// Made by [`ManagedTensor::view`](crate::ManagedTensor::view) or, for a bare `DLTensor`,
/// [`TensorView::from_dl_tensor`]. Making one checks the metadata (see the `validate` rules in
/// the [module docs](crate::tensor)), which it dereferences to ([`TensorMeta`]: shape, strides, data
/// type, device, flags); reading data additionally checks the device, the data pointer and, for
/// typed access, the data type and alignment.
///
/// ```
/// use dlpack_core::{DataType, Device, ManagedTensor};
///
/// let tensor = ManagedTensor::from_vec(vec![1_u8, 2, 3, 4, 5, 6], &[2, 3])?;
/// let view = tensor.view()?;
/// assert_eq!(view.shape(), [2, 3]);
/// assert_eq!(view.strides(), [3, 1]);
/// assert_eq!((view.dtype(), view.device()), (DataType::U8, Device::CPU));
/// assert_eq!(view.as_slice::<u8>()?, [1, 2, 3, 4, 5, 6]);
/// assert!(view.as_slice::<i8>().is_err()); // uint8 is not int8
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[derive(Clone)]
pub struct TensorView<'a> {
    meta: TensorMeta<'a>,
    /// What the view grants: reads of the elements, for `'a`.
    _data: PhantomData<&'a [u8]>,
}

impl<'a> TensorView<'a> {
    /// A view of the tensor `meta` describes.
    ///
    /// # Safety
    ///
    /// For `'a`, when the device is host-readable, the memory the metadata describes is
    /// readable, initialised and written by nobody.
    #[inline]
    pub(crate) unsafe fn from_meta(meta: TensorMeta<'a>) -> Self {
        Self {
            meta,
            _data: PhantomData,
        }
    }

    /// A view of a bare `DLTensor`, as `DLPackDLTensorFromPyObjectNoSync` or a C API hands
    /// out, after validation. `version` is the DLPack version the producer follows: from 1.2
    /// on, null strides are refused when `ndim > 0`; before (legacy producers count as 0.x)
    /// they mean compact row-major.
    ///
    /// ```
    /// use dlpack_core::ffi::{DLPackVersion, DLTensor};
    /// use dlpack_core::tensor::{Flags, TensorView};
    /// use dlpack_core::{DataType, Device};
    ///
    /// let mut data = [1.0_f32, 2.0, 3.0];
    /// let mut shape = [3_i64];
    /// let raw = DLTensor {
    ///     data: data.as_mut_ptr().cast(),
    ///     device: Device::CPU,
    ///     ndim: 1,
    ///     dtype: DataType::F32,
    ///     shape: shape.as_mut_ptr(),
    ///     strides: core::ptr::null_mut(), // compact, allowed before DLPack 1.2
    ///     byte_offset: 0,
    /// };
    /// let old = DLPackVersion { major: 1, minor: 0 };
    /// // SAFETY: `raw` describes `data` and `shape`, which outlive the view and are not written.
    /// let view = unsafe { TensorView::from_dl_tensor(&raw, Flags::EMPTY, old)? };
    /// assert_eq!(view.as_slice::<f32>()?, [1.0, 2.0, 3.0]);
    /// assert_eq!(view.strides(), [1]);
    /// // SAFETY: as above.
    /// let strict = unsafe { TensorView::from_dl_tensor(&raw, Flags::EMPTY, DLPackVersion::CURRENT) };
    /// assert!(strict.is_err());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    ///
    /// # Safety
    ///
    /// For `'a`: `shape` and `strides` (when non-null) point to `ndim` readable `int64_t` that
    /// do not change, and, when the device is host-readable, the memory the metadata describes
    /// is readable, initialised and written by nobody.
    pub unsafe fn from_dl_tensor(
        tensor: &'a DLTensor,
        flags: Flags,
        version: DLPackVersion,
    ) -> Result<Self, Error> {
        // SAFETY: the caller's contract is `TensorMeta::new`'s and `from_meta`'s together.
        unsafe {
            let meta = TensorMeta::new(tensor, flags, StridesRule::for_version(version))?;
            Ok(Self::from_meta(meta))
        }
    }

    /// The elements as a slice, for a compact row-major tensor of `T`'s data type in memory the
    /// CPU can read.
    ///
    /// Refuses, with the reason: another data type, strides that are not compact (use
    /// [`iter`](Self::iter) or an `ndarray` view), a device the CPU cannot read, a null data
    /// pointer, an address not aligned for `T`, and for `bool` a byte other than 0 or 1.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    ///
    /// let tensor = ManagedTensor::from_vec(vec![0.5_f32, 1.5], &[2])?;
    /// let view = tensor.view()?;
    /// assert_eq!(view.as_slice::<f32>()?, [0.5, 1.5]);
    /// let err = view.as_slice::<u32>().unwrap_err(); // same size, other data type
    /// assert_eq!(err.to_string(), "dtype is float32; u32 reads uint32");
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn as_slice<T: Element>(&self) -> Result<&'a [T], Error> {
        let (first, len) = self.slice_ptr::<T>()?;
        // SAFETY: `slice_ptr` checked the type, layout, alignment and bools and placed the
        // `len` elements in the address space; the constructor's contract makes them readable
        // and unwritten for 'a.
        Ok(unsafe { core::slice::from_raw_parts(first, len) })
    }

    /// The raw bytes of a compact tensor of any data type (packed sub-byte ones included) in
    /// memory the CPU can read.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// let tensor = ManagedTensor::from_vec(vec![1_u16, 0x0302], &[2])?;
    /// let bytes = [1_u16.to_ne_bytes(), 0x0302_u16.to_ne_bytes()].concat();
    /// assert_eq!(tensor.view()?.as_bytes()?, bytes);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn as_bytes(&self) -> Result<&'a [u8], Error> {
        let (first, len) = self.bytes_ptr()?;
        // SAFETY: compact: the elements are the `len` bytes from `first`, readable for 'a.
        Ok(unsafe { core::slice::from_raw_parts(first, len) })
    }

    /// The elements by value in row-major index order, for any strides (negative and zero
    /// included), with the same checks as [`as_slice`](Self::as_slice) apart from contiguity.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// // [1, 2, 3] exported reversed: first element at the end, stride -1.
    /// struct Reversed(Vec<i16>);
    /// // SAFETY: three elements from `byte_offset` 4 downwards, all inside the Vec.
    /// unsafe impl TensorOwner for Reversed {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(self.0.as_mut_ptr(), &[3_usize])
    ///             .with_strides(&[-1_i64])
    ///             .with_byte_offset(4)
    ///     }
    /// }
    /// let tensor = ManagedTensor::from_owner(Reversed(vec![1, 2, 3]))?;
    /// assert_eq!(tensor.view()?.iter::<i16>()?.collect::<Vec<_>>(), [3, 2, 1]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn iter<T: Element>(&self) -> Result<Iter<'a, T>, Error> {
        self.check_type::<T>()?;
        let offsets = self.offsets();
        let Some(first) = self.host_first()? else {
            // SAFETY: no offsets, so nothing is read.
            return Ok(unsafe { Iter::new(core::ptr::null(), offsets) });
        };
        check_align::<T>(first)?;
        // SAFETY: every offset addresses an element inside the validated extent, readable and
        // unwritten for 'a by the constructor's contract, aligned because `first` is and each
        // step is a multiple of `size_of::<T>()`; bools are checked first.
        unsafe {
            check_bools::<T>(first, || Walk::Strided(offsets.clone()))?;
            Ok(Iter::new(first, offsets))
        }
    }

    /// The elements copied into a `Vec` in row-major index order, for any strides.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// /// A 2 × 3 matrix stored column-major.
    /// struct ColumnMajor(Vec<u8>);
    /// // SAFETY: the Vec holds the 6 elements the shape and strides reach, owned by us alone.
    /// unsafe impl TensorOwner for ColumnMajor {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(self.0.as_mut_ptr(), &[2_usize, 3]).with_strides(&[1_i64, 2])
    ///     }
    /// }
    /// let tensor = ManagedTensor::from_owner(ColumnMajor(vec![1, 4, 2, 5, 3, 6]))?;
    /// let view = tensor.view()?;
    /// assert_eq!(view.to_vec::<u8>()?, [1, 2, 3, 4, 5, 6]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>, Error> {
        if self.is_compact() {
            return self.as_slice::<T>().map(<[T]>::to_vec);
        }
        Ok(self.iter::<T>()?.collect())
    }
}

/// The metadata: shape, strides, data type, device, flags and where the elements lie.
///
/// ```
/// use dlpack_core::{DataType, ManagedTensor};
///
/// let tensor = ManagedTensor::from_vec(vec![0_u16; 6], &[3, 2])?;
/// let view = tensor.view()?;
/// assert_eq!((view.dtype(), view.shape(), view.len()), (DataType::U16, &[3, 2][..], 6));
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<'a> Deref for TensorView<'a> {
    type Target = TensorMeta<'a>;

    #[inline]
    fn deref(&self) -> &TensorMeta<'a> {
        &self.meta
    }
}

impl fmt::Debug for TensorView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.meta.debug_as("TensorView", f)
    }
}
