//! DLPack capsules, both directions: making them (producer) and consuming them (consumer). The
//! unsafe code of capsule ownership (the destructor, the renaming, taking the pointer) is here;
//! the C exchange table, the borrowed view and the CUDA paths hold the rest of the Python
//! feature's, each block with its own `SAFETY` comment.
//!
//! Hidden from the API (`__private` re-exports them for the integration tests): a
//! framework makes capsules with `DlpackRequest` and takes them with `import_tensor`.
//!
//! The rules, from the DLPack Python specification:
//!
//! - A producer returns a `PyCapsule` named `"dltensor_versioned"` holding a
//!   `DLManagedTensorVersioned*`, or `"dltensor"` holding a legacy `DLManagedTensor*`.
//! - A consumer that takes the tensor renames the capsule `"used_dltensor_versioned"` (or
//!   `"used_dltensor"`) and from then on owns the tensor: it calls the deleter when done.
//! - The capsule's destructor calls the deleter only if the capsule still has its original
//!   name, that is, if no consumer took the tensor. So the tensor is freed exactly once,
//!   whichever of the two happens.

use core::ffi::CStr;
use core::ptr::NonNull;

use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::ffi::{DLManagedTensor, DLManagedTensorVersioned};
use crate::python::error::buffer_error;
use crate::python::message::repr;
use crate::tensor::{LegacyManagedTensor, ManagedTensor};

/// The name of a capsule holding a `DLManagedTensorVersioned*`: what `__dlpack__` returns to
/// a consumer that passed `max_version=(1, …)` or newer.
pub const VERSIONED: &CStr = c"dltensor_versioned";
/// The name of a capsule holding a legacy `DLManagedTensor*`: what `__dlpack__` returns to a
/// consumer from before DLPack 1.0 (no `max_version`).
pub const LEGACY: &CStr = c"dltensor";
/// The name a consumer gives a versioned capsule it took the tensor out of: its destructor
/// then leaves the tensor to the consumer.
pub const USED_VERSIONED: &CStr = c"used_dltensor_versioned";
/// The name a consumer gives a legacy capsule it took the tensor out of.
pub const USED_LEGACY: &CStr = c"used_dltensor";

/// Wraps a versioned tensor in a `"dltensor_versioned"` capsule that owns it: a consumer takes
/// it (and renames the capsule), or the capsule's destructor frees it, exactly once.
pub fn versioned_capsule(py: Python<'_>, tensor: ManagedTensor) -> PyResult<Bound<'_, PyCapsule>> {
    let raw = tensor.into_raw();
    let Some(raw) = NonNull::new(raw) else {
        return Err(PyBufferError::new_err("the tensor's pointer is null"));
    };
    // SAFETY: `into_raw` handed us the only owning pointer to a live tensor.
    unsafe { wrap_versioned(py, raw) }
}

/// Wraps a legacy tensor in a `"dltensor"` capsule that owns it; see [`versioned_capsule`].
pub fn legacy_capsule(
    py: Python<'_>,
    tensor: LegacyManagedTensor,
) -> PyResult<Bound<'_, PyCapsule>> {
    let raw = tensor.into_raw();
    let Some(raw) = NonNull::new(raw) else {
        return Err(PyBufferError::new_err("the tensor's pointer is null"));
    };
    // SAFETY: `into_raw` handed us the only owning pointer to a live tensor.
    unsafe { wrap_legacy(py, raw) }
}

/// The tensor out of a DLPack capsule, as [`capsule_tensor`](crate::python::capsule_tensor)
/// takes it, for the consumer's own steps, which register what they lend themselves.
pub(crate) fn take_tensor(capsule: &Bound<'_, PyCapsule>) -> PyResult<ManagedTensor> {
    match take(capsule)? {
        Taken::Versioned(raw) => {
            // SAFETY: `take` renamed the capsule, so we are the only owner of a live tensor
            // that a producer put there under the versioned name; `from_raw` checks the
            // version (and releases the tensor if it refuses it).
            unsafe { ManagedTensor::from_raw(raw.as_ptr()) }.map_err(buffer_error)
        }
        // SAFETY: as above, for the legacy name and struct.
        Taken::Legacy(raw) => unsafe { LegacyManagedTensor::from_raw(raw.as_ptr()) }
            .and_then(LegacyManagedTensor::into_versioned)
            .map_err(buffer_error),
    }
}

/// A tensor taken out of a capsule: the caller owns it and must call its deleter once.
#[derive(Debug)]
enum Taken {
    /// From a `"dltensor_versioned"` capsule.
    Versioned(NonNull<DLManagedTensorVersioned>),
    /// From a `"dltensor"` capsule.
    Legacy(NonNull<DLManagedTensor>),
}

/// Wraps a versioned managed tensor in a `"dltensor_versioned"` capsule that owns it.
///
/// # Safety
///
/// `tensor` points to a live `DLManagedTensorVersioned` that nothing else will free: ownership
/// passes to the capsule (or, on error, the tensor has been freed through its deleter).
unsafe fn wrap_versioned(
    py: Python<'_>,
    tensor: NonNull<DLManagedTensorVersioned>,
) -> PyResult<Bound<'_, PyCapsule>> {
    // SAFETY: the pointer is live and owned (our contract); `destroy_versioned` frees it
    // exactly when the capsule dies unconsumed.
    let capsule = unsafe {
        PyCapsule::new_with_pointer_and_destructor(
            py,
            tensor.cast(),
            VERSIONED,
            Some(destroy_versioned),
        )
    };
    capsule.inspect_err(|_| {
        // SAFETY: no capsule was made, so we still own the tensor; free it once.
        unsafe { delete_versioned(tensor.as_ptr()) }
    })
}

/// Wraps a legacy managed tensor in a `"dltensor"` capsule that owns it.
///
/// # Safety
///
/// As for [`wrap_versioned`].
unsafe fn wrap_legacy(
    py: Python<'_>,
    tensor: NonNull<DLManagedTensor>,
) -> PyResult<Bound<'_, PyCapsule>> {
    // SAFETY: as in `wrap_versioned`.
    let capsule = unsafe {
        PyCapsule::new_with_pointer_and_destructor(py, tensor.cast(), LEGACY, Some(destroy_legacy))
    };
    capsule.inspect_err(|_| {
        // SAFETY: no capsule was made, so we still own the tensor; free it once.
        unsafe { delete_legacy(tensor.as_ptr()) }
    })
}

/// Takes the tensor out of a DLPack capsule and renames the capsule `used_…`, so that its
/// destructor no longer frees the tensor: the caller now owns it.
///
/// A capsule that was already consumed is a `ValueError` that says so; a capsule of any other
/// name is a `TypeError`.
fn take(capsule: &Bound<'_, PyCapsule>) -> PyResult<Taken> {
    // The name is read once and compared here; handing `PyCapsule_GetPointer` the capsule's
    // own name pointer then matches at once, where asking it for each of our names would
    // compare strings twice per call.
    // SAFETY: `capsule` is a live capsule (we hold a reference); the thread is attached.
    let raw_name = unsafe { ffi::PyCapsule_GetName(capsule.as_ptr()) };
    // SAFETY: a non-null name is the capsule's C string, alive while the capsule is.
    let name = (!raw_name.is_null()).then(|| unsafe { CStr::from_ptr(raw_name) });
    let (versioned, used) = match name {
        Some(name) if name == VERSIONED => (true, USED_VERSIONED),
        Some(name) if name == LEGACY => (false, USED_LEGACY),
        Some(name) if name == USED_VERSIONED || name == USED_LEGACY => {
            return Err(PyValueError::new_err(format!(
                "{} was already consumed: a DLPack capsule can be consumed only once; call \
                 __dlpack__() again for a new capsule",
                repr(capsule.as_any())
            )));
        }
        _ => {
            // An unnamed capsule's `PyCapsule_GetName` may have set nothing, or a
            // `ValueError` for an invalid one: ours replaces it.
            let _ = PyErr::take(capsule.py());
            return Err(PyTypeError::new_err(format!(
                "{} is not a DLPack capsule: expected a capsule named 'dltensor_versioned' or \
                 'dltensor'",
                repr(capsule.as_any())
            )));
        }
    };
    // SAFETY: as above; `raw_name` is the capsule's own name, so it matches.
    let pointer = unsafe { ffi::PyCapsule_GetPointer(capsule.as_ptr(), raw_name) };
    let pointer = NonNull::new(pointer).ok_or_else(|| {
        PyErr::take(capsule.py())
            .unwrap_or_else(|| PyValueError::new_err("the DLPack capsule holds a null pointer"))
    })?;
    // SAFETY: `capsule` is a live capsule (we hold a reference) and `used` is a 'static C
    // string, as `PyCapsule_SetName` requires (the capsule keeps the pointer).
    if unsafe { ffi::PyCapsule_SetName(capsule.as_ptr(), used.as_ptr()) } != 0 {
        return Err(PyErr::fetch(capsule.py()));
    }
    // From here on the capsule's destructor leaves the tensor alone, and we own it.
    Ok(if versioned {
        Taken::Versioned(pointer.cast())
    } else {
        Taken::Legacy(pointer.cast())
    })
}

/// Calls a versioned tensor's deleter, if it has one.
///
/// # Safety
///
/// `tensor` is a live, owned `DLManagedTensorVersioned`; it is dangling afterwards.
unsafe fn delete_versioned(tensor: *mut DLManagedTensorVersioned) {
    // SAFETY: live by contract; the deleter takes ownership and frees it once.
    unsafe {
        if let Some(deleter) = (*tensor).deleter {
            deleter(tensor);
        }
    }
}

/// Calls a legacy tensor's deleter, if it has one.
///
/// # Safety
///
/// `tensor` is a live, owned `DLManagedTensor`; it is dangling afterwards.
unsafe fn delete_legacy(tensor: *mut DLManagedTensor) {
    // SAFETY: live by contract; the deleter takes ownership and frees it once.
    unsafe {
        if let Some(deleter) = (*tensor).deleter {
            deleter(tensor);
        }
    }
}

/// The destructor of our `"dltensor_versioned"` capsules: frees the tensor unless a consumer
/// renamed the capsule (and so took the tensor).
unsafe extern "C" fn destroy_versioned(capsule: *mut ffi::PyObject) {
    // SAFETY: Python calls a capsule's destructor once, attached to the interpreter, with the
    // dying capsule. `PyCapsule_IsValid` neither raises nor touches a pending exception; with
    // the name still `dltensor_versioned` nobody took the tensor, which we made and own, so
    // `PyCapsule_GetPointer` (same name: it cannot fail) gives it back and we free it once.
    // A renamed capsule is left alone: its consumer owns the tensor.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, VERSIONED.as_ptr()) == 1 {
            let tensor = ffi::PyCapsule_GetPointer(capsule, VERSIONED.as_ptr());
            delete_versioned(tensor.cast());
        }
    }
}

/// The destructor of our `"dltensor"` capsules; see [`destroy_versioned`].
unsafe extern "C" fn destroy_legacy(capsule: *mut ffi::PyObject) {
    // SAFETY: as in `destroy_versioned`, for the legacy name and struct.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, LEGACY.as_ptr()) == 1 {
            let tensor = ffi::PyCapsule_GetPointer(capsule, LEGACY.as_ptr());
            delete_legacy(tensor.cast());
        }
    }
}

#[cfg(test)]
mod tests {
    use core::sync::atomic::{AtomicUsize, Ordering};

    use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};

    use super::*;
    use crate::ffi::{DLPackVersion, DLTensor};
    use crate::{DataType, Device};

    /// Deleter calls, per test (each test uses its own counter through `manager_ctx`).
    fn counting_tensor(calls: &'static AtomicUsize) -> NonNull<DLManagedTensorVersioned> {
        unsafe extern "C" fn deleter(tensor: *mut DLManagedTensorVersioned) {
            // SAFETY: `tensor` came from `Box::into_raw` below and is freed only here;
            // `manager_ctx` points to a 'static counter.
            unsafe {
                let tensor = Box::from_raw(tensor);
                let calls = &*tensor.manager_ctx.cast::<AtomicUsize>();
                calls.fetch_add(1, Ordering::SeqCst);
            }
        }
        let tensor = Box::new(DLManagedTensorVersioned {
            version: DLPackVersion::CURRENT,
            manager_ctx: core::ptr::from_ref(calls).cast_mut().cast(),
            deleter: Some(deleter),
            flags: 0,
            dl_tensor: DLTensor {
                data: core::ptr::null_mut(),
                device: Device::CPU,
                ndim: 0,
                dtype: DataType::F32,
                shape: core::ptr::null_mut(),
                strides: core::ptr::null_mut(),
                byte_offset: 0,
            },
        });
        NonNull::from(Box::leak(tensor))
    }

    fn with_python(test: impl FnOnce(Python<'_>)) {
        Python::initialize();
        Python::attach(test);
    }

    #[test]
    fn an_unconsumed_capsule_frees_its_tensor_once() {
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        with_python(|py| {
            // SAFETY: a fresh tensor that nothing else owns.
            let capsule = unsafe { wrap_versioned(py, counting_tensor(&CALLS)) }.unwrap();
            assert!(capsule.is_valid_checked(Some(VERSIONED)));
            assert_eq!(CALLS.load(Ordering::SeqCst), 0);
            drop(capsule);
            assert_eq!(CALLS.load(Ordering::SeqCst), 1);
        });
    }

    #[test]
    fn a_consumed_capsule_leaves_its_tensor_to_the_consumer() {
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        with_python(|py| {
            // SAFETY: a fresh tensor that nothing else owns.
            let capsule = unsafe { wrap_versioned(py, counting_tensor(&CALLS)) }.unwrap();
            let Taken::Versioned(tensor) = take(&capsule).unwrap() else {
                panic!("a versioned capsule gives a versioned tensor");
            };
            assert!(capsule.is_valid_checked(Some(USED_VERSIONED)));
            drop(capsule);
            assert_eq!(
                CALLS.load(Ordering::SeqCst),
                0,
                "the destructor must not free it"
            );
            // SAFETY: `take` gave us ownership.
            unsafe { delete_versioned(tensor.as_ptr()) };
            assert_eq!(CALLS.load(Ordering::SeqCst), 1);
        });
    }

    #[test]
    fn a_capsule_is_consumed_once() {
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        with_python(|py| {
            // SAFETY: a fresh tensor that nothing else owns.
            let capsule = unsafe { wrap_versioned(py, counting_tensor(&CALLS)) }.unwrap();
            let Taken::Versioned(tensor) = take(&capsule).unwrap() else {
                panic!("a versioned capsule gives a versioned tensor");
            };
            let err = take(&capsule).unwrap_err();
            assert!(err.is_instance_of::<PyValueError>(py));
            assert!(err.to_string().contains("was already consumed"), "{err}");
            // SAFETY: `take` gave us ownership the first time.
            unsafe { delete_versioned(tensor.as_ptr()) };
            drop(capsule);
            assert_eq!(CALLS.load(Ordering::SeqCst), 1);
        });
    }

    #[test]
    fn a_wrong_major_version_is_refused_and_released_once() {
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        with_python(|py| {
            let tensor = counting_tensor(&CALLS);
            // SAFETY: a fresh tensor that nothing else owns; a producer from the future would
            // write another major version there.
            unsafe { (*tensor.as_ptr()).version.major = 2 };
            // SAFETY: a fresh tensor that nothing else owns.
            let capsule = unsafe { wrap_versioned(py, tensor) }.unwrap();
            let err = take_tensor(&capsule).unwrap_err();
            assert!(err.is_instance_of::<PyBufferError>(py), "{err}");
            assert_eq!(CALLS.load(Ordering::SeqCst), 1, "refused, and released");
            drop(capsule);
            assert_eq!(CALLS.load(Ordering::SeqCst), 1, "and not released twice");
        });
    }

    #[test]
    fn other_capsules_are_not_tensors() {
        with_python(|py| {
            let other = PyCapsule::new_with_value(py, 7_u32, c"not_a_tensor").unwrap();
            let err = take(&other).unwrap_err();
            assert!(err.is_instance_of::<PyTypeError>(py));
            assert!(err.to_string().contains("is not a DLPack capsule"), "{err}");
        });
    }
}
