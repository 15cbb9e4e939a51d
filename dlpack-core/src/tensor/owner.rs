//! [`TensorOwner`]: what an exported tensor keeps alive, and how it describes its data.

use core::ffi::c_void;

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
    pub fn len(&self) -> usize {
        match self {
            Self::I64(d) => d.len(),
            Self::Usize(d) => d.len(),
            Self::Isize(d) => d.len(),
        }
    }

    /// Whether there are no entries (a rank-0 shape).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `i`, widened so that every value of every kind fits.
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
        impl<'a> From<&'a [$ty]> for Dims<'a> {
            #[inline]
            fn from(d: &'a [$ty]) -> Self {
                Self::$variant(d)
            }
        }
        impl<'a, const N: usize> From<&'a [$ty; N]> for Dims<'a> {
            #[inline]
            fn from(d: &'a [$ty; N]) -> Self {
                Self::$variant(d)
            }
        }
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
}

impl<'a> TensorParts<'a> {
    /// A tensor of `dtype` with `shape` at `data` on `device`: compact row-major, no byte
    /// offset, no flags. `data` is opaque: a host pointer, a device pointer or a handle.
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
        }
    }

    /// Elements of type `T` in host memory: device [`Device::CPU`], data type
    /// `T::DATA_TYPE`.
    pub fn host<T: Element>(data: *mut T, shape: impl Into<Dims<'a>>) -> Self {
        Self::new(data.cast(), Device::CPU, T::DATA_TYPE, shape)
    }

    /// With strides, in elements (negative and zero strides allowed).
    #[must_use]
    pub fn with_strides(self, strides: impl Into<Dims<'a>>) -> Self {
        Self {
            strides: Some(strides.into()),
            ..self
        }
    }

    /// With the byte offset from `data` to the first element.
    #[must_use]
    pub fn with_byte_offset(self, byte_offset: u64) -> Self {
        Self {
            byte_offset,
            ..self
        }
    }

    /// With these flags added (`IS_COPIED` for a fresh copy, `IS_SUBBYTE_TYPE_PADDED` for
    /// one sub-byte element per byte).
    #[must_use]
    pub fn with_flags(self, flags: Flags) -> Self {
        Self {
            flags: self.flags | flags,
            ..self
        }
    }

    /// Flagged `READ_ONLY`: consumers must not write through the tensor.
    #[must_use]
    pub fn read_only(self) -> Self {
        self.with_flags(Flags::READ_ONLY)
    }

    /// The data pointer.
    pub fn data(&self) -> *mut c_void {
        self.data
    }

    /// The device.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The data type.
    pub fn dtype(&self) -> DataType {
        self.dtype
    }

    /// The shape.
    pub fn shape(&self) -> Dims<'a> {
        self.shape
    }

    /// The strides, or `None` for compact row-major.
    pub fn strides(&self) -> Option<Dims<'a>> {
        self.strides
    }

    /// The byte offset.
    pub fn byte_offset(&self) -> u64 {
        self.byte_offset
    }

    /// The flags.
    pub fn flags(&self) -> Flags {
        self.flags
    }
}
