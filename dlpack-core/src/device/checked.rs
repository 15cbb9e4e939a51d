//! What of [`Device`] returns the crate's [`Error`]: the checked constructor, the check, and
//! parsing a name. Apart from the rest of `Device` because [`Error`] names device sets, whose
//! ranges are made with `Device`'s own methods (`DeviceRange::one` takes a device's canonical
//! form, `cpu:1` as `cpu`, from `Device::canonical`): kept here, the circle through the error
//! type stays open. `DataType`'s are beside the rest of it, since a data type set needs no
//! method of `DataType`.

use core::str::FromStr;

use dlpack_grammar::DeviceParts;

use crate::Device;
use crate::error::Error;
use crate::ffi::DLDeviceType;

impl Device {
    /// A device of a known type with a non-negative id, or an error saying what is wrong.
    ///
    /// ```
    /// use dlpack_core::{Device, ffi::DLDeviceType};
    /// assert_eq!(Device::checked(DLDeviceType::CUDA, 2)?, Device::cuda(2));
    /// assert!(Device::checked(DLDeviceType::CUDA, -1).is_err());
    /// assert!(Device::checked(DLDeviceType(5), 0).is_err());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub const fn checked(device_type: DLDeviceType, device_id: i32) -> Result<Self, Error> {
        let device = Self::new(device_type, device_id);
        match dlpack_grammar::check_device(device_type.0, device_id) {
            Ok(_) => Ok(device),
            Err(reason) => Err(Error::InvalidDevice { device, reason }),
        }
    }

    /// Whether this is a device of a known type with a non-negative id; the error says which.
    ///
    /// ```
    /// use dlpack_core::Device;
    /// assert!(Device::cuda(0).check().is_ok());
    /// assert_eq!(
    ///     Device::cuda(-1).check().unwrap_err().to_string(),
    ///     "invalid(device_type=2, device_id=-1) is not a valid device: device id -1 is negative; ids start at 0"
    /// );
    /// ```
    pub const fn check(&self) -> Result<(), Error> {
        match dlpack_grammar::check_device(self.device_type.0, self.device_id) {
            Ok(_) => Ok(()),
            Err(reason) => Err(Error::InvalidDevice {
                device: *self,
                reason,
            }),
        }
    }
}

/// Parses `name` or `name:id`; a bare indexed name means id 0.
///
/// ```
/// use dlpack_core::Device;
/// assert_eq!("cuda".parse::<Device>()?, Device::cuda(0));
/// assert_eq!("cuda_host".parse::<Device>()?, Device::CUDA_HOST);
/// assert!("cuda:-1".parse::<Device>().is_err());
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl FromStr for Device {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match dlpack_grammar::parse_device(s) {
            Ok(DeviceParts {
                device_type,
                device_id,
            }) => Ok(Self::new(DLDeviceType(device_type), device_id)),
            Err(reason) => Err(Error::ParseDevice {
                input: s.into(),
                reason,
            }),
        }
    }
}
