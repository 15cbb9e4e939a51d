//! The one host copy: a gather of the elements of a validated layout, any strides and any
//! element size, into compact row-major bytes, and the flags such a copy carries.
//!
//! Every copy the crate makes on the host goes through [`gather`]:
//! [`TensorMeta::copy_compact_into`](crate::tensor::TensorMeta::copy_compact_into) (and so
//! `to_compact_bytes`, the tensor side of `from_dlpack`, the Python consumer's `copy=True` and
//! the CUDA backend's host path). The layout is first reduced: axes of extent 1 are dropped and
//! axes that step exactly over their inner neighbour are merged, so a compact tensor is one
//! `copy_from_slice`, a row-major slice of a matrix is one per row, and only the innermost
//! strided axis is walked element by element, with a fixed-size copy for the common element
//! sizes. Nothing is allocated: the index of the outer axes lives on the stack.

use crate::DataType;
use crate::tensor::Flags;
use crate::tensor::limits::MAX_NDIM;

/// The flags of a compact copy of a tensor of `dtype` with `flags`: always `IS_COPIED`, and
/// `IS_SUBBYTE_TYPE_PADDED` only when it still says something true and needed of the copy.
///
/// The copy moves bytes as they are, so padded sub-byte elements stay one per byte and the
/// flag must stay with them (without it, a consumer would read the bytes as packed). For a
/// type of a byte or more the flag has no meaning (DLPack defines it for sub-byte types only)
/// and is dropped: carrying it would make the copy claim something of its own memory that no
/// rule defines, and a legacy export of the copy (which cannot say the flag) would be refused
/// for a bit that means nothing. `READ_ONLY` is dropped: the copy is fresh memory owned alone.
/// Flag bits DLPack 1.3 does not define describe the source, not the copy, and are dropped.
pub(crate) fn copy_flags(dtype: DataType, flags: Flags) -> Flags {
    if dtype.is_sub_byte() {
        Flags::IS_COPIED | (flags & Flags::IS_SUBBYTE_TYPE_PADDED)
    } else {
        Flags::IS_COPIED
    }
}

/// Copies the elements of a layout into `out`, in row-major index order.
///
/// `shape` and `strides` (in elements) have one entry per axis, every dimension is positive,
/// and `out` holds exactly the elements' `product(shape) * itemsize` bytes. A packed sub-byte
/// tensor is given as its compact bytes: `shape` `[bytes]`, `strides` `[1]`, `itemsize` 1.
///
/// # Safety
///
/// For every index within `shape`, the `itemsize` bytes at
/// `first + (Σ index[k] · strides[k]) · itemsize` must be readable and not written while this
/// runs (a validated layout's extent, in memory the caller may read).
pub(crate) unsafe fn gather(
    first: *const u8,
    shape: &[i64],
    strides: &[i64],
    itemsize: usize,
    out: &mut [u8],
) {
    debug_assert_eq!(shape.len(), strides.len());
    debug_assert!(shape.len() <= MAX_NDIM);
    debug_assert!(shape.iter().all(|&d| d > 0));
    // The axes that remain, outermost first, as (extent, stride in bytes). Products of
    // extents and strides fit: the validated extent spans at most `isize::MAX` bytes, and the
    // copy is `out.len()` bytes.
    let mut dims = [0_usize; MAX_NDIM];
    let mut steps = [0_isize; MAX_NDIM];
    let mut rank = 0;
    for (&d, &s) in shape.iter().zip(strides) {
        if d == 1 {
            continue;
        }
        let step = s as isize * itemsize as isize;
        // Merge with the axis before when that one steps exactly over this one.
        if rank > 0 && step.checked_mul(d as isize) == Some(steps[rank - 1]) {
            dims[rank - 1] *= d as usize;
            steps[rank - 1] = step;
            continue;
        }
        dims[rank] = d as usize;
        steps[rank] = step;
        rank += 1;
    }
    // The bytes copied in one piece: the element, times the innermost axes that are compact.
    let mut run = itemsize;
    while rank > 0 && steps[rank - 1] == run as isize {
        run *= dims[rank - 1];
        rank -= 1;
    }
    if rank == 0 {
        // SAFETY: compact: the `run` bytes from `first` are the elements (caller's contract).
        out.copy_from_slice(unsafe { core::slice::from_raw_parts(first, run) });
        return;
    }
    let (inner, step) = (dims[rank - 1], steps[rank - 1]);
    let outer = rank - 1;
    let mut index = [0_usize; MAX_NDIM];
    let mut base = first;
    for row in out.chunks_exact_mut(inner * run) {
        // SAFETY: `base` is the first element of a row of the layout (caller's contract).
        unsafe {
            match run {
                1 => row_of::<1>(base, step, row),
                2 => row_of::<2>(base, step, row),
                4 => row_of::<4>(base, step, row),
                8 => row_of::<8>(base, step, row),
                16 => row_of::<16>(base, step, row),
                _ => row_any(base, step, run, row),
            }
        }
        // The next row: an odometer over the outer axes, moving `base` by their strides.
        for axis in (0..outer).rev() {
            index[axis] += 1;
            if index[axis] < dims[axis] {
                base = base.wrapping_offset(steps[axis]);
                break;
            }
            index[axis] = 0;
            base = base.wrapping_offset(-steps[axis] * (dims[axis] as isize - 1));
        }
    }
}

/// One row of `N`-byte runs, `step` bytes apart, into `row`: a fixed-size copy per run.
///
/// # Safety
///
/// The `N` bytes at `first + i · step` are readable for every run `i` of `row`.
#[inline(always)]
unsafe fn row_of<const N: usize>(first: *const u8, step: isize, row: &mut [u8]) {
    let mut src = first;
    for dst in row.chunks_exact_mut(N) {
        // SAFETY: `N` readable bytes (caller's contract); `[u8; N]` has alignment 1.
        let bytes = unsafe { src.cast::<[u8; N]>().read() };
        dst.copy_from_slice(&bytes);
        src = src.wrapping_offset(step);
    }
}

/// [`row_of`] for a run of any length.
///
/// # Safety
///
/// The `run` bytes at `first + i · step` are readable for every run `i` of `row`.
unsafe fn row_any(first: *const u8, step: isize, run: usize, row: &mut [u8]) {
    let mut src = first;
    for dst in row.chunks_exact_mut(run) {
        // SAFETY: `run` readable bytes (caller's contract).
        dst.copy_from_slice(unsafe { core::slice::from_raw_parts(src, run) });
        src = src.wrapping_offset(step);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::prelude::rust_2024::*;

    /// The flag rule: padded stays with sub-byte types only; nothing else of the source stays.
    #[test]
    fn a_copy_keeps_padding_only_where_it_means_something() {
        let int4 = DataType::new(crate::ffi::DLDataTypeCode::INT, 4, 1);
        let padded = Flags::IS_SUBBYTE_TYPE_PADDED;
        assert_eq!(
            copy_flags(int4, padded | Flags::READ_ONLY),
            Flags::IS_COPIED | padded
        );
        assert_eq!(copy_flags(int4, Flags::EMPTY), Flags::IS_COPIED);
        assert_eq!(copy_flags(DataType::I8, padded), Flags::IS_COPIED);
        assert_eq!(
            copy_flags(DataType::F32, padded | Flags::READ_ONLY | Flags::IS_COPIED),
            Flags::IS_COPIED
        );
    }

    /// Gathers `data` (elements of `itemsize` bytes) through `shape` and `strides` from element
    /// `start`, and the same by a plain index walk.
    fn both(data: &[u8], start: usize, shape: &[i64], strides: &[i64], itemsize: usize) {
        let count: usize = shape.iter().map(|&d| d as usize).product();
        let mut expected = Vec::new();
        for i in 0..count {
            let (mut rest, mut offset) = (i, start as i64);
            for (&d, &s) in shape.iter().zip(strides).rev() {
                offset += (rest % d as usize) as i64 * s;
                rest /= d as usize;
            }
            let at = offset as usize * itemsize;
            expected.extend_from_slice(&data[at..at + itemsize]);
        }
        let mut out = vec![0xAA; count * itemsize];
        // SAFETY: `expected` read every element in bounds of `data`.
        unsafe {
            gather(
                data.as_ptr().wrapping_add(start * itemsize),
                shape,
                strides,
                itemsize,
                &mut out,
            )
        };
        assert_eq!(out, expected, "{shape:?} {strides:?} x{itemsize}");
    }

    #[test]
    fn gathers_any_strides_of_any_element_size() {
        let data: Vec<u8> = (0..=255).cycle().take(3 * 4 * 5 * 24).collect();
        for itemsize in [1, 2, 3, 4, 8, 12, 16, 24] {
            let n = data.len() / itemsize;
            // Compact, one row, transposed, a column, reversed, broadcast, merged outer axes.
            both(&data, 0, &[n as i64], &[1], itemsize);
            both(&data, 0, &[3, 4, 5], &[20, 5, 1], itemsize);
            both(&data, 0, &[5, 4, 3], &[1, 5, 20], itemsize);
            both(&data, 2, &[3, 2], &[20, 1], itemsize);
            both(&data, 1, &[12], &[5], itemsize);
            both(&data, 59, &[3, 4, 5], &[-20, -5, -1], itemsize);
            both(&data, 0, &[4, 1, 3], &[0, 7, 1], itemsize);
            both(&data, 0, &[2, 3, 2], &[30, 10, 2], itemsize);
            both(&data, 0, &[1, 1], &[9, 9], itemsize);
        }
    }
}
