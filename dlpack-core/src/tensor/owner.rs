//! [`TensorOwner`]: what an exported tensor keeps alive, and how it describes its data.

use core::ffi::c_void;

use super::dims::{self, Checked, Dims};
use super::error::TensorError;
use super::flags::Flags;
use crate::data_type::DataType;
use crate::device::Device;
use crate::element::Element;

/// A value that owns tensor data and can be exported as a DLPack tensor without a copy:
/// [`ManagedTensor::from_owner`](crate::ManagedTensor::from_owner) moves it into the export's
/// single heap allocation (with the managed struct and the shape and strides), and the deleter
/// drops it.
///
/// Implemented behind feature `ndarray` for `Array` and `ArcArray` (read-only, since other
/// clones may read the data); `Vec<T>`, `Box<[T]>` and `Arc<[T]>` carry no shape, so they are
/// exported through [`ManagedTensor::from_vec`](crate::ManagedTensor::from_vec),
/// [`from_boxed`](crate::ManagedTensor::from_boxed) and
/// [`from_arc`](crate::ManagedTensor::from_arc), which take one. Implement it for your own
/// buffers: a CUDA allocation, a memory map, a framework's tensor handle. The description is
/// free to name any device, an opaque data pointer, explicit strides and a byte offset.
///
/// ```
/// use dlpack_core::{DataType, Device, ManagedTensor};
/// use dlpack_core::tensor::{TensorOwner, TensorParts};
///
/// /// A 2 × 3 matrix stored column-major.
/// struct ColumnMajor(Vec<f32>);
///
/// // SAFETY: the Vec's buffer holds the 6 elements the shape and strides address, stays put
/// // while the owner lives, and nothing else touches it.
/// unsafe impl TensorOwner for ColumnMajor {
///     fn describe(&mut self) -> TensorParts<'_> {
///         TensorParts::host(self.0.as_mut_ptr(), &[2_usize, 3]).with_strides(&[1_i64, 2])
///     }
/// }
///
/// let tensor = ManagedTensor::from_owner(ColumnMajor(vec![1., 2., 3., 4., 5., 6.]))?;
/// let view = tensor.view()?;
/// assert_eq!((view.shape(), view.strides()), (&[2, 3][..], &[1, 2][..]));
/// assert_eq!(view.to_vec::<f32>()?, [1., 3., 5., 2., 4., 6.]); // row-major order
/// # Ok::<(), dlpack_core::Error>(())
/// ```
///
/// # Safety
///
/// The export trusts the description; a consumer on the other side of the C ABI reads (and,
/// unless `READ_ONLY` is set, writes) the memory it names. An implementation must ensure:
///
/// - **Same answer.** `describe` may be called more than once: before the owner is moved into
///   the export's allocation (to size it) and after (the call whose answer is exported). Each
///   call must give the same rank, shape, strides, data type, device, byte offset and flags.
///   Only the data pointer may differ, for an owner that stores its data inline.
/// - **Valid memory.** From the last call until the owner is dropped, `data + byte_offset`
///   plus every offset the shape and strides reach (in elements of `dtype`) is memory on
///   `device` that holds an initialised element and is neither freed nor moved.
/// - **Exclusive or read-only.** Without `READ_ONLY`, the consumer may write to that memory at
///   any time until it releases the tensor, so nothing else may read or write it meanwhile.
///   With `READ_ONLY`, nothing may write it meanwhile.
/// - **Any thread.** The owner may be dropped on any thread (hence `Send`), and must not panic
///   when dropped: the drop runs inside an `extern "C"` deleter, where a panic aborts.
pub unsafe trait TensorOwner: Send + 'static {
    /// The tensor this owner holds. See the trait's safety section for what the answer must
    /// satisfy.
    ///
    /// ```
    /// use dlpack_core::{DataType, ManagedTensor};
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// /// A rank-0 tensor: one value, no dimensions.
    /// struct Scalar(Box<f64>);
    /// // SAFETY: the box holds the one element, owned by `Scalar` alone.
    /// unsafe impl TensorOwner for Scalar {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(&mut *self.0, &[] as &[usize])
    ///     }
    /// }
    ///
    /// let tensor = ManagedTensor::from_owner(Scalar(Box::new(2.5)))?;
    /// let view = tensor.view()?;
    /// assert_eq!((view.dtype(), view.ndim()), (DataType::F64, 0));
    /// assert_eq!(view.as_slice::<f64>()?, [2.5]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn describe(&mut self) -> TensorParts<'_>;
}

/// What a [`TensorOwner`] exports: the fields of a `DLTensor` plus the flags.
///
/// Build it with [`TensorParts::new`] (any device, an opaque pointer) or [`TensorParts::host`]
/// (a typed CPU pointer), then add strides, a byte offset and flags. Without strides the
/// export writes compact row-major ones: exports always carry strides, as DLPack 1.2 requires.
/// An owner whose layout never changes can check it once and describe itself with
/// [`TensorParts::from_layout`].
///
/// ```
/// use dlpack_core::{DataType, Device};
/// use dlpack_core::tensor::{Flags, TensorParts};
///
/// // A CUDA allocation: an address in the device's space, never dereferenced on the host.
/// let device_ptr = core::ptr::without_provenance_mut(0x7f00_0000_0000);
/// let parts = TensorParts::new(device_ptr, Device::cuda(0), DataType::BF16, &[8_usize, 4])
///     .with_strides(&[1_i64, 8])
///     .with_byte_offset(256)
///     .with_flags(Flags::READ_ONLY);
/// # let _ = parts;
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TensorParts<'a> {
    data: *mut c_void,
    device: Device,
    dtype: DataType,
    shape: Dims<'a>,
    strides: Option<Dims<'a>>,
    byte_offset: u64,
    flags: Flags,
    /// The checked layout the fields above were made from, while they still match it.
    checked: Option<Checked<'a>>,
}

impl<'a> TensorParts<'a> {
    /// A tensor of `dtype` with `shape` at `data` on `device`: compact row-major, no byte
    /// offset, no flags. `data` is opaque: a host pointer, a device pointer or a handle.
    ///
    /// ```
    /// use dlpack_core::{DataType, Device, ManagedTensor, tensor::{TensorOwner, TensorParts}};
    ///
    /// /// An allocation on a ROCm device, which the host never dereferences.
    /// struct Rocm { address: usize }
    /// // SAFETY: (in this example) the address holds 1024 float16 values on rocm:1, owned by
    /// // `Rocm` alone.
    /// unsafe impl TensorOwner for Rocm {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         let data = core::ptr::without_provenance_mut(self.address);
    ///         TensorParts::new(data, Device::rocm(1), DataType::F16, &[1024_usize])
    ///     }
    /// }
    /// let tensor = ManagedTensor::from_owner(Rocm { address: 0x7f00_0000_0000 })?;
    /// let view = tensor.view()?; // its metadata: the data stays on the device
    /// assert_eq!((view.device(), view.dtype(), view.strides()), (Device::rocm(1), DataType::F16, &[1][..]));
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    pub fn new(
        data: *mut c_void,
        device: Device,
        dtype: DataType,
        shape: impl Into<Dims<'a>>,
    ) -> Self {
        Self {
            data,
            device,
            dtype,
            shape: shape.into(),
            strides: None,
            byte_offset: 0,
            flags: Flags::EMPTY,
            checked: None,
        }
    }

    /// Elements of type `T` in host memory: device [`Device::CPU`], data type
    /// `T::DATA_TYPE`.
    ///
    /// ```
    /// use dlpack_core::{DataType, Device, ManagedTensor};
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// struct Bytes(Vec<i8>);
    /// // SAFETY: the Vec holds the 6 elements, owned by `Bytes` alone.
    /// unsafe impl TensorOwner for Bytes {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(self.0.as_mut_ptr(), &[2_usize, 3])
    ///     }
    /// }
    /// let tensor = ManagedTensor::from_owner(Bytes(vec![0; 6]))?;
    /// let view = tensor.view()?;
    /// assert_eq!((view.device(), view.dtype()), (Device::CPU, DataType::I8));
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    pub fn host<T: Element>(data: *mut T, shape: impl Into<Dims<'a>>) -> Self {
        Self::new(data.cast(), Device::CPU, T::DATA_TYPE, shape)
    }

    /// With strides, in elements (negative and zero strides allowed).
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// /// A 2 x 3 matrix stored column-major: the next row is 1 element on, the next column 2.
    /// struct ColumnMajor(Vec<u8>);
    /// // SAFETY: the Vec holds the 6 elements the shape and strides reach, owned by us alone.
    /// unsafe impl TensorOwner for ColumnMajor {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(self.0.as_mut_ptr(), &[2_usize, 3]).with_strides(&[1_i64, 2])
    ///     }
    /// }
    /// let tensor = ManagedTensor::from_owner(ColumnMajor(vec![1, 4, 2, 5, 3, 6]))?;
    /// assert_eq!(tensor.view()?.strides(), [1, 2]);
    /// assert_eq!(tensor.view()?.to_vec::<u8>()?, [1, 2, 3, 4, 5, 6]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn with_strides(self, strides: impl Into<Dims<'a>>) -> Self {
        Self {
            strides: Some(strides.into()),
            checked: None,
            ..self
        }
    }

    /// With the byte offset from `data` to the first element.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// /// The last three elements of a Vec: the first one is 4 bytes past the pointer.
    /// struct Tail(Vec<u32>);
    /// // SAFETY: elements 1 to 3 of the Vec, owned by `Tail` alone.
    /// unsafe impl TensorOwner for Tail {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(self.0.as_mut_ptr(), &[3_usize]).with_byte_offset(4)
    ///     }
    /// }
    /// let tensor = ManagedTensor::from_owner(Tail(vec![1, 2, 3, 4]))?;
    /// assert_eq!(tensor.view()?.byte_offset(), 4);
    /// assert_eq!(tensor.view()?.as_slice::<u32>()?, [2, 3, 4]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn with_byte_offset(self, byte_offset: u64) -> Self {
        Self {
            byte_offset,
            checked: None,
            ..self
        }
    }

    /// With these flags added: `READ_ONLY` when consumers must not write, `IS_COPIED` for a
    /// fresh copy, `IS_SUBBYTE_TYPE_PADDED` for one sub-byte element per byte.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// use dlpack_core::tensor::{Flags, TensorOwner, TensorParts};
    ///
    /// /// A lookup table in static memory, which nobody may write.
    /// struct Table(&'static [u8; 4]);
    /// // SAFETY: static data lives for ever, and READ_ONLY forbids consumers to write it.
    /// unsafe impl TensorOwner for Table {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(self.0.as_ptr().cast_mut(), &[4_usize])
    ///             .with_flags(Flags::READ_ONLY)
    ///             .with_flags(Flags::IS_COPIED) // added, not replaced
    ///     }
    /// }
    ///
    /// static SQUARES: [u8; 4] = [0, 1, 4, 9];
    /// let mut tensor = ManagedTensor::from_owner(Table(&SQUARES))?;
    /// assert_eq!(tensor.flags(), Flags::READ_ONLY | Flags::IS_COPIED);
    /// assert_eq!(tensor.view()?.as_slice::<u8>()?, [0, 1, 4, 9]);
    /// assert!(tensor.view_mut().is_err());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn with_flags(self, flags: Flags) -> Self {
        let flags = self.flags | flags;
        // Padding changes what a sub-byte layout may be; the other flags leave it as checked.
        let padded = flags.contains(Flags::IS_SUBBYTE_TYPE_PADDED);
        Self {
            flags,
            checked: self.checked.filter(|c| c.padded == padded),
            ..self
        }
    }

    /// These parts, made from a checked layout whose values `checked` holds (and which their
    /// fields match).
    #[inline]
    pub(crate) fn with_checked(self, checked: Checked<'a>) -> Self {
        Self {
            checked: Some(checked),
            ..self
        }
    }

    /// The data pointer.
    #[inline]
    pub(crate) fn data(&self) -> *mut c_void {
        self.data
    }

    /// The device.
    #[inline]
    pub(crate) fn device(&self) -> Device {
        self.device
    }

    /// The data type.
    #[inline]
    pub(crate) fn dtype(&self) -> DataType {
        self.dtype
    }

    /// The shape, in the integer type it was given in.
    #[inline]
    pub(crate) fn shape(&self) -> Dims<'a> {
        self.shape
    }

    /// The strides, or `None` for compact row-major.
    #[inline]
    pub(crate) fn strides(&self) -> Option<Dims<'a>> {
        self.strides
    }

    /// The byte offset.
    #[inline]
    pub(crate) fn byte_offset(&self) -> u64 {
        self.byte_offset
    }

    /// The flags.
    #[inline]
    pub(crate) fn flags(&self) -> Flags {
        self.flags
    }

    /// The values of the checked layout these parts were made from
    /// ([`TensorParts::from_layout`]), while they still match it: `None` once the strides or
    /// byte offset are replaced, or padding of sub-byte elements changes, and for parts built
    /// field by field. An export of parts with a checked layout copies its values; of any
    /// other, checks every field.
    #[inline]
    pub(crate) fn checked(&self) -> Option<Checked<'a>> {
        self.checked
    }

    /// The rank these parts give, if it is at most [`MAX_NDIM`](super::MAX_NDIM) and the
    /// strides match it.
    #[inline]
    pub(crate) fn rank(&self) -> Result<usize, TensorError> {
        dims::check_rank(self.shape, self.strides)
    }
}
