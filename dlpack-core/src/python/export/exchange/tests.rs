//! The table of a Rust tensor type, called as C consumers call it, and the consumer's paths.

use core::ffi::{CStr, c_char, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

use pyo3::exceptions::{PyBufferError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};

use super::{AllocError, ExchangeApi, ExchangeTensor};
use crate::ffi::{DLManagedTensorVersioned, DLTensor};
use crate::python::import_tensor;
use crate::python::with_tensor_view;
use crate::tensor::{CheckedLayout, Flags, ManagedTensor, TensorParts};
use crate::{DataType, Device};

/// float32 vectors, counting what the table did with them.
#[pyclass(frozen)]
struct Floats {
    data: Vec<f32>,
    layout: CheckedLayout,
    read_only: bool,
    exports: AtomicUsize,
    borrows: AtomicUsize,
}

impl Floats {
    fn new(data: Vec<f32>, read_only: bool) -> Self {
        let mut copy = data.clone();
        let layout = CheckedLayout::new(
            &TensorParts::host(copy.as_mut_ptr(), &[data.len()]).with_strides(&[1_i64]),
        )
        .unwrap();
        Self {
            data,
            layout,
            read_only,
            exports: AtomicUsize::new(0),
            borrows: AtomicUsize::new(0),
        }
    }
}

static API: ExchangeApi = ExchangeApi::new::<Floats>();

// SAFETY: a frozen class; `data` is never written nor replaced after `new`, and `layout` was
// checked for its length and lives beside it.
unsafe impl ExchangeTensor for Floats {
    fn allocate(
        dtype: DataType,
        shape: &[i64],
        device: Device,
    ) -> Result<ManagedTensor, AllocError> {
        match shape {
            [13] => panic!("unlucky shape"),
            // A broken allocator: the wrong shape.
            [7] => return Ok(ManagedTensor::from_vec(vec![0_f32; 6], &[6])?),
            _ => {}
        }
        if dtype != DataType::F32 || device != Device::CPU {
            return Err(AllocError::Value(format!("no {dtype} on {device}")));
        }
        let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
        Ok(ManagedTensor::from_vec(
            vec![0_f32; shape.iter().product()],
            &shape,
        )?)
    }

    fn export(&self, _py: Python<'_>) -> PyResult<ManagedTensor> {
        self.exports.fetch_add(1, Ordering::SeqCst);
        if self.data.is_empty() {
            return Err(PyBufferError::new_err("nothing to export"));
        }
        Ok(ManagedTensor::from_vec(
            self.data.clone(),
            &[self.data.len()],
        )?)
    }

    fn borrow_parts(&self) -> PyResult<TensorParts<'_>> {
        self.borrows.fetch_add(1, Ordering::SeqCst);
        let flags = if self.read_only {
            Flags::READ_ONLY
        } else {
            Flags::EMPTY
        };
        let data = self.data.as_ptr().cast_mut().cast();
        Ok(TensorParts::from_layout(data, Device::CPU, &self.layout).with_flags(flags))
    }

    fn import(_py: Python<'_>, tensor: ManagedTensor) -> PyResult<Self> {
        Ok(Self::new(tensor.view()?.to_vec::<f32>()?, false))
    }
}

#[pymethods]
impl Floats {
    #[classattr]
    fn __dlpack_c_exchange_api__(py: Python<'_>) -> PyResult<Bound<'_, PyCapsule>> {
        API.capsule(py)
    }

    /// Refused, so that an import that succeeds went through the table.
    #[pyo3(signature = (**_kwargs))]
    fn __dlpack__(&self, _kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        Err(PyRuntimeError::new_err("__dlpack__ was called"))
    }
}

fn with_python(test: impl FnOnce(Python<'_>) -> PyResult<()>) {
    Python::initialize();
    Python::attach(test).unwrap();
}

/// What `SetError` was told.
unsafe extern "C" fn record(ctx: *mut c_void, kind: *const c_char, message: *const c_char) {
    // SAFETY: the tests pass a `Vec<String>` as the context; the strings are C strings.
    unsafe {
        let calls = &mut *ctx.cast::<Vec<String>>();
        calls.push(format!(
            "{}: {}",
            CStr::from_ptr(kind).to_string_lossy(),
            CStr::from_ptr(message).to_string_lossy()
        ));
    }
}

/// Calls the allocator with a prototype of `dtype` and `shape`: the tensor, or what
/// `SetError` was told (exactly once).
fn allocate(dtype: DataType, shape: &mut [i64]) -> Result<ManagedTensor, String> {
    let mut prototype = DLTensor {
        data: core::ptr::null_mut(),
        device: Device::CPU,
        ndim: shape.len() as i32,
        dtype,
        shape: shape.as_mut_ptr(),
        strides: core::ptr::null_mut(),
        byte_offset: 0,
    };
    let mut out: *mut DLManagedTensorVersioned = core::ptr::null_mut();
    let mut errors: Vec<String> = Vec::new();
    let allocator = API.as_raw().managed_tensor_allocator.unwrap();
    // SAFETY: a prototype and out pointer alive for the call, our recorder and its context.
    let status = unsafe {
        allocator(
            &mut prototype,
            &mut out,
            (&raw mut errors).cast(),
            Some(record),
        )
    };
    match status {
        0 => {
            assert!(errors.is_empty());
            // SAFETY: the allocator handed over an owned tensor.
            Ok(unsafe { ManagedTensor::from_raw(out) }.unwrap())
        }
        _ => {
            assert_eq!((status, errors.len()), (-1, 1), "{errors:?}");
            assert!(out.is_null());
            Err(errors.pop().unwrap())
        }
    }
}

#[test]
fn the_allocator_makes_tensors_and_reports_failures_through_set_error() {
    // No Python is needed: the allocator may run without the GIL.
    let tensor = allocate(DataType::F32, &mut [2, 3]).unwrap();
    assert_eq!(tensor.view().unwrap().shape(), [2, 3]);
    assert_eq!(
        allocate(DataType::I8, &mut [2]).unwrap_err(),
        "ValueError: no int8 on cpu"
    );
    let err = allocate(DataType::F32, &mut [13]).unwrap_err();
    assert_eq!(err, "RuntimeError: the allocator panicked: unlucky shape");
    let err = allocate(DataType::F32, &mut [7]).unwrap_err();
    assert!(
        err.starts_with("RuntimeError: the allocator made a float32 tensor of shape [6]"),
        "{err}"
    );
    let err = allocate(DataType::F32, &mut [2, -1]).unwrap_err();
    assert_eq!(
        err,
        "ValueError: shape[1] is -1; dimensions must be non-negative"
    );
    // Without a `SetError` there is nobody to tell, and nothing else happens.
    let allocator = API.as_raw().managed_tensor_allocator.unwrap();
    let mut out = core::ptr::null_mut();
    // SAFETY: a null prototype is refused before it is read.
    let status = unsafe { allocator(core::ptr::null_mut(), &mut out, core::ptr::null_mut(), None) };
    assert_eq!(status, -1);
}

#[test]
fn the_exports_of_a_rust_tensor_reach_c() {
    with_python(|py| {
        let floats = Bound::new(py, Floats::new(vec![1.0, 2.0, 3.0], false))?;
        let raw = API.as_raw();
        let mut out = core::ptr::null_mut();
        // SAFETY: our object, and a writable out pointer.
        let status = unsafe {
            (raw.managed_tensor_from_py_object_no_sync.unwrap())(floats.as_ptr().cast(), &mut out)
        };
        assert_eq!(status, 0);
        // SAFETY: an owned tensor.
        let owned = unsafe { ManagedTensor::from_raw(out) }?;
        assert_eq!(owned.view()?.as_slice::<f32>()?, [1.0, 2.0, 3.0]);

        let mut borrowed = core::mem::MaybeUninit::<DLTensor>::uninit();
        // SAFETY: our object, and room for a DLTensor.
        let status = unsafe {
            (raw.dltensor_from_py_object_no_sync.unwrap())(
                floats.as_ptr().cast(),
                borrowed.as_mut_ptr(),
            )
        };
        assert_eq!(status, 0);
        // SAFETY: the function wrote a whole DLTensor on success.
        let borrowed = unsafe { borrowed.assume_init() };
        let own = floats.get();
        assert_eq!(borrowed.shape.cast_const(), own.layout.shape().as_ptr());
        assert_eq!(borrowed.data.cast_const(), own.data.as_ptr().cast());

        // Back into the producer's type.
        let tensor = ManagedTensor::from_vec(vec![4.0_f32, 5.0], &[2])?;
        let mut obj = core::ptr::null_mut();
        // SAFETY: an owned tensor handed over, a writable out pointer.
        let status = unsafe {
            (raw.managed_tensor_to_py_object_no_sync.unwrap())(tensor.into_raw(), &mut obj)
        };
        assert_eq!(status, 0);
        // SAFETY: a new reference to a `Floats`.
        let back = unsafe { Bound::from_owned_ptr(py, obj.cast()) }.cast_into::<Floats>()?;
        assert_eq!(back.get().data, [4.0, 5.0]);

        let mut stream = core::ptr::NonNull::<c_void>::dangling().as_ptr();
        // SAFETY: a writable out pointer.
        let status = unsafe {
            (raw.current_work_stream.unwrap())(crate::ffi::DLDeviceType::CPU, 0, &mut stream)
        };
        assert_eq!((status, stream.is_null()), (0, true));
        Ok(())
    });
}

#[test]
fn failures_inside_the_table_arrive_as_the_right_exceptions() {
    with_python(|py| {
        let raw = API.as_raw();
        let call_export = |obj: &Bound<'_, PyAny>| -> PyErr {
            let mut out = core::ptr::null_mut();
            // SAFETY: a live object and a writable out pointer.
            let status = unsafe {
                (raw.managed_tensor_from_py_object_no_sync.unwrap())(obj.as_ptr().cast(), &mut out)
            };
            assert_eq!(status, -1);
            PyErr::take(obj.py()).unwrap()
        };
        // Another type: the table's contract broken, a TypeError naming both.
        let err = call_export(&1.5_f64.into_pyobject(py)?.into_any());
        assert!(err.is_instance_of::<PyTypeError>(py));
        assert_eq!(
            err.value(py).to_string(),
            "this exchange table belongs to Floats, and was given a float"
        );
        // The producer's own BufferError arrives as it is.
        let empty = Bound::new(py, Floats::new(vec![], false))?;
        assert!(call_export(empty.as_any()).is_instance_of::<PyBufferError>(py));
        // A DLTensor cannot say read-only: a BufferError.
        let read_only = Bound::new(py, Floats::new(vec![1.0], true))?;
        let mut borrowed = core::mem::MaybeUninit::<DLTensor>::uninit();
        // SAFETY: a live object, and room for a DLTensor.
        let status = unsafe {
            (raw.dltensor_from_py_object_no_sync.unwrap())(
                read_only.as_ptr().cast(),
                borrowed.as_mut_ptr(),
            )
        };
        assert_eq!(status, -1);
        let err = PyErr::take(py).unwrap();
        assert!(err.is_instance_of::<PyBufferError>(py), "{err}");
        // A tensor of another major version is refused, and released.
        let mut tensor = ManagedTensor::from_vec(vec![1.0_f32], &[1])?.into_raw();
        // SAFETY: our own export, not yet handed to anyone.
        unsafe { (*tensor).version.major = 2 };
        let mut obj = core::ptr::null_mut();
        // SAFETY: an owned tensor handed over, a writable out pointer.
        let status =
            unsafe { (raw.managed_tensor_to_py_object_no_sync.unwrap())(tensor, &mut obj) };
        tensor = core::ptr::null_mut();
        assert_eq!((status, obj.is_null(), tensor.is_null()), (-1, true, true));
        assert!(PyErr::take(py).unwrap().is_instance_of::<PyBufferError>(py));
        // A null out pointer: a ValueError, not a crash.
        // SAFETY: the function checks the out pointer before writing.
        let status = unsafe {
            (raw.current_work_stream.unwrap())(
                crate::ffi::DLDeviceType::CPU,
                0,
                core::ptr::null_mut(),
            )
        };
        assert_eq!(status, -1);
        assert!(PyErr::take(py).unwrap().is_instance_of::<PyValueError>(py));
        Ok(())
    });
}

#[test]
fn consumers_go_through_the_table_before_dlpack() {
    with_python(|py| {
        let floats = Bound::new(py, Floats::new(vec![1.0, 2.0, 4.0], false))?;
        let imported = import_tensor(floats.as_any(), None, None)?;
        assert_eq!(imported.view()?.as_slice::<f32>()?, [1.0, 2.0, 4.0]);
        assert_eq!(floats.get().exports.load(Ordering::SeqCst), 1);
        // The borrowed view: the producer's DLTensor, no export.
        let sum = with_tensor_view(floats.as_any(), |view| {
            view.iter::<f32>().unwrap().sum::<f32>()
        })?;
        assert_eq!(sum, 7.0);
        assert_eq!(floats.get().borrows.load(Ordering::SeqCst), 1);
        assert_eq!(floats.get().exports.load(Ordering::SeqCst), 1);
        // Read-only: refused by the borrowed export, lent through the owning one.
        let read_only = Bound::new(py, Floats::new(vec![2.0], true))?;
        let one = with_tensor_view(read_only.as_any(), |view| view.len())?;
        assert_eq!(one, 1);
        assert_eq!(read_only.get().exports.load(Ordering::SeqCst), 1);
        // A table that cannot export (BufferError) sends the consumer to `__dlpack__`.
        let empty = Bound::new(py, Floats::new(vec![], false))?;
        let err = import_tensor(empty.as_any(), None, None).unwrap_err();
        assert_eq!(err.value(py).to_string(), "__dlpack__ was called");
        Ok(())
    });
}

/// An honest producer that is not `frozen`: its `&mut self` method changes its name and leaves
/// the storage alone, which is what `unsafe impl ExchangeTensor` promises of it.
#[pyclass]
struct Named {
    data: std::sync::Arc<[f32]>,
    layout: CheckedLayout,
    name: String,
}

impl Named {
    fn new(data: &[f32]) -> Self {
        let data: std::sync::Arc<[f32]> = data.into();
        let shape = [data.len()];
        let parts = TensorParts::host(data.as_ptr().cast_mut(), &shape);
        let layout = CheckedLayout::new(&parts).unwrap();
        Self {
            data,
            layout,
            name: "a".into(),
        }
    }
}

static NAMED_API: ExchangeApi = ExchangeApi::new::<Named>();

// SAFETY: `data` is set in `new` and never replaced (`rename`, the one `&mut self` method,
// touches only `name`); an `Arc` gives no `&mut` while shared, so nobody writes it; `layout`
// was checked for it and is never replaced either.
unsafe impl ExchangeTensor for Named {
    fn allocate(_: DataType, _: &[i64], _: Device) -> Result<ManagedTensor, AllocError> {
        Err(AllocError::Value("Named allocates nothing".into()))
    }

    fn export(&self, _py: Python<'_>) -> PyResult<ManagedTensor> {
        Ok(ManagedTensor::from_arc(
            std::sync::Arc::clone(&self.data),
            &[self.data.len()],
        )?)
    }

    fn borrow_parts(&self) -> PyResult<TensorParts<'_>> {
        let data = self.data.as_ptr().cast_mut().cast();
        Ok(TensorParts::from_layout(data, Device::CPU, &self.layout))
    }

    fn import(_py: Python<'_>, tensor: ManagedTensor) -> PyResult<Self> {
        Ok(Self::new(&tensor.view()?.to_vec::<f32>()?))
    }
}

#[pymethods]
impl Named {
    #[classattr]
    fn __dlpack_c_exchange_api__(py: Python<'_>) -> PyResult<Bound<'_, PyCapsule>> {
        NAMED_API.capsule(py)
    }

    /// Refused, so that a view that succeeds went through the table.
    #[pyo3(signature = (**_kwargs))]
    fn __dlpack__(&self, _kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        Err(PyRuntimeError::new_err("__dlpack__ was called"))
    }

    fn rename(&mut self, name: String) {
        self.name = name;
    }
}

#[test]
fn an_honest_producer_that_is_not_frozen_lends_through_the_table() {
    with_python(|py| {
        let named = Bound::new(py, Named::new(&[1.0, 2.0, 4.0]))?;
        let data = std::sync::Arc::clone(&named.borrow().data);
        let sum = with_tensor_view(named.as_any(), |view| -> PyResult<f32> {
            // Lent, not copied: the producer's own memory.
            assert_eq!(view.data_ptr(), data.as_ptr().cast());
            // The table holds no borrow of the object, so its `&mut self` method runs while
            // the view reads; the promise is that it leaves the storage alone.
            named.call_method1("rename", ("b",))?;
            Ok(view.iter::<f32>()?.sum())
        })??;
        assert_eq!(sum, 7.0);
        assert_eq!(named.borrow().name, "b");
        // The C consumer's `DLTensor` points at the object's own data, shape and strides.
        let mut borrowed = core::mem::MaybeUninit::<DLTensor>::uninit();
        // SAFETY: our object, and room for a DLTensor.
        let status = unsafe {
            (NAMED_API.as_raw().dltensor_from_py_object_no_sync.unwrap())(
                named.as_ptr().cast(),
                borrowed.as_mut_ptr(),
            )
        };
        assert_eq!(status, 0);
        // SAFETY: the function wrote a whole DLTensor on success.
        let borrowed = unsafe { borrowed.assume_init() };
        let own = named.borrow();
        assert_eq!(borrowed.data.cast_const(), own.data.as_ptr().cast());
        assert_eq!(borrowed.shape.cast_const(), own.layout.shape().as_ptr());
        assert_eq!(borrowed.strides.cast_const(), own.layout.strides().as_ptr());
        Ok(())
    });
}
