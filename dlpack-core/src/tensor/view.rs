//! [`TensorView`] and [`TensorViewMut`]: validated, borrowed access to a tensor's metadata and,
//! for host-readable devices, its data.

use core::ffi::c_void;
use core::fmt;
use core::marker::PhantomData;
use core::ops::Range;
use std::borrow::Cow;

use super::error::TensorError;
use super::flags::Flags;
use super::host::{Walk, check_align, check_bools};
use super::iter::{Iter, Offsets};
use super::validate::{self, Layout, StridesRule};
use crate::data_type::DataType;
use crate::device::Device;
use crate::element::Element;
use crate::error::Error;
use crate::ffi::{DLDeviceType, DLPackVersion, DLTensor};

/// A validated, read-only view of a tensor: its shape, strides, data type and device, and
/// typed access to its elements when the CPU can read them.
///
/// Made by [`ManagedTensor::view`](crate::ManagedTensor::view),
/// [`LegacyManagedTensor::view`](crate::LegacyManagedTensor::view) or, for a bare `DLTensor`,
/// [`TensorView::from_dl_tensor`]. Making one checks the metadata (see the `validate` rules in
/// the [module docs](super)); reading data additionally checks the device, the data pointer
/// and, for typed access, the data type and alignment.
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
pub struct TensorView<'a> {
    data: *mut c_void,
    byte_offset: u64,
    device: Device,
    dtype: DataType,
    flags: Flags,
    layout: Layout<'a>,
    _data: PhantomData<&'a [u8]>,
}

// SAFETY: a view grants what `&'a [u8]` grants: reads of plain memory, which are sound from
// any thread; it never calls producer code.
unsafe impl Send for TensorView<'_> {}
// SAFETY: as for `Send`.
unsafe impl Sync for TensorView<'_> {}

impl<'a> TensorView<'a> {
    /// Validates `tensor`.
    ///
    /// # Safety
    ///
    /// For `'a`: the tensor's `shape` and `strides` (when non-null) point to `ndim` readable
    /// values that do not change, and, when the device is host-readable, the memory the
    /// metadata describes is readable, initialised and written by nobody.
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
            _data: PhantomData,
        })
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
        // SAFETY: the caller's contract is `new`'s.
        Ok(unsafe { Self::new(tensor, flags, StridesRule::for_version(version))? })
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
    /// [`as_slice`](Self::as_slice) works. An empty tensor is compact.
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
    /// assert!(!view.is_contiguous());
    /// assert!(view.as_slice::<u8>().is_err()); // iterate, or copy with `to_vec`
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn is_contiguous(&self) -> bool {
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

    /// The checks of [`as_slice`](Self::as_slice): the first element (dangling for an empty
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

    /// The checks of [`as_bytes`](Self::as_bytes), as [`slice_ptr`](Self::slice_ptr).
    pub(crate) fn bytes_ptr(&self) -> Result<(*mut u8, usize), TensorError> {
        self.check_contiguous()?;
        match self.host_first()? {
            Some(first) => Ok((first, self.byte_len())),
            None => Ok((core::ptr::NonNull::dangling().as_ptr(), 0)),
        }
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
        if self.layout.contiguous {
            return self.as_slice::<T>().map(<[T]>::to_vec);
        }
        Ok(self.iter::<T>()?.collect())
    }

    /// A shorter-lived view of the same tensor, sharing the strides.
    pub(crate) fn reborrow(&self) -> TensorView<'_> {
        TensorView {
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
            _data: PhantomData,
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
}

impl fmt::Debug for TensorView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TensorView")
            .field("dtype", &self.dtype)
            .field("device", &self.device)
            .field("shape", &self.layout.shape)
            .field("strides", &&*self.layout.strides)
            .field("byte_offset", &self.byte_offset)
            .field("flags", &self.flags)
            .finish_non_exhaustive()
    }
}

impl Clone for TensorView<'_> {
    fn clone(&self) -> Self {
        Self {
            layout: self.layout.clone(),
            ..*self
        }
    }
}
