//! Protocol classes from one attribute: [`pymethods`](crate::python::pymethods) writes every
//! method Python sees on a framework's dtype or device class, and a tensor class's
//! `__dlpack__` and `__dlpack_device__` around its [`TensorClass`] impl; [`add_values`] names its unit
//! values in a module, [`from_dlpack`] is the RFC's `from_dlpack`, and
//! [`DlpackRequest::answer`](crate::python::DlpackRequest::answer) the end of a `__dlpack__`.
//!
//! The generated methods are one-line wrappers over the generic functions of `methods`, so
//! the behaviour is written once, here, and a generated `__dlpack_data_type__` costs what a
//! hand-written one costs (`scripts/bench-report.sh` measures both in one process).
//!
//! ```text
//! layers (checked by .ci/check-cycles.py: a module uses only modules on lines below its own)
//! from_dlpack values
//! methods tensor
//! names
//! ```

mod from_dlpack;
pub(crate) mod methods;
mod names;
pub(crate) mod tensor;
mod values;

pub use from_dlpack::from_dlpack;
pub use tensor::{CpuTensor, TensorClass};
pub use values::{ProtocolClass, add_values};

/// What the code `pymethods` generates calls.
#[doc(hidden)]
pub mod generated {
    pub use super::methods::*;
    pub use super::tensor::{TensorClassOf, tensor_dlpack, tensor_dlpack_device};
    pub use super::values::{data_type_name, data_type_value, device_name, device_value};
}
