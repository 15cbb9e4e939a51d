//! The consumer: [`from_dlpack`], for a consumer in Rust of any Python tensor, and
//! [`with_tensor_view`], a borrowed view for a kernel.
//!
//! An import asks the producer for its tensor (`ask.rs`: through the C exchange table a tensor
//! class publishes, `table.rs`, or `__dlpack__`) and checks what came back against what was
//! asked (`settle.rs`), copying on the host where the consumer asked for a copy the producer
//! did not make (`host_copy.rs`). A PyTorch tensor is checked first for what a DLPack export of
//! it cannot describe, which PyTorch's exchange table does not check (`torch.rs`). A
//! `numpy.ndarray` is lent to [`TensorArg`] and [`with_tensor_view`] through CPython's buffer
//! protocol instead (`buffer/`). With feature `cuda`, `cuda/` wraps the same two steps with
//! the stream rule of `__dlpack__` and the consumer's decisions, and [`from_dlpack`] goes
//! through it.
//!
//! Every consumer decides how to read an object in one place (`route.rs`: the buffer, a
//! capsule, the exchange table, `__dlpack__`), and every view that Rust code holds of
//! Python-owned memory is registered in the borrow table (`borrow.rs`) before it is lent.
//!
//! ```text
//! layers (checked by .ci/check-cycles.py: a module uses only modules on lines below its own)
//! tests
//! arg view
//! cuda
//! ask settle
//! borrow route
//! buffer host_copy table torch
//! ```

mod arg;
mod ask;
pub(crate) mod borrow;
// Where the buffer protocol lends a NumPy array exactly (`build.rs`); elsewhere arrays go
// through `__dlpack__`.
#[cfg(numpy_buffer)]
mod buffer;
#[cfg(feature = "cuda")]
mod cuda;
mod host_copy;
mod route;
mod settle;
mod table;
#[cfg(test)]
mod tests;
mod torch;
mod view;

use pyo3::prelude::*;
use pyo3::types::PyCapsule;

pub use arg::{ArgType, TensorArg};
#[cfg(feature = "cuda")]
pub use cuda::import_tensor_on_stream;
pub use view::with_tensor_view;

#[cfg(not(feature = "cuda"))]
use ask::take_tensor;
use route::Route;
#[cfg(not(feature = "cuda"))]
use settle::settle;

use crate::Device;
use crate::python::capsule;
use crate::tensor::ManagedTensor;

/// The tensor `obj` holds, for a consumer in Rust: the array API standard's `from_dlpack(obj,
/// device=None, copy=None)` for tensors, imported without a copy unless one is asked for or
/// needed. ([`from_dlpack`](crate::python::from_dlpack) also takes data types and devices.)
///
/// - A capsule is consumed as it is, once: a capsule consumed before is refused.
/// - A tensor whose class publishes a C exchange table is exported through it first (see the
///   module documentation, "The C exchange API"); a PyTorch tensor the table does not describe
///   as `__dlpack__` would (one that requires gradient, a conjugate view, a sparse tensor) goes
///   to `__dlpack__`, and a negated view is a `BufferError`.
/// - Otherwise `obj.__dlpack__(max_version=(1, 3), dl_device=…, copy=…)` is called (1.3 is
///   [`DLPackVersion::CURRENT`](crate::ffi::DLPackVersion::CURRENT); the last two only when
///   given, so that producers from before they existed still work), and on a `TypeError` the
///   legacy `obj.__dlpack__()`, as the standard and NumPy do.
/// - `device`: the tensor must end up there; a producer that ignored the request is a
///   `BufferError`.
/// - `copy=True`: the result never shares memory with `obj`. When the producer did not copy
///   (a legacy producer cannot be asked to) or refused to with a `BufferError` (TVM FFI does;
///   it is then asked again without `copy=`), the tensor is copied here into host memory (with
///   feature `cuda`, a tensor in CUDA memory is copied on its device), as the array API
///   standard lets a consumer do.
/// - `copy=False`: a producer that copied anyway is a `BufferError`.
///
/// `stream`: without feature `cuda` it is left out of the call, and the tensor is read on the
/// host, where there are no streams. With feature `cuda`, a tensor in CUDA memory (what
/// `obj.__dlpack_device__()` says is `cuda:n`, `cuda_managed` or `cuda_host`) is asked for with
/// `stream=1`, the legacy default stream, as PyTorch asks for it, with its device current
/// during the call; when `device=` names another device, the tensor is imported where it is and
/// copied here. Use `import_tensor_on_stream` to name another stream (see the module
/// documentation, "CUDA tensors and streams"). CPU tensors are asked for without a stream.
///
/// ```
/// use dlpack_core::Device;
/// use dlpack_core::python::{import_tensor, to_python};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     // A producer written in Python, which records what it was asked for.
///     let globals = pyo3::types::PyDict::new(py);
///     py.run(
///         c"class Producer:\n    def __init__(self, inner): self.inner = inner\n    def __dlpack_device__(self): return (1, 0)\n    def __dlpack__(self, **kwargs):\n        self.kwargs = kwargs\n        return self.inner.__dlpack__(**kwargs)",
///         Some(&globals),
///         None,
///     )?;
///     let producer = globals.get_item("Producer")?.unwrap().call1((to_python(py, &[1_i16, 2, 3][..])?,))?;
///
///     let imported = import_tensor(&producer, Some(Device::CPU), None)?;
///     assert_eq!(imported.view()?.as_slice::<i16>()?, [1, 2, 3]);
///     // DLPack 1.3 was asked for on the CPU, where there is no stream to name.
///     let asked: Vec<String> = producer.getattr("kwargs")?.call_method0("keys")?.try_iter()?
///         .map(|key| key?.extract()).collect::<PyResult<_>>()?;
///     assert_eq!(asked, ["max_version", "dl_device"]);
///     let version: (u32, u32) = producer.getattr("kwargs")?.get_item("max_version")?.extract()?;
///     assert_eq!(version, (1, 3));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn import_tensor(
    obj: &Bound<'_, PyAny>,
    device: Option<Device>,
    copy: Option<bool>,
) -> PyResult<ManagedTensor> {
    let tensor = import_routed(obj, route::route(obj, false)?, device, copy, None)?;
    borrow::lent(obj.py(), tensor, borrow::Holder::IMPORT)
}

/// [`import_tensor`] of `obj`, read as `route` decided; `table_error` is what its table raised
/// when asked to lend it (the context of the owning way's error).
#[inline(always)]
fn import_routed(
    obj: &Bound<'_, PyAny>,
    route: Route,
    device: Option<Device>,
    copy: Option<bool>,
    table_error: Option<PyErr>,
) -> PyResult<ManagedTensor> {
    #[cfg(feature = "cuda")]
    {
        cuda::import(obj, route, device, copy, None, table_error)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let imported = take_tensor(obj, route, device, copy, None, table_error)?;
        // Without a CUDA backend, memory the host cannot read cannot be copied either: the
        // host copy refuses it with a `BufferError`.
        settle(imported, device, copy, |tensor, _| {
            host_copy::copy(&tensor.view().map_err(crate::python::error::buffer_error)?)
        })
    }
}

/// Takes the tensor out of a DLPack capsule: renames the capsule `used_…` (so that neither its
/// destructor nor another consumer touches the tensor again) and checks the version. A legacy
/// tensor is re-wrapped as a versioned one without a copy
/// ([`LegacyManagedTensor::into_versioned`](crate::tensor::LegacyManagedTensor::into_versioned)), so both ABIs give a [`ManagedTensor`].
///
/// Errors: a `ValueError` for a capsule consumed before (its name starts with `used_`), a
/// `TypeError` for any other capsule, a `BufferError` for a versioned tensor whose major
/// version is not 1 (its deleter has then been called, as the DLPack specification asks).
///
/// The producer may lend the same memory to other consumers, so unless it copied
/// (`IS_COPIED`), the tensor gives no mutable view and is registered as a reader in the
/// borrow table of typed arguments for as long as it lives (see
/// [`ManagedTensor`](crate::ManagedTensor) and [`TensorArg`](crate::python::TensorArg)).
pub fn capsule_tensor(capsule: &Bound<'_, PyCapsule>) -> PyResult<ManagedTensor> {
    borrow::lent(
        capsule.py(),
        capsule::take_tensor(capsule)?,
        borrow::Holder::CAPSULE,
    )
}
