//! Data types and devices as Python values: the classifier that decides what an object is from
//! its class ([`classify`]), other libraries' dtypes and devices recognised by class
//! ([`libraries`]), the readers that turn any such object into a [`DataType`](crate::DataType)
//! or [`Device`](crate::Device) ([`read`], behind `DataTypeLike` and `DeviceLike` in
//! [`objects`]), the protocol objects `PyDataType` and `PyDevice` ([`objects`]), and NumPy
//! dtypes ([`numpy`]).
//!
//! ```text
//! layers (checked by .ci/check-cycles.py: a module uses only modules on lines below its own)
//! objects
//! read
//! classify numpy
//! libraries
//! ```

pub(crate) mod classify;
pub(crate) mod libraries;
pub(crate) mod numpy;
pub(crate) mod objects;
pub(crate) mod read;
