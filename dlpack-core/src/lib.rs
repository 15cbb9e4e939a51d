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
//! assert_eq!(from_dlpack::<DType>(&DataType::BF16)?, DType::BF16);
//! assert_eq!(Place::Cuda(0).dlpack_device()?, Device::cuda(0));
//! assert_convertible!(Place => Device); // every Place is a DLPack device, proven at compile time
//! # Ok::<(), dlpack_core::Error>(())
//! ```
//!
//! # Modules
//!
//! - [`ffi`]: the DLPack 1.3 ABI in plain Rust, layout-checked at compile time.
//! - [`tensor`]: owned DLPack tensors ([`ManagedTensor`], [`LegacyManagedTensor`]), their
//!   validated views ([`TensorView`], [`TensorViewMut`]), exports of your buffers
//!   ([`TensorOwner`](tensor::TensorOwner)), and what each zero-copy path shares.
//! - [`dispatch`]: a kernel written once, generic over the element type, run with the Rust
//!   element type of a runtime [`DataType`], a value of your dtype enum or a view's data type,
//!   with the coverage of your enum proven at compile time.
//! - [`set`]: compile-time sets of data types and devices (what a type produces and accepts,
//!   which [`assert_convertible!`] compares).
//! - `python` (feature `pyo3`): your tensor, dtype and device classes for Python, and any
//!   Python tensor, dtype or device in Rust; its documentation opens with what to use for what.
//! - `cuda` (feature `cuda`): CUDA devices, streams, copies and tensors.
//! - `bridges` (features `candle`, `burn`, `safetensors`): other crates' types as DLPack values
//!   and tensors.
//! - `sys` (feature `dlpack-sys`): zero-cost conversions to and from the `dlpack-sys` types.
//!
//! # Features
//!
//! - `std` (default): the standard library, which `pyo3`, `cuda`, `candle`, `burn` and
//!   `dlpack-sys` need (they turn it on), with `std` support in `half`, `num-complex` and `ndarray`.
//! - `alloc`: the crate without std. A framework's dtype crate that builds without std
//!   (burn-std, cubecl's environment crate) depends on
//!   `dlpack-core = { version = "0.1", default-features = false, features = ["alloc", "derive"] }`
//!   and has the derives and all they generate (conversions both ways, `from_dlpack`,
//!   [`assert_convertible!`], `remote` mirrors), [`DataType`] and [`Device`] with their names,
//!   the traits, [`Error`] (a [`core::error::Error`]), [`Element`], [`ffi`] and tensors
//!   ([`ManagedTensor`] export and import, views, the host copy); `half`, `num-complex`,
//!   `ndarray` and `safetensors` work there too. Nothing behaves or costs otherwise with `std`.
//!   The derives' code names `::core` and this crate only, so such a crate needs no
//!   `extern crate alloc` of its own.
//! - `derive` (default): `#[derive(DlpackDataType)]` and `#[derive(DlpackDevice)]`.
//! - `half`, `num-complex`: [`Element`] for `half::{f16, bf16}` and `num_complex::Complex`.
//! - `dlpack-sys`: conversions to and from the `dlpack-sys` types (needs libclang to build).
//! - `ndarray`: `ndarray` views of imported tensors and zero-copy export of `ndarray` arrays.
//! - `cuda`: the `cuda` module, on `cudarc` with the driver loaded at run time (builds without
//!   a CUDA toolkit; needs Rust 1.88, where the other features need 1.85).
//! - `pyo3`: the Python protocol (module `python`): `__dlpack__` and `from_dlpack` for tensors,
//!   `__dlpack_data_type__` and `__dlpack_device__` for your own dtype and device types.
//! - `candle`: `bridges::candle`: `candle_core::{DType, Device, DeviceLocation}` as DLPack values,
//!   `candle_core::Tensor` exported as a copy (or, `unsafe`, shared) and imported by one
//!   (candle-core 0.11 needs Rust 1.94, though it declares 1.80).
//! - `burn`: `bridges::burn`: burn 0.22's `DType` and `Device` as DLPack values, `TensorData`
//!   exported and imported without a copy, host `Tensor`s both ways (Rust 1.95, as burn's
//!   cubecl dependencies declare).
//! - `safetensors`: `bridges::safetensors`: a `.safetensors` file's tensors as read-only DLPack
//!   tensors over a buffer you own, and `safetensors::Dtype` as a DLPack value.
#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]

extern crate alloc;
#[cfg(all(feature = "std", not(test)))]
extern crate std;
// Unit tests run on a host with std, whatever the features: its macros (`vec!`, `format!`)
// and, where a test module asks, its prelude.
#[cfg(test)]
#[macro_use]
extern crate std;
#[cfg(not(feature = "alloc"))]
compile_error!(
    "dlpack-core needs feature `alloc` (or `std`, its default, which includes it): without std, \
     depend on it with `default-features = false, features = [\"alloc\", \"derive\"]`"
);

#[cfg(any(feature = "burn", feature = "candle", feature = "safetensors"))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(feature = "burn", feature = "candle", feature = "safetensors")))
)]
pub mod bridges;
mod convert;
#[cfg(feature = "cuda")]
#[cfg_attr(docsrs, doc(cfg(feature = "cuda")))]
pub mod cuda;
mod data_type;
mod device;
pub mod dispatch;
mod element;
mod error;
pub mod ffi;
#[cfg(feature = "pyo3")]
#[cfg_attr(docsrs, doc(cfg(feature = "pyo3")))]
pub mod python;
pub mod set;
#[cfg(feature = "dlpack-sys")]
#[cfg_attr(docsrs, doc(cfg(feature = "dlpack-sys")))]
pub mod sys;
pub mod tensor;

pub use convert::{DlpackDataType, DlpackDevice, FromDlpack, from_dlpack, same_device};
pub use element::Element;
pub use error::Error;
pub use ffi::value::{DataType, Device};
pub use tensor::{LegacyManagedTensor, ManagedTensor, TensorView, TensorViewMut};

/// Why a name or a value was refused: the reasons carried by [`Error`]'s parse and validation
/// variants, for code that reacts to the kind of mistake rather than to the message.
///
/// Each reason is `#[non_exhaustive]` (a later DLPack version may add one, so a `match` needs a
/// `_` arm) and implements [`core::error::Error`] (`std::error::Error`). [`Error`]'s message already includes its
/// reason's, so `Error::source` does not return it again.
///
/// ```
/// use dlpack_core::{DataType, Error, reason::DataTypeNameError};
///
/// match "flaot32".parse::<DataType>() {
///     Err(Error::ParseDataType { reason: DataTypeNameError::UnknownName { suggestion }, .. }) => {
///         assert_eq!(suggestion, Some("float32"));
///     }
///     other => panic!("{other:?}"),
/// }
/// // Another framework's spelling is not accepted, but the message says what it means.
/// let err = "half".parse::<DataType>().unwrap_err().to_string();
/// assert!(err.contains("did you mean `float16`?"), "{err}");
/// ```
pub mod reason {
    /// Why a string is not a data type name ([`Error::ParseDataType`](crate::Error::ParseDataType)).
    ///
    /// ```
    /// use dlpack_core::{DataType, Error, reason::DataTypeNameError};
    ///
    /// let Err(Error::ParseDataType { reason, .. }) = "int".parse::<DataType>() else { panic!() };
    /// assert!(matches!(reason, DataTypeNameError::MissingBits { .. }));
    /// assert_eq!(reason.to_string(), "`int` needs a bit width, as in `int8`");
    /// ```
    #[doc(inline)]
    pub use dlpack_grammar::DataTypeNameError;

    /// Why a string is not a device name ([`Error::ParseDevice`](crate::Error::ParseDevice)).
    ///
    /// ```
    /// use dlpack_core::{Device, Error, reason::DeviceNameError};
    ///
    /// let Err(Error::ParseDevice { reason, .. }) = "cuda:-1".parse::<Device>() else { panic!() };
    /// assert_eq!(reason, DeviceNameError::BadId);
    /// ```
    #[doc(inline)]
    pub use dlpack_grammar::DeviceNameError;

    /// Why a (code, bits, lanes) triple is not a valid data type
    /// ([`Error::InvalidDataType`](crate::Error::InvalidDataType)).
    ///
    /// ```
    /// use dlpack_core::{DataType, Error, ffi::DLDataTypeCode, reason::InvalidDataType};
    ///
    /// let err = DataType::checked(DLDataTypeCode::FLOAT, 32, 0).unwrap_err();
    /// assert!(matches!(err, Error::InvalidDataType { reason: InvalidDataType::ZeroLanes, .. }));
    /// ```
    #[doc(inline)]
    pub use dlpack_grammar::InvalidDataType;

    /// Why a (device_type, device_id) pair is not a valid device
    /// ([`Error::InvalidDevice`](crate::Error::InvalidDevice)).
    ///
    /// ```
    /// use dlpack_core::{Device, Error, ffi::DLDeviceType, reason::InvalidDevice};
    ///
    /// let err = Device::checked(DLDeviceType(5), 0).unwrap_err();
    /// assert!(matches!(err, Error::InvalidDevice { reason: InvalidDevice::UnknownType(5), .. }));
    /// ```
    #[doc(inline)]
    pub use dlpack_grammar::InvalidDevice;
}

#[doc(hidden)]
pub mod __private;

// The derives share their names with the traits they implement, as serde's do; their
// documentation (the attribute reference, with runnable examples) lives in dlpack-derive and
// is shown here.
#[cfg(feature = "derive")]
#[doc(inline)]
pub use dlpack_derive::{DlpackDataType, DlpackDevice};
