//! The dtype and device types of real Rust tensor frameworks, declared as those frameworks
//! declare them and annotated with the derives, for the integration tests in `tests/`.
//!
//! Each module names the source it follows. Handles that need a GPU (candle's `CudaDevice`,
//! `MetalDevice`) are stand-ins with the same shape: opaque, exposing only an ordinal.
//! `ALL` lists every value the tests iterate over; `EXPORT_ONLY` the ones that export a data
//! type or device that imports as another value.

pub mod bridge;
pub mod burn;
pub mod candle;
pub mod dfdx;
pub mod foreign;
pub mod tch;

/// The README's tour, compiled and run as a doctest so that it stays true.
#[doc = include_str!("../../README.md")]
pub mod readme {}

/// `#[pymethods]`'s reference (dlpack-derive/docs/pymethods.md), its examples run here, where
/// PyO3 is a target crate (dlpack-derive's `lib.rs` says why not there).
#[doc = include_str!("../../dlpack-derive/docs/pymethods.md")]
pub mod pymethods_reference {}

/// `#[tensor_args]`'s reference (dlpack-derive/docs/tensor_args.md), run here for the same
/// reason.
#[doc = include_str!("../../dlpack-derive/docs/tensor_args.md")]
pub mod tensor_args_reference {}
