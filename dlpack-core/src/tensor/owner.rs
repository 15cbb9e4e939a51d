//! [`TensorOwner`]: what an exported tensor keeps alive, and how it describes its data.

use core::ffi::c_void;

use super::checked::CheckedLayout;
use super::flags::Flags;
use crate::data_type::DataType;
use crate::device::Device;
use crate::element::Element;

/// A value that owns tensor data and can be exported as a DLPack tensor without a copy:
/// [`ManagedTensor::from_owner`](crate::ManagedTensor::from_owner) and
/// [`LegacyManagedTensor::from_owner`](crate::LegacyManagedTensor::from_owner) move it into the
/// export's single heap allocation (with the `DLManagedTensorVersioned` header and the shape
/// and strides), and the deleter drops it.
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
    /// let mut owner = Scalar(Box::new(2.5));
    /// let parts = owner.describe(); // what the export will say, before exporting
    /// assert_eq!((parts.dtype(), parts.shape().len()), (DataType::F64, 0));
    /// let tensor = ManagedTensor::from_owner(owner)?;
    /// assert_eq!(tensor.view()?.as_slice::<f64>()?, [2.5]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn describe(&mut self) -> TensorParts<'_>;
}

/// Dimensions as an owner stores them: `i64` (DLPack), `usize` (Rust shapes) or `isize`
/// (`ndarray` strides). Exports convert them to `int64_t`, refusing values that do not fit.
///
/// ```
/// use dlpack_core::tensor::Dims;
/// let dims = Dims::from(&[2_usize, 3][..]);
/// assert_eq!((dims.len(), dims.get(1)), (2, Some(3)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dims<'a> {
    /// `int64_t`, as DLPack stores them.
    I64(&'a [i64]),
    /// `usize`, as Rust shapes are.
    Usize(&'a [usize]),
    /// `isize`, as `ndarray` strides are.
    Isize(&'a [isize]),
}

impl Dims<'_> {
    /// The number of entries.
    ///
    /// ```
    /// use dlpack_core::tensor::Dims;
    /// assert_eq!(Dims::from(&[2_i64, 3, 4]).len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        match self {
            Self::I64(d) => d.len(),
            Self::Usize(d) => d.len(),
            Self::Isize(d) => d.len(),
        }
    }

    /// Whether there are no entries (a rank-0 shape).
    ///
    /// ```
    /// use dlpack_core::tensor::Dims;
    /// assert!(Dims::from(&[] as &[usize]).is_empty());
    /// assert!(!Dims::from(&[1_usize]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `i`, widened so that every value of every kind fits.
    ///
    /// ```
    /// use dlpack_core::tensor::Dims;
    /// let strides = Dims::from(&[-1_isize, 4]);
    /// assert_eq!(strides.get(0), Some(-1));
    /// assert_eq!(strides.get(2), None);
    /// // Every usize is seen as it is, even one no int64_t holds (which an export refuses).
    /// assert_eq!(Dims::from(&[usize::MAX]).get(0), Some(usize::MAX as i128));
    /// ```
    pub fn get(&self, i: usize) -> Option<i128> {
        match self {
            Self::I64(d) => d.get(i).map(|&v| i128::from(v)),
            Self::Usize(d) => d.get(i).map(|&v| v as i128),
            Self::Isize(d) => d.get(i).map(|&v| v as i128),
        }
    }
}

macro_rules! dims_from {
    ($($ty:ty => $variant:ident),*) => {$(
        #[doc = concat!("A slice of `", stringify!($ty), "`: `Dims::", stringify!($variant), "`.")]
        ///
        #[doc = concat!(
            "```\n",
            "use dlpack_core::tensor::Dims;\n",
            "let shape: &[", stringify!($ty), "] = &[2, 3];\n",
            "assert_eq!(Dims::from(shape), Dims::", stringify!($variant), "(&[2, 3]));\n",
            "```",
        )]
        impl<'a> From<&'a [$ty]> for Dims<'a> {
            #[inline]
            fn from(d: &'a [$ty]) -> Self {
                Self::$variant(d)
            }
        }
        #[doc = concat!("An array of `", stringify!($ty), "`: `Dims::", stringify!($variant), "`.")]
        ///
        #[doc = concat!(
            "```\n",
            "use dlpack_core::tensor::Dims;\n",
            "let dims = Dims::from(&[2 as ", stringify!($ty), ", 3]);\n",
            "assert_eq!(dims, Dims::", stringify!($variant), "(&[2, 3]));\n",
            "```",
        )]
        impl<'a, const N: usize> From<&'a [$ty; N]> for Dims<'a> {
            #[inline]
            fn from(d: &'a [$ty; N]) -> Self {
                Self::$variant(d)
            }
        }
        #[doc = concat!("A `Vec<", stringify!($ty), ">`: `Dims::", stringify!($variant), "`.")]
        ///
        #[doc = concat!(
            "```\n",
            "use dlpack_core::tensor::Dims;\n",
            "let shape: Vec<", stringify!($ty), "> = vec![2, 3];\n",
            "assert_eq!(Dims::from(&shape), Dims::", stringify!($variant), "(&[2, 3]));\n",
            "```",
        )]
        impl<'a> From<&'a Vec<$ty>> for Dims<'a> {
            #[inline]
            fn from(d: &'a Vec<$ty>) -> Self {
                Self::$variant(d)
            }
        }
    )*};
}

dims_from!(i64 => I64, usize => Usize, isize => Isize);

/// What a [`TensorOwner`] exports: the fields of a `DLTensor` plus the flags.
///
/// Build it with [`TensorParts::new`] (any device, an opaque pointer) or [`TensorParts::host`]
/// (a typed CPU pointer), then add strides, a byte offset and flags. Without strides the
/// export writes compact row-major ones: exports always carry strides, as DLPack 1.2 requires.
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
///     .read_only();
/// assert_eq!(parts.device(), Device::cuda(0));
/// assert_eq!(parts.flags(), Flags::READ_ONLY);
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
    /// The layout the fields above were made from, while they still match it.
    layout: Option<&'a CheckedLayout>,
}

impl<'a> TensorParts<'a> {
    /// A tensor of `dtype` with `shape` at `data` on `device`: compact row-major, no byte
    /// offset, no flags. `data` is opaque: a host pointer, a device pointer or a handle.
    ///
    /// ```
    /// use dlpack_core::{DataType, Device, tensor::{Flags, TensorParts}};
    ///
    /// // A ROCm allocation: an address in the device's space, never dereferenced on the host.
    /// let address = core::ptr::without_provenance_mut(0x7f00_0000_0000);
    /// let parts = TensorParts::new(address, Device::rocm(1), DataType::F16, &[1024_usize]);
    /// assert_eq!((parts.device(), parts.dtype()), (Device::rocm(1), DataType::F16));
    /// assert_eq!((parts.strides(), parts.byte_offset(), parts.flags()), (None, 0, Flags::EMPTY));
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
            layout: None,
        }
    }

    /// Elements of type `T` in host memory: device [`Device::CPU`], data type
    /// `T::DATA_TYPE`.
    ///
    /// ```
    /// use dlpack_core::{DataType, Device, tensor::TensorParts};
    ///
    /// let mut data = vec![0_i8; 6];
    /// let parts = TensorParts::host(data.as_mut_ptr(), &[2_usize, 3]);
    /// assert_eq!((parts.device(), parts.dtype()), (Device::CPU, DataType::I8));
    /// ```
    #[inline]
    pub fn host<T: Element>(data: *mut T, shape: impl Into<Dims<'a>>) -> Self {
        Self::new(data.cast(), Device::CPU, T::DATA_TYPE, shape)
    }

    /// With strides, in elements (negative and zero strides allowed).
    ///
    /// ```
    /// use dlpack_core::tensor::{Dims, TensorParts};
    ///
    /// let mut data = vec![0_u8; 6];
    /// // Column-major 2 x 3: the next row is 1 element on, the next column 2.
    /// let parts = TensorParts::host(data.as_mut_ptr(), &[2_usize, 3]).with_strides(&[1_i64, 2]);
    /// assert_eq!(parts.strides(), Some(Dims::I64(&[1, 2])));
    /// ```
    #[inline]
    #[must_use]
    pub fn with_strides(self, strides: impl Into<Dims<'a>>) -> Self {
        Self {
            strides: Some(strides.into()),
            layout: None,
            ..self
        }
    }

    /// With the byte offset from `data` to the first element.
    ///
    /// ```
    /// use dlpack_core::tensor::TensorParts;
    ///
    /// let mut data = vec![0_u32; 4];
    /// // The last three elements: the first one is 4 bytes past the pointer.
    /// let parts = TensorParts::host(data.as_mut_ptr(), &[3_usize]).with_byte_offset(4);
    /// assert_eq!(parts.byte_offset(), 4);
    /// ```
    #[inline]
    #[must_use]
    pub fn with_byte_offset(self, byte_offset: u64) -> Self {
        Self {
            byte_offset,
            layout: None,
            ..self
        }
    }

    /// With these flags added (`IS_COPIED` for a fresh copy, `IS_SUBBYTE_TYPE_PADDED` for
    /// one sub-byte element per byte).
    ///
    /// ```
    /// use dlpack_core::tensor::{Flags, TensorParts};
    ///
    /// let mut data = vec![0_u8; 4];
    /// let parts = TensorParts::host(data.as_mut_ptr(), &[4_usize])
    ///     .with_flags(Flags::IS_COPIED)
    ///     .with_flags(Flags::READ_ONLY); // added, not replaced
    /// assert_eq!(parts.flags(), Flags::IS_COPIED | Flags::READ_ONLY);
    /// ```
    #[inline]
    #[must_use]
    pub fn with_flags(self, flags: Flags) -> Self {
        let flags = self.flags | flags;
        // Padding changes what a sub-byte layout may be; the other flags leave it as checked.
        let padded = |f: Flags| f.contains(Flags::IS_SUBBYTE_TYPE_PADDED);
        Self {
            flags,
            layout: self.layout.filter(|l| padded(l.flags()) == padded(flags)),
            ..self
        }
    }

    /// These parts, made from `layout` (which their fields match).
    #[inline]
    pub(super) fn with_checked(self, layout: &'a CheckedLayout) -> Self {
        Self {
            layout: Some(layout),
            ..self
        }
    }

    /// Flagged `READ_ONLY`: consumers must not write through the tensor.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// /// A lookup table in static memory, which nobody may write.
    /// struct Table(&'static [u8; 4]);
    /// // SAFETY: static data lives for ever, and `read_only` forbids consumers to write it.
    /// unsafe impl TensorOwner for Table {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(self.0.as_ptr().cast_mut(), &[4_usize]).read_only()
    ///     }
    /// }
    ///
    /// static SQUARES: [u8; 4] = [0, 1, 4, 9];
    /// let mut tensor = ManagedTensor::from_owner(Table(&SQUARES))?;
    /// assert_eq!(tensor.view()?.as_slice::<u8>()?, [0, 1, 4, 9]);
    /// assert!(tensor.view_mut().is_err());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn read_only(self) -> Self {
        self.with_flags(Flags::READ_ONLY)
    }

    /// The data pointer.
    ///
    /// ```
    /// use dlpack_core::tensor::TensorParts;
    ///
    /// let mut data = vec![0_u16; 2];
    /// let parts = TensorParts::host(data.as_mut_ptr(), &[2_usize]);
    /// assert_eq!(parts.data(), data.as_mut_ptr().cast());
    /// ```
    #[inline]
    pub fn data(&self) -> *mut c_void {
        self.data
    }

    /// The device.
    ///
    /// ```
    /// use dlpack_core::{Device, tensor::TensorParts};
    ///
    /// let mut data = vec![0_u16; 2];
    /// assert_eq!(TensorParts::host(data.as_mut_ptr(), &[2_usize]).device(), Device::CPU);
    /// ```
    #[inline]
    pub fn device(&self) -> Device {
        self.device
    }

    /// The data type.
    ///
    /// ```
    /// use dlpack_core::{DataType, tensor::TensorParts};
    ///
    /// let mut data = vec![0_u16; 2];
    /// assert_eq!(TensorParts::host(data.as_mut_ptr(), &[2_usize]).dtype(), DataType::U16);
    /// ```
    #[inline]
    pub fn dtype(&self) -> DataType {
        self.dtype
    }

    /// The shape, in the integer type it was given in.
    ///
    /// ```
    /// use dlpack_core::tensor::{Dims, TensorParts};
    ///
    /// let mut data = vec![0_u16; 6];
    /// let parts = TensorParts::host(data.as_mut_ptr(), &[2_usize, 3]);
    /// assert_eq!(parts.shape(), Dims::Usize(&[2, 3]));
    /// ```
    #[inline]
    pub fn shape(&self) -> Dims<'a> {
        self.shape
    }

    /// The strides, or `None` for compact row-major.
    ///
    /// ```
    /// use dlpack_core::tensor::{Dims, TensorParts};
    ///
    /// let mut data = vec![0_u16; 3];
    /// let parts = TensorParts::host(data.as_mut_ptr(), &[3_usize]);
    /// assert_eq!(parts.strides(), None);
    /// assert_eq!(parts.with_strides(&[-1_isize]).strides(), Some(Dims::Isize(&[-1])));
    /// ```
    #[inline]
    pub fn strides(&self) -> Option<Dims<'a>> {
        self.strides
    }

    /// The byte offset.
    ///
    /// ```
    /// use dlpack_core::tensor::TensorParts;
    ///
    /// let mut data = vec![0_u16; 3];
    /// let parts = TensorParts::host(data.as_mut_ptr(), &[2_usize]);
    /// assert_eq!(parts.byte_offset(), 0);
    /// assert_eq!(parts.with_byte_offset(2).byte_offset(), 2);
    /// ```
    #[inline]
    pub fn byte_offset(&self) -> u64 {
        self.byte_offset
    }

    /// The flags.
    ///
    /// ```
    /// use dlpack_core::tensor::{Flags, TensorParts};
    ///
    /// let mut data = vec![0_u16; 3];
    /// let parts = TensorParts::host(data.as_mut_ptr(), &[3_usize]);
    /// assert_eq!(parts.flags(), Flags::EMPTY);
    /// assert_eq!(parts.read_only().flags(), Flags::READ_ONLY);
    /// ```
    #[inline]
    pub fn flags(&self) -> Flags {
        self.flags
    }

    /// The checked layout these parts were made from ([`TensorParts::from_layout`]), while
    /// they still match it: `None` once the strides or byte offset are replaced, or padding is
    /// added to sub-byte elements, and for parts built field by field. An export of parts
    /// with a layout copies its checked values; of any other, checks every field.
    ///
    /// ```
    /// use dlpack_core::Device;
    /// use dlpack_core::tensor::{CheckedLayout, Flags, TensorParts};
    ///
    /// let mut data = vec![0_u8; 4];
    /// let parts = TensorParts::host(data.as_mut_ptr(), &[4_usize]);
    /// assert!(parts.layout().is_none());
    /// let layout = CheckedLayout::new(&parts)?;
    /// let checked = TensorParts::from_layout(data.as_mut_ptr().cast(), Device::CPU, &layout);
    /// assert_eq!(checked.layout(), Some(&layout));
    /// assert!(checked.read_only().layout().is_some()); // flags that leave the layout as it is
    /// assert!(checked.with_strides(&[2_i64]).layout().is_none());
    /// assert!(checked.with_byte_offset(1).layout().is_none());
    /// assert!(checked.with_flags(Flags::IS_SUBBYTE_TYPE_PADDED).layout().is_none());
    /// # Ok::<(), dlpack_core::tensor::TensorError>(())
    /// ```
    #[inline]
    pub fn layout(&self) -> Option<&'a CheckedLayout> {
        self.layout
    }
}
