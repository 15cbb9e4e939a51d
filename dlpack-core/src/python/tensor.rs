//! Tensors across the Python boundary: capsules out of Rust tensors (producer) and Rust tensors
//! out of anything that speaks `__dlpack__` (consumer).

use core::ptr::NonNull;

use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};

use super::capsule::{self, Taken};
use super::ints::type_name;
use super::kind::{ProtocolKind, class_kind};
use super::request::DlpackRequest;
use crate::device::Device;
use crate::error::Error;
use crate::ffi::DLPackVersion;
use crate::tensor::{Flags, TensorOwner};
use crate::{LegacyManagedTensor, ManagedTensor};

/// Wraps a versioned tensor in a `"dltensor_versioned"` capsule that owns it: a consumer takes
/// it (and renames the capsule), or the capsule's destructor frees it, exactly once.
///
/// ```
/// use dlpack_core::ManagedTensor;
/// use dlpack_core::python::{VERSIONED, capsule_tensor, versioned_capsule};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let tensor = ManagedTensor::from_vec(vec![1.0_f64, 2.0], &[2])?;
///     let capsule = versioned_capsule(py, tensor)?;
///     assert!(capsule.is_valid_checked(Some(VERSIONED)));
///     // What `numpy.from_dlpack` does with it, in Rust:
///     assert_eq!(capsule_tensor(&capsule)?.view()?.as_slice::<f64>()?, [1.0, 2.0]);
///     // An unconsumed capsule frees its tensor when Python collects it.
///     drop(versioned_capsule(py, ManagedTensor::from_vec(vec![0_u8; 4], &[4])?)?);
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn versioned_capsule(py: Python<'_>, tensor: ManagedTensor) -> PyResult<Bound<'_, PyCapsule>> {
    let raw = tensor.into_raw();
    let Some(raw) = NonNull::new(raw) else {
        return Err(PyBufferError::new_err("the tensor's pointer is null"));
    };
    // SAFETY: `into_raw` handed us the only owning pointer to a live tensor.
    unsafe { capsule::versioned_capsule(py, raw) }
}

/// Wraps a legacy tensor in a `"dltensor"` capsule that owns it; see [`versioned_capsule`].
///
/// ```
/// use dlpack_core::ManagedTensor;
/// use dlpack_core::python::{LEGACY, capsule_tensor, legacy_capsule};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     // For a consumer from before DLPack 1.0 (`__dlpack__()` without `max_version`).
///     let tensor = ManagedTensor::from_vec(vec![3_u32, 4], &[2])?.into_legacy()?;
///     let capsule = legacy_capsule(py, tensor)?;
///     assert!(capsule.is_valid_checked(Some(LEGACY)));
///     assert_eq!(capsule_tensor(&capsule)?.view()?.as_slice::<u32>()?, [3, 4]);
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn legacy_capsule(
    py: Python<'_>,
    tensor: LegacyManagedTensor,
) -> PyResult<Bound<'_, PyCapsule>> {
    let raw = tensor.into_raw();
    let Some(raw) = NonNull::new(raw) else {
        return Err(PyBufferError::new_err("the tensor's pointer is null"));
    };
    // SAFETY: `into_raw` handed us the only owning pointer to a live tensor.
    unsafe { capsule::legacy_capsule(py, raw) }
}

impl DlpackRequest {
    /// Exports `owner` as the capsule this request asks for: a versioned capsule (with the
    /// owner's flags) when the consumer passed a `max_version` of 1.0 or newer, a legacy one
    /// otherwise.
    ///
    /// A legacy capsule cannot say `READ_ONLY`: an owner that describes read-only data is
    /// refused with a `BufferError` there (export a writable copy instead, as
    /// [`plan`](Self::plan) decides). `IS_COPIED` is dropped, as the legacy struct has no
    /// flags.
    ///
    /// ```
    /// use dlpack_core::python::{DlpackRequest, LEGACY, VERSIONED, capsule_tensor};
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    /// use pyo3::prelude::*;
    ///
    /// /// Four bytes, read-only when `frozen`.
    /// struct Bytes { data: Vec<u8>, shape: [usize; 1], frozen: bool }
    ///
    /// // SAFETY: the Vec's elements stay put while the owner lives; the description never changes.
    /// unsafe impl TensorOwner for Bytes {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         let parts = TensorParts::host(self.data.as_mut_ptr(), &self.shape[..]);
    ///         if self.frozen { parts.read_only() } else { parts }
    ///     }
    /// }
    /// let bytes = |frozen| Bytes { data: vec![1, 2, 3, 4], shape: [4], frozen };
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let version = (1, 3).into_pyobject(py)?;
    ///     let versioned = DlpackRequest::new(None, Some(version.as_any()), None, None)?;
    ///     let capsule = versioned.capsule(py, bytes(true))?;
    ///     assert!(capsule.is_valid_checked(Some(VERSIONED)));
    ///     assert_eq!(capsule_tensor(&capsule)?.view()?.as_slice::<u8>()?, [1, 2, 3, 4]);
    ///
    ///     let capsule = DlpackRequest::LEGACY.capsule(py, bytes(false))?;
    ///     assert!(capsule.is_valid_checked(Some(LEGACY)));
    ///     // The legacy struct cannot say READ_ONLY: refused (plan a copy instead).
    ///     let err = DlpackRequest::LEGACY.capsule(py, bytes(true)).unwrap_err();
    ///     assert!(err.is_instance_of::<pyo3::exceptions::PyBufferError>(py));
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn capsule<'py, O: TensorOwner>(
        &self,
        py: Python<'py>,
        owner: O,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        if self.versioned() {
            versioned_capsule(py, ManagedTensor::from_owner(owner).map_err(buffer_error)?)
        } else {
            legacy_capsule(
                py,
                LegacyManagedTensor::from_owner(owner).map_err(buffer_error)?,
            )
        }
    }

    /// Wraps an exported tensor in the capsule this request asks for: versioned, or legacy
    /// (refused with a `BufferError` when the legacy struct cannot describe it).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn tensor_capsule<'py>(
        &self,
        py: Python<'py>,
        tensor: ManagedTensor,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        if self.versioned() {
            versioned_capsule(py, tensor)
        } else {
            legacy_capsule(py, tensor.into_legacy().map_err(buffer_error)?)
        }
    }
}

/// Takes the tensor out of a DLPack capsule: renames the capsule `used_…` (so that neither its
/// destructor nor another consumer touches the tensor again) and checks the version. A legacy
/// tensor is re-wrapped as a versioned one without a copy
/// ([`LegacyManagedTensor::into_versioned`]), so both ABIs give a [`ManagedTensor`].
///
/// Errors: a `ValueError` for a capsule consumed before (its name starts with `used_`), a
/// `TypeError` for any other capsule, a `BufferError` for a versioned tensor whose major
/// version is not 1 (its deleter has then been called, as the DLPack specification asks).
///
/// ```
/// use dlpack_core::ManagedTensor;
/// use dlpack_core::python::{capsule_tensor, legacy_capsule};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let tensor = ManagedTensor::from_vec(vec![1_i32, 2, 3], &[3])?.into_legacy()?;
///     let capsule = legacy_capsule(py, tensor)?;
///     let back = capsule_tensor(&capsule)?;
///     assert_eq!(back.view()?.as_slice::<i32>()?, [1, 2, 3]);
///     assert!(capsule_tensor(&capsule).is_err()); // consumed once, and only once
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn capsule_tensor(capsule: &Bound<'_, PyCapsule>) -> PyResult<ManagedTensor> {
    match capsule::take(capsule)? {
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

/// The DLPack version this consumer asks for: `max_version=(1, 3)`.
///
/// ```
/// use dlpack_core::ManagedTensor;
/// use dlpack_core::python::{MAX_VERSION, from_dlpack, versioned_capsule};
/// use pyo3::prelude::*;
///
/// assert_eq!((MAX_VERSION.major, MAX_VERSION.minor), (1, 3));
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let globals = pyo3::types::PyDict::new(py);
///     py.run(
///         c"class P:\n    def __init__(self, c): self.c = c\n    def __dlpack__(self, max_version=None):\n        self.asked = max_version\n        return self.c",
///         Some(&globals),
///         None,
///     )?;
///     let capsule = versioned_capsule(py, ManagedTensor::from_vec(vec![1_i8], &[1])?)?;
///     let producer = globals.get_item("P")?.unwrap().call1((capsule,))?;
///     from_dlpack(&producer, None, None)?;
///     assert_eq!(producer.getattr("asked")?.extract::<(u32, u32)>()?, (MAX_VERSION.major, MAX_VERSION.minor));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub const MAX_VERSION: DLPackVersion = DLPackVersion::CURRENT;

/// `from_dlpack(obj, device=None, copy=None)` of the array API standard, for a consumer in
/// Rust: the tensor `obj` holds, imported without a copy unless one is asked for or needed.
///
/// - A capsule is consumed as it is ([`capsule_tensor`]).
/// - Otherwise `obj.__dlpack__(max_version=(1, 3), dl_device=…, copy=…)` is called (the last
///   two only when given, so that producers from before they existed still work), and on a
///   `TypeError` the legacy `obj.__dlpack__()`, as the standard and NumPy do.
/// - `device`: the tensor must end up there; a producer that ignored the request is a
///   `BufferError`.
/// - `copy=True`: the result never shares memory with `obj`. When the producer did not copy
///   (a legacy producer cannot be asked to), the tensor is copied here into host memory (with
///   feature `cuda`, a tensor in CUDA memory is copied on its device).
/// - `copy=False`: a producer that copied anyway is a `BufferError`.
///
/// `stream`: without feature `cuda` it is left out of the call, and the tensor is read on the
/// host, where there are no streams. With feature `cuda`, a tensor in CUDA memory (what
/// `obj.__dlpack_device__()` says is `cuda:n`, `cuda_managed` or `cuda_host`) is asked for with
/// `stream=1`, the legacy default stream, as PyTorch asks for it, with its device current
/// during the call; when `device=` names another device, the tensor is imported where it is and
/// copied here. Use `from_dlpack_on_stream` to name another stream (see the module
/// documentation, "CUDA tensors and streams"). CPU tensors are asked for without a stream.
///
/// ```
/// use dlpack_core::python::{from_dlpack, versioned_capsule};
/// use dlpack_core::{Device, ManagedTensor};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     // A producer written in Python, which records what it was asked for.
///     let globals = pyo3::types::PyDict::new(py);
///     py.run(
///         c"class Producer:\n    def __init__(self, capsule): self.capsule = capsule\n    def __dlpack_device__(self): return (1, 0)\n    def __dlpack__(self, **kwargs):\n        self.kwargs = kwargs\n        return self.capsule",
///         Some(&globals),
///         None,
///     )?;
///     let tensor = ManagedTensor::from_vec(vec![1_i16, 2, 3], &[3])?;
///     let producer = globals.get_item("Producer")?.unwrap().call1((versioned_capsule(py, tensor)?,))?;
///
///     let imported = from_dlpack(&producer, Some(Device::CPU), None)?;
///     assert_eq!(imported.view()?.as_slice::<i16>()?, [1, 2, 3]);
///     // DLPack 1.3 was asked for on the CPU, where there is no stream to name.
///     let asked: Vec<String> = producer.getattr("kwargs")?.call_method0("keys")?.try_iter()?
///         .map(|key| key?.extract()).collect::<PyResult<_>>()?;
///     assert_eq!(asked, ["max_version", "dl_device"]);
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn from_dlpack(
    obj: &Bound<'_, PyAny>,
    device: Option<Device>,
    copy: Option<bool>,
) -> PyResult<ManagedTensor> {
    #[cfg(feature = "cuda")]
    {
        super::cuda::import(obj, device, copy, None)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let imported = take_tensor(obj, device, copy, None)?;
        // Without a CUDA backend, memory the host cannot read cannot be copied either: the
        // host copy refuses it with a `BufferError`.
        settle(imported, device, copy, |tensor, _| {
            super::host_copy::copy(&tensor.view().map_err(buffer_error)?)
        })
    }
}

/// The tensor `obj` holds: a capsule consumed as it is, or what `obj.__dlpack__(…)` returns
/// (see [`from_dlpack`]). `stream`, when given, is passed as `stream=` in both the versioned
/// call and the legacy fallback (the legacy protocol had `stream` already).
pub(crate) fn take_tensor(
    obj: &Bound<'_, PyAny>,
    device: Option<Device>,
    copy: Option<bool>,
    stream: Option<i128>,
) -> PyResult<ManagedTensor> {
    let py = obj.py();
    if let Ok(capsule) = obj.cast::<PyCapsule>() {
        return capsule_tensor(capsule);
    }
    if class_kind(&obj.get_type())? != Some(ProtocolKind::Tensor) {
        return Err(PyTypeError::new_err(format!(
            "expected a tensor: a DLPack capsule or an object whose class has __dlpack__, \
             got {}",
            type_name(obj)
        )));
    }
    let kwargs = PyDict::new(py);
    kwargs.set_item(
        intern!(py, "max_version"),
        (MAX_VERSION.major, MAX_VERSION.minor),
    )?;
    if let Some(device) = device {
        kwargs.set_item(intern!(py, "dl_device"), <(i32, i32)>::from(device))?;
    }
    if let Some(copy) = copy {
        kwargs.set_item(intern!(py, "copy"), copy)?;
    }
    if let Some(stream) = stream {
        kwargs.set_item(intern!(py, "stream"), stream)?;
    }
    let method = obj.getattr(intern!(py, "__dlpack__"))?;
    let capsule = match method.call((), Some(&kwargs)) {
        Ok(capsule) => capsule,
        // A producer from before DLPack 1.0 takes no `max_version` (nor `dl_device`, `copy`).
        Err(err) if err.is_instance_of::<PyTypeError>(py) => match stream {
            None => method.call0()?,
            Some(stream) => {
                let legacy = PyDict::new(py);
                legacy.set_item(intern!(py, "stream"), stream)?;
                method.call((), Some(&legacy))?
            }
        },
        Err(err) => return Err(err),
    };
    let capsule = capsule.cast_into::<PyCapsule>().map_err(|err| {
        PyTypeError::new_err(format!(
            "{}.__dlpack__() returned a {}, not a capsule",
            type_name(obj),
            type_name(&err.into_inner())
        ))
    })?;
    capsule_tensor(&capsule)
}

/// Checks what the producer did against what the consumer asked for, copying where the
/// consumer asked for a copy the producer did not make: on the host when the host can read
/// the tensor, else with `copy_elsewhere(tensor, target)`.
pub(crate) fn settle(
    imported: ManagedTensor,
    device: Option<Device>,
    copy: Option<bool>,
    copy_elsewhere: impl FnOnce(ManagedTensor, Device) -> PyResult<ManagedTensor>,
) -> PyResult<ManagedTensor> {
    let view = imported.view().map_err(buffer_error)?;
    let here = view.device();
    let copied = imported.flags().contains(Flags::IS_COPIED);
    if let Some(device) = device
        && here != device
    {
        return Err(PyBufferError::new_err(format!(
            "the producer exported a tensor on {here}, not on the requested {device}"
        )));
    }
    match copy {
        Some(false) if copied => Err(PyBufferError::new_err(
            "the producer copied the tensor although copy=False was asked",
        )),
        Some(true) if !copied && Device::CPU.can_access(here) => {
            let copy = super::host_copy::copy(&view)?;
            drop(view);
            drop(imported);
            Ok(copy)
        }
        Some(true) if !copied => {
            drop(view);
            copy_elsewhere(imported, here)
        }
        _ => {
            drop(view);
            Ok(imported)
        }
    }
}

/// A `BufferError` carrying `err`'s message: what DLPack import and export failures are in
/// Python.
pub(crate) fn buffer_error(err: Error) -> PyErr {
    PyBufferError::new_err(err.to_string())
}

#[cfg(test)]
mod tests {
    use core::sync::atomic::{AtomicUsize, Ordering};
    use std::ffi::CString;

    use pyo3::exceptions::{PyBufferError, PyValueError};
    use pyo3::types::PyDict;

    use super::*;
    use crate::DataType;
    use crate::tensor::TensorParts;

    /// Three `i32`s whose owner counts its drops in a 'static counter.
    struct Counted {
        data: Vec<i32>,
        drops: &'static AtomicUsize,
    }

    impl Drop for Counted {
        fn drop(&mut self) {
            self.drops.fetch_add(1, Ordering::SeqCst);
        }
    }

    // SAFETY: the Vec's three elements stay put while the owner lives; nothing else uses them.
    unsafe impl TensorOwner for Counted {
        fn describe(&mut self) -> TensorParts<'_> {
            TensorParts::host(self.data.as_mut_ptr(), &[3_usize])
        }
    }

    fn counted(drops: &'static AtomicUsize) -> Counted {
        Counted {
            data: vec![1, 2, 3],
            drops,
        }
    }

    fn with_python(test: impl FnOnce(Python<'_>) -> PyResult<()>) {
        Python::initialize();
        Python::attach(test).unwrap();
    }

    /// Runs `code` and returns the global it binds to `name`.
    fn eval<'py>(py: Python<'py>, code: &str, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let globals = PyDict::new(py);
        py.run(&CString::new(code).unwrap(), Some(&globals), None)?;
        Ok(globals.get_item(name)?.unwrap())
    }

    #[test]
    fn unconsumed_capsules_release_their_owner_once() {
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        with_python(|py| {
            for versioned in [true, false] {
                let request = DlpackRequest {
                    max_version: versioned.then_some(DLPackVersion::CURRENT),
                    ..DlpackRequest::LEGACY
                };
                let capsule = request.capsule(py, counted(&DROPS))?;
                let expected = if versioned {
                    capsule::VERSIONED
                } else {
                    capsule::LEGACY
                };
                assert!(capsule.is_valid_checked(Some(expected)));
                drop(capsule);
            }
            assert_eq!(DROPS.load(Ordering::SeqCst), 2);
            Ok(())
        });
    }

    #[test]
    fn consumed_capsules_release_their_owner_with_the_consumer() {
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        with_python(|py| {
            let capsule = DlpackRequest::LEGACY.capsule(py, counted(&DROPS))?;
            let tensor = capsule_tensor(&capsule)?;
            drop(capsule);
            assert_eq!(DROPS.load(Ordering::SeqCst), 0);
            assert_eq!(tensor.view()?.as_slice::<i32>()?, [1, 2, 3]);
            drop(tensor);
            assert_eq!(DROPS.load(Ordering::SeqCst), 1);
            Ok(())
        });
    }

    #[test]
    fn a_wrong_major_version_is_refused_and_released_once() {
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        with_python(|py| {
            let tensor = ManagedTensor::from_owner(counted(&DROPS))?;
            let raw = tensor.into_raw();
            // SAFETY: `raw` is the live tensor we just exported; a producer from the future
            // would write another major version there.
            unsafe { (*raw).version.major = 2 };
            let raw = NonNull::new(raw).unwrap();
            // SAFETY: we own `raw` (from `into_raw`) and hand it to the capsule.
            let capsule = unsafe { capsule::versioned_capsule(py, raw)? };
            let err = capsule_tensor(&capsule).unwrap_err();
            assert!(err.is_instance_of::<PyBufferError>(py), "{err}");
            assert_eq!(DROPS.load(Ordering::SeqCst), 1, "refused, and released");
            drop(capsule);
            assert_eq!(DROPS.load(Ordering::SeqCst), 1, "and not released twice");
            Ok(())
        });
    }

    #[test]
    fn from_dlpack_falls_back_to_the_legacy_call() {
        with_python(|py| {
            let class = eval(
                py,
                "class Legacy:\n    def __init__(self, capsule): self.capsule, self.calls = capsule, 0\n    def __dlpack__(self):\n        self.calls += 1\n        return self.capsule\n",
                "Legacy",
            )?;
            let tensor = ManagedTensor::from_vec(vec![1.5_f32, 2.5], &[2])?.into_legacy()?;
            let producer = class.call1((legacy_capsule(py, tensor)?,))?;
            let imported = from_dlpack(&producer, None, None)?;
            assert_eq!(imported.view()?.as_slice::<f32>()?, [1.5, 2.5]);
            assert_eq!(imported.view()?.dtype(), DataType::F32);
            assert_eq!(producer.getattr("calls")?.extract::<u32>()?, 1);
            Ok(())
        });
    }

    #[test]
    fn from_dlpack_copies_when_the_producer_did_not() {
        with_python(|py| {
            let original = ManagedTensor::from_vec(vec![7_u16, 8, 9], &[3])?;
            let data = original.view()?.data_ptr();
            let capsule = versioned_capsule(py, original)?;
            let copy = from_dlpack(&capsule, Some(Device::CPU), Some(true))?;
            assert!(copy.flags().contains(Flags::IS_COPIED));
            assert_ne!(copy.view()?.data_ptr(), data);
            assert_eq!(copy.view()?.as_slice::<u16>()?, [7, 8, 9]);
            Ok(())
        });
    }

    #[test]
    fn from_dlpack_checks_what_it_is_given() {
        with_python(|py| {
            let err = from_dlpack(&3_i32.into_pyobject(py)?.into_any(), None, None).unwrap_err();
            assert!(err.to_string().contains("expected a tensor"), "{err}");
            let capsule = versioned_capsule(py, ManagedTensor::from_vec(vec![1_u8], &[1])?)?;
            let err = from_dlpack(&capsule, Some(Device::cuda(0)), None).unwrap_err();
            assert!(err.is_instance_of::<PyBufferError>(py), "{err}");
            assert!(
                err.to_string().contains("not on the requested cuda:0"),
                "{err}"
            );
            let err = from_dlpack(&capsule, None, None).unwrap_err();
            assert!(err.is_instance_of::<PyValueError>(py), "{err}");
            Ok(())
        });
    }
}
