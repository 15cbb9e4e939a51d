//! What a NumPy array's buffer says, as DLPack metadata: the data type its `struct`-module
//! format names, and the tensor its item size, shape and byte strides describe. Pure
//! functions over a filled `Py_buffer`, which call no interpreter (their tests run under Miri).

use core::ffi::CStr;
use core::mem::MaybeUninit;

use pyo3::ffi;

use crate::ffi::{DLDataTypeCode, DLTensor};
use crate::tensor::limits::MAX_NDIM;
use crate::{DataType, Device};

/// The data type a buffer's format names for its items (a null format is unsigned bytes, as
/// the buffer protocol says), by [`format_data_type`].
///
/// # Safety
///
/// `view.format` is null or a NUL-terminated string.
pub(crate) unsafe fn buffer_data_type(view: &ffi::Py_buffer) -> Option<DataType> {
    let format = if view.format.is_null() {
        b"B".as_slice()
    } else {
        // SAFETY: a NUL-terminated string (the caller's contract).
        unsafe { CStr::from_ptr(view.format) }.to_bytes()
    };
    format_data_type(format, usize::try_from(view.itemsize).ok()?)
}

/// The tensor of `data_type` a buffer describes, on the CPU, its strides converted to
/// elements in `strides`; `None` where it may not be what `__dlpack__` would export: an item
/// size that is not `data_type`'s, suboffsets, strides that are not multiples of the item
/// size, more dimensions than `strides` holds (or than [`MAX_NDIM`]). An axis of extent 1,
/// and an array with no elements, are described with the strides the buffer gives, which
/// NumPy works out for a contiguous array where `__dlpack__` gives the array's own: they
/// differ only where they address nothing (the module documentation).
///
/// # Safety
///
/// When `ndim > 0`, `view.shape` and `view.strides` are null or point to `ndim` readable
/// values.
pub(crate) unsafe fn describe(
    view: &ffi::Py_buffer,
    data_type: DataType,
    strides: &mut [MaybeUninit<i64>],
) -> Option<DLTensor> {
    let itemsize = usize::try_from(view.itemsize).ok()?;
    if itemsize == 0 || itemsize != data_type.itemsize() || data_type.lanes != 1 {
        return None;
    }
    let ndim = usize::try_from(view.ndim)
        .ok()
        .filter(|&ndim| ndim <= strides.len().min(MAX_NDIM))?;
    if !view.suboffsets.is_null() || (ndim > 0 && (view.shape.is_null() || view.strides.is_null()))
    {
        return None;
    }
    let byte_strides: &[ffi::Py_ssize_t] = if ndim == 0 {
        &[]
    } else {
        // SAFETY: non-null, `ndim` readable values (the caller's contract).
        unsafe { core::slice::from_raw_parts(view.strides, ndim) }
    };
    // Not 0 (checked above).
    let step = view.itemsize;
    for (out, &stride) in strides.iter_mut().zip(byte_strides) {
        if stride % step != 0 {
            return None;
        }
        out.write(i64::try_from(stride / step).ok()?);
    }
    Some(DLTensor {
        data: view.buf,
        device: Device::CPU,
        ndim: view.ndim,
        dtype: data_type,
        shape: view.shape.cast::<i64>(),
        strides: strides.as_mut_ptr().cast::<i64>(),
        byte_offset: 0,
    })
}

/// The DLPack data type of a buffer's items, from the buffer's `struct`-module `format` and
/// item size: one item of a type DLPack names, in the machine's byte order, whose size is
/// `itemsize`; `None` for anything else (which then goes through `__dlpack__`).
///
/// The prefix sets the byte order and the sizes: none or `@`, the machine's order and its C
/// sizes (`l` is a C `long`: 8 bytes on 64-bit Unix, 4 on Windows); `=`, the machine's order
/// and the `struct` module's standard sizes (`l` is 4 bytes, `q` 8), as NumPy writes it for
/// an array that is not aligned; `<`, `>` and `!`, little-, big- and network (big-) endian
/// with standard sizes, native only when the machine is. `n` and `N` (`ssize_t`, `size_t`)
/// have native sizes only. Integers map by their size (`l` of 8 bytes is `int64`), `?` is
/// `bool`, `e`, `f`, `d` are IEEE `float16`, `float32`, `float64`, and `Zf`, `Zd` (NumPy's
/// complex formats) `complex64` and `complex128`. Refused: `g` and `Zg` (`long double`, which
/// NumPy's `__dlpack__` decides about by its size), `c`, `s`, `p`, `w`, `x`, `O`, `P`, structs
/// (`T{…}`), repeat counts, and anything after the one item.
pub(crate) fn format_data_type(format: &[u8], itemsize: usize) -> Option<DataType> {
    use core::ffi::{c_int, c_long, c_longlong, c_short};

    let (native_sizes, native_order, item) = match format {
        [b'@', item @ ..] => (true, true, item),
        [b'=', item @ ..] => (false, true, item),
        [b'<', item @ ..] => (false, cfg!(target_endian = "little"), item),
        [b'>' | b'!', item @ ..] => (false, cfg!(target_endian = "big"), item),
        item => (true, true, item),
    };
    if !native_order {
        return None;
    }
    let sized = |native: usize, standard: usize| if native_sizes { native } else { standard };
    let (code, bytes) = match item {
        b"?" => (DLDataTypeCode::BOOL, 1),
        b"b" => (DLDataTypeCode::INT, 1),
        b"B" => (DLDataTypeCode::UINT, 1),
        b"h" => (DLDataTypeCode::INT, sized(size_of::<c_short>(), 2)),
        b"H" => (DLDataTypeCode::UINT, sized(size_of::<c_short>(), 2)),
        b"i" => (DLDataTypeCode::INT, sized(size_of::<c_int>(), 4)),
        b"I" => (DLDataTypeCode::UINT, sized(size_of::<c_int>(), 4)),
        b"l" => (DLDataTypeCode::INT, sized(size_of::<c_long>(), 4)),
        b"L" => (DLDataTypeCode::UINT, sized(size_of::<c_long>(), 4)),
        b"q" => (DLDataTypeCode::INT, sized(size_of::<c_longlong>(), 8)),
        b"Q" => (DLDataTypeCode::UINT, sized(size_of::<c_longlong>(), 8)),
        b"n" if native_sizes => (DLDataTypeCode::INT, size_of::<isize>()),
        b"N" if native_sizes => (DLDataTypeCode::UINT, size_of::<usize>()),
        b"e" => (DLDataTypeCode::FLOAT, 2),
        b"f" => (DLDataTypeCode::FLOAT, 4),
        b"d" => (DLDataTypeCode::FLOAT, 8),
        b"Zf" => (DLDataTypeCode::COMPLEX, 8),
        b"Zd" => (DLDataTypeCode::COMPLEX, 16),
        _ => return None,
    };
    if bytes != itemsize {
        return None;
    }
    // At most 16 bytes: 128 bits fit.
    Some(DataType::new(code, (bytes * 8) as u8, 1))
}

#[cfg(test)]
mod tests {
    use core::ffi::c_char;

    use super::*;
    use crate::ffi::DLDataTypeCode as Code;
    use crate::tensor::Flags;
    use crate::tensor::import::meta::TensorMeta;
    use crate::tensor::import::validate::StridesRule;

    /// Every format NumPy writes for the dtypes DLPack names, and what else a buffer may say.
    #[test]
    fn formats_map_to_data_types_exactly() {
        let long = size_of::<core::ffi::c_long>();
        let native_long = if long == 8 {
            DataType::I64
        } else {
            DataType::I32
        };
        let native_ulong = if long == 8 {
            DataType::U64
        } else {
            DataType::U32
        };
        let table: &[(&str, usize, Option<DataType>)] = &[
            ("?", 1, Some(DataType::BOOL)),
            ("b", 1, Some(DataType::I8)),
            ("B", 1, Some(DataType::U8)),
            ("h", 2, Some(DataType::I16)),
            ("H", 2, Some(DataType::U16)),
            ("i", 4, Some(DataType::I32)),
            ("I", 4, Some(DataType::U32)),
            ("l", long, Some(native_long)),
            ("L", long, Some(native_ulong)),
            ("q", 8, Some(DataType::I64)),
            ("Q", 8, Some(DataType::U64)),
            (
                "n",
                size_of::<isize>(),
                Some(DataType::new(Code::INT, 64, 1)),
            ),
            (
                "N",
                size_of::<usize>(),
                Some(DataType::new(Code::UINT, 64, 1)),
            ),
            ("e", 2, Some(DataType::F16)),
            ("f", 4, Some(DataType::F32)),
            ("d", 8, Some(DataType::F64)),
            ("Zf", 8, Some(DataType::C64)),
            ("Zd", 16, Some(DataType::C128)),
            // Prefixes: native `@`; standard sizes `=` (NumPy's for unaligned arrays), where
            // `l` is 4 bytes and NumPy writes `q` for int64; the machine's own order.
            ("@f", 4, Some(DataType::F32)),
            ("=f", 4, Some(DataType::F32)),
            ("=q", 8, Some(DataType::I64)),
            ("=l", 4, Some(DataType::I32)),
            ("=l", 8, None),
            ("=Zd", 16, Some(DataType::C128)),
            (
                "<f",
                4,
                cfg!(target_endian = "little").then_some(DataType::F32),
            ),
            (
                "<e",
                2,
                cfg!(target_endian = "little").then_some(DataType::F16),
            ),
            (
                ">f",
                4,
                cfg!(target_endian = "big").then_some(DataType::F32),
            ),
            (
                ">q",
                8,
                cfg!(target_endian = "big").then_some(DataType::I64),
            ),
            (
                "!d",
                8,
                cfg!(target_endian = "big").then_some(DataType::F64),
            ),
            ("=n", 8, None), // `n` and `N` have native sizes only
            // The size must be the item size.
            ("f", 8, None),
            ("d", 4, None),
            ("?", 2, None),
            // What DLPack has no exact type for, or NumPy decides about itself.
            ("g", 16, None),
            ("g", 8, None),
            ("Zg", 32, None),
            ("Ze", 4, None),
            ("Z", 8, None),
            ("c", 1, None),
            ("3s", 3, None),
            ("2w", 8, None),
            ("2x", 2, None), // NumPy's void `V2`
            ("O", 8, None),
            ("P", 8, None),
            ("T{f:a:}", 4, None),
            ("T{i:f0:i:f1:}", 8, None),
            ("2f", 8, None),
            ("ff", 8, None),
            ("f ", 4, None),
            ("@@f", 4, None),
            ("", 1, None),
            ("@", 1, None),
        ];
        for &(format, itemsize, expected) in table {
            assert_eq!(
                format_data_type(format.as_bytes(), itemsize),
                expected,
                "format {format:?}, itemsize {itemsize}"
            );
        }
    }

    /// A buffer over `data`, as NumPy fills one for `PyBUF_RECORDS_RO`.
    fn buffer(
        data: &mut [u8],
        format: &CStr,
        itemsize: isize,
        shape: &mut [isize],
        strides: &mut [isize],
    ) -> ffi::Py_buffer {
        let mut view = ffi::Py_buffer::new();
        view.buf = data.as_mut_ptr().cast();
        view.len = isize::try_from(data.len()).unwrap();
        view.itemsize = itemsize;
        view.ndim = i32::try_from(shape.len()).unwrap();
        view.format = format.as_ptr().cast_mut().cast::<c_char>();
        view.shape = shape.as_mut_ptr();
        view.strides = strides.as_mut_ptr();
        view
    }

    /// The validated metadata of a buffer's description, or `None`.
    fn meta_of(view: &ffi::Py_buffer) -> Option<(Vec<i64>, Vec<i64>, DataType, bool)> {
        let mut strides = [MaybeUninit::uninit(); MAX_NDIM];
        // SAFETY: `view` points to live arrays of `ndim` values and a C string.
        let data_type = unsafe { buffer_data_type(view) }?;
        // SAFETY: as above.
        let raw = unsafe { describe(view, data_type, &mut strides) }?;
        // SAFETY: the shape and the strides live for this function.
        let meta =
            unsafe { TensorMeta::new(&raw, Flags::EMPTY, StridesRule::NullIsCompact) }.unwrap();
        assert_eq!(meta.data_ptr(), view.buf.cast_const());
        assert_eq!(meta.byte_offset(), 0);
        assert_eq!(meta.device(), Device::CPU);
        Some((
            meta.shape().to_vec(),
            meta.strides().to_vec(),
            meta.dtype(),
            meta.is_compact(),
        ))
    }

    #[test]
    fn strides_become_elements_negative_and_broadcast_ones_included() {
        let mut data = [0_u8; 64];
        // A float32 matrix read backwards in rows and every other column: `a[::-1, ::2]`.
        let (mut shape, mut strides) = ([3_isize, 2], [-16_isize, 8]);
        let view = buffer(&mut data[32..], c"f", 4, &mut shape, &mut strides);
        assert_eq!(
            meta_of(&view),
            Some((vec![3, 2], vec![-4, 2], DataType::F32, false))
        );
        // Compact, and broadcast along the first axis.
        let (mut shape, mut strides) = ([2_isize, 4], [16_isize, 4]);
        let view = buffer(&mut data, c"i", 4, &mut shape, &mut strides);
        assert_eq!(
            meta_of(&view),
            Some((vec![2, 4], vec![4, 1], DataType::I32, true))
        );
        let (mut shape, mut strides) = ([5_isize, 2], [0_isize, 8]);
        let view = buffer(&mut data, c"d", 8, &mut shape, &mut strides);
        assert_eq!(
            meta_of(&view),
            Some((vec![5, 2], vec![0, 1], DataType::F64, false))
        );
    }

    #[test]
    fn zero_dimensions_and_axes_of_extent_0_or_1() {
        let mut data = [0_u8; 16];
        // A 0-d array: no shape or strides are read (NumPy may give null ones).
        let (mut shape, mut strides) = ([0_isize; 0], [0_isize; 0]);
        let mut view = buffer(&mut data, c"Zd", 16, &mut shape, &mut strides);
        view.shape = core::ptr::null_mut();
        view.strides = core::ptr::null_mut();
        assert_eq!(meta_of(&view), Some((vec![], vec![], DataType::C128, true)));
        // No elements: NumPy's buffer works strides out for a contiguous array
        // (`np.zeros((0, 3), "f4")` has strides (0, 0), its buffer (12, 4)); they address
        // nothing, and are taken as they are.
        let (mut shape, mut strides) = ([0_isize, 3], [12_isize, 4]);
        let view = buffer(&mut data, c"f", 4, &mut shape, &mut strides);
        assert_eq!(
            meta_of(&view),
            Some((vec![0, 3], vec![3, 1], DataType::F32, true))
        );
        // An axis of extent 1, whose stride is free in NumPy and worked out in the buffer
        // (`np.zeros(3, "f4")[:, None]` has strides (4, 0), its buffer (4, 4)).
        let (mut shape, mut strides) = ([3_isize, 1], [4_isize, 4]);
        let view = buffer(&mut data, c"f", 4, &mut shape, &mut strides);
        assert_eq!(
            meta_of(&view),
            Some((vec![3, 1], vec![1, 1], DataType::F32, true))
        );
        let (mut shape, mut strides) = ([1_isize], [4_isize]);
        let view = buffer(&mut data, c"f", 4, &mut shape, &mut strides);
        assert_eq!(
            meta_of(&view),
            Some((vec![1], vec![1], DataType::F32, true))
        );
    }

    #[test]
    fn what_dlpack_would_describe_otherwise_is_left_to_dlpack() {
        let mut data = [0_u8; 64];
        // A stride that is not a multiple of the item size (a field of a structured array).
        let (mut shape, mut strides) = ([4_isize], [6_isize]);
        let view = buffer(&mut data, c"f", 4, &mut shape, &mut strides);
        assert_eq!(meta_of(&view), None);
        let (mut shape, mut strides) = ([4_isize], [-6_isize]);
        let view = buffer(&mut data[24..], c"f", 4, &mut shape, &mut strides);
        assert_eq!(meta_of(&view), None);
        // Non-native byte order, and a format of no DLPack type.
        let other = if cfg!(target_endian = "little") {
            c">f"
        } else {
            c"<f"
        };
        let (mut shape, mut strides) = ([4_isize], [4_isize]);
        let view = buffer(&mut data, other, 4, &mut shape, &mut strides);
        assert_eq!(meta_of(&view), None);
        let (mut shape, mut strides) = ([8_isize], [2_isize]);
        let view = buffer(&mut data, c"2x", 2, &mut shape, &mut strides);
        assert_eq!(meta_of(&view), None);
        // Suboffsets (PIL-style indirect arrays), a missing shape, more dimensions than DLPack
        // metadata holds.
        let mut suboffsets = [0_isize];
        let (mut shape, mut strides) = ([4_isize], [1_isize]);
        let mut view = buffer(&mut data, c"B", 1, &mut shape, &mut strides);
        view.suboffsets = suboffsets.as_mut_ptr();
        assert_eq!(meta_of(&view), None);
        let (mut shape, mut strides) = ([4_isize], [1_isize]);
        let mut view = buffer(&mut data, c"B", 1, &mut shape, &mut strides);
        view.shape = core::ptr::null_mut();
        assert_eq!(meta_of(&view), None);
        let (mut shape, mut strides) = ([1_isize; MAX_NDIM + 1], [1_isize; MAX_NDIM + 1]);
        let view = buffer(&mut data, c"B", 1, &mut shape, &mut strides);
        assert_eq!(meta_of(&view), None);
        // A data type known beforehand (the dtype cache's) whose size is not the item size,
        // and more dimensions than the strides given hold.
        let (mut shape, mut strides) = ([4_isize], [4_isize]);
        let view = buffer(&mut data, c"f", 4, &mut shape, &mut strides);
        let mut room = [MaybeUninit::uninit(); 1];
        // SAFETY: `view` points to live arrays of one value.
        assert!(unsafe { describe(&view, DataType::F64, &mut room) }.is_none());
        // SAFETY: as above.
        assert!(unsafe { describe(&view, DataType::F32, &mut room) }.is_some());
        // SAFETY: as above.
        assert!(unsafe { describe(&view, DataType::F32, &mut []) }.is_none());
        // A null format is unsigned bytes.
        let (mut shape, mut strides) = ([4_isize], [1_isize]);
        let mut view = buffer(&mut data, c"B", 1, &mut shape, &mut strides);
        view.format = core::ptr::null_mut();
        assert_eq!(meta_of(&view), Some((vec![4], vec![1], DataType::U8, true)));
    }
}
