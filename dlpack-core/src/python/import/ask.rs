//! Asking a producer for its tensor, and checking what it gave: the two steps every import
//! takes, with or without feature `cuda` (whose consumer, `python/cuda.rs`, adds the stream).
//!
//! This is where a consumer chooses how to ask. It asks `__dlpack__(max_version=…)` and falls
//! back to the legacy call; a faster way of asking (DLPack 1.3's C exchange API, published on
//! the producer's type) belongs here too, tried first.

use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};

use super::host_copy;
use crate::device::Device;
use crate::ffi::DLPackVersion;
use crate::python::capsule::capsule_tensor;
use crate::python::error::buffer_error;
use crate::python::ints::type_name;
use crate::python::kind::{ProtocolKind, class_kind};
use crate::tensor::{Flags, ManagedTensor};

/// The tensor `obj` holds: a capsule consumed as it is, or what `obj.__dlpack__(…)` returns
/// (see [`from_dlpack`](super::from_dlpack)). `stream`, when given, is passed as `stream=` in
/// both the versioned call and the legacy fallback (the legacy protocol had `stream` already).
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
    let version = DLPackVersion::CURRENT;
    kwargs.set_item(intern!(py, "max_version"), (version.major, version.minor))?;
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
        // A producer that cannot copy (TVM FFI refuses `copy=True`) shares instead, and
        // `settle` makes the copy, as the array API standard lets a consumer do.
        Err(err) if copy == Some(true) && err.is_instance_of::<PyBufferError>(py) => {
            kwargs.del_item(intern!(py, "copy"))?;
            method.call((), Some(&kwargs))?
        }
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
            let copy = host_copy::copy(&view)?;
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
