//! The protocol traits ([`DlpackDataType`], [`DlpackDevice`]) and what is built on them:
//! [`from_dlpack`] (in `from_dlpack.rs`, with its dispatch in `kind.rs`),
//! [`assert_convertible!`](crate::assert_convertible) (in `convertible.rs`),
//! [`impl_from_dlpack!`](crate::impl_from_dlpack) (in `hand_written.rs`), [`same_device`]
//! and [`can_access`].
//!
//! The files are layered so that none imports another in a cycle: the traits here need
//! nothing of the rest; `kind.rs` tags every source and target with its protocol;
//! `from_dlpack.rs` dispatches on those tags; `convertible.rs` holds only the macro, which
//! calls the compile-time check in `__private` (which in turn reads the traits and the tags);
//! `hand_written.rs` holds only the macro that writes the tags for a hand-written impl.

mod convertible;
mod from_dlpack;
mod hand_written;
pub(crate) mod kind;

pub use from_dlpack::{FromDlpack, Source, from_dlpack};

use crate::DataType;
use crate::Device;
use crate::error::Error;
use crate::set::{DataTypeSet, DeviceSet};

/// A type that describes element types and converts to and from DLPack's `DLDataType`: what the
/// RFC's `__dlpack_data_type__()` returns.
///
/// Derive it with [`#[derive(DlpackDataType)]`](macro@crate::DlpackDataType) on your own dtype
/// enum; [`DataType`] implements it as the identity. For another crate's dtype, which you
/// cannot derive on, derive it on a mirror of that type with `#[dlpack(remote = "…")]` (see
/// the derive's documentation): the mirror gets this trait and the conversions to and from
/// the foreign type, checked to match it at compile time.
///
/// # Implementing it by hand
///
/// A hand-written impl works with every function that takes a `DlpackDataType`. To also take
/// part in [`from_dlpack`] and [`assert_convertible!`](crate::assert_convertible), add
/// [`impl_from_dlpack!(DlpackDataType for MyType);`](crate::impl_from_dlpack) beside it:
/// `from_dlpack::<T>` is told only its target type, so it finds the protocol of a type by a
/// tag the type carries, which the derive writes and a hand-written impl states with that
/// macro (a blanket impl cannot: Rust never proves `DlpackDataType` and `DlpackDevice`
/// disjoint). Declare [`PRODUCES`](Self::PRODUCES) and [`ACCEPTS`](Self::ACCEPTS) too, or
/// `assert_convertible!` knows nothing about the type.
///
/// ```
/// use dlpack_core::{DataType, DlpackDataType};
///
/// assert_eq!(DataType::F32.dlpack_data_type()?, DataType::F32);
/// assert_eq!(DataType::from_dlpack_data_type(DataType::BF16)?, DataType::BF16);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a DLPack data type",
    label = "`{Self}` does not implement `DlpackDataType`",
    note = "on a type of your own, derive it: `#[derive(dlpack_core::DlpackDataType)]`, with a `#[dlpack(\"float32\")]`-style annotation on each variant of an enum; a struct over one field that has the trait (`struct DType(Inner)`) needs none",
    note = "for another crate's type, derive it on a mirror of the type with `#[dlpack(remote = \"their_crate::DType\")]` and use the mirror in its place"
)]
pub trait DlpackDataType: Sized {
    /// Every data type [`dlpack_data_type`](Self::dlpack_data_type) can return. Defaults to
    /// [`DataTypeSet::ALL`] (unknown, so anything).
    ///
    /// ```
    /// use dlpack_core::{DataType, DlpackDataType};
    /// assert!(<DataType as DlpackDataType>::PRODUCES.contains(DataType::F32));
    /// ```
    const PRODUCES: DataTypeSet = DataTypeSet::ALL;
    /// Every data type [`from_dlpack_data_type`](Self::from_dlpack_data_type) accepts. Defaults
    /// to [`DataTypeSet::EMPTY`] (nothing is proven accepted).
    ///
    /// ```
    /// use dlpack_core::{DataType, DlpackDataType};
    /// assert!(<DataType as DlpackDataType>::ACCEPTS.contains(DataType::BF16));
    /// ```
    const ACCEPTS: DataTypeSet = DataTypeSet::EMPTY;
    /// The data types a unit variant of a derived enum imports as: its unit values, which
    /// `python::add_values` names. `#[pymethods(data_type)]` reads it at compile time to refuse
    /// a method named like one. Written by the derive; not part of the API.
    #[doc(hidden)]
    const __UNIT_VALUES: &'static [DataType] = &[];

    /// What `__dlpack_data_type__` returns for this value: an error for a value with no DLPack
    /// equivalent.
    ///
    /// ```
    /// use dlpack_core::{DataType, DlpackDataType};
    /// assert_eq!(DataType::I64.dlpack_data_type()?, DataType::I64);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn dlpack_data_type(&self) -> Result<DataType, Error>;

    /// The value for a DLPack data type: an error naming the type, the data type and what the
    /// type supports when it has none.
    ///
    /// ```
    /// use dlpack_core::{DataType, DlpackDataType};
    /// assert_eq!(DataType::from_dlpack_data_type(DataType::U8)?, DataType::U8);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn from_dlpack_data_type(data_type: DataType) -> Result<Self, Error>;
}

/// A type that describes devices and converts to and from DLPack's `DLDevice`: what
/// `__dlpack_device__()` returns.
///
/// Derive it with [`#[derive(DlpackDevice)]`](macro@crate::DlpackDevice) on your own device
/// type; [`Device`] implements it as the identity. For another crate's device type, derive it
/// on a mirror of that type with `#[dlpack(remote = "…")]` (see the derive's documentation).
///
/// # Implementing it by hand
///
/// A hand-written impl works with every function that takes a `DlpackDevice`. To also take
/// part in [`from_dlpack`] and [`assert_convertible!`](crate::assert_convertible), add
/// [`impl_from_dlpack!(DlpackDevice for MyDevice);`](crate::impl_from_dlpack) beside it: the
/// derive gives a type the tag `from_dlpack` finds its protocol by, and the macro states it
/// for a hand-written impl (see [`DlpackDataType`] for why a tag is needed).
///
/// ```
/// use dlpack_core::{Device, DlpackDevice};
///
/// assert_eq!(Device::cuda(1).dlpack_device()?, Device::cuda(1));
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a DLPack device",
    label = "`{Self}` does not implement `DlpackDevice`",
    note = "on a type of your own, derive it: `#[derive(dlpack_core::DlpackDevice)]`, with `#[dlpack(cpu)]`, `#[dlpack(cuda)]`, … on each variant of an enum; a struct over one field that has the trait (`struct Device(Inner)`) needs none",
    note = "for another crate's type, derive it on a mirror of the type with `#[dlpack(remote = \"their_crate::Device\")]` and use the mirror in its place"
)]
pub trait DlpackDevice: Sized {
    /// Every device [`dlpack_device`](Self::dlpack_device) can return. Defaults to
    /// [`DeviceSet::ALL`] (unknown, so anything).
    ///
    /// ```
    /// use dlpack_core::{Device, DlpackDevice};
    /// assert!(<Device as DlpackDevice>::PRODUCES.contains(Device::cuda(0)));
    /// ```
    const PRODUCES: DeviceSet = DeviceSet::ALL;
    /// Every device [`from_dlpack_device`](Self::from_dlpack_device) accepts. Defaults to
    /// [`DeviceSet::EMPTY`] (nothing is proven accepted).
    ///
    /// ```
    /// use dlpack_core::{Device, DlpackDevice};
    /// assert!(<Device as DlpackDevice>::ACCEPTS.contains(Device::metal(0)));
    /// ```
    const ACCEPTS: DeviceSet = DeviceSet::EMPTY;
    /// The devices a unit variant of a derived enum imports as (see
    /// [`DlpackDataType::__UNIT_VALUES`]). Written by the derive; not part of the API.
    #[doc(hidden)]
    const __UNIT_VALUES: &'static [Device] = &[];

    /// What `__dlpack_device__` returns for this value: an error for a value with no DLPack
    /// equivalent.
    ///
    /// ```
    /// use dlpack_core::{Device, DlpackDevice};
    /// assert_eq!(Device::CPU.dlpack_device()?, Device::CPU);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn dlpack_device(&self) -> Result<Device, Error>;

    /// The value for a DLPack device: an error naming the type, the device and what the type
    /// supports when it has none, or when the id does not fit.
    ///
    /// ```
    /// use dlpack_core::{Device, DlpackDevice};
    /// assert_eq!(Device::from_dlpack_device(Device::trn(1))?, Device::trn(1));
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn from_dlpack_device(device: Device) -> Result<Self, Error>;
}

/// The identity: a [`DataType`] is its own DLPack data type, and accepts every one.
///
/// ```
/// use dlpack_core::{DataType, DlpackDataType};
/// assert_eq!(DataType::BF16.dlpack_data_type()?, DataType::BF16);
/// assert!(<DataType as DlpackDataType>::ACCEPTS.is_all());
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl DlpackDataType for DataType {
    const PRODUCES: DataTypeSet = DataTypeSet::ALL;
    const ACCEPTS: DataTypeSet = DataTypeSet::ALL;

    #[inline]
    fn dlpack_data_type(&self) -> Result<DataType, Error> {
        Ok(*self)
    }

    #[inline]
    fn from_dlpack_data_type(data_type: DataType) -> Result<Self, Error> {
        Ok(data_type)
    }
}

/// The identity: a [`Device`] is its own DLPack device, and accepts every one.
///
/// ```
/// use dlpack_core::{Device, DlpackDevice};
/// assert_eq!(Device::from_dlpack_device(Device::rocm(2))?, Device::rocm(2));
/// assert!(<Device as DlpackDevice>::PRODUCES.is_all());
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl DlpackDevice for Device {
    const PRODUCES: DeviceSet = DeviceSet::ALL;
    const ACCEPTS: DeviceSet = DeviceSet::ALL;

    #[inline]
    fn dlpack_device(&self) -> Result<Device, Error> {
        Ok(*self)
    }

    #[inline]
    fn from_dlpack_device(device: Device) -> Result<Self, Error> {
        Ok(device)
    }
}

/// Whether two values of any two device types denote the same DLPack device (a candle device
/// against a burn device). A value with no DLPack device is the same as nothing, not even
/// itself.
///
/// ```
/// use dlpack_core::{Device, same_device};
/// assert!(same_device(&Device::cuda(0), &Device::cuda(0)));
/// assert!(!same_device(&Device::cuda(0), &Device::CPU));
/// ```
pub fn same_device<A: DlpackDevice, B: DlpackDevice>(a: &A, b: &B) -> bool {
    match (a.dlpack_device(), b.dlpack_device()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
