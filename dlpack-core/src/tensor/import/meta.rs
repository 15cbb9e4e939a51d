//! [`TensorMeta`]: a validated tensor's metadata, which both views hold and dereference to.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::ffi::c_void;
use core::fmt;
use core::mem::MaybeUninit;
use core::ops::Range;

use super::compact;
use super::host::{Walk, check_align, check_bools};
use super::iter::Offsets;
use super::validate::{self, Layout, StridesRule};
use crate::DataType;
use crate::Device;
use crate::element::Element;
use crate::ffi::{DLDeviceType, DLTensor};
use crate::tensor::Flags;
use crate::tensor::TensorError;

/// The metadata of a validated tensor: shape, strides, data type, device, flags, and where the
/// elements lie. [`TensorView`] and [`TensorViewMut`] hold one and dereference to it, so both
/// answer these questions the same way; reading or writing the elements is theirs.
///
/// It reads no data itself: it is a description, which may be cloned and kept as long as the
/// tensor's metadata lives.
///
/// [`TensorView`]: crate::tensor::TensorView
/// [`TensorViewMut`]: crate::tensor::TensorViewMut
///
/// ```
/// use dlpack_core::{DataType, Device, ManagedTensor};
/// use dlpack_core::tensor::TensorMeta;
///
/// /// Either view's metadata reads the same.
/// fn describe(meta: &TensorMeta<'_>) -> String {
///     format!("{} {:?} on {}", meta.dtype(), meta.shape(), meta.device())
/// }
/// let mut tensor = ManagedTensor::from_vec(vec![0_i32; 6], &[2, 3])?;
/// let view = tensor.view()?;
/// assert_eq!(describe(&view), "int32 [2, 3] on cpu");
/// let view_mut = tensor.view_mut()?;
/// assert_eq!(describe(&view_mut), "int32 [2, 3] on cpu");
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[derive(Clone)]
pub struct TensorMeta<'a> {
    data: *mut c_void,
    byte_offset: u64,
    device: Device,
    dtype: DataType,
    flags: Flags,
    layout: Layout<'a>,
}

// SAFETY: the data pointer is only an address here: nothing reads or writes through a
// `TensorMeta`; the views that do carry their own `Send`/`Sync` reasoning.
unsafe impl Send for TensorMeta<'_> {}
// SAFETY: as for `Send`.
unsafe impl Sync for TensorMeta<'_> {}

impl<'a> TensorMeta<'a> {
    /// Validates `tensor` (see [`validate::layout`]).
    ///
    /// # Safety
    ///
    /// For `'a`: the tensor's `shape` and `strides` (when non-null) point to `ndim` readable
    /// values that do not change.
    #[inline]
    pub(crate) unsafe fn new(
        tensor: &'a DLTensor,
        flags: Flags,
        rule: StridesRule,
    ) -> Result<Self, TensorError> {
        // SAFETY: forwarded from the caller.
        let layout = unsafe { validate::layout(tensor, flags, rule)? };
        Ok(Self {
            data: tensor.data,
            byte_offset: tensor.byte_offset,
            device: tensor.device,
            dtype: tensor.dtype,
            flags,
            layout,
        })
    }

    /// The extents, one per dimension.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// let tensor = ManagedTensor::from_vec(vec![0_u8; 24], &[2, 3, 4])?;
    /// assert_eq!(tensor.view()?.shape(), [2, 3, 4]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn shape(&self) -> &[i64] {
        self.layout.shape
    }

    /// The strides in elements, one per dimension; compact row-major ones when the producer
    /// sent none (legacy tensors, versions before 1.2).
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// let tensor = ManagedTensor::from_vec(vec![0_u8; 24], &[2, 3, 4])?;
    /// assert_eq!(tensor.view()?.strides(), [12, 4, 1]); // in elements, not bytes
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn strides(&self) -> &[i64] {
        &self.layout.strides
    }

    /// The number of dimensions.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// let matrix = ManagedTensor::from_vec(vec![0_u8; 6], &[2, 3])?;
    /// assert_eq!(matrix.view()?.ndim(), 2);
    /// let scalar = ManagedTensor::from_vec(vec![0_u8], &[])?;
    /// assert_eq!(scalar.view()?.ndim(), 0);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn ndim(&self) -> usize {
        self.layout.shape.len()
    }

    /// The number of elements: the product of the shape (1 for rank 0).
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// let matrix = ManagedTensor::from_vec(vec![0_u8; 6], &[2, 3])?;
    /// assert_eq!(matrix.view()?.len(), 6);
    /// let scalar = ManagedTensor::from_vec(vec![0_u8], &[])?;
    /// assert_eq!(scalar.view()?.len(), 1);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.layout.count
    }

    /// Whether the tensor has no elements (a dimension is 0).
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// let empty = ManagedTensor::from_vec(Vec::<f32>::new(), &[3, 0])?;
    /// assert!(empty.view()?.is_empty());
    /// assert_eq!(empty.view()?.as_slice::<f32>()?, [0.0; 0]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.layout.count == 0
    }

    /// The data type of the elements, which typed access must match exactly.
    ///
    /// ```
    /// use dlpack_core::{DataType, Element, ManagedTensor};
    /// let tensor = ManagedTensor::from_vec(vec![1.0_f64], &[1])?;
    /// let view = tensor.view()?;
    /// assert_eq!(view.dtype(), DataType::F64);
    /// assert_eq!(view.dtype(), f64::DATA_TYPE);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn dtype(&self) -> DataType {
        self.dtype
    }

    /// The device the data lives on; the data can be read here when
    /// `Device::CPU.can_access(view.device())`.
    ///
    /// ```
    /// use dlpack_core::{Device, ManagedTensor};
    /// let tensor = ManagedTensor::from_vec(vec![1_u8], &[1])?;
    /// assert_eq!(tensor.view()?.device(), Device::CPU);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn device(&self) -> Device {
        self.device
    }

    /// The producer's flags (empty for a legacy tensor).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dlpack_core::{ManagedTensor, tensor::Flags};
    /// let shared = ManagedTensor::from_arc(Arc::from(vec![1_u8]), &[1])?;
    /// assert_eq!(shared.view()?.flags(), Flags::READ_ONLY);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn flags(&self) -> Flags {
        self.flags
    }

    /// The data pointer as the producer gave it (opaque on some devices); the first element is
    /// [`byte_offset`](Self::byte_offset) bytes past it.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// // The last two elements of a Vec: the tensor starts 4 bytes past the data pointer.
    /// struct Tail(Vec<u32>);
    /// // SAFETY: elements 1 and 2 of the Vec, owned by `Tail` alone.
    /// unsafe impl TensorOwner for Tail {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(self.0.as_mut_ptr(), &[2_usize]).with_byte_offset(4)
    ///     }
    /// }
    /// let data = vec![10, 20, 30];
    /// let address = data.as_ptr();
    /// let tensor = ManagedTensor::from_owner(Tail(data))?;
    /// let view = tensor.view()?;
    /// assert_eq!(view.data_ptr(), address.cast());
    /// assert_eq!(view.as_slice::<u32>()?, [20, 30]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn data_ptr(&self) -> *const c_void {
        self.data
    }

    /// The byte offset from the data pointer to the first element.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// // The last two elements of a Vec: the tensor starts 4 bytes past the data pointer.
    /// struct Tail(Vec<u32>);
    /// // SAFETY: elements 1 and 2 of the Vec, owned by `Tail` alone.
    /// unsafe impl TensorOwner for Tail {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(self.0.as_mut_ptr(), &[2_usize]).with_byte_offset(4)
    ///     }
    /// }
    /// let data = vec![10, 20, 30];
    /// let address = data.as_ptr();
    /// let tensor = ManagedTensor::from_owner(Tail(data))?;
    /// let view = tensor.view()?;
    /// assert_eq!(view.byte_offset(), 4);
    /// assert_eq!(view.byte_range(), 4..12);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn byte_offset(&self) -> u64 {
        self.byte_offset
    }

    /// The bytes the elements occupy, as offsets from the [data pointer](Self::data_ptr):
    /// from the lowest byte any element reaches (negative strides may reach below
    /// `byte_offset`) to one past the highest. Empty for an empty tensor.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// let tensor = ManagedTensor::from_vec(vec![0_u32; 6], &[2, 3])?;
    /// assert_eq!(tensor.view()?.byte_range(), 0..24);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn byte_range(&self) -> Range<isize> {
        self.layout.lo..self.layout.hi
    }

    /// Whether the strides are compact row-major (ignoring axes of extent 1), so that
    /// [`as_slice`](crate::tensor::TensorView::as_slice) works. An empty tensor is compact.
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
    /// assert!(!view.is_compact());
    /// assert!(view.as_slice::<u8>().is_err()); // iterate, or copy with `to_vec`
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn is_compact(&self) -> bool {
        self.layout.contiguous
    }

    /// Whether the elements are of a sub-byte type stored packed (several per byte, little
    /// bit-endian), as DLPack assumes unless `IS_SUBBYTE_TYPE_PADDED` is set.
    ///
    /// ```
    /// use dlpack_core::{DataType, Device, ManagedTensor};
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// // Four float4_e2m1fn values in two bytes.
    /// struct Nibbles(Vec<u8>);
    /// // SAFETY: the Vec's 2 bytes hold the 4 packed elements, owned by `Nibbles` alone.
    /// unsafe impl TensorOwner for Nibbles {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         let data = self.0.as_mut_ptr().cast();
    ///         TensorParts::new(data, Device::CPU, DataType::FLOAT4_E2M1FN, &[4_usize])
    ///     }
    /// }
    /// let tensor = ManagedTensor::from_owner(Nibbles(vec![0x21, 0x43]))?;
    /// let view = tensor.view()?;
    /// assert!(view.is_packed());
    /// assert_eq!(view.as_bytes()?, [0x21, 0x43]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn is_packed(&self) -> bool {
        self.layout.packed
    }

    /// The number of bytes a compact row-major copy of the elements takes: `len() * itemsize`,
    /// or for packed sub-byte elements the bytes they share (`⌈len · bits · lanes / 8⌉`). It
    /// saturates at `usize::MAX` for a broadcast tensor (zero strides) whose copy could not
    /// exist; [`copy_compact_into`](Self::copy_compact_into) then refuses.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    ///
    /// let tensor = ManagedTensor::from_vec(vec![0_u32; 6], &[2, 3])?;
    /// assert_eq!(tensor.view()?.compact_len(), 24);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn compact_len(&self) -> usize {
        if self.layout.contiguous {
            self.byte_len()
        } else {
            self.layout.count.saturating_mul(self.dtype.itemsize())
        }
    }

    /// Copies the elements, in row-major index order, into the first
    /// [`compact_len`](Self::compact_len) bytes of `out`, and returns that length: the way to
    /// read a non-compact view of any data type, one without a Rust [`Element`] type (fp8,
    /// fp6, `int4`, lanes) included, into memory you choose. Allocates nothing.
    ///
    /// The bytes are the elements' own, so a padded sub-byte tensor stays one element per
    /// byte, and a packed one (always compact) is copied as it is. Refused: data the CPU cannot
    /// read, a null data pointer for a non-empty tensor, and an `out` shorter than
    /// `compact_len()`. Contiguous inner runs are copied in one piece each.
    ///
    /// ```
    /// use dlpack_core::{DataType, Device, ManagedTensor};
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// /// A 2 × 3 matrix of float8_e4m3fn stored column-major.
    /// struct ColumnMajor(Vec<u8>);
    /// // SAFETY: the Vec holds the 6 elements the shape and strides reach, owned by us alone.
    /// unsafe impl TensorOwner for ColumnMajor {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         let data = self.0.as_mut_ptr().cast();
    ///         TensorParts::new(data, Device::CPU, DataType::FLOAT8_E4M3FN, &[2_usize, 3])
    ///             .with_strides(&[1_i64, 2])
    ///     }
    /// }
    /// let tensor = ManagedTensor::from_owner(ColumnMajor(vec![1, 4, 2, 5, 3, 6]))?;
    /// let view = tensor.view()?;
    /// assert!(view.as_bytes().is_err()); // not compact
    /// let mut out = [0_u8; 8];
    /// assert_eq!(view.copy_compact_into(&mut out)?, 6);
    /// assert_eq!(out[..6], [1, 2, 3, 4, 5, 6]);
    /// assert!(view.copy_compact_into(&mut [0; 5]).is_err()); // too short
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn copy_compact_into(&self, out: &mut [u8]) -> Result<usize, crate::Error> {
        Ok(self.gather_into(out)?)
    }

    /// A compact row-major copy of the elements' bytes in a new `Vec` of exactly
    /// [`compact_len`](Self::compact_len) bytes, which is the one allocation; see
    /// [`copy_compact_into`](Self::copy_compact_into) to copy into memory of your own.
    ///
    /// ```
    /// use dlpack_core::{DataType, Device, ManagedTensor};
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// /// Every other element of six bfloat16 values: strides [2].
    /// struct EveryOther(Vec<u16>);
    /// // SAFETY: the Vec holds the 6 elements, owned by us alone; 3 are reached.
    /// unsafe impl TensorOwner for EveryOther {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         let data = self.0.as_mut_ptr().cast();
    ///         TensorParts::new(data, Device::CPU, DataType::BF16, &[3_usize]).with_strides(&[2_i64])
    ///     }
    /// }
    /// let tensor = ManagedTensor::from_owner(EveryOther(vec![0x3f80, 0, 0x4000, 0, 0x4040, 0]))?;
    /// let bytes = tensor.view()?.to_compact_bytes()?;
    /// let expected: Vec<u8> = [0x3f80_u16, 0x4000, 0x4040].iter().flat_map(|v| v.to_ne_bytes()).collect();
    /// assert_eq!(bytes, expected);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn to_compact_bytes(&self) -> Result<Vec<u8>, crate::Error> {
        let bytes = self.compact_len();
        let mut out = Vec::new();
        if bytes > isize::MAX as usize || out.try_reserve_exact(bytes).is_err() {
            return Err(TensorError::AllocationFailed { bytes }.into());
        }
        self.gather_into_uninit(&mut out.spare_capacity_mut()[..bytes])?;
        // SAFETY: `gather_into_uninit` wrote the first `bytes` bytes of the spare capacity,
        // which holds at least `bytes` (reserved above).
        unsafe { out.set_len(bytes) };
        Ok(out)
    }

    /// [`copy_compact_into`](Self::copy_compact_into), with the crate-internal error: the one
    /// host copy of the crate ([`compact::gather`]).
    pub(crate) fn gather_into(&self, out: &mut [u8]) -> Result<usize, TensorError> {
        let len = out.len();
        // SAFETY: `MaybeUninit<u8>` has `u8`'s layout, and `gather_into_uninit` writes only
        // initialised bytes, so `out` stays initialised.
        let out = unsafe { &mut *(core::ptr::from_mut(out) as *mut [MaybeUninit<u8>]) };
        debug_assert_eq!(out.len(), len);
        self.gather_into_uninit(out)
    }

    /// [`gather_into`](Self::gather_into) into memory that need not be initialised: on `Ok`,
    /// the first [`compact_len`](Self::compact_len) bytes of `out` are written, and their count
    /// returned. Compact elements are copied straight in, so a fresh buffer is written once
    /// (not zeroed, then copied); a strided gather zeroes its part of `out` first.
    pub(crate) fn gather_into_uninit(
        &self,
        out: &mut [MaybeUninit<u8>],
    ) -> Result<usize, TensorError> {
        let needed = self.compact_len();
        let Some(out) = out.get_mut(..needed) else {
            return Err(TensorError::CopyBufferLength {
                needed,
                len: out.len(),
            });
        };
        let Some(first) = self.host_first()? else {
            // No elements: nothing to write (`compact_len` is 0).
            out.fill(MaybeUninit::new(0));
            return Ok(needed);
        };
        if self.layout.contiguous {
            // SAFETY: compact: the `needed` bytes from `first` are the elements, readable by
            // the constructor's contract (`host_first` checked the device and address); `out`
            // is `needed` writable bytes, borrowed mutably here alone, and `ptr::copy` allows
            // any overlap.
            unsafe { core::ptr::copy(first, out.as_mut_ptr().cast::<u8>(), needed) };
        } else {
            out.fill(MaybeUninit::new(0));
            // SAFETY: every byte of `out` was just initialised; `MaybeUninit<u8>` has `u8`'s
            // layout.
            let out = unsafe { &mut *(core::ptr::from_mut(out) as *mut [u8]) };
            // SAFETY: a validated, non-empty, unpacked layout whose elements lie in its extent,
            // readable by the constructor's contract; `out` has `count * itemsize` bytes.
            unsafe {
                compact::gather(
                    first,
                    self.layout.shape,
                    &self.layout.strides,
                    self.dtype.itemsize(),
                    out,
                )
            };
        }
        Ok(needed)
    }

    /// The checks of [`as_slice`](crate::tensor::TensorView::as_slice): the first element (dangling for an empty
    /// tensor) and the length. The pointer is derived from the producer's data pointer, never
    /// from a reference, so a mutable view may write through it.
    pub(crate) fn slice_ptr<T: Element>(&self) -> Result<(*mut T, usize), TensorError> {
        self.check_type::<T>()?;
        self.check_contiguous()?;
        let Some(first) = self.host_first()? else {
            return Ok((core::ptr::NonNull::dangling().as_ptr(), 0));
        };
        check_align::<T>(first)?;
        // SAFETY: compact: the `count` elements are the `count * size_of::<T>()` bytes from
        // `first`, readable by the constructor's contract.
        unsafe { check_bools::<T>(first, || Walk::Compact(self.layout.count))? };
        Ok((first.cast::<T>(), self.layout.count))
    }

    /// The checks of [`as_bytes`](crate::tensor::TensorView::as_bytes), as [`slice_ptr`](Self::slice_ptr).
    pub(crate) fn bytes_ptr(&self) -> Result<(*mut u8, usize), TensorError> {
        self.check_contiguous()?;
        match self.host_first()? {
            Some(first) => Ok((first, self.byte_len())),
            None => Ok((core::ptr::NonNull::dangling().as_ptr(), 0)),
        }
    }

    /// The same metadata for a shorter lifetime, sharing the strides.
    pub(crate) fn reborrow(&self) -> TensorMeta<'_> {
        TensorMeta {
            data: self.data,
            byte_offset: self.byte_offset,
            device: self.device,
            dtype: self.dtype,
            flags: self.flags,
            layout: Layout {
                shape: self.layout.shape,
                strides: Cow::Borrowed(&self.layout.strides),
                count: self.layout.count,
                lo: self.layout.lo,
                hi: self.layout.hi,
                contiguous: self.layout.contiguous,
                packed: self.layout.packed,
            },
        }
    }

    pub(crate) fn layout(&self) -> &Layout<'a> {
        &self.layout
    }

    /// The byte offsets of the elements, from the first one.
    pub(crate) fn offsets(&self) -> Offsets {
        Offsets::new(
            self.layout.shape,
            &self.layout.strides,
            self.dtype.itemsize(),
            self.layout.count,
        )
    }

    /// The number of bytes from the lowest to one past the highest byte the elements reach.
    pub(crate) fn byte_len(&self) -> usize {
        (self.layout.hi - self.layout.lo) as usize
    }

    pub(crate) fn check_type<T: Element>(&self) -> Result<(), TensorError> {
        if self.dtype == T::DATA_TYPE {
            Ok(())
        } else {
            Err(TensorError::DataTypeMismatch {
                dtype: self.dtype,
                type_name: core::any::type_name::<T>(),
                requested: T::DATA_TYPE,
            })
        }
    }

    #[inline]
    fn check_contiguous(&self) -> Result<(), TensorError> {
        if self.layout.contiguous {
            Ok(())
        } else {
            Err(self.not_contiguous())
        }
    }

    #[cold]
    #[inline(never)]
    fn not_contiguous(&self) -> TensorError {
        TensorError::NotContiguous {
            shape: self.layout.shape.into(),
            strides: self.layout.strides.as_ref().into(),
        }
    }

    /// The address of the first element (`data + byte_offset`) if the CPU can read the data:
    /// `None` for an empty tensor, an error for another device, null data or an extent that
    /// leaves the address space.
    #[inline]
    pub(crate) fn host_first(&self) -> Result<Option<*mut u8>, TensorError> {
        // CPU memory (whatever its id), the common case, is decided without `can_access`.
        if self.device.device_type != DLDeviceType::CPU && !Device::CPU.can_access(self.device) {
            return Err(TensorError::NotHostAccessible {
                device: self.device,
            });
        }
        if self.layout.count == 0 {
            return Ok(None);
        }
        if self.data.is_null() {
            return Err(TensorError::NullData {
                elements: self.layout.count,
            });
        }
        let address = self.data.addr();
        let inside = address.checked_add_signed(self.layout.lo).is_some()
            && address.checked_add_signed(self.layout.hi).is_some();
        if !inside {
            return Err(TensorError::AddressOverflow {
                address,
                byte_offset: self.byte_offset,
            });
        }
        // `byte_offset <= isize::MAX` (validated), and the element lies in the producer's
        // allocation; wrapping arithmetic keeps the pointer's provenance without asserting it.
        Ok(Some(
            self.data
                .cast::<u8>()
                .wrapping_add(self.byte_offset as usize),
        ))
    }

    /// The fields `Debug` shows, under `name`: the views' own, and this type's.
    pub(crate) fn debug_as(&self, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(name)
            .field("dtype", &self.dtype)
            .field("device", &self.device)
            .field("shape", &self.layout.shape)
            .field("strides", &&*self.layout.strides)
            .field("byte_offset", &self.byte_offset)
            .field("flags", &self.flags)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for TensorMeta<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.debug_as("TensorMeta", f)
    }
}
