//! What the derives' handle options call: `import_with` (a user function that builds a value
//! back from a DLPack value), `device_with` (a user function that reads a handle's device) and
//! `data_type_with` (a user function that computes a value's data type from its fields).
//!
//! Each takes the function as a `fn` pointer of the exact type the option documents, so that a
//! function with another signature is one type error at the user's path that shows the
//! expected type (`expected fn pointer fn(Device) -> Result<Place, Error>`). They are
//! `#[inline(always)]`: after inlining the call is direct.

use core::any::type_name;

use crate::convert::{DlpackDataType, DlpackDevice};
use crate::error::Error;
use crate::ffi::DLDeviceType;
use crate::set::DataTypeSet;
use crate::set::DeviceSet;
use crate::{DataType, Device};

/// Calls an `import_with` function with the DLPack value `V` (`DataType` or `Device`).
#[inline(always)]
pub fn import_with<V, T>(import: fn(V) -> Result<T, Error>, value: V) -> Result<T, Error> {
    import(value)
}

/// The device of a handle, read by a `device_with` function whose result is a
/// [`DlpackDevice`].
#[inline(always)]
pub fn device_with<A: ?Sized, D: DlpackDevice>(
    device_of: fn(&A) -> D,
    handle: &A,
) -> Result<Device, Error> {
    device_of(handle).dlpack_device()
}

/// The device of a handle, read by a `device_with` function, on a variant that names its device
/// type (`#[dlpack(cuda, device_with = …)]`): a device of another type is an error, never a
/// value outside the type's `PRODUCES`.
#[inline(always)]
pub fn device_with_type<T: ?Sized, A: ?Sized, D: DlpackDevice>(
    device_of: fn(&A) -> D,
    handle: &A,
    device_type: DLDeviceType,
) -> Result<Device, Error> {
    let device = device_of(handle).dlpack_device()?;
    if device.device_type.0 == device_type.0 {
        Ok(device)
    } else {
        Err(wrong_device_type::<T>(device, device_type))
    }
}

#[cold]
#[inline(never)]
fn wrong_device_type<T: ?Sized>(device: Device, expected: DLDeviceType) -> Error {
    let name = dlpack_grammar::device_info(expected.0).map_or("unknown", |info| info.name);
    Error::msg(format_args!(
        "a value of {} maps to `{name}` devices, but its `device_with` function returned {device}",
        type_name::<T>()
    ))
}

/// Every device a `device_with` function's result can be: its type's `PRODUCES`. (The type is
/// the function's return type, which generated code cannot name.)
pub const fn device_with_produces<A: ?Sized, D: DlpackDevice>(_: fn(&A) -> D) -> DeviceSet {
    D::PRODUCES
}

/// The data type of a value, computed by a `data_type_with` function whose result is a
/// [`DlpackDataType`] (a `DataType`, or a dtype enum whose `skip` variant says "none").
#[inline(always)]
pub fn data_type_with<A: ?Sized, D: DlpackDataType>(
    data_type_of: fn(&A) -> D,
    value: &A,
) -> Result<DataType, Error> {
    data_type_of(value).dlpack_data_type()
}

/// Every data type a `data_type_with` function's result can be: its type's `PRODUCES`.
pub const fn data_type_with_produces<A: ?Sized, D: DlpackDataType>(_: fn(&A) -> D) -> DataTypeSet {
    D::PRODUCES
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::prelude::rust_2024::*;

    fn location(ordinal: &u32) -> Device {
        Device::cuda(i32::try_from(*ordinal).unwrap_or(i32::MAX))
    }

    fn open(device: Device) -> Result<u32, Error> {
        u32::try_from(device.device_id).map_err(Error::msg)
    }

    fn storage(bits: &u8) -> DataType {
        DataType::new(crate::ffi::DLDataTypeCode(0), *bits, 1)
    }

    #[test]
    fn a_data_type_with_function_is_called_with_the_value() {
        assert_eq!(data_type_with(storage, &8), Ok(DataType::I8));
        const SET: DataTypeSet = data_type_with_produces(storage);
        assert!(SET.is_all(), "`DataType` produces every data type");
    }

    #[test]
    fn the_functions_are_called_with_what_they_are_given() {
        assert_eq!(device_with(location, &3), Ok(Device::cuda(3)));
        assert_eq!(import_with(open, Device::cuda(2)), Ok(2));
        assert!(import_with(open, Device::cuda(-1)).is_err());
        let echo: fn(DataType) -> Result<DataType, Error> = Ok;
        assert_eq!(import_with(echo, DataType::F16), Ok(DataType::F16));
        const SET: DeviceSet = device_with_produces(location);
        assert!(SET.is_all(), "`Device` produces every device");
        let cuda = Device::cuda(0).device_type;
        assert_eq!(
            device_with_type::<u32, _, _>(location, &1, cuda),
            Ok(Device::cuda(1))
        );
        let metal = Device::metal(0).device_type;
        assert_eq!(
            device_with_type::<u32, _, _>(location, &1, metal)
                .unwrap_err()
                .to_string(),
            "a value of u32 maps to `metal` devices, but its `device_with` function returned cuda:1"
        );
    }
}
