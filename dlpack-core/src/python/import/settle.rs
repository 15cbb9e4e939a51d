//! Settling an import: checking what the producer did against what the consumer asked for
//! (`device=`, `copy=`), and copying where the consumer asked for a copy the producer did not
//! make.

use pyo3::exceptions::PyBufferError;
use pyo3::prelude::*;

use super::host_copy;
use crate::Device;
use crate::python::error::buffer_error;
use crate::tensor::{Flags, ManagedTensor};

/// Checks what the producer did against what the consumer asked for, copying where the
/// consumer asked for a copy the producer did not make: on the host when the host can read
/// the tensor, else with `copy_elsewhere(tensor, target)`.
pub(crate) fn settle(
    imported: ManagedTensor,
    device: Option<Device>,
    copy: Option<bool>,
    copy_elsewhere: impl FnOnce(ManagedTensor, Device) -> PyResult<ManagedTensor>,
) -> PyResult<ManagedTensor> {
    if device.is_none() && copy.is_none() {
        // Nothing asked for, nothing to check: the tensor is validated when it is viewed.
        return Ok(imported);
    }
    let view = imported.view().map_err(buffer_error)?;
    let here = view.device();
    let copied = imported.flags().contains(Flags::IS_COPIED);
    if let Some(device) = device.filter(|&device| device != here) {
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
