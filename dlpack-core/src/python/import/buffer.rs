//! NumPy arrays read through CPython's buffer protocol: how [`TensorArg`](super::TensorArg)
//! and [`with_tensor_view`](super::with_tensor_view) borrow an exact `numpy.ndarray` without
//! calling its `__dlpack__`, whose capsule, made and consumed on every call, costs about 200 ns
//! (more than everything else a typed argument does; rust-numpy's `PyReadonlyArray` takes 90).
//!
//! `PyObject_GetBuffer(array, PyBUF_RECORDS_RO)` is NumPy's documented buffer export: the
//! data pointer, shape, byte strides, item size, `struct`-module format string and whether
//! the array is read-only, valid until the buffer is released (the C API's
//! `PyObject_GetBuffer`/`PyBuffer_Release`, in the limited API from 3.11). Nothing of NumPy's private
//! structs is read. The buffer (which holds a reference to the array) is kept for as long as
//! the metadata is used, inside the argument or around `with_tensor_view`'s closure, and
//! released when it is dropped, whichever way that happens.
//!
//! The path is taken only where the buffer describes exactly the tensor `__dlpack__` would
//! export, so that nothing a caller sees depends on which path ran (the same metadata, the
//! same refusals and errors):
//!
//! - the object is a `numpy.ndarray` itself, of NumPy 2.1 or later (the first to export
//!   DLPack 1.0), found by its type pointer, which the classifier remembers the first time it
//!   meets the class (`values/classify.rs`); a subclass (`numpy.memmap`, `numpy.matrix`, a
//!   class of yours, which may override `__dlpack__`) and every other library go through
//!   `__dlpack__`;
//! - the array is writable (below);
//! - the format is one item of a type DLPack names, in native byte order
//!   ([`format_data_type`]: `?`, `b` `B` `h` `H` `i` `I` `l` `L` `q` `Q` `n` `N`, `e` `f` `d`,
//!   `Zf` `Zd`, after an optional `@`, `=`, or the `<`/`>`/`!` of the machine's own order),
//!   whose size is the buffer's item size;
//! - every axis has two elements or more: NumPy's buffer gives a contiguous array (C or
//!   Fortran order) strides worked out from its shape (`buffer.c`, `_buffer_info_new`) where
//!   `__dlpack__` exports the array's own, and the two can differ only on an axis of extent 1
//!   (whose stride NumPy leaves free) or in an array with no elements;
//! - the byte strides are multiples of the item size (NumPy's export divides them), and there
//!   are no suboffsets.
//!
//! Anything else is asked for through `__dlpack__`, which decides and raises what it raises:
//! a dtype the buffer cannot describe (ml_dtypes' `bfloat16` and float8 types, datetimes,
//! strings, structured and void dtypes; `longdouble`, which NumPy exports only where it is
//! 64 bits), a byte-swapped array, an axis of extent 0 or 1, other strides, a read-only
//! array, a buffer NumPy refuses.
//! The address is NumPy's data pointer with no byte offset, on the CPU, as NumPy's export
//! gives it.
//!
//! Read-only: a buffer that is not read-only is a writable array, which `__dlpack__` exports
//! without `READ_ONLY`. A read-only buffer goes through `__dlpack__`: it is either an array
//! that is not writeable, or a writeable one NumPy warns about writing (`WARN_ON_WRITE`: the
//! arrays `numpy.broadcast_arrays` returns), which `__dlpack__` exports as writable, and the
//! public way to tell the two apart (`flags.writeable`) makes NumPy warn.
//!
//! The data is then read as an import from `__dlpack__` reads it (tensor/mod.rs, "Imports"):
//! Python code that writes the array while a Rust view reads it breaks the view's contract,
//! as it does for every Rust binding of NumPy.

use core::ffi::CStr;
use core::mem::MaybeUninit;

use pyo3::ffi;
use pyo3::prelude::*;

use crate::ffi::{DLDataTypeCode, DLTensor};
use crate::python::class_cache;
use crate::tensor::limits::MAX_NDIM;
use crate::{DataType, Device};

// The buffer's shape is NumPy's `npy_intp` array, read in place as DLPack's `int64_t` one:
// this path is built for 64-bit targets only (`import/mod.rs`).
const _: () = assert!(
    size_of::<ffi::Py_ssize_t>() == size_of::<i64>()
        && align_of::<ffi::Py_ssize_t>() == align_of::<i64>()
);

/// A NumPy array's buffer, held: released (the thread attached to the interpreter) when
/// dropped.
pub(crate) struct ArrayBuffer(Box<Held>);

/// What an [`ArrayBuffer`] keeps, in one allocation whose address does not change while the
/// buffer is held (the buffer protocol's consumers keep a `Py_buffer` in place, as PyO3's
/// `PyBuffer` does).
struct Held {
    /// What `PyObject_GetBuffer` filled; it owns a reference to the array.
    view: ffi::Py_buffer,
    /// The strides in elements, as DLPack metadata has them (the buffer's are in bytes): the
    /// first `ndim` are written before any metadata points at them.
    strides: [MaybeUninit<i64>; MAX_NDIM],
}

// SAFETY: an `ArrayBuffer` offers nothing but its drop, which attaches the thread to the
// interpreter before releasing the buffer (`PyBuffer_Release` needs it), on whatever thread it
// runs; its pointers are NumPy's, valid until then.
unsafe impl Send for ArrayBuffer {}
// SAFETY: `&ArrayBuffer` gives access to nothing.
unsafe impl Sync for ArrayBuffer {}

impl Drop for ArrayBuffer {
    fn drop(&mut self) {
        let view: *mut ffi::Py_buffer = &mut self.0.view;
        // Attached in the common case, where the function that took the argument drops it:
        // the thread state says so for less than PyO3's `attach` (two thread-local accesses
        // through `__tls_get_addr` in an extension module), which covers the other cases.
        #[cfg(not(Py_LIMITED_API))]
        // SAFETY: reads the calling thread's state, which needs no attached thread.
        if !unsafe { ffi::compat::PyThreadState_GetUnchecked() }.is_null() {
            // SAFETY: as below; the thread has a thread state, so it is attached.
            unsafe { ffi::PyBuffer_Release(view) };
            return;
        }
        // SAFETY: the buffer was filled by a successful `PyObject_GetBuffer` (an `ArrayBuffer`
        // is made only then) and is released once, here, with the thread attached.
        Python::attach(|_| unsafe { ffi::PyBuffer_Release(view) });
    }
}

/// Whether `obj` is a `numpy.ndarray` itself, by its type pointer, once the classifier has met
/// the class.
#[inline]
pub(crate) fn is_ndarray(obj: &Bound<'_, PyAny>) -> bool {
    class_cache::is_ndarray(obj.get_type_ptr())
}

/// The tensor `obj`, a `numpy.ndarray` itself ([`is_ndarray`]), is, as its buffer describes
/// it, with the buffer that keeps the shape and strides it points to valid and unchanged
/// (NumPy's shape, which the array keeps until it dies, which the buffer's reference prevents;
/// the strides in elements, in the buffer's own allocation, which moving the buffer does not
/// move); `None` where the buffer does not describe exactly what `__dlpack__` would export (see
/// the module documentation), and `__dlpack__` must be asked. Nothing is left held on that
/// path, nor an exception set. Its metadata is validated by the caller (`TensorMeta::new`, with
/// no flags), and falls back to `__dlpack__` where validation refuses it: the metadata is
/// built where it is kept, as the exchange table's is, because every move of it through a
/// return value costs more than the checks (docs/decisions.md, "Typed access").
#[inline(always)]
pub(crate) fn lend(obj: &Bound<'_, PyAny>) -> Option<(DLTensor, ArrayBuffer)> {
    let mut block = Box::<Held>::new_uninit();
    let held = block.as_mut_ptr();
    // SAFETY: `held` points to the new allocation, whose `view` field this initialises; the
    // strides are `MaybeUninit` and need nothing.
    let mut block = unsafe {
        (&raw mut (*held).view).write(ffi::Py_buffer::new());
        block.assume_init()
    };
    // SAFETY: `obj` is alive and the thread attached (a `Bound`); `block.view` is a
    // `Py_buffer` to fill.
    if unsafe { ffi::PyObject_GetBuffer(obj.as_ptr(), &mut block.view, ffi::PyBUF_RECORDS_RO) } != 0
    {
        // NumPy refused (a dtype the buffer protocol cannot carry): `__dlpack__` will say
        // what it says.
        drop(PyErr::take(obj.py()));
        return None;
    }
    // Released on every return from here on.
    let mut buffer = ArrayBuffer(block);
    let Held { view, strides } = &mut *buffer.0;
    // SAFETY: `view` was filled by `PyObject_GetBuffer` with `PyBUF_RECORDS_RO`.
    let raw = unsafe { describe(view, strides) }?;
    if view.readonly != 0 {
        return None;
    }
    Some((raw, buffer))
}

/// The tensor a buffer describes, on the CPU, its strides converted to elements in `strides`;
/// `None` where it may not be what `__dlpack__` would export: a format [`format_data_type`]
/// does not map, suboffsets, an axis of extent 0 or 1 (whose stride NumPy's buffer may have
/// worked out rather than given), strides that are not multiples of the item size, more than
/// [`MAX_NDIM`] dimensions.
///
/// # Safety
///
/// `view` is valid: `format` null or a NUL-terminated string; when `ndim > 0`, `shape` and
/// `strides` null or pointing to `ndim` readable values.
unsafe fn describe(
    view: &ffi::Py_buffer,
    strides: &mut [MaybeUninit<i64>; MAX_NDIM],
) -> Option<DLTensor> {
    let itemsize = usize::try_from(view.itemsize).ok()?;
    let format = if view.format.is_null() {
        // The buffer protocol's default: unsigned bytes.
        b"B".as_slice()
    } else {
        // SAFETY: a NUL-terminated string (the caller's contract).
        unsafe { CStr::from_ptr(view.format) }.to_bytes()
    };
    let dtype = format_data_type(format, itemsize)?;
    let ndim = usize::try_from(view.ndim)
        .ok()
        .filter(|&ndim| ndim <= MAX_NDIM)?;
    if !view.suboffsets.is_null() || (ndim > 0 && (view.shape.is_null() || view.strides.is_null()))
    {
        return None;
    }
    let (shape, byte_strides): (&[ffi::Py_ssize_t], &[ffi::Py_ssize_t]) = if ndim == 0 {
        (&[], &[])
    } else {
        // SAFETY: non-null, `ndim` readable values each (the caller's contract).
        unsafe {
            (
                core::slice::from_raw_parts(view.shape, ndim),
                core::slice::from_raw_parts(view.strides, ndim),
            )
        }
    };
    if shape.iter().any(|&extent| extent <= 1) {
        return None;
    }
    // Not 0: `format_data_type` names only types of 1 to 16 bytes, equal to `itemsize`.
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
        dtype,
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
        let raw = unsafe { describe(view, &mut strides) }?;
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
    fn zero_dimensions_but_no_axis_of_extent_0_or_1() {
        let mut data = [0_u8; 16];
        // A 0-d array: no shape or strides are read (NumPy may give null ones).
        let (mut shape, mut strides) = ([0_isize; 0], [0_isize; 0]);
        let mut view = buffer(&mut data, c"Zd", 16, &mut shape, &mut strides);
        view.shape = core::ptr::null_mut();
        view.strides = core::ptr::null_mut();
        assert_eq!(meta_of(&view), Some((vec![], vec![], DataType::C128, true)));
        // No elements: NumPy's buffer works strides out for a contiguous array
        // (`np.zeros((0, 3), "f4")` has strides (0, 0), its buffer (12, 4)).
        let (mut shape, mut strides) = ([0_isize, 3], [12_isize, 4]);
        let view = buffer(&mut data, c"f", 4, &mut shape, &mut strides);
        assert_eq!(meta_of(&view), None);
        // An axis of extent 1, whose stride is free in NumPy and worked out in the buffer
        // (`np.zeros(3, "f4")[:, None]` has strides (4, 0), its buffer (4, 4)).
        let (mut shape, mut strides) = ([3_isize, 1], [4_isize, 4]);
        let view = buffer(&mut data, c"f", 4, &mut shape, &mut strides);
        assert_eq!(meta_of(&view), None);
        let (mut shape, mut strides) = ([1_isize], [4_isize]);
        let view = buffer(&mut data, c"f", 4, &mut shape, &mut strides);
        assert_eq!(meta_of(&view), None);
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
        // A null format is unsigned bytes.
        let (mut shape, mut strides) = ([4_isize], [1_isize]);
        let mut view = buffer(&mut data, c"B", 1, &mut shape, &mut strides);
        view.format = core::ptr::null_mut();
        assert_eq!(meta_of(&view), Some((vec![4], vec![1], DataType::U8, true)));
    }
}
