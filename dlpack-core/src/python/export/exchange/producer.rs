//! The five `extern "C"` functions of a producer's table, generic over its tensor type: each
//! catches panics and reports every failure the way `dlpack.h` asks (a Python exception for
//! the four that take or make Python objects, `SetError` for the allocator).

use core::ffi::{c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::exceptions::{PyBufferError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

use super::tensor_type::{AllocError, ExchangeTensor};
use crate::DataType;
use crate::Device;
use crate::ffi::{DLDeviceType, DLManagedTensorVersioned, DLPackSetError, DLTensor};
use crate::python::message::a_or_an;
use crate::tensor::ManagedTensor;
use crate::tensor::TensorError;
use crate::tensor::import::validate;

/// What a panic says, for the exception that replaces it.
fn panic_message(payload: &(dyn core::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message")
}

/// Runs `body` for the table function `name`, attached to the interpreter: 0 when it returns
/// `Ok`, -1 with its error (or a `RuntimeError` for a panic, which never unwinds into C) set as
/// the Python exception.
fn python_call(name: &str, body: impl FnOnce(Python<'_>) -> PyResult<()>) -> c_int {
    // SAFETY: `dlpack.h` has these functions take or make Python objects and report failure
    // as a Python exception, so their callers hold the GIL (TVM FFI and PaddlePaddle call them
    // attached). The token does not outlive this call.
    let py = unsafe { Python::assume_attached() };
    let error = match catch_unwind(AssertUnwindSafe(|| body(py))) {
        Ok(Ok(())) => return 0,
        Ok(Err(err)) => err,
        Err(payload) => {
            PyRuntimeError::new_err(format!("{name} panicked: {}", panic_message(&*payload)))
        }
    };
    error.restore(py);
    -1
}

/// `managed_tensor_allocator`: a new tensor of `T`'s library like `prototype`.
pub(super) unsafe extern "C" fn allocate<T: ExchangeTensor>(
    prototype: *mut DLTensor,
    out: *mut *mut DLManagedTensorVersioned,
    error_ctx: *mut c_void,
    set_error: Option<DLPackSetError>,
) -> c_int {
    let made = catch_unwind(AssertUnwindSafe(|| {
        if out.is_null() {
            return Err(AllocError::Value(
                "the allocator's out pointer is null".into(),
            ));
        }
        // SAFETY: the caller passes a prototype it owns for the call, whose shape holds ndim
        // values (`dlpack.h`); `check_prototype` checks the pointers before reading them.
        let prototype = unsafe { prototype.as_ref() }
            .ok_or_else(|| AllocError::Value("the allocator's prototype is null".into()))?;
        // SAFETY: as above.
        let shape = unsafe { check_prototype(prototype) }
            .map_err(|err| AllocError::Value(err.to_string()))?;
        let tensor = T::allocate(prototype.dtype, shape, prototype.device)?;
        check_allocated(&tensor, prototype.dtype, shape, prototype.device)?;
        Ok(tensor)
    }));
    let error = match made {
        Ok(Ok(tensor)) => {
            // SAFETY: `out` is non-null (checked) and writable (the caller's contract).
            unsafe { *out = tensor.into_raw() };
            return 0;
        }
        Ok(Err(err)) => err,
        Err(payload) => AllocError::Runtime(format!(
            "the allocator panicked: {}",
            panic_message(&*payload)
        )),
    };
    if let Some(set_error) = set_error {
        let message =
            std::ffi::CString::new(error.message().replace('\0', " ")).unwrap_or_default();
        // SAFETY: the caller's callback with the caller's context, and two C strings that
        // live for the call.
        unsafe { set_error(error_ctx, error.kind().as_ptr(), message.as_ptr()) };
    }
    -1
}

/// The allocator's result describes what was asked for: a producer's mistake is the
/// allocator's error, not the consumer's surprise.
fn check_allocated(
    tensor: &ManagedTensor,
    dtype: DataType,
    shape: &[i64],
    device: Device,
) -> Result<(), AllocError> {
    let view = tensor
        .view()
        .map_err(|err| AllocError::Runtime(err.to_string()))?;
    if view.dtype() != dtype || view.shape() != shape || view.device() != device {
        let made = view.dtype().to_string();
        let asked = dtype.to_string();
        return Err(AllocError::Runtime(format!(
            "the allocator made {} {made} tensor of shape {:?} on {} when {} {asked} tensor of \
             shape {shape:?} on {device} was asked for",
            a_or_an(&made),
            view.shape(),
            view.device(),
            a_or_an(&asked),
        )));
    }
    Ok(())
}

/// The object `py_object` as a `T`, or the `TypeError` `dlpack.h`'s contract violation earns.
fn object<'py, T: ExchangeTensor>(
    py: Python<'py>,
    py_object: *mut c_void,
) -> PyResult<Bound<'py, T>> {
    if py_object.is_null() {
        return Err(PyValueError::new_err("the Python object pointer is null"));
    }
    // SAFETY: a live object the caller holds a reference to for the call.
    let obj = unsafe { Bound::from_borrowed_ptr(py, py_object.cast()) };
    obj.cast_into::<T>().map_err(|err| {
        let obj = err.into_inner();
        PyTypeError::new_err(format!(
            "this exchange table belongs to {}, and was given a {}",
            T::NAME,
            obj.get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string())
        ))
    })
}

/// `managed_tensor_from_py_object_no_sync`: `T::export` of the object.
pub(super) unsafe extern "C" fn from_py_object<T: ExchangeTensor>(
    py_object: *mut c_void,
    out: *mut *mut DLManagedTensorVersioned,
) -> c_int {
    python_call("managed_tensor_from_py_object_no_sync", |py| {
        if out.is_null() {
            return Err(PyValueError::new_err("the out pointer is null"));
        }
        let obj = object::<T>(py, py_object)?;
        let tensor = T::export(&*obj.try_borrow()?, py)?;
        // SAFETY: `out` is non-null (checked) and writable (the caller's contract).
        unsafe { *out = tensor.into_raw() };
        Ok(())
    })
}

/// `dltensor_from_py_object_no_sync`: `T::borrow_parts` of the object, as a `DLTensor`
/// pointing into it.
pub(super) unsafe extern "C" fn dltensor_from_py_object<T: ExchangeTensor>(
    py_object: *mut c_void,
    out: *mut DLTensor,
) -> c_int {
    python_call("dltensor_from_py_object_no_sync", |py| {
        if out.is_null() {
            return Err(PyValueError::new_err("the out pointer is null"));
        }
        let obj = object::<T>(py, py_object)?;
        let tensor = obj.try_borrow()?;
        let raw = T::borrow_parts(&*tensor)?
            .borrowed()
            .map_err(|err| PyBufferError::new_err(err.to_string()))?;
        // SAFETY: `out` is non-null (checked) and writable (the caller's contract). What the
        // `DLTensor` points at (`T`'s data, shape and strides) is valid, unmoved and unwritten
        // for as long as the object the caller holds lives: the promise of every
        // `unsafe impl ExchangeTensor` (the trait's `# Safety`), which is what lets the
        // consumer read it after the borrow of `tensor` ends here.
        unsafe { out.write(raw) };
        Ok(())
    })
}

/// `managed_tensor_to_py_object_no_sync`: `T::import` of the tensor, which is ours whatever
/// happens.
pub(super) unsafe extern "C" fn to_py_object<T: ExchangeTensor>(
    tensor: *mut DLManagedTensorVersioned,
    out_py_object: *mut *mut c_void,
) -> c_int {
    python_call("managed_tensor_to_py_object_no_sync", |py| {
        // SAFETY: the caller hands the tensor over (`dlpack.h`: "stolen"); `from_raw` owns it
        // from here, on success and failure alike.
        let tensor = unsafe { ManagedTensor::from_raw(tensor) }
            .map_err(|err| PyBufferError::new_err(err.to_string()))?;
        if out_py_object.is_null() {
            return Err(PyValueError::new_err("the out pointer is null"));
        }
        let obj = Bound::new(py, T::import(py, tensor)?)?;
        // SAFETY: non-null (checked) and writable; the new reference is the caller's.
        unsafe { *out_py_object = obj.into_ptr().cast() };
        Ok(())
    })
}

/// `current_work_stream`: `T::current_work_stream` of the device.
pub(super) unsafe extern "C" fn current_work_stream<T: ExchangeTensor>(
    device_type: DLDeviceType,
    device_id: i32,
    out_current_stream: *mut *mut c_void,
) -> c_int {
    python_call("current_work_stream", |py| {
        if out_current_stream.is_null() {
            return Err(PyValueError::new_err("the out pointer is null"));
        }
        let stream = T::current_work_stream(
            py,
            Device {
                device_type,
                device_id,
            },
        )?;
        // SAFETY: non-null (checked) and writable (the caller's contract).
        unsafe { *out_current_stream = stream };
        Ok(())
    })
}

/// The shape of an allocator's prototype (`DLPackManagedTensorAllocator`, of which only the
/// data type, rank, shape and device count), after the checks an import makes of them: a rank
/// of 0 to [`MAX_NDIM`](crate::tensor::MAX_NDIM), a non-null aligned shape, non-negative
/// dimensions whose product fits, a valid data type.
///
/// # Safety
///
/// When `ndim` is 1 to `MAX_NDIM` and `shape` is non-null and aligned, it points to `ndim`
/// readable values that do not change for `'a`.
pub(crate) unsafe fn check_prototype(prototype: &DLTensor) -> Result<&[i64], TensorError> {
    let ndim = validate::check_ndim(prototype.ndim)?;
    // SAFETY: the caller's contract.
    let shape = unsafe { validate::shape_slice(prototype, ndim)? };
    validate::check_shape(shape)?;
    validate::check_dtype(prototype.dtype)?;
    Ok(shape)
}

#[cfg(test)]
mod tests {
    use super::check_prototype;
    use crate::ffi::DLTensor;
    use crate::tensor::TensorError;
    use crate::{DataType, Device};

    fn prototype(ndim: i32, shape: *mut i64, dtype: DataType) -> DLTensor {
        DLTensor {
            data: core::ptr::null_mut(),
            device: Device::CPU,
            ndim,
            dtype,
            shape,
            strides: core::ptr::null_mut(),
            byte_offset: 0,
        }
    }

    #[test]
    fn a_prototype_is_checked_as_an_import_is() {
        let mut shape = [2_i64, 3];
        // SAFETY: `shape` holds `ndim` values for every call below.
        unsafe {
            let ok = prototype(2, shape.as_mut_ptr(), DataType::F32);
            assert_eq!(check_prototype(&ok).unwrap(), [2, 3]);
            let scalar = prototype(0, core::ptr::null_mut(), DataType::F32);
            assert_eq!(check_prototype(&scalar).unwrap(), [] as [i64; 0]);
            let null = prototype(2, core::ptr::null_mut(), DataType::F32);
            assert_eq!(
                check_prototype(&null).unwrap_err(),
                TensorError::NullShape { ndim: 2 }
            );
            let too_many = prototype(65, shape.as_mut_ptr(), DataType::F32);
            assert_eq!(
                check_prototype(&too_many).unwrap_err(),
                TensorError::Ndim { ndim: 65 }
            );
            let bad_dtype = DataType {
                code: crate::ffi::DLDataTypeCode::FLOAT,
                bits: 0,
                lanes: 1,
            };
            let odd = prototype(2, shape.as_mut_ptr(), bad_dtype);
            assert!(matches!(
                check_prototype(&odd).unwrap_err(),
                TensorError::InvalidDataType { .. }
            ));
            shape[1] = -3;
            let negative = prototype(2, shape.as_mut_ptr(), DataType::F32);
            assert_eq!(
                check_prototype(&negative).unwrap_err(),
                TensorError::NegativeDim { axis: 1, value: -3 }
            );
        }
    }
}
