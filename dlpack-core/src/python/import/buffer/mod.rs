//! NumPy arrays read through CPython's buffer protocol: how [`TensorArg`](super::TensorArg)
//! and [`with_tensor_view`](super::with_tensor_view) borrow an exact `numpy.ndarray` without
//! calling its `__dlpack__`, whose capsule, made and consumed on every call, costs more than
//! everything else a typed argument does (the figures are in `benches/README.md`).
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
//! - for a writable argument, the buffer is writable (below);
//! - the format is one item of a type DLPack names, in native byte order
//!   ([`format::format_data_type`]: `?`, `b` `B` `h` `H` `i` `I` `l` `L` `q` `Q` `n` `N`, `e`
//!   `f` `d`, `Zf` `Zd`, after an optional `@`, `=`, or the `<`/`>`/`!` of the machine's own
//!   order), whose size is the buffer's item size; the answer is remembered per dtype object
//!   (`dtypes.rs`), and the next array of that dtype is asked for without its format, which
//!   NumPy builds anew on every call that asks for it;
//! - the byte strides are multiples of the item size (NumPy's export divides them), and there
//!   are no suboffsets.
//!
//! Anything else is asked for through `__dlpack__`, which decides and raises what it raises:
//! a dtype the buffer cannot describe (ml_dtypes' `bfloat16` and float8 types, datetimes,
//! strings, structured and void dtypes; `longdouble`, which NumPy exports only where it is
//! 64 bits), a byte-swapped array, other strides, more than 64 dimensions, a read-only array
//! for a writable argument, a buffer NumPy refuses.
//!
//! Where the metadata is not `__dlpack__`'s to the letter, it differs only where it addresses
//! nothing: NumPy's buffer gives a contiguous array (C or Fortran order) strides worked out
//! from its shape (`buffer.c`, `_buffer_info_new`) where `__dlpack__` exports the array's own,
//! and the two differ only on an axis of extent 1 (whose stride NumPy leaves free: `x[:, None]`
//! has stride 0 there, its buffer the stride below it) or in an array with no elements. Every
//! element's address, the byte range, compactness and every stride of an axis of two or more
//! elements are the same (`tests/python/test_typed_args.py` holds both paths to that over
//! every dtype and layout), and those arrays, common inputs, are read as fast as the rest.
//! The address is NumPy's data pointer with no byte offset, on the CPU, as NumPy's export
//! gives it.
//!
//! Read-only: a buffer that is not read-only is a writable array, which `__dlpack__` exports
//! without `READ_ONLY`. A read-only buffer is either an array that is not writeable (a memory
//! map opened read-only, a view of `bytes`, `flags.writeable = False`), which `__dlpack__`
//! exports `READ_ONLY`, or a writeable one NumPy warns about writing (`WARN_ON_WRITE`: the
//! arrays `numpy.broadcast_arrays` returns), which `__dlpack__` exports as writable; the
//! public way to tell the two apart (`flags.writeable`) makes NumPy warn. A reader
//! (`with_tensor_view`, a `ReadOnly` argument) takes it through the buffer, flagged
//! `READ_ONLY`: true of the first kind, and of the second what NumPy says of it (it warns on
//! a write, and its next releases refuse one), where `__dlpack__` would say writable. A
//! writable argument asks `__dlpack__`, which alone tells the two apart: it takes the second
//! and refuses the first.
//!
//! The data is then read as an import from `__dlpack__` reads it (tensor/mod.rs, "Imports"):
//! Python code that writes the array while a Rust view reads it breaks the view's contract,
//! as it does for every Rust binding of NumPy.

//!
//! ```text
//! layers (checked by .ci/check-cycles.py: a module uses only modules on lines below its own)
//! dtypes format
//! ```

mod dtypes;
mod format;

use core::mem::MaybeUninit;

use pyo3::exceptions::PyMemoryError;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;

use crate::ffi::DLTensor;
use crate::python::class_cache;
use crate::tensor::Flags;
use crate::tensor::limits::MAX_NDIM;

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
/// it, with its flags (`READ_ONLY` for a read-only buffer: see the module documentation for
/// what a writer does with it) and the buffer that keeps the shape and strides it points to
/// valid and unchanged
/// (NumPy's shape, which the array keeps until it dies, which the buffer's reference prevents;
/// the strides in elements, in the buffer's own allocation, which moving the buffer does not
/// move); `None` where the buffer does not describe exactly what `__dlpack__` would export (see
/// the module documentation), and `__dlpack__` must be asked. Nothing is left held on that
/// path, nor an exception set. Its metadata is validated by the caller (`TensorMeta::new`, with
/// no flags), and falls back to `__dlpack__` where validation refuses it: the metadata is
/// built where it is kept, as the exchange table's is, because every move of it through a
/// return value costs more than the checks (docs/decisions.md, "Typed access").
#[inline(always)]
pub(crate) fn lend(obj: &Bound<'_, PyAny>) -> Option<(DLTensor, ArrayBuffer, Flags)> {
    let py = obj.py();
    // The array's dtype, by its public attribute: what its format maps to, once known.
    let dtype = obj.getattr(intern!(py, "dtype")).ok()?;
    let known = dtypes::remembered(&dtype);
    let flags = match known {
        Some(None) => return None,
        Some(Some(_)) => ffi::PyBUF_STRIDES,
        None => ffi::PyBUF_RECORDS_RO,
    };
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
    if unsafe { ffi::PyObject_GetBuffer(obj.as_ptr(), &mut block.view, flags) } != 0 {
        // NumPy refused to describe the dtype (`cannot include dtype 'E' in a buffer`), as it
        // will for every array of it; `__dlpack__` will say what it says. Running out of
        // memory says nothing of the dtype.
        let refusal = PyErr::take(py);
        if known.is_none() && !refusal.is_some_and(|err| err.is_instance_of::<PyMemoryError>(py)) {
            dtypes::remember(&dtype, None);
        }
        return None;
    }
    // Released on every return from here on.
    let mut buffer = ArrayBuffer(block);
    let Held { view, strides } = &mut *buffer.0;
    let data_type = match known {
        Some(data_type) => data_type?,
        None => {
            // SAFETY: `view` was filled with `PyBUF_RECORDS_RO`: its format is a C string.
            let data_type = unsafe { format::buffer_data_type(view) };
            dtypes::remember(&dtype, data_type);
            data_type?
        }
    };
    // SAFETY: `view` was filled by `PyObject_GetBuffer` with `PyBUF_STRIDES` at least.
    let raw = unsafe { format::describe(view, data_type, strides) }?;
    let flags = if view.readonly != 0 {
        Flags::READ_ONLY
    } else {
        Flags::EMPTY
    };
    Some((raw, buffer, flags))
}
