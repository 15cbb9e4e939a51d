//! The crate's [`Error`]: every fallible function of the crate returns it. Each module's own
//! error travels inside it: a tensor's refusal as [`Error::Tensor`] ([`TensorError`], in the
//! `tensor` module, with the limits its messages quote), the CUDA backend's as `Error::Cuda`
//! (`cuda::CudaError`, feature `cuda`).

use alloc::{boxed::Box, string::ToString};
use core::fmt;

use dlpack_grammar::{DataTypeNameError, DeviceNameError, InvalidDataType, InvalidDevice};

pub(crate) use crate::tensor::TensorError;

use crate::set::DeviceRange;
use crate::{DataType, Device};

/// Everything that can go wrong in this crate. Each variant carries the offending value, and
/// each message names it and says what was expected.
///
/// ```
/// use dlpack_core::{DataType, Error};
///
/// let err = "flaot32".parse::<DataType>().unwrap_err();
/// assert!(matches!(err, Error::ParseDataType { .. }));
/// assert!(err.to_string().contains("did you mean `float32`?"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A string is not a data type name.
    ParseDataType {
        /// The string.
        input: Box<str>,
        /// What is wrong with the name (a misspelling, with the name meant; a missing width).
        reason: DataTypeNameError,
    },
    /// A string is not a device name.
    ParseDevice {
        /// The string.
        input: Box<str>,
        /// What is wrong with the name (an unknown type, a bad id).
        reason: DeviceNameError,
    },
    /// A (code, bits, lanes) triple that DLPack does not allow.
    InvalidDataType {
        /// The value.
        data_type: DataType,
        /// The rule the triple breaks (an unknown code, 0 lanes, a width the code does not take).
        reason: InvalidDataType,
    },
    /// A (type, id) pair that DLPack does not allow.
    InvalidDevice {
        /// The value.
        device: Device,
        /// The rule the pair breaks (an unknown type, a negative id).
        reason: InvalidDevice,
    },
    /// A value of a user type has no DLPack data type (a `#[dlpack(skip)]` variant).
    NoDataType {
        /// The type: as `core::any::type_name` gives it, or for another crate's type read
        /// through a `remote` mirror its path as the mirror names it, absolute
        /// (`::candle_core::DType`). `Display` writes either without a leading `::`.
        type_name: &'static str,
        /// The variant.
        value: &'static str,
    },
    /// A value of a user type has no DLPack device (a `#[dlpack(skip)]` variant).
    NoDevice {
        /// The type, as for [`NoDataType`](Self::NoDataType).
        type_name: &'static str,
        /// The variant.
        value: &'static str,
    },
    /// A user type has no value for a DLPack data type.
    UnsupportedDataType {
        /// The target type, as for [`NoDataType`](Self::NoDataType).
        type_name: &'static str,
        /// The data type asked for.
        data_type: DataType,
        /// What the target accepts.
        supported: Box<[DataType]>,
    },
    /// A user type has no value for a DLPack device.
    UnsupportedDevice {
        /// The target type, as for [`NoDataType`](Self::NoDataType).
        type_name: &'static str,
        /// The device asked for.
        device: Device,
        /// What the target accepts.
        supported: Box<[DeviceRange]>,
    },
    /// A device id that does not fit where it has to go: a DLPack id (`0..=i32::MAX`) or a
    /// user type's id field (`u8`, `usize`, …). Ids are never truncated or wrapped.
    DeviceIdOutOfRange {
        /// The type whose id it is, or into which it was to go, as for
        /// [`NoDataType`](Self::NoDataType).
        type_name: &'static str,
        /// The id.
        id: i128,
        /// The least id that fits.
        min: i128,
        /// The greatest id that fits.
        max: i128,
    },
    /// A dtype value without a Rust element type reached a [dispatch](crate::dispatch): an
    /// fp8, fp6 or fp4 type, one with lanes, a `skip` variant, or a `float16` without feature
    /// `half`. Built without allocating.
    NoElement {
        /// The dtype type dispatched over, as for [`NoDataType`](Self::NoDataType).
        type_name: &'static str,
        /// The variant, for a user type (`None` for [`DataType`] itself).
        variant: Option<&'static str>,
        /// The value's data type (`None` for a `skip` variant, which has none).
        data_type: Option<DataType>,
        /// The data types the dispatch runs kernels on (a `None` entry is a variant without
        /// one).
        handled: &'static [Option<DataType>],
    },
    /// A message from user code (a hand-written trait implementation, an `id_with` function).
    Message(Box<str>),
    /// An error about one argument of a Python function, which names both: what a dispatch
    /// of a `python::TensorArg` that `#[tensor_args]` extracted returns
    /// (`mean(): argument 'x': …`). As an exception, it is `source`'s class.
    Argument {
        /// The function's Python name (`mean`, or `Model.forward` for a method).
        function: &'static str,
        /// The argument's name.
        argument: &'static str,
        /// What went wrong with it.
        source: Box<Error>,
    },
    /// A tensor was refused on import or export: the reason names the field and the value.
    Tensor(TensorError),
    /// A failure of the CUDA backend: no driver, a driver call that failed, a bad `stream`
    /// argument, a copy that `copy=False` forbids (feature `cuda`).
    #[cfg(feature = "cuda")]
    Cuda(crate::cuda::CudaError),
}

impl Error {
    /// An error with a message of your own, for hand-written trait implementations.
    ///
    /// ```
    /// let err = dlpack_core::Error::msg("context was destroyed");
    /// assert_eq!(err.to_string(), "context was destroyed");
    /// ```
    pub fn msg(message: impl fmt::Display) -> Self {
        Self::Message(message.to_string().into_boxed_str())
    }
}

/// Writes `a, b, c` for a list of displayable values, or `nothing` for an empty one.
/// A type name as messages write it: a foreign type's absolute path without its leading `::`.
fn shown(type_name: &str) -> &str {
    type_name.strip_prefix("::").unwrap_or(type_name)
}

struct List<'a, T>(&'a [T]);

impl<T: fmt::Display> fmt::Display for List<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("nothing");
        }
        for (i, item) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{item}")?;
        }
        Ok(())
    }
}

/// A lower-case message that names the offending value and says what was expected.
///
/// ```
/// use dlpack_core::Device;
/// let err = "cuda:x".parse::<Device>().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "`cuda:x` is not a device: the device id after `:` must be a number from 0 to 2147483647, as in `cuda:0`"
/// );
/// ```
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ParseDataType { input, reason } => {
                write!(f, "`{input}` is not a data type: {reason}")
            }
            Self::ParseDevice { input, reason } => {
                // The suggestion keeps the id of the input: `gpu:1` is `cuda:1`, not `cuda`.
                if let (
                    DeviceNameError::UnknownName {
                        suggestion: Some(name),
                    },
                    Some((_, id)),
                ) = (reason, input.split_once(':'))
                {
                    let reason = reason.to_string().replacen(
                        &alloc::format!("`{name}`"),
                        &alloc::format!("`{name}:{id}`"),
                        1,
                    );
                    return write!(f, "`{input}` is not a device: {reason}");
                }
                write!(f, "`{input}` is not a device: {reason}")
            }
            Self::InvalidDataType { data_type, reason } => {
                write!(f, "{data_type} is not a valid data type: {reason}")
            }
            Self::InvalidDevice { device, reason } => {
                write!(f, "{device} is not a valid device: {reason}")
            }
            Self::NoDataType { type_name, value } => {
                write!(f, "{}::{value} has no DLPack data type", shown(type_name))
            }
            Self::NoDevice { type_name, value } => {
                write!(f, "{}::{value} has no DLPack device", shown(type_name))
            }
            Self::UnsupportedDataType {
                type_name,
                data_type,
                supported,
            } => write!(
                f,
                "{} has no DLPack data type for {data_type}; it supports: {}",
                shown(type_name),
                List(supported)
            ),
            Self::UnsupportedDevice {
                type_name,
                device,
                supported,
            } => write!(
                f,
                "{} has no DLPack device for {device}; it supports: {}",
                shown(type_name),
                List(supported)
            ),
            Self::DeviceIdOutOfRange {
                type_name,
                id,
                min,
                max,
            } => write!(
                f,
                "device id {id} is out of range for {}: expected {min} to {max}",
                shown(type_name)
            ),
            Self::NoElement {
                type_name,
                variant,
                data_type,
                handled,
            } => {
                let type_name = shown(type_name);
                let short = type_name.rsplit("::").next().unwrap_or(type_name);
                match (variant, data_type) {
                    (Some(variant), Some(data_type)) => write!(
                        f,
                        "{type_name}::{variant} ({data_type}) has no Rust element type"
                    )?,
                    (Some(variant), None) => {
                        write!(f, "{type_name}::{variant} has no DLPack data type")?;
                    }
                    (None, Some(data_type)) => write!(f, "{data_type} has no Rust element type")?,
                    (None, None) => f.write_str("the value has no Rust element type")?,
                }
                write!(f, "; a dispatch over {short} runs kernels on ")?;
                let mut first = true;
                for (i, data_type) in handled.iter().enumerate() {
                    let Some(data_type) = data_type else { continue };
                    // Two variants of one data type (an `export_only` one) are listed once.
                    if handled[..i].contains(&Some(*data_type)) {
                        continue;
                    }
                    if !first {
                        f.write_str(", ")?;
                    }
                    first = false;
                    write!(f, "{data_type}")?;
                }
                if first {
                    f.write_str("nothing")?;
                }
                Ok(())
            }
            Self::Message(message) => f.write_str(message),
            Self::Argument {
                function,
                argument,
                source,
            } => write!(f, "{function}(): argument '{argument}': {source}"),
            Self::Tensor(err) => fmt::Display::fmt(err, f),
            #[cfg(feature = "cuda")]
            Self::Cuda(error) => fmt::Display::fmt(error, f),
        }
    }
}

/// So that `?` converts it into `Box<dyn Error>`, `anyhow::Error` and the like.
///
/// ```
/// use dlpack_core::DataType;
///
/// fn parse(name: &str) -> Result<DataType, Box<dyn std::error::Error>> {
///     Ok(name.parse::<DataType>()?)
/// }
/// assert_eq!(parse("f16")?, DataType::F16);
/// assert!(parse("bool16").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl core::error::Error for Error {}

/// [`Error::Tensor`], so that `?` carries a tensor error into this crate's [`Error`].
///
/// ```
/// use dlpack_core::{Error, tensor::{MAX_NDIM, TensorError}};
///
/// fn check_rank(ndim: i64) -> Result<(), Error> {
///     if !(0..=MAX_NDIM as i64).contains(&ndim) {
///         Err(TensorError::Ndim { ndim })?; // `?` converts it
///     }
///     Ok(())
/// }
/// assert_eq!(check_rank(65), Err(Error::Tensor(TensorError::Ndim { ndim: 65 })));
/// ```
impl From<TensorError> for Error {
    #[inline]
    fn from(err: TensorError) -> Self {
        Error::Tensor(err)
    }
}

#[cfg(feature = "cuda")]
/// [`Error::Cuda`].
///
/// ```
/// use dlpack_core::{Error, cuda::CudaError};
/// assert_eq!(Error::from(CudaError::NoDriver), Error::Cuda(CudaError::NoDriver));
/// ```
impl From<crate::cuda::CudaError> for Error {
    fn from(error: crate::cuda::CudaError) -> Self {
        Self::Cuda(error)
    }
}

#[cfg(test)]
mod tests;
