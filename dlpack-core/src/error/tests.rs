//! The message of every `Error` variant and every reason, pinned exactly.

use super::*;
use crate::ffi::{DLDataTypeCode, DLDeviceType};
use alloc::{vec, vec::Vec};

/// One error of every variant, each with the exact message it must print. The `match` is
/// exhaustive (inside this crate `#[non_exhaustive]` does not apply), so a new variant
/// cannot be added without a message here.
fn every_variant() -> Vec<(Error, &'static str)> {
    let cases = vec![
        (
            "bfloat32".parse::<DataType>().unwrap_err(),
            "`bfloat32` is not a data type: bfloat takes 16 bits, not 32",
        ),
        (
            "cdua:0".parse::<Device>().unwrap_err(),
            "`cdua:0` is not a device: unknown device name; did you mean `cuda:0`? (expected \
             `cpu`, `cuda:0`, `cuda_host`, `rocm:1`, … : a device name, optionally followed \
             by `:` and an id)",
        ),
        (
            DataType::checked(DLDataTypeCode(99), 8, 1).unwrap_err(),
            "unknown(code=99, bits=8, lanes=1) is not a valid data type: unknown data type \
             code 99 (known codes are 0 to 18)",
        ),
        (
            Device::checked(DLDeviceType(5), 0).unwrap_err(),
            "unknown(device_type=5, device_id=0) is not a valid device: unknown device type \
             5 (known types are 1 to 4, 7 to 21)",
        ),
        (
            Error::NoDataType {
                type_name: "my_crate::DType",
                value: "QInt8",
            },
            "my_crate::DType::QInt8 has no DLPack data type",
        ),
        (
            Error::NoDevice {
                type_name: "my_crate::Device",
                value: "Remote",
            },
            "my_crate::Device::Remote has no DLPack device",
        ),
        (
            Error::UnsupportedDataType {
                type_name: "tch::Kind",
                data_type: DataType::FLOAT8_E3M4,
                supported: Box::new([DataType::U8, DataType::I8, DataType::BF16]),
            },
            "tch::Kind has no DLPack data type for float8_e3m4; it supports: uint8, int8, \
             bfloat16",
        ),
        (
            Error::UnsupportedDevice {
                type_name: "candle::Device",
                device: Device::rocm(0),
                supported: Box::new([
                    DeviceRange::one(Device::CPU),
                    DeviceRange::every(DLDeviceType::CUDA),
                ]),
            },
            "candle::Device has no DLPack device for rocm:0; it supports: cpu, cuda:<id>",
        ),
        (
            Error::DeviceIdOutOfRange {
                type_name: "u8",
                id: 4_294_967_296,
                min: 0,
                max: 255,
            },
            "device id 4294967296 is out of range for u8: expected 0 to 255",
        ),
        (
            Error::NoElement {
                type_name: "burn_std::DType",
                variant: Some("F8E4M3"),
                data_type: Some(DataType::FLOAT8_E4M3FN),
                handled: &[
                    Some(DataType::F32),
                    None,
                    Some(DataType::U8),
                    Some(DataType::F32),
                ],
            },
            "burn_std::DType::F8E4M3 (float8_e4m3fn) has no Rust element type; a dispatch over \
             DType runs kernels on float32, uint8",
        ),
        (Error::msg("context was destroyed"), "context was destroyed"),
        (
            Error::Argument {
                function: "mean",
                argument: "x",
                source: Box::new(Error::NoElement {
                    type_name: "dlpack_core::DataType",
                    variant: None,
                    data_type: Some(DataType::FLOAT8_E4M3FN),
                    handled: &[Some(DataType::F32)],
                }),
            },
            "mean(): argument 'x': float8_e4m3fn has no Rust element type; a dispatch over \
             DataType runs kernels on float32",
        ),
        (
            Error::Tensor(crate::tensor::TensorError::NegativeDim { axis: 2, value: -4 }),
            "shape[2] is -4; dimensions must be non-negative",
        ),
        #[cfg(feature = "cuda")]
        (
            Error::Cuda(crate::cuda::CudaError::NoDriver),
            "no CUDA driver found: libcuda could not be loaded",
        ),
    ];
    for (error, _) in &cases {
        match error {
            Error::ParseDataType { .. }
            | Error::ParseDevice { .. }
            | Error::InvalidDataType { .. }
            | Error::InvalidDevice { .. }
            | Error::NoDataType { .. }
            | Error::NoDevice { .. }
            | Error::UnsupportedDataType { .. }
            | Error::UnsupportedDevice { .. }
            | Error::DeviceIdOutOfRange { .. }
            | Error::NoElement { .. }
            | Error::Message(_)
            | Error::Argument { .. }
            | Error::Tensor(_) => {}
            #[cfg(feature = "cuda")]
            Error::Cuda(_) => {}
        }
    }
    cases
}

#[test]
fn every_variant_has_its_message() {
    let cases = every_variant();
    let variants: std::collections::HashSet<_> = cases
        .iter()
        .map(|(e, _)| core::mem::discriminant(e))
        .collect();
    assert_eq!(variants.len(), cases.len(), "one case per variant");
    for (error, expected) in cases {
        assert_eq!(error.to_string(), expected, "{error:?}");
        // Messages start lower-case (or with the quoted value or a type path).
        let first = expected.chars().next().unwrap();
        assert!(!first.is_uppercase(), "{expected}");
    }
}

#[test]
fn an_empty_support_list_says_nothing() {
    let err = Error::UnsupportedDataType {
        type_name: "Empty",
        data_type: DataType::F32,
        supported: Box::new([]),
    };
    assert_eq!(
        err.to_string(),
        "Empty has no DLPack data type for float32; it supports: nothing"
    );
}

#[test]
fn a_dispatch_error_names_the_value_and_what_the_dispatch_runs_on() {
    let skip = Error::NoElement {
        type_name: "burn_std::DType",
        variant: Some("QFloat"),
        data_type: None,
        handled: &[None],
    };
    assert_eq!(
        skip.to_string(),
        "burn_std::DType::QFloat has no DLPack data type; a dispatch over DType runs kernels on nothing"
    );
    let bare = Error::NoElement {
        type_name: "dlpack_core::ffi::value::DataType",
        variant: None,
        data_type: Some(DataType::F32.with_lanes(4)),
        handled: &[Some(DataType::BOOL)],
    };
    assert_eq!(
        bare.to_string(),
        "float32x4 has no Rust element type; a dispatch over DataType runs kernels on bool"
    );
}

#[test]
fn every_parse_reason_has_its_message() {
    let data_types = [
        (
            "",
            "expected a data type name such as `float32`, found an empty string",
        ),
        (
            "flaot32",
            "unknown data type name; did you mean `float32`? (expected a name such as \
             `float32`, `bfloat16`, `int8`, `bool`, `float8_e4m3fn`, optionally with lanes \
             as `float32x4`)",
        ),
        (
            "zzz",
            "unknown data type name (expected a name such as `float32`, `bfloat16`, `int8`, \
             `bool`, `float8_e4m3fn`, optionally with lanes as `float32x4`)",
        ),
        ("uint", "`uint` needs a bit width, as in `uint8`"),
        (
            "int256",
            "the bit width after `int` must be a number from 1 to 255, as in `int8`",
        ),
        (
            "bool8",
            "`bool` has a fixed width and takes no bit count (write `bool`)",
        ),
        (
            "float32x0",
            "the lane count after `x` must be a number from 1 to 65535, as in `float32x4`",
        ),
        ("int0", "bits must be from 1 to 255, not 0"),
        (
            "complex33",
            "complex takes an even number of bits from 2 to 254 (two equal halves), not 33",
        ),
        ("bfloat0", "bfloat takes 16 bits, not 0"),
    ];
    for (input, reason) in data_types {
        assert_eq!(
            input.parse::<DataType>().unwrap_err().to_string(),
            format!("`{input}` is not a data type: {reason}")
        );
    }
    let devices = [
        (
            "",
            "expected a device such as `cpu` or `cuda:0`, found an empty string",
        ),
        (
            "accelerator",
            "unknown device name (expected `cpu`, `cuda:0`, `cuda_host`, `rocm:1`, … : a \
             device name, optionally followed by `:` and an id)",
        ),
        (
            "cuda:x",
            "the device id after `:` must be a number from 0 to 2147483647, as in `cuda:0`",
        ),
    ];
    for (input, reason) in devices {
        assert_eq!(
            input.parse::<Device>().unwrap_err().to_string(),
            format!("`{input}` is not a device: {reason}")
        );
    }
}

#[test]
fn every_validity_reason_has_its_message() {
    let cases = [
        (
            DataType::checked(DLDataTypeCode::FLOAT, 0, 1),
            "invalid(code=2, bits=0, lanes=1) is not a valid data type: bits must be from 1 \
             to 255, not 0",
        ),
        (
            DataType::checked(DLDataTypeCode::FLOAT, 32, 0),
            "invalid(code=2, bits=32, lanes=0) is not a valid data type: lanes must be from \
             1 to 65535, not 0 (a scalar has 1 lane)",
        ),
        (
            DataType::checked(DLDataTypeCode::FLOAT8_E4M3FN, 16, 1),
            "invalid(code=10, bits=16, lanes=1) is not a valid data type: float8_e4m3fn \
             takes 8 bits, not 16",
        ),
    ];
    for (result, expected) in cases {
        assert_eq!(result.unwrap_err().to_string(), expected);
    }
    assert_eq!(
        Device::checked(DLDeviceType::CUDA, -1)
            .unwrap_err()
            .to_string(),
        "invalid(device_type=2, device_id=-1) is not a valid device: device id -1 is \
         negative; ids start at 0"
    );
}
