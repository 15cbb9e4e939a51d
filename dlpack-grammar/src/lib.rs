//! The one grammar of DLPack data type and device names.
//!
//! This crate is an implementation detail of [`dlpack-core`] and [`dlpack-derive`]: a
//! procedural macro crate cannot export functions, and the derive must reject a misspelt
//! `#[dlpack("bfloat61")]` with the *same* rules that `"bfloat61".parse::<DataType>()` uses at
//! run time. Both crates therefore call the tables and functions here, and nothing else spells a
//! DLPack name. Use `dlpack-core`; this crate's API follows it in lock-step and may change in
//! any release.
//!
//! Everything works on the raw integers of the ABI (`code`, `bits`, `lanes` and
//! `device_type`, `device_id`), is `no_std`, and never allocates.
//!
//! # Layout
//!
//!
//! - `tables`: the codes, device types and named data types, each written once as a callback
//!   macro ([`for_each_code!`], [`for_each_device_type!`], [`for_each_named_data_type!`]) from
//!   which this crate builds its lookup tables ([`CODES`], [`DEVICES`], [`NAMED_DATA_TYPES`])
//!   and `dlpack-core` generates its named constants (`DLDataTypeCode::FLOAT`, `DataType::F32`,
//!   `Device::cuda`).
//! - `aliases`: other frameworks' spellings (`half`, `F8_E4M3`, `mps`) and what DLPack calls
//!   them. They are not accepted names; they make a mistake's suggestion right.
//! - `suggest`: "did you mean" for a misspelt name, from `aliases` and the tables. The parsers
//!   call it when they refuse a name, so it never parses.
//! - `data_type`: the rules of a (code, bits, lanes) triple, its name, the name parser, and
//!   [`foreign_data_type`] (which asks the parser whether a spelling is a DLPack name first).
//! - `device`: the same for a (device_type, device_id) pair, and [`foreign_device`].
//!
//! # Data types
//!
//! Canonical names are those TVM FFI prints: `bool`, `int8`, `uint16`, `float32`, `bfloat16`,
//! `complex64`, `float8_e4m3fn`, `float6_e2m3fn`, `float4_e2m1fn`, `handle`, with lanes as a
//! suffix (`float32x4`). Codes whose width varies are spelt stem + bits (`int4`, `float16`);
//! codes whose width is fixed by the format are spelt by the stem alone (`bool` is 8 bits,
//! `float8_e5m2` is 8). Accepted aliases: `i`, `u`, `f`, `bf`, `c` for the stems `int`, `uint`,
//! `float`, `bfloat`, `complex` (`i32`, `u8`, `f32`, `bf16`, `c64`), and `fp8_`, `fp6_`, `fp4_`
//! for `float8_`, `float6_`, `float4_` (`fp8_e4m3fn`): the Rust spellings of DLPack's types.
//! That is the whole alias policy: other frameworks' words (`half`, `fp16`, `double`, `long`)
//! are not names, only suggestions (`aliases`), since one word means different types in
//! different places.
//!
//! # Devices
//!
//! `name` or `name:id` with a non-negative decimal id. Device types whose id selects one of
//! several devices (`cuda`, `rocm`, `opencl`, `vulkan`, `metal`, `oneapi`, `trn`, `tpu`,
//! `ascend`) always print the id (`cuda:0`); the others print the bare name when the id is 0
//! (`cpu`, `cuda_host`) and `name:id` otherwise. A bare indexed name parses as id 0, as in
//! TVM FFI.
//!
//! [`dlpack-core`]: https://docs.rs/dlpack-core
//! [`dlpack-derive`]: https://docs.rs/dlpack-derive
#![no_std]

mod aliases;
mod data_type;
mod device;
mod suggest;
mod tables;

pub use aliases::ForeignName;
pub use data_type::{
    DataTypeName, DataTypeNameError, DataTypeParts, InvalidDataType, check_data_type, code_by_name,
    data_type_name, data_type_parts, foreign_data_type, parse_data_type, write_data_type,
};
pub use device::{
    DeviceName, DeviceNameError, DeviceParts, InvalidDevice, check_device, device_name,
    device_parts, foreign_device, parse_device, write_device,
};
pub use suggest::{suggest, suggest_data_type, suggest_device};
pub use tables::{
    Bits, CODES, CodeInfo, DEVICES, DeviceInfo, NAMED_DATA_TYPES, NamedDataType, code_info,
    device_by_name, device_info,
};

/// A decimal number of at most 19 digits (so it fits a `u64`), with no sign or spaces.
fn parse_decimal(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 19 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(s.bytes().fold(0, |n, b| n * 10 + u64::from(b - b'0')))
}

#[cfg(test)]
mod tests {
    use core::fmt;

    /// A `fmt::Write` into a fixed buffer, for tests of the writers: this crate is `no_std`
    /// without `alloc`.
    pub(crate) struct Buf {
        bytes: [u8; 128],
        len: usize,
    }

    impl Buf {
        pub(crate) fn new() -> Self {
            Self {
                bytes: [0; 128],
                len: 0,
            }
        }

        pub(crate) fn as_str(&self) -> &str {
            core::str::from_utf8(&self.bytes[..self.len]).unwrap()
        }
    }

    impl fmt::Write for Buf {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let end = self.len + s.len();
            self.bytes
                .get_mut(self.len..end)
                .ok_or(fmt::Error)?
                .copy_from_slice(s.as_bytes());
            self.len = end;
            Ok(())
        }
    }

    #[test]
    fn decimals() {
        assert_eq!(super::parse_decimal("0"), Some(0));
        assert_eq!(
            super::parse_decimal("9999999999999999999"),
            Some(9_999_999_999_999_999_999)
        );
        assert_eq!(super::parse_decimal("10000000000000000000"), None);
        assert_eq!(super::parse_decimal("-1"), None);
        assert_eq!(super::parse_decimal("+1"), None);
        assert_eq!(super::parse_decimal(""), None);
    }

    /// The quiet parsers accept what the parsers accept, and nothing else.
    #[test]
    fn quiet_parses_agree_with_the_parsers() {
        let names = crate::NAMED_DATA_TYPES.iter().map(|named| named.name);
        let devices = crate::DEVICES.iter().map(|info| info.name);
        let odd = [
            "",
            "x",
            "f32",
            "bf16",
            "i8x4",
            "float32x4",
            "float32x0",
            "int",
            "bool8",
            "flaot32",
            "cuda:1",
            "cuda:",
            "cuda:-1",
            "cuda:99999999999",
            "cpu",
            "mps:0",
            "gpu",
            ":1",
            "float8_e4m3fnx2",
            "complex64",
            "uint4x",
            "half",
            "float",
            "fp8_e4m3fn",
        ];
        for s in names.chain(devices).chain(odd) {
            assert_eq!(
                super::data_type_parts(s),
                super::parse_data_type(s).ok(),
                "data type `{s}`"
            );
            assert_eq!(
                super::device_parts(s),
                super::parse_device(s).ok(),
                "device `{s}`"
            );
        }
    }
}
