//! `__dlpack__` in a few lines: the capsule a request asks for, of a tensor the producer has
//! already made ([`DlpackRequest::answer`]).

use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::ffi::DLPACK_FLAG_BITMASK_IS_COPIED;
use crate::python::{DlpackRequest, ExportPlan};
use crate::tensor::{Flags, ManagedTensor};

impl DlpackRequest {
    /// Wraps `tensor`, made as `plan` (what [`plan`](Self::plan) decided) says, in the capsule
    /// this request asks for: a `dltensor_versioned` capsule when the consumer passed a
    /// `max_version` of 1.0 or newer, a legacy `dltensor` one otherwise. A copy
    /// ([`ExportPlan::Copy`]) is flagged `IS_COPIED`, so the consumer knows no one else holds the
    /// memory (the legacy struct has no flags to say it). A tensor the legacy struct cannot
    /// describe (read-only data) is a `BufferError`.
    ///
    /// ```
    /// use std::sync::Arc;
    ///
    /// use dlpack_core::python::{DataAccess, DlpackRequest, ExportPlan, import_tensor};
    /// use dlpack_core::tensor::Flags;
    /// use dlpack_core::{Device, ManagedTensor};
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let data: Arc<[f32]> = Arc::from([1.0, 2.0]);
    ///     let version = (1, 3).into_pyobject(py)?;
    ///     let request = DlpackRequest::new(None, Some(version.as_any()), None, Some(true))?;
    ///     let plan = request.plan(Device::CPU, DataAccess::ReadOnly, |to| to == Device::CPU)?;
    ///     let tensor = match plan {
    ///         ExportPlan::Share => ManagedTensor::from_arc(Arc::clone(&data), &[2])?,
    ///         ExportPlan::Copy(_) => ManagedTensor::from_vec(data.to_vec(), &[2])?,
    ///     };
    ///     let capsule = request.answer(py, plan, tensor)?;
    ///     assert!(import_tensor(&capsule, None, None)?.flags().contains(Flags::IS_COPIED));
    ///
    ///     // A consumer from before DLPack 1.0 gets the legacy capsule.
    ///     let tensor = ManagedTensor::from_vec(vec![1_u8], &[1])?;
    ///     let capsule = DlpackRequest::LEGACY.answer(py, ExportPlan::Share, tensor)?;
    ///     assert!(capsule.is_valid_checked(Some(c"dltensor")));
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn answer<'py>(
        &self,
        py: Python<'py>,
        plan: ExportPlan,
        tensor: ManagedTensor,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let tensor = match plan {
            ExportPlan::Share => tensor,
            ExportPlan::Copy(_) => flag_copied(tensor)?,
        };
        self.tensor_capsule(py, tensor)
    }
}

/// `tensor` with `IS_COPIED` added to its flags.
fn flag_copied(tensor: ManagedTensor) -> PyResult<ManagedTensor> {
    if tensor.flags().contains(Flags::IS_COPIED) {
        return Ok(tensor);
    }
    let raw = tensor.into_raw();
    // SAFETY: `raw` came from `into_raw` just above, so it points at a live versioned tensor
    // that nobody else owns or reads while we set a bit of its flags; `from_raw` takes the
    // ownership `into_raw` gave up, so the deleter still runs exactly once.
    unsafe {
        (*raw).flags |= DLPACK_FLAG_BITMASK_IS_COPIED;
        Ok(ManagedTensor::from_raw(raw)?)
    }
}
