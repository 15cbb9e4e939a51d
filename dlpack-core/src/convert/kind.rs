//! How [`from_dlpack`](crate::from_dlpack) tells data types, devices and tensors apart
//! without the caller naming anything but the target type. Not public API: the derives reach
//! it through `__private`.
//!
//! A function called as `from_dlpack::<DType>(&x)` can have no second type parameter to infer
//! the protocol with, so the protocol must follow from the two types themselves, as an
//! associated type. Blanket impls cannot provide it for both data types and devices: Rust
//! never proves two trait bounds (`T: DlpackDataType`, `T: DlpackDevice`) disjoint, so such
//! impls would overlap. Each type therefore carries a tag saying which protocol it speaks, as
//! a source ([`SourceKind`]) and as a target ([`TargetKind`]):
//!
//! - tensors get theirs from blanket impls over `ToDlpackTensor` and `FromDlpackTensor`, so
//!   implementing those traits is enough;
//! - data types and devices get theirs from `#[derive(DlpackDataType)]` and
//!   `#[derive(DlpackDevice)]` (for a `remote` mirror with the hidden `__impl_remote`, the foreign type
//!   too), from [`impl_from_dlpack!`](crate::impl_from_dlpack) beside a hand-written impl,
//!   and [`DataType`] and [`Device`] from the impls below.
//!
//! [`Convert`] is implemented for the three matching pairs of tags only, so asking for a data
//! type from a device finds no impl at all, and its `on_unimplemented` message is the error
//! the caller reads.

use super::{DlpackDataType, DlpackDevice};
use crate::DataType;
use crate::Device;
use crate::error::Error;
use crate::tensor::{FromDlpackTensor, ToDlpackTensor};

/// The tag of data types: [`DlpackDataType`] on both sides.
#[doc(hidden)]
#[derive(Debug)]
pub enum DataTypeKind {}

/// The tag of devices: [`DlpackDevice`] on both sides.
#[doc(hidden)]
#[derive(Debug)]
pub enum DeviceKind {}

/// The tag of tensors: a [`ToDlpackTensor`] source and a [`FromDlpackTensor`] target.
#[doc(hidden)]
#[derive(Debug)]
pub enum TensorKind {}

/// Which protocol `from_dlpack` reads a value of this type through.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`from_dlpack` cannot read a `{Self}`: it is not a DLPack data type, device or tensor",
    label = "`{Self}` is not a DLPack value `from_dlpack` knows",
    note = "`from_dlpack` reads types that derive `DlpackDataType` or `DlpackDevice`, `DataType`, `Device`, and tensors (`ToDlpackTensor`); a hand-written `DlpackDataType` or `DlpackDevice` impl joins with `dlpack_core::impl_from_dlpack!(DlpackDataType for {Self});` (or `DlpackDevice for …`) beside it"
)]
pub trait SourceKind {
    /// `DataTypeKind`, `DeviceKind` or `TensorKind`.
    type Kind;
}

/// Which protocol `from_dlpack` builds a value of this type through.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`from_dlpack` cannot make a `{Self}`: it is not a DLPack data type, device or tensor",
    label = "`{Self}` is not a DLPack value `from_dlpack` knows",
    note = "`from_dlpack` makes types that derive `DlpackDataType` or `DlpackDevice`, `DataType`, `Device`, and tensors (`FromDlpackTensor`); a hand-written `DlpackDataType` or `DlpackDevice` impl joins with `dlpack_core::impl_from_dlpack!(DlpackDataType for {Self});` (or `DlpackDevice for …`) beside it"
)]
pub trait TargetKind {
    /// `DataTypeKind`, `DeviceKind` or `TensorKind`.
    type Kind;
}

// The tags are hidden like the traits: they are not API, so rustdoc shows no impl of them.
#[doc(hidden)]
impl SourceKind for DataType {
    type Kind = DataTypeKind;
}

#[doc(hidden)]
impl TargetKind for DataType {
    type Kind = DataTypeKind;
}

#[doc(hidden)]
impl SourceKind for Device {
    type Kind = DeviceKind;
}

#[doc(hidden)]
impl TargetKind for Device {
    type Kind = DeviceKind;
}

#[doc(hidden)]
impl<S: ?Sized + ToDlpackTensor> SourceKind for S {
    type Kind = TensorKind;
}

#[doc(hidden)]
impl<T: FromDlpackTensor> TargetKind for T {
    type Kind = TensorKind;
}

/// A `Self` from a `Src`, when `SK` (the source's tag) and `TK` (the target's) agree.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`from_dlpack` cannot make a `{Self}` from a `{Src}`",
    label = "`{Src}` is not the same kind of DLPack value as `{Self}`",
    note = "`from_dlpack` converts a data type into a data type (`DlpackDataType`), a device into a device (`DlpackDevice`), and a tensor into a tensor (`ToDlpackTensor` into `FromDlpackTensor`); it never crosses kinds",
    note = "to get the data type or device of a tensor, read `view.dtype()` or `view.device()` first",
    note = "a type with a hand-written `DlpackDataType` or `DlpackDevice` impl joins `from_dlpack` with `dlpack_core::impl_from_dlpack!(DlpackDataType for MyType);` (or `DlpackDevice for …`) beside the impl"
)]
pub trait Convert<Src: ?Sized, SK, TK>: Sized {
    /// Converts `src`.
    fn convert(src: &Src) -> Result<Self, Error>;
}

/// A data type from any data type, through [`DataType`].
impl<T: DlpackDataType, S: DlpackDataType> Convert<S, DataTypeKind, DataTypeKind> for T {
    #[inline]
    fn convert(src: &S) -> Result<Self, Error> {
        T::from_dlpack_data_type(src.dlpack_data_type()?)
    }
}

/// A device from any device, through [`Device`].
impl<T: DlpackDevice, S: DlpackDevice> Convert<S, DeviceKind, DeviceKind> for T {
    #[inline]
    fn convert(src: &S) -> Result<Self, Error> {
        T::from_dlpack_device(src.dlpack_device()?)
    }
}

/// A tensor from any tensor, as the target reads a borrowed source
/// ([`FromDlpackTensor::from_dlpack_source`]): by default the source exports a
/// [`ManagedTensor`](crate::ManagedTensor) and the target takes it; a target that copies reads
/// the source's view.
impl<T: FromDlpackTensor, S: ?Sized + ToDlpackTensor> Convert<S, TensorKind, TensorKind> for T {
    #[inline]
    fn convert(src: &S) -> Result<Self, Error> {
        T::from_dlpack_source(src)
    }
}
