//! The Python side of DLPack, through PyO3 (feature `pyo3`).
//!
//! Three protocols, each in both directions:
//!
//! | Protocol | Hand to Python | Take from Python |
//! |---|---|---|
//! | tensors: `__dlpack__`, `__dlpack_device__` | [`DlpackRequest`] + capsules | `from_dlpack` |
//! | data types: `__dlpack_data_type__` | [`PyDataType`], [`DataTypeLike`], [`data_type_tuple`] | [`read_data_type`], [`DataTypeLike`] |
//! | devices: `__dlpack_device__` | [`PyDevice`], [`DeviceLike`], [`device_tuple`] | [`read_device`], [`DeviceLike`] |
//!
//! # Data types and devices
//!
//! A type that derives [`DlpackDataType`](crate::DlpackDataType) or
//! [`DlpackDevice`](crate::DlpackDevice) crosses into Python in one of two ways:
//!
//! - as an argument or return value of type [`DataTypeLike<T>`] / [`DeviceLike<T>`]: Python
//!   passes *any* object whose class has the protocol method (PaddlePaddle's
//!   `paddle.float16` and `paddle.CPUPlace()`, TVM FFI's `dtype` and `device`, a class of
//!   your own, or a name such as `"bfloat16"`), and gets back a [`PyDataType`] /
//!   [`PyDevice`];
//! - as your own `#[pyclass]`, whose `__dlpack_data_type__` / `__dlpack_device__` method
//!   returns [`data_type_tuple`] / [`device_tuple`].
//!
//! Either way Python sees plain-int tuples, as PaddlePaddle returns them and TVM FFI reads
//! them. What comes back from Python is range-checked: `(2, 300, 1)` is a `ValueError`
//! (TVM FFI reads it as 44 bits), as is a device id past `i32`; a list, a float or a tuple of
//! the wrong length is refused with a message that names the class, the method and the value.
//!
//! Which protocol an object speaks is decided from its class as TVM FFI decides it
//! ([`protocol_kind`]): a class with `__dlpack__` is a tensor, then one with
//! `__dlpack_data_type__` is a data type, then one with `__dlpack_device__` alone is a device.
//!
//! # Tensors
//!
//! Producer: call [`DlpackRequest::new`] with the arguments of your `__dlpack__`, decide with
//! [`DlpackRequest::plan`] whether to share or copy, and return the capsule. Capsules are
//! named `dltensor_versioned` when the consumer's `max_version` has a major version of 1 or
//! more and `dltensor` otherwise; their destructor frees a tensor no consumer took, exactly
//! once, and leaves a consumed (`used_…`) capsule alone.
//!
//! # Errors
//!
//! [`Error`](crate::Error) converts into `PyErr` (a `ValueError`), so `?` works in
//! `#[pyfunction]`s. Data that cannot be exported or imported as asked is a `BufferError`, as
//! the array API standard requires; arguments of the wrong type are `TypeError`s.
//!
//! # Why PyO3 0.30
//!
//! PyO3 0.30 is the current release line: its `Bound` API is the only one (the GIL-ref API
//! and the 0.28 deprecations are gone), its minimum Rust version is 1.85 like this crate's,
//! and it builds for CPython 3.9 and newer. The dependency is optional: without the `pyo3`
//! feature nothing of it is compiled. PyO3 links one interpreter per build graph, so your
//! extension must depend on the same PyO3 minor version; the [`pyo3`] re-export names it.
//! Use `#[pyclass]` types from this module in an extension built with maturin (or any PyO3
//! build); the module itself needs no `abi3` or other PyO3 feature.

mod error;
mod objects;
mod protocol;
mod request;

pub use objects::{DataTypeLike, DeviceLike, PyDataType, PyDevice, data_type_tuple, device_tuple};
pub use protocol::{
    ProtocolKind, extract_data_type, extract_device, protocol_kind, read_data_type, read_device,
    read_tensor_device,
};
pub use request::{DlpackRequest, Export};

/// The PyO3 this module is built with: depend on the same version in your extension, or name
/// it through this re-export.
pub use pyo3;
