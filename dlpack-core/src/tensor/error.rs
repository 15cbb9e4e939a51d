//! [`TensorError`]: why a tensor was refused, naming the field and the value.

use alloc::boxed::Box;
use core::fmt;

use dlpack_grammar::InvalidDataType;

use crate::DataType;
use crate::Device;
use crate::ffi::DLPackVersion;
use crate::tensor::Flags;
use crate::tensor::limits::MAX_NDIM;

/// Why a tensor was refused on import or export. Carried by
/// [`Error::Tensor`](crate::Error::Tensor); each message names the field and the value and says
/// what was expected.
///
/// ```
/// use dlpack_core::tensor::TensorError;
///
/// let err = TensorError::NegativeDim { axis: 2, value: -4 };
/// assert_eq!(err.to_string(), "shape[2] is -4; dimensions must be non-negative");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TensorError {
    /// `from_raw` was given a null pointer.
    NullPointer,
    /// The producer's DLPack major version is not 1. The deleter has been called.
    UnsupportedVersion {
        /// The version the producer wrote.
        version: DLPackVersion,
    },
    /// `ndim` is negative or above [`MAX_NDIM`].
    Ndim {
        /// The value.
        ndim: i64,
    },
    /// `shape` is null although `ndim` is above 0.
    NullShape {
        /// The tensor's `ndim`.
        ndim: i32,
    },
    /// `strides` is null although `ndim` is above 0 and the producer declares DLPack 1.2 or
    /// later, which requires them.
    NullStrides {
        /// The tensor's `ndim`.
        ndim: i32,
        /// The version the producer declared.
        version: DLPackVersion,
    },
    /// `shape` or `strides` points to an address that is not aligned for `int64_t`.
    MisalignedMetadata {
        /// `"shape"` or `"strides"`.
        field: &'static str,
        /// The address.
        address: usize,
    },
    /// A dimension is negative.
    NegativeDim {
        /// The axis.
        axis: usize,
        /// The value.
        value: i64,
    },
    /// A dimension or stride given to an export does not fit in an `int64_t`.
    DimOutOfRange {
        /// `"shape"` or `"strides"`.
        field: &'static str,
        /// The axis.
        axis: usize,
        /// The value.
        value: i128,
    },
    /// The product of the non-zero dimensions exceeds `isize::MAX`.
    TooManyElements {
        /// The shape.
        shape: Box<[i64]>,
    },
    /// The bytes the elements reach, from the lowest to the highest, exceed `isize::MAX`.
    ExtentOverflow {
        /// The shape.
        shape: Box<[i64]>,
        /// The strides, in elements.
        strides: Box<[i64]>,
        /// The data type.
        dtype: DataType,
    },
    /// `byte_offset` plus the extent of the elements exceeds `isize::MAX`.
    ByteOffsetOverflow {
        /// The value.
        byte_offset: u64,
    },
    /// The data pointer plus the offsets the elements reach leaves the address space.
    AddressOverflow {
        /// The data pointer's address.
        address: usize,
        /// The tensor's `byte_offset`.
        byte_offset: u64,
    },
    /// `dtype` is not a data type DLPack allows (an unknown code, 0 bits, …). (Not named
    /// `DataType`: a second item of that name would make rustc print `dlpack_core::DataType`
    /// in full in every diagnostic.)
    InvalidDataType {
        /// The value.
        dtype: DataType,
        /// The rule the data type breaks.
        reason: InvalidDataType,
    },
    /// A packed sub-byte tensor (`float4_e2m1fn`, `int4` without `IS_SUBBYTE_TYPE_PADDED`) with
    /// strides other than compact row-major: its elements share bytes, so no other layout is
    /// addressable.
    PackedStrides {
        /// The data type.
        dtype: DataType,
        /// The axis.
        axis: usize,
        /// The stride given.
        stride: i64,
        /// The compact stride.
        expected: i64,
    },
    /// A mutable view of a tensor flagged `READ_ONLY`.
    ReadOnly,
    /// A mutable view of a tensor a Python producer lent without a copy, which it may lend to
    /// other consumers too (see [`ManagedTensor`](crate::ManagedTensor)).
    LentByProducer,
    /// Typed host access to data the CPU cannot read (`Device::CPU.can_access(device)` is false).
    NotHostAccessible {
        /// Where the data lives.
        device: Device,
    },
    /// `data` is null although the tensor has elements.
    NullData {
        /// How many elements.
        elements: usize,
    },
    /// `data + byte_offset` is not aligned for the element type asked for.
    Misaligned {
        /// The address of the first element.
        address: usize,
        /// The alignment the type needs.
        align: usize,
        /// The type asked for.
        type_name: &'static str,
    },
    /// Typed access with a Rust type whose data type is not the tensor's.
    DataTypeMismatch {
        /// The tensor's data type.
        dtype: DataType,
        /// The type asked for.
        type_name: &'static str,
        /// Its data type.
        requested: DataType,
    },
    /// Slice access to a tensor that is not compact row-major.
    NotContiguous {
        /// The shape.
        shape: Box<[i64]>,
        /// The strides.
        strides: Box<[i64]>,
    },
    /// Mutable strided access to a layout whose strides reach some element from two indices
    /// (decided exactly; see [`TensorViewMut`](crate::tensor::TensorViewMut)).
    Overlapping {
        /// The shape.
        shape: Box<[i64]>,
        /// The strides.
        strides: Box<[i64]>,
    },
    /// Mutable strided access to a layout whose strides do not nest and that the exact overlap
    /// search could not decide within its bound (see [`TensorViewMut`](crate::tensor::TensorViewMut)).
    OverlapUndecided {
        /// The shape.
        shape: Box<[i64]>,
        /// The strides.
        strides: Box<[i64]>,
    },
    /// A mutable `ndarray` view of strides that do not nest (sorted by size, a stride does not
    /// step past everything the smaller ones reach), which `ndarray` requires of mutable views
    /// even where each element is reached once.
    NotNested {
        /// The shape.
        shape: Box<[i64]>,
        /// The strides.
        strides: Box<[i64]>,
    },
    /// A byte of a `bool` tensor is neither 0 nor 1.
    InvalidBool {
        /// The element, in row-major order.
        index: usize,
        /// The byte.
        byte: u8,
    },
    /// An export's shape does not hold as many elements as its data has.
    ShapeMismatch {
        /// The shape.
        shape: Box<[usize]>,
        /// The number of elements of the data.
        len: usize,
    },
    /// An export's strides do not have one entry per dimension.
    StridesLength {
        /// The number of dimensions.
        ndim: usize,
        /// The number of strides.
        strides: usize,
    },
    /// An export as a legacy `DLManagedTensor`, which has no `flags` field, of a tensor that
    /// needs one (`READ_ONLY`, or a padded sub-byte type).
    LegacyFlags {
        /// The flags that cannot be carried.
        flags: Flags,
    },
    /// A compact copy into a caller's buffer
    /// ([`TensorMeta::copy_compact_into`](crate::tensor::TensorMeta::copy_compact_into)) that is
    /// shorter than the copy.
    CopyBufferLength {
        /// The bytes of the copy.
        needed: usize,
        /// The bytes of the buffer.
        len: usize,
    },
    /// A copy needs more memory than could be allocated.
    AllocationFailed {
        /// The bytes asked for (saturated at `usize::MAX`).
        bytes: usize,
    },
    /// A borrowed `DLTensor` ([`TensorParts::to_dl_tensor`](crate::tensor::TensorParts::to_dl_tensor))
    /// points at the owner's own shape and strides, so they must be `int64_t` and the strides
    /// given; `field` names the one that was not.
    BorrowedDims {
        /// `"shape"` or `"strides"`.
        field: &'static str,
    },
    /// A borrowed `DLTensor`, which has no `flags` field, of a tensor that needs one
    /// (`READ_ONLY`, or a padded sub-byte type).
    BorrowedFlags {
        /// The flags that cannot be carried.
        flags: Flags,
    },
    /// A [`TensorOwner`](crate::tensor::TensorOwner) described a different rank after it was moved to
    /// its final place than before.
    OwnerChanged {
        /// The rank described first.
        before: usize,
        /// The rank described after the move.
        after: usize,
    },
}

/// `[1, 2, 3]`.
struct Dims<'a, T>(&'a [T]);

impl<T: fmt::Display> fmt::Display for Dims<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

/// Lower-case messages that name the field, the value and what was expected.
///
/// ```
/// use dlpack_core::tensor::TensorError;
///
/// use dlpack_core::Device;
///
/// let err = TensorError::NotHostAccessible { device: Device::cuda(0) };
/// assert_eq!(
///     err.to_string(),
///     "the data lives on cuda:0, which the CPU cannot read; copy it to the host first"
/// );
/// ```
impl fmt::Display for TensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NullPointer => f.write_str("the managed tensor pointer is null"),
            Self::UnsupportedVersion { version } => write!(
                f,
                "the producer's DLPack major version is {} (version {}.{}); this crate reads major version 1 (the tensor was released)",
                version.major, version.major, version.minor
            ),
            Self::Ndim { ndim } => write!(f, "ndim is {ndim}; expected 0 to {MAX_NDIM}"),
            Self::NullShape { ndim } => write!(
                f,
                "shape is null with ndim {ndim}; a tensor of rank above 0 needs a shape array"
            ),
            Self::NullStrides { ndim, version } => write!(
                f,
                "strides is null with ndim {ndim}; DLPack 1.2 and later require strides, and the producer declares {}.{}",
                version.major, version.minor
            ),
            Self::MisalignedMetadata { field, address } => write!(
                f,
                "{field} is {address:#x}, which is not aligned to 8 bytes for int64_t"
            ),
            Self::NegativeDim { axis, value } => write!(
                f,
                "shape[{axis}] is {value}; dimensions must be non-negative"
            ),
            Self::DimOutOfRange { field, axis, value } => write!(
                f,
                "{field}[{axis}] is {value}; expected {} to {}",
                if *field == "shape" { 0 } else { i64::MIN },
                i64::MAX
            ),
            // An empty tensor has no elements to count, but its other dimensions must still
            // multiply within `isize` (the strides and lists made from them do).
            Self::TooManyElements { shape } if shape.contains(&0) => write!(
                f,
                "the non-zero dimensions of shape {} multiply to more than {}; an empty \
                 tensor's other dimensions must multiply within that too",
                Dims(shape),
                isize::MAX
            ),
            Self::TooManyElements { shape } => write!(
                f,
                "shape {} has more than {} elements",
                Dims(shape),
                isize::MAX
            ),
            Self::ExtentOverflow {
                shape,
                strides,
                dtype,
            } => write!(
                f,
                "shape {} with strides {} of {dtype} spans more than {} bytes",
                Dims(shape),
                Dims(strides),
                isize::MAX
            ),
            Self::ByteOffsetOverflow { byte_offset } => write!(
                f,
                "byte_offset is {byte_offset}; with the extent of the elements it must stay within {} bytes",
                isize::MAX
            ),
            Self::AddressOverflow {
                address,
                byte_offset,
            } => write!(
                f,
                "data {address:#x} with byte_offset {byte_offset} reaches outside the address space"
            ),
            Self::InvalidDataType { dtype, reason } => write!(f, "dtype is {dtype}: {reason}"),
            Self::PackedStrides {
                dtype,
                axis,
                stride,
                expected,
            } => write!(
                f,
                "strides[{axis}] is {stride} for packed {dtype}; packed sub-byte elements must be compact row-major (expected {expected})"
            ),
            Self::ReadOnly => {
                f.write_str("the tensor is flagged READ_ONLY; a mutable view of it was asked for")
            }
            Self::LentByProducer => f.write_str(
                "the tensor was imported from a Python producer without a copy, which may lend \
                 the same memory to other views; a mutable view of it was asked for (write it \
                 through a typed argument, TensorArg with ReadWrite, whose views are \
                 borrow-checked, or import a copy with copy=True)",
            ),
            Self::NotHostAccessible { device } => write!(
                f,
                "the data lives on {device}, which the CPU cannot read; copy it to the host first"
            ),
            Self::NullData { elements } => {
                write!(f, "data is null for a tensor of {elements} elements")
            }
            Self::Misaligned {
                address,
                align,
                type_name,
            } => write!(
                f,
                "data + byte_offset is {address:#x}, which is not aligned to {align} bytes as {type_name} needs"
            ),
            Self::DataTypeMismatch {
                dtype,
                type_name,
                requested,
            } => write!(f, "dtype is {dtype}; {type_name} reads {requested}"),
            Self::NotContiguous { shape, strides } => write!(
                f,
                "strides {} are not compact row-major for shape {}; copy the bytes compact with copy_compact_into or to_compact_bytes (any data type), or read typed elements with iter or to_vec",
                Dims(strides),
                Dims(shape)
            ),
            Self::Overlapping { shape, strides } => write!(
                f,
                "strides {} for shape {} reach some elements from two indices; a mutable view needs each element once",
                Dims(strides),
                Dims(shape)
            ),
            Self::OverlapUndecided { shape, strides } => write!(
                f,
                "strides {} for shape {} do not nest, and whether they reach some element from two indices is not decided within {} search steps; a mutable view needs each element once (read the tensor, or copy it)",
                Dims(strides),
                Dims(shape),
                crate::tensor::limits::SEARCH_BOUND
            ),
            Self::NotNested { shape, strides } => write!(
                f,
                "strides {} for shape {} do not nest (sorted by size, each must step past everything the smaller ones reach), which an ndarray mutable view requires; use iter_mut",
                Dims(strides),
                Dims(shape)
            ),
            Self::InvalidBool { index, byte } => write!(
                f,
                "element {index} of a bool tensor is the byte {byte}; expected 0 or 1"
            ),
            Self::ShapeMismatch { shape, len } => {
                let count = if shape.contains(&0) {
                    Some(0)
                } else {
                    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
                };
                match count {
                    Some(count) => write!(
                        f,
                        "shape {} holds {count} elements; the data has {len}",
                        Dims(shape)
                    ),
                    None => write!(
                        f,
                        "shape {} holds more than usize::MAX elements; the data has {len}",
                        Dims(shape)
                    ),
                }
            }
            Self::StridesLength { ndim, strides } => write!(
                f,
                "strides has {strides} entries; expected one per dimension ({ndim})"
            ),
            Self::LegacyFlags { flags } => write!(
                f,
                "a legacy DLManagedTensor cannot carry the flags {flags}; export a versioned tensor (DLPack 1.0 or later)"
            ),
            Self::CopyBufferLength { needed, len } => write!(
                f,
                "a compact copy of the tensor takes {needed} bytes; the buffer has {len}"
            ),
            Self::AllocationFailed { bytes } => {
                write!(f, "cannot allocate {bytes} bytes for a copy of the tensor")
            }
            Self::BorrowedDims { field } => write!(
                f,
                "a borrowed DLTensor points at the owner's {field}, which must be given as int64 values (Dims::I64){}",
                if *field == "strides" {
                    " and not left out"
                } else {
                    ""
                }
            ),
            Self::BorrowedFlags { flags } => write!(
                f,
                "a borrowed DLTensor cannot carry the flags {flags}; export an owned DLManagedTensorVersioned"
            ),
            Self::OwnerChanged { before, after } => write!(
                f,
                "the owner described {before} dimensions before it was moved and {after} after; TensorOwner::describe must give the same answer each time"
            ),
        }
    }
}

/// A standard error, with no source: the message says everything.
///
/// ```
/// use std::error::Error as _;
/// use dlpack_core::tensor::TensorError;
///
/// let err: Box<dyn std::error::Error> = Box::new(TensorError::ReadOnly);
/// assert!(err.source().is_none());
/// assert!(err.to_string().contains("READ_ONLY"));
/// ```
impl core::error::Error for TensorError {}
