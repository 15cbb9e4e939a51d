//! Validation of `DLTensor` metadata: everything a view needs to know before any byte of data
//! is touched.
//!
//! The checks, in order, each refusing with a [`TensorError`] that names the field and value:
//!
//! 1. `ndim` is 0 to [`MAX_NDIM`].
//! 2. `dtype` is a data type DLPack allows ([`DataType::check`]: known code, bits and lanes).
//! 3. `shape` is non-null and aligned when `ndim > 0`; every dimension is non-negative, and the
//!    product of the non-zero dimensions is at most `isize::MAX` (so even an empty tensor has a
//!    shape `ndarray` and Rust slices can represent).
//! 4. `strides` is non-null and aligned when `ndim > 0`, except where the rule in force
//!    ([`StridesRule`]) lets a null pointer mean compact row-major.
//! 5. Sub-byte types: without `IS_SUBBYTE_TYPE_PADDED` the elements are packed (several per byte,
//!    little bit-endian), which only a compact row-major layout can address; with it, each
//!    element takes one byte.
//! 6. The bytes the elements reach, from `data + byte_offset` plus the most negative stride
//!    offsets to the most positive, span at most `isize::MAX`, and `byte_offset` plus that
//!    extent stays within `isize` (Rust's rule for offsets within one allocation).
//!
//! The address itself (null data, the address space, alignment for a Rust type) and the device
//! are checked only when host memory is about to be read: a view of a CUDA tensor can be made,
//! for its shape and dtype, but not read.

use alloc::borrow::Cow;
use alloc::{vec, vec::Vec};

use crate::DataType;
use crate::ffi::{DLPackVersion, DLTensor};
use crate::tensor::Flags;
use crate::tensor::TensorError;
use crate::tensor::limits::MAX_NDIM;

/// What a null `strides` pointer means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StridesRule {
    /// DLPack 1.2 and later: strides are required when `ndim > 0`.
    Required(DLPackVersion),
    /// Legacy tensors and versions before 1.2: null strides mean compact row-major.
    NullIsCompact,
}

impl StridesRule {
    /// The rule for a versioned tensor of `version`.
    pub(crate) fn for_version(version: DLPackVersion) -> Self {
        if (version.major, version.minor) >= (1, 2) {
            Self::Required(version)
        } else {
            Self::NullIsCompact
        }
    }
}

/// Validated metadata: the shape and strides as slices, and the byte extent of the elements.
#[derive(Clone, Debug)]
pub(crate) struct Layout<'a> {
    pub(crate) shape: &'a [i64],
    pub(crate) strides: Cow<'a, [i64]>,
    /// Number of elements (0 when any dimension is 0).
    pub(crate) count: usize,
    /// The lowest byte the elements reach, relative to `data` (byte_offset included).
    pub(crate) lo: isize,
    /// One past the highest byte the elements reach, relative to `data`.
    pub(crate) hi: isize,
    /// Whether the strides are compact row-major (always true for an empty tensor).
    pub(crate) contiguous: bool,
    /// Whether elements are packed sub-byte values sharing bytes.
    pub(crate) packed: bool,
}

/// Reads and validates the metadata of `tensor`.
///
/// # Safety
///
/// When `ndim > 0`, a non-null, aligned `shape` (and `strides`) must point to `ndim` readable
/// `int64_t` values that stay unchanged for `'a`.
// Inlined, as are `extent`, `TensorMeta::new` and the `view` methods: the `Layout` is built in
// its final place instead of being copied through three return slots, which took a third of
// the time of an import, validation and typed slice at rank 1 (benches/, `import` group).
#[inline]
pub(crate) unsafe fn layout(
    tensor: &DLTensor,
    flags: Flags,
    rule: StridesRule,
) -> Result<Layout<'_>, TensorError> {
    let ndim = check_ndim(tensor.ndim)?;
    check_dtype(tensor.dtype)?;
    // SAFETY: the caller guarantees `ndim` readable, unchanging values for 'a behind a
    // non-null, aligned `shape`.
    let shape = unsafe { shape_slice(tensor, ndim)? };
    let count = check_shape(shape)?;
    let strides: Cow<'_, [i64]> = if ndim == 0 {
        Cow::Borrowed(&[])
    } else if tensor.strides.is_null() {
        match rule {
            StridesRule::Required(version) => {
                return Err(TensorError::NullStrides {
                    ndim: tensor.ndim,
                    version,
                });
            }
            StridesRule::NullIsCompact => Cow::Owned(compact_strides(shape)),
        }
    } else {
        let ptr = tensor.strides;
        if !ptr.is_aligned() {
            return Err(TensorError::MisalignedMetadata {
                field: "strides",
                address: ptr.addr(),
            });
        }
        // SAFETY: as for `shape`.
        Cow::Borrowed(unsafe { core::slice::from_raw_parts(ptr, ndim) })
    };
    let extent = extent(
        shape,
        &strides,
        count,
        tensor.dtype,
        flags,
        tensor.byte_offset,
    )?;
    Ok(Layout {
        shape,
        strides,
        count,
        lo: extent.lo,
        hi: extent.hi,
        contiguous: extent.contiguous,
        packed: extent.packed,
    })
}

/// `ndim` as a `usize`, if it is 0 to [`MAX_NDIM`].
pub(crate) fn check_ndim(ndim: i32) -> Result<usize, TensorError> {
    match usize::try_from(ndim) {
        Ok(n) if n <= MAX_NDIM => Ok(n),
        _ => Err(TensorError::Ndim {
            ndim: i64::from(ndim),
        }),
    }
}

/// Whether [`check_dtype`] accepts `dtype`, as a `const fn`: exports of an `Element` type
/// evaluate it at compile time.
pub(crate) const fn dtype_is_valid(dtype: DataType) -> bool {
    dlpack_grammar::check_data_type(dtype.code.0, dtype.bits, dtype.lanes).is_ok()
}

pub(crate) fn check_dtype(dtype: DataType) -> Result<(), TensorError> {
    match dlpack_grammar::check_data_type(dtype.code.0, dtype.bits, dtype.lanes) {
        Ok(_) => Ok(()),
        Err(reason) => Err(TensorError::InvalidDataType { dtype, reason }),
    }
}

/// The number of elements: refuses negative dimensions and a product of the non-zero ones
/// above `isize::MAX`.
pub(crate) fn check_shape(shape: &[i64]) -> Result<usize, TensorError> {
    let mut nonzero: usize = 1;
    let mut empty = false;
    for (axis, &d) in shape.iter().enumerate() {
        if d < 0 {
            return Err(TensorError::NegativeDim { axis, value: d });
        }
        if d == 0 {
            empty = true;
            continue;
        }
        nonzero = usize::try_from(d)
            .ok()
            .and_then(|d| nonzero.checked_mul(d))
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(|| TensorError::TooManyElements {
                shape: shape.into(),
            })?;
    }
    Ok(if empty { 0 } else { nonzero })
}

/// The shape of `tensor` as a slice, `ndim` (from [`check_ndim`]) values long: refuses a null or
/// misaligned pointer when `ndim > 0`.
///
/// # Safety
///
/// When `ndim > 0` and `tensor.shape` is non-null and aligned, it points to `ndim` readable
/// values that do not change for `'a`.
#[inline]
pub(crate) unsafe fn shape_slice(tensor: &DLTensor, ndim: usize) -> Result<&[i64], TensorError> {
    if ndim == 0 {
        return Ok(&[]);
    }
    let ptr = tensor.shape;
    if ptr.is_null() {
        return Err(TensorError::NullShape { ndim: tensor.ndim });
    }
    if !ptr.is_aligned() {
        return Err(TensorError::MisalignedMetadata {
            field: "shape",
            address: ptr.addr(),
        });
    }
    // SAFETY: non-null and aligned (checked above); the caller guarantees `ndim` readable,
    // unchanging values for 'a.
    Ok(unsafe { core::slice::from_raw_parts(ptr, ndim) })
}

/// Compact row-major strides, taking a zero dimension as 1 (as PyTorch does) so that they
/// never overflow once [`check_shape`] has passed.
pub(crate) fn compact_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![0; shape.len()];
    write_compact_strides(shape, &mut strides);
    strides
}

/// [`compact_strides`] into `out`, which has one entry per dimension.
pub(crate) fn write_compact_strides(shape: &[i64], out: &mut [i64]) {
    let mut step: i64 = 1;
    for (s, &d) in out.iter_mut().zip(shape).rev() {
        *s = step;
        step = step.saturating_mul(d.max(1));
    }
}

/// Whether `strides` are compact row-major for `shape`, ignoring axes of extent 1; an empty
/// tensor is compact whatever its strides. Returns the first axis that breaks it otherwise.
pub(crate) fn first_non_compact_axis(
    shape: &[i64],
    strides: &[i64],
    count: usize,
) -> Option<(usize, i64)> {
    if count == 0 {
        return None;
    }
    let mut expected: i64 = 1;
    for axis in (0..shape.len()).rev() {
        if shape[axis] != 1 && strides[axis] != expected {
            return Some((axis, expected));
        }
        // No overflow: the product of all dimensions is at most isize::MAX (check_shape).
        expected = expected.saturating_mul(shape[axis]);
    }
    None
}

/// The byte extent of a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Extent {
    pub(crate) lo: isize,
    pub(crate) hi: isize,
    pub(crate) contiguous: bool,
    pub(crate) packed: bool,
}

/// Checks strides against the data type and byte offset, and computes the bytes the elements
/// reach relative to `data`. `count` comes from [`check_shape`] and `strides` has one entry per
/// dimension.
#[inline]
pub(crate) fn extent(
    shape: &[i64],
    strides: &[i64],
    count: usize,
    dtype: DataType,
    flags: Flags,
    byte_offset: u64,
) -> Result<Extent, TensorError> {
    debug_assert_eq!(shape.len(), strides.len());
    let packed = dtype.is_sub_byte() && !flags.contains(Flags::IS_SUBBYTE_TYPE_PADDED);
    let non_compact = first_non_compact_axis(shape, strides, count);
    if let (true, Some((axis, expected))) = (packed, non_compact) {
        return Err(TensorError::PackedStrides {
            dtype,
            axis,
            stride: strides[axis],
            expected,
        });
    }
    // Byte offsets relative to `data + byte_offset`. A compact layout reaches element offsets
    // 0 to count - 1 exactly (an axis of extent 1 adds nothing, whatever its stride), so its
    // bytes are `count * itemsize` from 0, in plain integers. Any other layout is computed in
    // i128 with checked operations: one term `stride * (dim - 1)` is below 2^126 in
    // magnitude, but 64 of them, or their product with the item size, can leave i128.
    let overflow = || TensorError::ExtentOverflow {
        shape: shape.into(),
        strides: strides.into(),
        dtype,
    };
    let (lo, hi): (i128, i128) = if count == 0 {
        (0, 0)
    } else if packed {
        let bytes = dtype.packed_size(count).ok_or_else(overflow)?;
        (0, bytes as i128)
    } else if non_compact.is_none() {
        let bytes = count.checked_mul(dtype.itemsize()).ok_or_else(overflow)?;
        (0, bytes as i128)
    } else {
        let itemsize = dtype.itemsize() as i128;
        let (mut lo, mut hi) = (0i128, 0i128);
        for (&d, &s) in shape.iter().zip(strides) {
            // |s| < 2^63 and d - 1 < 2^63: the product fits in i128.
            let reach = i128::from(s) * i128::from(d - 1);
            if reach < 0 {
                lo = lo.checked_add(reach).ok_or_else(overflow)?;
            } else {
                hi = hi.checked_add(reach).ok_or_else(overflow)?;
            }
        }
        let lo = lo.checked_mul(itemsize).ok_or_else(overflow)?;
        let hi = hi
            .checked_add(1)
            .and_then(|hi| hi.checked_mul(itemsize))
            .ok_or_else(overflow)?;
        (lo, hi)
    };
    // `hi - lo` itself can overflow when both are extreme.
    if hi
        .checked_sub(lo)
        .is_none_or(|span| span > isize::MAX as i128)
    {
        return Err(overflow());
    }
    let offset = i128::from(byte_offset);
    let (lo, hi) = (offset + lo, offset + hi);
    if offset > isize::MAX as i128 || hi > isize::MAX as i128 || lo < isize::MIN as i128 {
        return Err(TensorError::ByteOffsetOverflow { byte_offset });
    }
    Ok(Extent {
        lo: lo as isize,
        hi: hi as isize,
        contiguous: non_compact.is_none(),
        packed,
    })
}
