//! Device names: the validity rule of a (device_type, device_id) pair, its canonical name and
//! the parser.

use core::fmt;

use crate::aliases::{ForeignName, device_meaning};
use crate::tables::{DEVICES, DeviceInfo, device_by_name, device_info};
use crate::{parse_decimal, suggest::suggest_device};

/// A device as its two ABI integers: what [`parse_device`] reads from a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceParts {
    /// The `DLDeviceType`.
    pub device_type: i32,
    /// The device id.
    pub device_id: i32,
}

/// Why a (device_type, device_id) pair is not a valid device. Non-exhaustive: a later DLPack
/// version may add a rule, so a `match` needs a `_` arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidDevice {
    /// The device type is not one this version knows.
    UnknownType(i32),
    /// The id is negative.
    NegativeId(i32),
}

impl fmt::Display for InvalidDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::UnknownType(t) => write!(
                f,
                "unknown device type {t} (known types are {})",
                KnownDeviceTypes
            ),
            Self::NegativeId(id) => write!(f, "device id {id} is negative; ids start at 0"),
        }
    }
}

/// An error of its own, for code that checks a pair without building a `Device`. The message
/// is the whole story: there is no underlying [`source`](core::error::Error::source).
///
/// ```
/// use dlpack_grammar::{InvalidDevice, check_device};
///
/// fn check(device_type: i32, id: i32) -> Result<(), Box<dyn std::error::Error>> {
///     check_device(device_type, id)?;
///     Ok(())
/// }
/// let err = check(2, -1).unwrap_err();
/// assert_eq!(err.to_string(), "device id -1 is negative; ids start at 0");
/// assert!(err.source().is_none());
/// assert!(err.downcast_ref::<InvalidDevice>().is_some());
/// ```
impl core::error::Error for InvalidDevice {}

/// The known device types as runs (`1 to 4, 7 to 21`), written from the table so that a new
/// entry updates the message.
struct KnownDeviceTypes;

impl fmt::Display for KnownDeviceTypes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut i = 0;
        while i < DEVICES.len() {
            let start = DEVICES[i].device_type;
            let mut end = start;
            while i + 1 < DEVICES.len() && DEVICES[i + 1].device_type == end + 1 {
                i += 1;
                end += 1;
            }
            if start != DEVICES[0].device_type {
                f.write_str(", ")?;
            }
            if start == end {
                write!(f, "{start}")?;
            } else {
                write!(f, "{start} to {end}")?;
            }
            i += 1;
        }
        Ok(())
    }
}

/// Checks a (device_type, device_id) pair.
pub const fn check_device(
    device_type: i32,
    device_id: i32,
) -> Result<&'static DeviceInfo, InvalidDevice> {
    let Some(info) = device_info(device_type) else {
        return Err(InvalidDevice::UnknownType(device_type));
    };
    if device_id < 0 {
        return Err(InvalidDevice::NegativeId(device_id));
    }
    Ok(info)
}

/// The parts of a device's canonical name: `cuda:0` is `cuda` with id `Some(0)`, `cpu` is
/// `cpu` with no id. A `const fn` for compile-time messages; [`write_device`] is built on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceName {
    /// The device type's name.
    pub name: &'static str,
    /// The id, when the name shows it.
    pub id: Option<i32>,
}

/// The parts of the canonical name of a device, or `None` for a pair that [`check_device`]
/// refuses.
pub const fn device_name(device_type: i32, device_id: i32) -> Option<DeviceName> {
    match check_device(device_type, device_id) {
        Ok(info) => Some(DeviceName {
            name: info.name,
            id: if info.indexed || device_id != 0 {
                Some(device_id)
            } else {
                None
            },
        }),
        Err(_) => None,
    }
}

/// Writes the canonical name of a device. A pair that [`check_device`] refuses is written as
/// `unknown(device_type=…, device_id=…)` or `invalid(…)`, which no parser accepts.
pub fn write_device(f: &mut dyn fmt::Write, device_type: i32, device_id: i32) -> fmt::Result {
    match device_name(device_type, device_id) {
        Some(DeviceName { name, id: Some(id) }) => write!(f, "{name}:{id}"),
        Some(DeviceName { name, id: None }) => f.write_str(name),
        None if device_info(device_type).is_none() => {
            write!(
                f,
                "unknown(device_type={device_type}, device_id={device_id})"
            )
        }
        None => {
            write!(
                f,
                "invalid(device_type={device_type}, device_id={device_id})"
            )
        }
    }
}

/// Why a string is not a device name. Non-exhaustive: a later grammar may refuse a name for a
/// new reason, so a `match` needs a `_` arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeviceNameError {
    /// The string is empty.
    Empty,
    /// No known device name; `suggestion` is the closest one, if one is close.
    UnknownName {
        /// The closest device name.
        suggestion: Option<&'static str>,
    },
    /// The id after `:` is not a number from 0 to 2147483647.
    BadId,
}

impl fmt::Display for DeviceNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Empty => {
                f.write_str("expected a device such as `cpu` or `cuda:0`, found an empty string")
            }
            Self::UnknownName { suggestion } => {
                f.write_str("unknown device name")?;
                if let Some(s) = suggestion {
                    write!(f, "; did you mean `{s}`?")?;
                }
                f.write_str(" (expected `cpu`, `cuda:0`, `cuda_host`, `rocm:1`, … : a device name, optionally followed by `:` and an id)")
            }
            Self::BadId => f.write_str(
                "the device id after `:` must be a number from 0 to 2147483647, as in `cuda:0`",
            ),
        }
    }
}

/// An error of its own, for code that parses names without building a `Device`.
///
/// ```
/// use dlpack_grammar::{DeviceNameError, parse_device};
///
/// fn parse(name: &str) -> Result<i32, Box<dyn std::error::Error>> {
///     Ok(parse_device(name)?.device_id)
/// }
/// assert_eq!(parse("cuda:1")?, 1);
/// let err = parse("cuda:x").unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "the device id after `:` must be a number from 0 to 2147483647, as in `cuda:0`"
/// );
/// assert!(err.source().is_none());
/// assert_eq!(err.downcast_ref::<DeviceNameError>(), Some(&DeviceNameError::BadId));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl core::error::Error for DeviceNameError {}

/// Parses a device, `name` or `name:id` (`cpu`, `cuda:1`); a bare name means id 0.
pub fn parse_device(s: &str) -> Result<DeviceParts, DeviceNameError> {
    if s.is_empty() {
        return Err(DeviceNameError::Empty);
    }
    let (name, device_id) = match s.split_once(':') {
        Some((name, id)) => {
            let id = parse_decimal(id)
                .and_then(|n| i32::try_from(n).ok())
                .ok_or(DeviceNameError::BadId)?;
            (name, id)
        }
        None => (s, 0),
    };
    // Looked for only on the way out: the suggestion costs more than the parse.
    let info = device_by_name(name).ok_or_else(|| DeviceNameError::UnknownName {
        suggestion: suggest_device(name),
    })?;
    Ok(DeviceParts {
        device_type: info.device_type,
        device_id,
    })
}

/// The parts of a device name, as [`parse_device`] reads it, or `None` without saying why (no
/// "did you mean" is looked for): see [`data_type_parts`](crate::data_type_parts).
///
/// ```
/// assert_eq!(dlpack_grammar::device_parts("cuda:1").map(|p| p.device_id), Some(1));
/// assert_eq!(dlpack_grammar::device_parts("float32"), None);
/// ```
pub fn device_parts(s: &str) -> Option<DeviceParts> {
    let (name, device_id) = match s.split_once(':') {
        Some((name, id)) => (name, i32::try_from(parse_decimal(id)?).ok()?),
        None => (s, 0),
    };
    Some(DeviceParts {
        device_type: device_by_name(name)?.device_type,
        device_id,
    })
}

/// What a device spelling from another framework means in DLPack: `None` for a DLPack device
/// name, and for a spelling no framework uses.
///
/// ```
/// assert_eq!(dlpack_grammar::foreign_device("mps").unwrap().dlpack, ["metal"]);
/// assert!(dlpack_grammar::foreign_device("gpu").unwrap().dlpack.contains(&"rocm"));
/// assert_eq!(dlpack_grammar::foreign_device("CudaHost").unwrap().dlpack, ["cuda_host"]);
/// assert_eq!(dlpack_grammar::foreign_device("cuda"), None);
/// ```
pub fn foreign_device(spelling: &str) -> Option<ForeignName> {
    if device_by_name(spelling).is_some() {
        return None;
    }
    device_meaning(spelling)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::device_type;
    use crate::tests::Buf;

    fn parts(device_type: i32, device_id: i32) -> Result<DeviceParts, DeviceNameError> {
        Ok(DeviceParts {
            device_type,
            device_id,
        })
    }

    fn written(device_type: i32, device_id: i32) -> Buf {
        let mut buf = Buf::new();
        write_device(&mut buf, device_type, device_id).unwrap();
        buf
    }

    #[test]
    fn parse() {
        assert_eq!(parse_device("cpu"), parts(device_type::CPU, 0));
        assert_eq!(parse_device("cuda:3"), parts(device_type::CUDA, 3));
        assert_eq!(parse_device("cuda"), parts(device_type::CUDA, 0));
        assert_eq!(parse_device("cuda:-1"), Err(DeviceNameError::BadId));
        assert_eq!(parse_device("cuda:2147483648"), Err(DeviceNameError::BadId));
        assert_eq!(parse_device("cuda:"), Err(DeviceNameError::BadId));
        assert_eq!(parse_device(""), Err(DeviceNameError::Empty));
        assert_eq!(
            parse_device("cdua:0"),
            Err(DeviceNameError::UnknownName {
                suggestion: Some("cuda")
            })
        );
    }

    #[test]
    fn names_round_trip() {
        for info in DEVICES {
            for id in [0, 1, i32::MAX] {
                let name = written(info.device_type, id);
                assert_eq!(parse_device(name.as_str()), parts(info.device_type, id));
            }
        }
        assert_eq!(written(device_type::CPU, 0).as_str(), "cpu");
        assert_eq!(written(device_type::CPU, 2).as_str(), "cpu:2");
        assert_eq!(written(device_type::CUDA, 0).as_str(), "cuda:0");
    }

    #[test]
    fn invalid_pairs() {
        assert_eq!(check_device(99, 0), Err(InvalidDevice::UnknownType(99)));
        assert_eq!(
            check_device(device_type::CUDA, -1),
            Err(InvalidDevice::NegativeId(-1))
        );
        assert_eq!(device_name(device_type::CUDA, -1), None);
        assert_eq!(
            written(99, 1).as_str(),
            "unknown(device_type=99, device_id=1)"
        );
        assert_eq!(
            written(device_type::CUDA, -1).as_str(),
            "invalid(device_type=2, device_id=-1)"
        );
        let mut message = Buf::new();
        fmt::write(
            &mut message,
            format_args!("{}", InvalidDevice::UnknownType(5)),
        )
        .unwrap();
        assert_eq!(
            message.as_str(),
            "unknown device type 5 (known types are 1 to 4, 7 to 21)"
        );
    }
}
