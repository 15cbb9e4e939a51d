//! DLPack for Rust tensor frameworks: the 1.3 ABI, the [`DataType`] and [`Device`] value types,
//! derives for your own dtype and device types, and the `from_dlpack` dispatch of the
//! array-API RFC "DLPack based exchange of dtype and Device".
//!
//! Array libraries already exchange tensors through DLPack. This crate lets them exchange the
//! *descriptions* of tensors too: a dtype object answers `__dlpack_data_type__() -> (code, bits,
//! lanes)`, a device answers `__dlpack_device__() -> (device_type, device_id)`, and
//! [`from_dlpack`] converts between any two types that speak the protocol.
//!
//! ```
//! use dlpack_core::{DataType, Device, DlpackDataType, DlpackDevice};
//!
//! // The value types are the C structs, with the names TVM FFI prints.
//! let dt: DataType = "bfloat16".parse()?;
//! assert_eq!(dt, DataType::BF16);
//! assert_eq!((dt.code.0, dt.bits, dt.lanes), (4, 16, 1));
//! assert_eq!(Device::cuda(1).to_string(), "cuda:1");
//!
//! // Both implement the protocol traits as the identity.
//! assert_eq!(dt.dlpack_data_type()?, DataType::BF16);
//! assert_eq!(Device::CPU.dlpack_device()?, Device::CPU);
//! # Ok::<(), dlpack_core::Error>(())
//! ```
//!
//! # Deriving the protocol for your own types
//!
//! With the default feature `derive`, annotate your framework's dtype and device types and get
//! checked, allocation-free conversions, `TryFrom`/`From` impls, `const fn`s for `const`
//! items, and the sets that [`assert_convertible!`] compares. The attribute reference is on
//! the derives: [`DlpackDataType`](macro@DlpackDataType) and
//! [`DlpackDevice`](macro@DlpackDevice).
//!
//! ```
//! use dlpack_core::{DataType, Device, DlpackDataType, DlpackDevice, assert_convertible, from_dlpack};
//!
//! #[derive(Debug, PartialEq, DlpackDataType)]
//! enum DType {
//!     #[dlpack("float32")] F32,
//!     #[dlpack("bfloat16")] BF16,
//!     #[dlpack(skip)] QInt8,
//! }
//!
//! #[derive(Debug, PartialEq, DlpackDevice)]
//! enum Place {
//!     #[dlpack(cpu)] Cpu,
//!     #[dlpack(cuda)] Cuda(usize),
//! }
//!
//! assert_eq!(from_dlpack::<DType, _, _>(&DataType::BF16)?, DType::BF16);
//! assert_eq!(Place::Cuda(0).dlpack_device()?, Device::cuda(0));
//! assert_convertible!(Place => Device); // every Place is a DLPack device, proven at compile time
//! # Ok::<(), dlpack_core::Error>(())
//! ```
//!
//! # Modules
//!
//! - [`ffi`]: the DLPack 1.3 ABI in plain Rust, layout-checked at compile time.
//! - `python` (feature `pyo3`): the Python protocol through PyO3.
//! - [`set`]: compile-time sets of data types and devices (what a type produces and accepts).
//! - [`tensor`]: tensor exchange: [`ManagedTensor`] and [`LegacyManagedTensor`] (owned, the
//!   deleter runs exactly once), validated [`TensorView`]s, zero-copy export, and the ownership
//!   rules.
//!
//! # Features
//!
//! - `derive` (default): `#[derive(DlpackDataType)]` and `#[derive(DlpackDevice)]`.
//! - `half`, `num-complex`: [`Element`] for `half::{f16, bf16}` and `num_complex::Complex`.
//! - `dlpack-sys`: conversions to and from the `dlpack-sys` types (needs libclang to build).
//! - `ndarray`: `ndarray` views of imported tensors and zero-copy export of `ndarray` arrays.
//! - `pyo3`: the Python protocol ([`python`]): `__dlpack__` and `from_dlpack` for tensors,
//!   `__dlpack_data_type__` and `__dlpack_device__` for your own dtype and device types.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod convert;
mod data_type;
mod device;
mod element;
mod error;
pub mod ffi;
#[cfg(feature = "pyo3")]
#[cfg_attr(docsrs, doc(cfg(feature = "pyo3")))]
pub mod python;
pub mod set;
pub mod tensor;

pub use convert::{
    DlpackDataType, DlpackDevice, FromDlpack, can_access, from_dlpack, kind, same_device,
};
pub use data_type::DataType;
pub use device::Device;
pub use element::Element;
pub use error::Error;
pub use tensor::{LegacyManagedTensor, ManagedTensor, TensorView, TensorViewMut};

/// The grammar's reasons, carried by [`Error`]'s parse and validation variants.
pub mod reason {
    pub use dlpack_grammar::{DataTypeNameError, DeviceNameError, InvalidDataType, InvalidDevice};
}

#[doc(hidden)]
pub mod __private;

// The derives share their names with the traits they implement, as serde's do; their
// documentation (the attribute reference, with runnable examples) lives in dlpack-derive and
// is shown here.
#[cfg(feature = "derive")]
#[doc(inline)]
pub use dlpack_derive::{DlpackDataType, DlpackDevice};
