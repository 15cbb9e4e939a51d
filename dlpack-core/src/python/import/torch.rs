//! PyTorch's tensors: what a DLPack export of one cannot describe, checked before it is asked
//! for.
//!
//! `torch.Tensor.__dlpack__` refuses what DLPack cannot carry (a tensor that requires
//! gradient, a conjugate view, a sparse or other non-strided layout), but PyTorch's C exchange
//! table (`__dlpack_c_exchange_api__`, PyTorch 2.10 and later) exports without those checks: a
//! conjugate view arrives with the values of the tensor it views (wrong values, no error), and
//! a tensor that requires gradient is exported where `__dlpack__` refuses it. So a PyTorch
//! tensor goes through the table only when the table describes it as `__dlpack__` would; any
//! other goes to `__dlpack__`, which refuses it with PyTorch's own `BufferError`. The checks
//! read two bits of every tensor (the negative bit and `requires_grad`, before the table), and a
//! third, the conjugate bit, of a complex tensor only. For `torch.Tensor` itself they call
//! PyTorch's own C functions behind those names, found on the class once and kept while the
//! class is unchanged (`readers`), which spares CPython's lookup and call of each name; what is
//! left is PyTorch's functions themselves (`is_neg()` lets other threads run while it reads the
//! bit), the one cost of this import that TVM FFI's unchecked one does not pay.
//!
//! A negated view (`t.conj().imag`, whose negative bit is set) is wrong both ways: PyTorch
//! 2.15's `__dlpack__` exports it too, with the stored values, not the negated ones. It is
//! refused here, whichever way the tensor would be asked for.
//!
//! A check that cannot be asked is no refusal: the tensor goes to `__dlpack__`, which decides.
//! PyTorch 2.15's `torch.utils.dlpack.ReadOnlyTensorWrapper`, a subclass whose
//! `__torch_function__` raises a `RuntimeError` for everything but `__dlpack__` and
//! `__dlpack_device__` (`is_neg` and `requires_grad` included), is exported that way, read-only,
//! as NumPy, TVM FFI and PyTorch itself take it. Only what is not an `Exception`
//! (`KeyboardInterrupt`, `SystemExit`) goes on to the caller.

use pyo3::exceptions::{PyBufferError, PyException};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// The exchange table to ask for `obj`, a PyTorch tensor, through: `table`, the one its class
/// publishes (if any), where that exports it as `__dlpack__` would, as far as can be told before
/// it is asked (once it has, [`conjugate`] says whether the export is a conjugate view's).
/// `None` where `__dlpack__` is to be asked: a tensor that requires gradient, which the table
/// would export and `__dlpack__` refuses, or one a check could not be asked of. A negated view,
/// which no PyTorch export describes right, is a `BufferError`. (A tensor of another layout than
/// strided, sparse or MKL-DNN, makes the table raise, which sends it to `__dlpack__` too:
/// nothing to check for it.)
pub(crate) fn check<T>(obj: &Bound<'_, PyAny>, table: Option<T>) -> PyResult<Option<T>> {
    let py = obj.py();
    // A class with a table is `torch.Tensor` itself (`values/classify.rs`): its bits are read
    // through PyTorch's own functions, found once (`readers`).
    let readers = if table.is_some() {
        readers::of(obj)?
    } else {
        None
    };
    let negative = match readers {
        Some(readers) => readers.is_neg(obj),
        None => flag(obj, intern!(py, "is_neg")),
    };
    match asked(py, negative)? {
        Some(false) => {}
        Some(true) => {
            return Err(PyBufferError::new_err(
                "Can't export tensors with the negative bit set (a view such as t.conj().imag): \
                 PyTorch's DLPack export gives the values it stores, not the negated ones the \
                 tensor holds; use tensor.resolve_neg()",
            ));
        }
        None => return Ok(None),
    }
    let Some(table) = table else {
        return Ok(None);
    };
    // Found again: `is_neg` let other threads run, which may have changed the class.
    let requires_grad = match readers::of(obj)? {
        Some(readers) => readers.requires_grad(obj),
        None => obj
            .getattr(intern!(py, "requires_grad"))
            .and_then(|value| value.is_truthy()),
    };
    Ok(match asked(py, requires_grad)? {
        Some(false) => Some(table),
        Some(true) | None => None,
    })
}

/// Whether the table's export of `obj`, of data type `exported`, is a conjugate view's (or
/// whether it is cannot be asked), which the table exports with the values of the tensor it
/// views: then `__dlpack__` is asked, and refuses it. Only a complex tensor carries the
/// conjugate bit, so only then is it read. `obj` is a tensor the table exported, so of
/// `torch.Tensor` itself.
pub(crate) fn conjugate(obj: &Bound<'_, PyAny>, exported: crate::DataType) -> PyResult<bool> {
    if !exported.is_complex() {
        return Ok(false);
    }
    let py = obj.py();
    let conjugate = match readers::of(obj)? {
        Some(readers) => readers.is_conj(obj),
        None => flag(obj, intern!(py, "is_conj")),
    };
    Ok(asked(py, conjugate)?.unwrap_or(true))
}

/// `obj.name()` as a bool.
fn flag(obj: &Bound<'_, PyAny>, name: &Bound<'_, PyString>) -> PyResult<bool> {
    obj.call_method0(name)?.is_truthy()
}

/// A check's answer, `None` where it could not be asked: it raised an `Exception` (a method
/// PyTorch does not have yet, a subclass that allows it not), which then sends the tensor to
/// `__dlpack__`. `KeyboardInterrupt` and `SystemExit` are no answer; they go on to the caller.
#[inline]
fn asked(py: Python<'_>, answer: PyResult<bool>) -> PyResult<Option<bool>> {
    match answer {
        Ok(answer) => Ok(Some(answer)),
        Err(err) if err.is_instance_of::<PyException>(py) => Ok(None),
        Err(err) => Err(err),
    }
}

/// PyTorch's own functions behind `is_neg()`, `is_conj()` and `requires_grad` on
/// `torch.Tensor`, found on the class once and called directly: each is what `t.is_neg()` or
/// `t.requires_grad` ends in, without CPython's lookup of the name on the class and the method
/// call around it (more than PyTorch's function itself for `requires_grad`). They are used
/// while the class's attributes are as they were when they were found, which CPython's version
/// tag of the class says (it changes when an attribute of the class or of a base is set or
/// deleted); after a change, they are found again. Not on the limited API, PyPy or GraalPy,
/// whose objects do not have CPython's layout, nor on a free-threaded build (the one
/// remembered class is kept under the GIL): there, the names are looked up on each call.
///
/// The bits are read as `torch.Tensor.is_neg(t)` reads them, from the class: an attribute set
/// on one tensor object (`t.is_neg = …`) does not stand for PyTorch's bit.
#[cfg(not(any(Py_LIMITED_API, PyPy, GraalPy, Py_GIL_DISABLED)))]
mod readers {
    use core::cell::UnsafeCell;
    use core::ffi::{c_uint, c_void};

    use pyo3::exceptions::PyException;
    use pyo3::ffi;
    use pyo3::intern;
    use pyo3::prelude::*;
    use pyo3::types::{PyString, PyType};

    /// The functions found on a class, and the class's version tag when they were found.
    #[derive(Clone, Copy)]
    pub(super) struct Readers {
        class: *mut ffi::PyTypeObject,
        tag: c_uint,
        is_neg: ffi::PyCFunction,
        is_conj: ffi::PyCFunction,
        requires_grad: ffi::getter,
        requires_grad_closure: *mut c_void,
    }

    /// The readers of the last class they were found on.
    struct Found(UnsafeCell<Option<Readers>>);

    // SAFETY: reached only in `of` and `found_again`, whose callers hold the GIL (this module is
    // not built for free-threaded Python), which serialises them; the function pointers it
    // holds are those of an extension module, which CPython never unloads.
    unsafe impl Sync for Found {}

    static FOUND: Found = Found(UnsafeCell::new(None));

    /// The readers of `obj`'s class, found now if the class is another than the last one's,
    /// or changed since; `None` where one of them is not a plain C function of PyTorch's
    /// (a Python override, another PyTorch), which the caller then asks by name.
    #[inline]
    pub(super) fn of(obj: &Bound<'_, PyAny>) -> PyResult<Option<Readers>> {
        let class = obj.get_type_ptr();
        // SAFETY: the GIL is held (`obj` is bound), and no Python code runs while the cell is
        // read; the copy is used after.
        let last = unsafe { *FOUND.0.get() };
        if let Some(readers) = last {
            // SAFETY: `class` is the type of a live object.
            if readers.class == class && unsafe { version_tag(class) } == Some(readers.tag) {
                return Ok(Some(readers));
            }
        }
        found_again(obj)
    }

    /// [`of`] where the readers are not those of the last class, or it changed: found now.
    #[cold]
    fn found_again(obj: &Bound<'_, PyAny>) -> PyResult<Option<Readers>> {
        let found = find(&obj.get_type())?;
        // SAFETY: the GIL is held (`obj` is bound); `find` has returned, so nothing it ran
        // still reads the cell, and nothing runs while it is written.
        unsafe { *FOUND.0.get() = found };
        Ok(found)
    }

    /// CPython's version tag of `class`, while it is valid: `None` after a change (CPython
    /// sets it to 0, and before 3.13 also clears `Py_TPFLAGS_VALID_VERSION_TAG`, which 3.13 no
    /// longer uses), until a lookup on the class assigns a new one, never one it had before.
    ///
    /// # Safety
    ///
    /// `class` points to a live type object; the GIL is held.
    unsafe fn version_tag(class: *mut ffi::PyTypeObject) -> Option<c_uint> {
        // SAFETY: the caller's contract; both fields are plain values of every CPython type.
        let (flags, tag) = unsafe { ((*class).tp_flags, (*class).tp_version_tag) };
        let valid = cfg!(Py_3_13) || flags & ffi::Py_TPFLAGS_VALID_VERSION_TAG != 0;
        (valid && tag != 0).then_some(tag)
    }

    /// The readers as `class` has them now.
    fn find(class: &Bound<'_, PyType>) -> PyResult<Option<Readers>> {
        let py = class.py();
        let (Some(is_neg), Some(is_conj), Some((requires_grad, requires_grad_closure))) = (
            method(class, intern!(py, "is_neg"))?,
            method(class, intern!(py, "is_conj"))?,
            getter(class, intern!(py, "requires_grad"))?,
        ) else {
            return Ok(None);
        };
        // Read after the lookups, which gave the class a valid tag if it had none.
        // SAFETY: `class` is alive and the GIL is held.
        let Some(tag) = (unsafe { version_tag(class.as_type_ptr()) }) else {
            return Ok(None);
        };
        Ok(Some(Readers {
            class: class.as_type_ptr(),
            tag,
            is_neg,
            is_conj,
            requires_grad,
            requires_grad_closure,
        }))
    }

    /// `class.name` as a descriptor of the exact type `descriptor_type` that applies to the
    /// objects of `class`; `None` where it is anything else, or its lookup raised an
    /// `Exception`.
    fn descriptor<'py>(
        class: &Bound<'py, PyType>,
        name: &Bound<'py, PyString>,
        descriptor_type: *mut ffi::PyTypeObject,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let found = match class.getattr(name) {
            Ok(found) => found,
            Err(err) if err.is_instance_of::<PyException>(class.py()) => return Ok(None),
            Err(err) => return Err(err),
        };
        if found.get_type_ptr() != descriptor_type {
            return Ok(None);
        }
        // SAFETY: a method or getset descriptor starts with `PyDescrObject`, whose `d_type` is
        // the class it was defined on, alive while the descriptor is.
        let defined_on = unsafe { (*found.as_ptr().cast::<ffi::PyDescrObject>()).d_type };
        // SAFETY: two live type objects; the GIL is held.
        if unsafe { ffi::PyType_IsSubtype(class.as_type_ptr(), defined_on) } == 0 {
            return Ok(None);
        }
        Ok(Some(found))
    }

    /// The C function of the method `name` of `class`, when it is a method descriptor of a
    /// function that takes no arguments (`METH_NOARGS`, as PyTorch defines `is_neg` and
    /// `is_conj`).
    fn method(
        class: &Bound<'_, PyType>,
        name: &Bound<'_, PyString>,
    ) -> PyResult<Option<ffi::PyCFunction>> {
        // CPython's type of method descriptors.
        let method_type = &raw mut ffi::PyMethodDescr_Type;
        let Some(found) = descriptor(class, name, method_type)? else {
            return Ok(None);
        };
        // SAFETY: an object of exactly `PyMethodDescr_Type` is a `PyMethodDescrObject`, whose
        // `PyMethodDef` lives as long as the extension that defined it (for ever).
        let def = unsafe { &*(*found.as_ptr().cast::<ffi::PyMethodDescrObject>()).d_method };
        let calling = ffi::METH_VARARGS
            | ffi::METH_KEYWORDS
            | ffi::METH_NOARGS
            | ffi::METH_O
            | ffi::METH_FASTCALL
            | ffi::METH_METHOD
            | ffi::METH_CLASS
            | ffi::METH_STATIC;
        if def.ml_flags & calling != ffi::METH_NOARGS || def.ml_meth.is_null() {
            return Ok(None);
        }
        // SAFETY: `METH_NOARGS` says the pointer is a `PyCFunction`.
        Ok(Some(unsafe { def.ml_meth.PyCFunction }))
    }

    /// The getter of the attribute `name` of `class` and its closure, when it is a getset
    /// descriptor (as PyTorch defines `requires_grad`).
    fn getter(
        class: &Bound<'_, PyType>,
        name: &Bound<'_, PyString>,
    ) -> PyResult<Option<(ffi::getter, *mut c_void)>> {
        // CPython's type of getset descriptors.
        let getset_type = &raw mut ffi::PyGetSetDescr_Type;
        let Some(found) = descriptor(class, name, getset_type)? else {
            return Ok(None);
        };
        // SAFETY: an object of exactly `PyGetSetDescr_Type` is a `PyGetSetDescrObject`, whose
        // `PyGetSetDef` lives as long as the extension that defined it (for ever).
        let def = unsafe { &*(*found.as_ptr().cast::<ffi::PyGetSetDescrObject>()).d_getset };
        Ok(def.get.map(|get| (get, def.closure)))
    }

    impl Readers {
        /// `obj.is_neg()`, `obj` of the class the readers were found on.
        pub(super) fn is_neg(self, obj: &Bound<'_, PyAny>) -> PyResult<bool> {
            // SAFETY: `obj`'s class is `self.class`, unchanged since `is_neg` was found on it
            // (`of` compared the version tag), so `is_neg` is the `METH_NOARGS` function
            // `obj.is_neg()` calls, with `obj` an instance of the class that defines it; such
            // a function takes the object and null. The GIL is held.
            let result = unsafe { (self.is_neg)(obj.as_ptr(), core::ptr::null_mut()) };
            // SAFETY: a new reference, or null with an exception set.
            unsafe { Bound::from_owned_ptr_or_err(obj.py(), result) }?.is_truthy()
        }

        /// `obj.is_conj()`, as [`is_neg`](Self::is_neg).
        pub(super) fn is_conj(self, obj: &Bound<'_, PyAny>) -> PyResult<bool> {
            // SAFETY: as in `is_neg`, for `is_conj`.
            let result = unsafe { (self.is_conj)(obj.as_ptr(), core::ptr::null_mut()) };
            // SAFETY: a new reference, or null with an exception set.
            unsafe { Bound::from_owned_ptr_or_err(obj.py(), result) }?.is_truthy()
        }

        /// `bool(obj.requires_grad)`, as [`is_neg`](Self::is_neg).
        pub(super) fn requires_grad(self, obj: &Bound<'_, PyAny>) -> PyResult<bool> {
            // SAFETY: as in `is_neg`: the getter `obj.requires_grad` calls, with its closure.
            let result = unsafe { (self.requires_grad)(obj.as_ptr(), self.requires_grad_closure) };
            // SAFETY: a new reference, or null with an exception set.
            unsafe { Bound::from_owned_ptr_or_err(obj.py(), result) }?.is_truthy()
        }
    }
}

/// Where CPython's objects cannot be read in place: no readers, the names are asked.
#[cfg(any(Py_LIMITED_API, PyPy, GraalPy, Py_GIL_DISABLED))]
mod readers {
    use pyo3::prelude::*;

    /// Never made.
    #[derive(Clone, Copy)]
    pub(super) enum Readers {}

    pub(super) fn of(_obj: &Bound<'_, PyAny>) -> PyResult<Option<Readers>> {
        Ok(None)
    }

    impl Readers {
        pub(super) fn is_neg(self, _obj: &Bound<'_, PyAny>) -> PyResult<bool> {
            match self {}
        }

        pub(super) fn is_conj(self, _obj: &Bound<'_, PyAny>) -> PyResult<bool> {
            match self {}
        }

        pub(super) fn requires_grad(self, _obj: &Bound<'_, PyAny>) -> PyResult<bool> {
            match self {}
        }
    }
}
