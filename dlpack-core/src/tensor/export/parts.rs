//! [`TensorParts`], what a [`TensorOwner`](crate::tensor::TensorOwner) exports, and
//! [`CheckedLayout`], a description checked once for an owner that exports the same layout
//! many times. The two live together because each names the other in its public signature
//! ([`CheckedLayout::new`] takes parts, [`TensorParts::from_layout`] a layout).

use alloc::{boxed::Box, vec};
use core::ffi::c_void;

use super::dims::{self, Checked, Dims, Dims64, check_written};
use crate::DataType;
use crate::Device;
use crate::element::Element;
use crate::ffi::DLTensor;
use crate::tensor::Flags;
use crate::tensor::TensorError;
use crate::tensor::import::meta::TensorMeta;
use crate::tensor::import::validate;

/// What a [`TensorOwner`](crate::tensor::TensorOwner) exports: the fields of a `DLTensor` plus the flags.
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

    /// The rank these parts give, if it is at most [`MAX_NDIM`](crate::tensor::limits::MAX_NDIM) and the
    /// strides match it.
    #[inline]
    pub(crate) fn rank(&self) -> Result<usize, TensorError> {
        dims::check_rank(self.shape, self.strides)
    }

    /// The tensor at `data` on `device` with a layout checked beforehand: its data type,
    /// shape, strides, byte offset and flags. An export of these parts copies the layout's
    /// `int64_t` values and checks only the data pointer and device (see [`CheckedLayout`]).
    ///
    /// ```
    /// use dlpack_core::{DataType, Device, ManagedTensor};
    /// use dlpack_core::tensor::{CheckedLayout, TensorOwner, TensorParts};
    ///
    /// /// A vector and its checked layout.
    /// struct Checked(Vec<i32>, CheckedLayout);
    /// // SAFETY: the layout was checked for this vector's 4 elements, and the Vec is ours alone.
    /// unsafe impl TensorOwner for Checked {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::from_layout(self.0.as_mut_ptr().cast(), Device::CPU, &self.1)
    ///     }
    /// }
    ///
    /// let mut data = vec![1, 2, 3, 4];
    /// let layout = CheckedLayout::new(&TensorParts::host(data.as_mut_ptr(), &[2_usize, 2]))?;
    /// let tensor = ManagedTensor::from_owner(Checked(data, layout))?;
    /// assert_eq!((tensor.view()?.dtype(), tensor.view()?.shape()), (DataType::I32, &[2, 2][..]));
    /// assert_eq!(tensor.view()?.as_slice::<i32>()?, [1, 2, 3, 4]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    pub fn from_layout(data: *mut c_void, device: Device, layout: &'a CheckedLayout) -> Self {
        Self::new(data, device, layout.dtype, layout.shape())
            .with_strides(layout.strides())
            .with_byte_offset(layout.byte_offset)
            .with_flags(layout.flags)
            .with_checked(Checked {
                dims: layout.dims.as_slice(),
                len: layout.len,
                padded: layout.flags.contains(Flags::IS_SUBBYTE_TYPE_PADDED),
            })
    }

    /// A borrowed `DLTensor` of these parts: the non-owning export of DLPack's exchange API
    /// (`dltensor_from_py_object_no_sync`), which allocates nothing, so the `DLTensor` points
    /// at the owner's own shape and strides and is valid while they are (`'a`).
    ///
    /// The parts are checked as an export checks them (nothing more when they come from a
    /// [`CheckedLayout`]). Refused, since a `DLTensor` could not say it or point at it: a shape
    /// or strides not given as `int64_t` ([`Dims::I64`](crate::tensor::Dims::I64)), strides left out
    /// (DLPack 1.2 made them mandatory), and the flags `READ_ONLY` and
    /// `IS_SUBBYTE_TYPE_PADDED`, which only a managed tensor carries.
    ///
    /// ```
    /// use dlpack_core::tensor::{CheckedLayout, Flags, TensorParts, TensorView};
    /// use dlpack_core::ffi::DLPackVersion;
    ///
    /// let mut data = [1_i32, 2, 3, 4, 5, 6];
    /// let layout = CheckedLayout::new(&TensorParts::host(data.as_mut_ptr(), &[2_usize, 3]))?;
    /// let parts = TensorParts::from_layout(data.as_mut_ptr().cast(), dlpack_core::Device::CPU, &layout);
    /// let raw = parts.to_dl_tensor()?;
    /// assert_eq!(raw.shape.cast_const(), layout.shape().as_ptr()); // the layout's own shape
    /// // SAFETY: `raw` describes `data` through `layout`, both alive and unchanged meanwhile.
    /// let view = unsafe { TensorView::from_dl_tensor(&raw, Flags::EMPTY, DLPackVersion::CURRENT)? };
    /// assert_eq!(view.as_slice::<i32>()?, [1, 2, 3, 4, 5, 6]);
    ///
    /// // A Rust shape (`usize`) cannot be pointed at as `int64_t`.
    /// let err = TensorParts::host(data.as_mut_ptr(), &[6_usize]).to_dl_tensor().unwrap_err();
    /// assert!(err.to_string().starts_with("a borrowed DLTensor points at the owner's shape"));
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn to_dl_tensor(&self) -> Result<DLTensor, crate::Error> {
        Ok(self.borrowed()?)
    }

    /// [`to_dl_tensor`](Self::to_dl_tensor), with the crate-internal error.
    pub(crate) fn borrowed(&self) -> Result<DLTensor, TensorError> {
        let ndim = self.rank()?;
        let Dims::I64(shape) = self.shape() else {
            return Err(TensorError::BorrowedDims { field: "shape" });
        };
        let strides: &[i64] = match self.strides() {
            Some(Dims::I64(strides)) => strides,
            None if ndim == 0 => &[],
            _ => return Err(TensorError::BorrowedDims { field: "strides" }),
        };
        let unsaid = self.flags() & (Flags::READ_ONLY | Flags::IS_SUBBYTE_TYPE_PADDED);
        if !unsaid.is_empty() {
            return Err(TensorError::BorrowedFlags { flags: unsaid });
        }
        if self.checked().is_none() {
            let count = validate::check_shape(shape)?;
            let dims = Dims64 {
                shape,
                strides,
                count,
            };
            check_written(self.dtype(), self.flags(), self.byte_offset(), &dims)?;
        }
        Ok(DLTensor {
            data: self.data(),
            device: self.device(),
            // At most `MAX_NDIM` (checked by `rank`).
            ndim: ndim as i32,
            dtype: self.dtype(),
            // Never written through: a consumer of a `DLTensor` only reads its shape and
            // strides (the `*mut` is the C struct's).
            shape: shape.as_ptr().cast_mut(),
            strides: if ndim == 0 {
                core::ptr::null_mut()
            } else {
                strides.as_ptr().cast_mut()
            },
            byte_offset: self.byte_offset(),
        })
    }
}

/// A tensor's layout (data type, shape, strides, byte offset and flags) checked against the
/// rules an importer applies, once, and kept as the `int64_t` values an export writes.
///
/// Every export checks the description its owner gives ([`TensorOwner`](crate::tensor::TensorOwner)):
/// each dimension converted to `int64_t`, the element count, the data type, the bytes the
/// strides reach. An owner whose layout never changes, such as a framework's tensor exported
/// on every `__dlpack__` call, can check it when the tensor is made and describe itself with
/// [`TensorParts::from_layout`]: its exports then copy the checked values instead of checking
/// them again. The checks are the export's own, so an export from a layout accepts and writes
/// exactly what the same description given field by field would.
///
/// What a layout does not fix is checked on every export as before: the data pointer (null is
/// refused for a non-empty tensor) and the device. Changing the strides or the byte offset of
/// parts made from a layout, or whether sub-byte elements are padded, drops the layout from
/// them, and that export checks everything.
///
/// ```
/// use dlpack_core::{DataType, Device, ManagedTensor};
/// use dlpack_core::tensor::{CheckedLayout, Flags, TensorOwner, TensorParts};
/// use std::sync::Arc;
///
/// /// A framework's tensor: a shared buffer and a layout that never changes.
/// struct Tensor {
///     data: Arc<Vec<f32>>,
///     layout: Arc<CheckedLayout>,
/// }
///
/// // SAFETY: the buffer holds the 6 elements the checked layout reaches; the export is
/// // read-only (the layout's flags), since other clones of the Arc may read the buffer.
/// unsafe impl TensorOwner for Tensor {
///     fn describe(&mut self) -> TensorParts<'_> {
///         let data = self.data.as_ptr().cast_mut().cast();
///         TensorParts::from_layout(data, Device::CPU, &self.layout)
///     }
/// }
///
/// let data = Arc::new(vec![1., 2., 3., 4., 5., 6.]);
/// // Checked once: a 3 x 2 transpose of the row-major 2 x 3 buffer.
/// let parts = TensorParts::host(data.as_ptr().cast_mut(), &[3_usize, 2])
///     .with_strides(&[1_i64, 3])
///     .with_flags(Flags::READ_ONLY);
/// let layout = Arc::new(CheckedLayout::new(&parts)?);
/// assert_eq!((layout.shape(), layout.strides()), (&[3, 2][..], &[1, 3][..]));
///
/// for _ in 0..3 {
///     let tensor = Tensor { data: Arc::clone(&data), layout: Arc::clone(&layout) };
///     let export = ManagedTensor::from_owner(tensor)?;
///     assert_eq!(export.view()?.to_vec::<f32>()?, [1., 4., 2., 5., 3., 6.]);
/// }
///
/// // What an importer would refuse is refused when the layout is made.
/// let bad = TensorParts::host(data.as_ptr().cast_mut(), &[2_usize, 3]).with_strides(&[i64::MAX, 1]);
/// assert!(CheckedLayout::new(&bad).unwrap_err().to_string().contains("spans more than"));
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CheckedLayout {
    /// The shape, then the strides (compact row-major when the description gave none).
    dims: DimsBuf,
    /// The number of elements.
    len: usize,
    dtype: DataType,
    byte_offset: u64,
    flags: Flags,
}

/// The shape and strides of a layout: in place up to rank 4 (most tensors), so that a layout
/// made for every imported tensor costs no allocation of its own; on the heap above.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum DimsBuf {
    /// `len` values; the rest are zero.
    Inline {
        len: u8,
        values: [i64; INLINE_DIMS],
    },
    Heap(Box<[i64]>),
}

/// Shape and strides of rank 4.
const INLINE_DIMS: usize = 8;

impl DimsBuf {
    /// `len` zeros.
    fn zeroed(len: usize) -> Self {
        match u8::try_from(len) {
            Ok(short) if len <= INLINE_DIMS => Self::Inline {
                len: short,
                values: [0; INLINE_DIMS],
            },
            _ => Self::Heap(vec![0; len].into_boxed_slice()),
        }
    }

    fn as_slice(&self) -> &[i64] {
        match self {
            Self::Inline { len, values } => &values[..usize::from(*len)],
            Self::Heap(values) => values,
        }
    }

    fn as_mut_slice(&mut self) -> &mut [i64] {
        match self {
            Self::Inline { len, values } => &mut values[..usize::from(*len)],
            Self::Heap(values) => values,
        }
    }
}

impl CheckedLayout {
    /// Checks the layout of `parts` as an export would (its data pointer and device aside)
    /// and keeps it: the rank, each dimension and stride as `int64_t`, the element count, the
    /// data type, and the bytes the elements reach from the byte offset, with sub-byte
    /// elements packed unless the flags say `IS_SUBBYTE_TYPE_PADDED`. Without strides, the
    /// layout is compact row-major, as the export would write it.
    ///
    /// # Errors
    ///
    /// [`TensorError`], naming the field and value an export of `parts` would refuse.
    ///
    /// ```
    /// use dlpack_core::{DataType, Device};
    /// use dlpack_core::tensor::{CheckedLayout, TensorParts};
    ///
    /// let address = core::ptr::without_provenance_mut(0x7f00_0000_0000);
    /// let parts = TensorParts::new(address, Device::cuda(0), DataType::BF16, &[2_usize, 0, 3]);
    /// let layout = CheckedLayout::new(&parts)?;
    /// assert_eq!((layout.shape(), layout.strides()), (&[2, 0, 3][..], &[3, 3, 1][..]));
    ///
    /// let negative = TensorParts::new(address, Device::cuda(0), DataType::BF16, &[2_i64, -3]);
    /// let err = CheckedLayout::new(&negative).unwrap_err();
    /// assert_eq!(err.to_string(), "shape[1] is -3; dimensions must be non-negative");
    /// # Ok::<(), dlpack_core::tensor::TensorError>(())
    /// ```
    pub fn new(parts: &TensorParts<'_>) -> Result<Self, TensorError> {
        let ndim = parts.rank()?;
        let mut dims = DimsBuf::zeroed(2 * ndim);
        let (shape, strides) = dims.as_mut_slice().split_at_mut(ndim);
        let len = dims::write_dims(parts.shape(), parts.strides(), shape, strides)?;
        dims::check_written(
            parts.dtype(),
            parts.flags(),
            parts.byte_offset(),
            &Dims64 {
                shape,
                strides,
                count: len,
            },
        )?;
        Ok(Self {
            dims,
            len,
            dtype: parts.dtype(),
            byte_offset: parts.byte_offset(),
            flags: parts.flags(),
        })
    }

    /// A layout whose values an import validated by the rules [`new`](Self::new) applies:
    /// the shape and the strides, the element count, and the rest as validated.
    pub(crate) fn validated(
        shape: &[i64],
        strides: &[i64],
        len: usize,
        dtype: DataType,
        byte_offset: u64,
        flags: Flags,
    ) -> Self {
        let ndim = shape.len();
        let mut dims = DimsBuf::zeroed(2 * ndim);
        let (to_shape, to_strides) = dims.as_mut_slice().split_at_mut(ndim);
        to_shape.copy_from_slice(shape);
        to_strides.copy_from_slice(strides);
        Self {
            dims,
            len,
            dtype,
            byte_offset,
            flags,
        }
    }

    /// The shape.
    ///
    /// ```
    /// use dlpack_core::tensor::{CheckedLayout, TensorParts};
    ///
    /// let mut data = [0_u8; 6];
    /// let layout = CheckedLayout::new(&TensorParts::host(data.as_mut_ptr(), &[2_usize, 3]))?;
    /// assert_eq!(layout.shape(), [2, 3]);
    /// # Ok::<(), dlpack_core::tensor::TensorError>(())
    /// ```
    #[inline]
    pub fn shape(&self) -> &[i64] {
        &self.dims.as_slice()[..self.ndim()]
    }

    /// The strides, in elements: those the description gave, or compact row-major ones.
    ///
    /// ```
    /// use dlpack_core::tensor::{CheckedLayout, TensorParts};
    ///
    /// let mut data = [0_u8; 6];
    /// let layout = CheckedLayout::new(&TensorParts::host(data.as_mut_ptr(), &[2_usize, 3]))?;
    /// assert_eq!(layout.strides(), [3, 1]);
    /// # Ok::<(), dlpack_core::tensor::TensorError>(())
    /// ```
    #[inline]
    pub fn strides(&self) -> &[i64] {
        &self.dims.as_slice()[self.ndim()..]
    }

    /// The byte offset from the data pointer to the first element.
    ///
    /// ```
    /// use dlpack_core::tensor::{CheckedLayout, TensorParts};
    ///
    /// let mut data = [0_u16; 3];
    /// let parts = TensorParts::host(data.as_mut_ptr(), &[2_usize]).with_byte_offset(2);
    /// assert_eq!(CheckedLayout::new(&parts)?.byte_offset(), 2);
    /// # Ok::<(), dlpack_core::tensor::TensorError>(())
    /// ```
    #[inline]
    pub fn byte_offset(&self) -> u64 {
        self.byte_offset
    }

    /// The data type (read by the tests; an owner knows its own).
    #[cfg(test)]
    pub(crate) fn dtype(&self) -> DataType {
        self.dtype
    }

    /// The flags the description carried (read by the tests; an owner knows its own).
    #[cfg(test)]
    pub(crate) fn flags(&self) -> Flags {
        self.flags
    }

    /// The number of elements: the product of the shape (read by the tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The number of dimensions.
    #[inline]
    fn ndim(&self) -> usize {
        self.dims.as_slice().len() / 2
    }
}

/// The layout of a validated tensor, kept without checking it again: an import validated it
/// by the rules an export applies, so a library that wraps an imported tensor
/// (`dlpack_demo.Tensor` does, on every `from_dlpack`) keeps its layout for the exports to
/// come at the cost of one copy of the shape and strides. The flags kept are those of the
/// layout (`IS_SUBBYTE_TYPE_PADDED`); `READ_ONLY` and `IS_COPIED` describe the import, not
/// the layout.
///
/// ```
/// use dlpack_core::ManagedTensor;
/// use dlpack_core::tensor::CheckedLayout;
///
/// let tensor = ManagedTensor::from_vec(vec![0_u16; 6], &[3, 2])?;
/// let view = tensor.view()?;
/// let layout = CheckedLayout::from(&*view);
/// assert_eq!((layout.shape(), layout.strides()), (&[3, 2][..], &[2, 1][..]));
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl From<&TensorMeta<'_>> for CheckedLayout {
    fn from(meta: &TensorMeta<'_>) -> Self {
        CheckedLayout::validated(
            meta.shape(),
            meta.strides(),
            meta.len(),
            meta.dtype(),
            meta.byte_offset(),
            meta.flags() & Flags::IS_SUBBYTE_TYPE_PADDED,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Device;

    /// An export copies a layout's values only while the parts still say what was checked.
    #[test]
    fn parts_keep_the_checked_layout_while_they_match_it() {
        let mut data = [0_u8; 4];
        let parts = TensorParts::host(data.as_mut_ptr(), &[4_usize]);
        assert!(parts.checked().is_none(), "built field by field");
        let layout = CheckedLayout::new(&parts).unwrap();
        let made = TensorParts::from_layout(data.as_mut_ptr().cast(), Device::CPU, &layout);
        let checked = made.checked().expect("made from the layout");
        assert_eq!(
            (checked.dims, checked.len, checked.padded),
            (&[4, 1][..], 4, false)
        );
        // Flags that leave the layout as checked keep it.
        assert!(made.with_flags(Flags::READ_ONLY).checked().is_some());
        assert!(made.with_flags(Flags::IS_COPIED).checked().is_some());
        // Anything that changes what was checked drops it.
        assert!(made.with_strides(&[2_i64]).checked().is_none());
        assert!(made.with_byte_offset(1).checked().is_none());
        let padded = made.with_flags(Flags::IS_SUBBYTE_TYPE_PADDED);
        assert!(padded.checked().is_none());
    }
}
