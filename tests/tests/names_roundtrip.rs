//! `Display` → `FromStr` round-trips every valid `DataType` and `Device`, and `FromStr` never
//! panics and always explains itself.
//!
//! "Every" is literal where it is cheap: every known code with every width valid for it, and
//! every known device type, each at the boundary lane counts and ids. Lane counts (1..=65535)
//! and ids (0..=i32::MAX) are too many to enumerate for every code, so proptest samples them.

use dlpack_core::ffi::{DLDataTypeCode, DLDeviceType};
use dlpack_core::{DataType, Device, Error};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

/// Every known code with every width it allows, found through the public API.
fn valid_code_bits() -> Vec<(u8, u8)> {
    let mut all = Vec::new();
    for code in (0..=u8::MAX).filter(|&c| DLDataTypeCode(c).name().is_some()) {
        for bits in 0..=u8::MAX {
            if DataType::checked(DLDataTypeCode(code), bits, 1).is_ok() {
                all.push((code, bits));
            }
        }
    }
    all
}

/// Every known device type, found through the public API.
fn known_device_types() -> Vec<i32> {
    (-1024..=1024)
        .filter(|&t| DLDeviceType(t).name().is_some())
        .collect()
}

const BOUNDARY_LANES: &[u16] = &[1, 2, 3, 4, 8, 9, 10, 16, 255, 256, 1000, 65534, 65535];
const BOUNDARY_IDS: &[i32] = &[0, 1, 2, 9, 10, 255, 65535, i32::MAX - 1, i32::MAX];

/// Parses what `data_type` prints and checks that it gives the very same fields back, and that
/// printing again gives the same string.
fn assert_data_type_round_trips(data_type: DataType) {
    let printed = data_type.to_string();
    let parsed: DataType = printed.parse().unwrap_or_else(|e| {
        panic!("{data_type:?} prints as `{printed}`, which does not parse: {e}")
    });
    assert_eq!(
        (parsed.code, parsed.bits, parsed.lanes),
        (data_type.code, data_type.bits, data_type.lanes),
        "`{printed}`"
    );
    assert_eq!(parsed.to_string(), printed);
}

/// As above for devices: the exact (type, id) comes back, not merely an equal device.
fn assert_device_round_trips(device: Device) {
    let printed = device.to_string();
    let parsed: Device = printed
        .parse()
        .unwrap_or_else(|e| panic!("{device:?} prints as `{printed}`, which does not parse: {e}"));
    assert_eq!(
        (parsed.device_type, parsed.device_id),
        (device.device_type, device.device_id),
        "`{printed}`"
    );
    assert_eq!(parsed.to_string(), printed);
}

/// Whether an error reason tells the reader what would have been right.
fn says_what_was_expected(reason: &str) -> bool {
    ["expected", "as in `", "takes ", "must be ", "write `"]
        .iter()
        .any(|marker| reason.contains(marker))
}

/// Checks a parse error: it carries the input, its message quotes it, names the kind of value,
/// and says what was expected.
fn assert_explains(input: &str, err: &Error) {
    let message = err.to_string();
    let (carried, kind) = match err {
        Error::ParseDataType { input, .. } => (input, "data type"),
        Error::ParseDevice { input, .. } => (input, "device"),
        other => panic!("parsing `{input}` gave a non-parse error: {other:?}"),
    };
    assert_eq!(&**carried, input);
    let prefix = format!("`{input}` is not a {kind}: ");
    let reason = message
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{message:?} does not start with {prefix:?}"));
    assert!(
        says_what_was_expected(reason),
        "the error for `{input}` does not say what was expected: {message:?}"
    );
}

/// Parses `s` as both kinds of value; each either round-trips or explains itself.
fn check_any_string(s: &str) {
    match s.parse::<DataType>() {
        Ok(data_type) => {
            assert!(
                data_type.check().is_ok(),
                "`{s}` parsed to invalid {data_type:?}"
            );
            assert_data_type_round_trips(data_type);
        }
        Err(e) => assert_explains(s, &e),
    }
    match s.parse::<Device>() {
        Ok(device) => {
            assert!(device.check().is_ok(), "`{s}` parsed to invalid {device:?}");
            assert_device_round_trips(device);
        }
        Err(e) => assert_explains(s, &e),
    }
}

#[test]
fn the_valid_widths_are_those_dlpack_defines() {
    let widths = valid_code_bits();
    let count = |code: DLDataTypeCode| widths.iter().filter(|&&(c, _)| c == code.0).count();
    // Integers, IEEE floats and handles take any width from 1 to 255.
    for code in [
        DLDataTypeCode::INT,
        DLDataTypeCode::UINT,
        DLDataTypeCode::FLOAT,
        DLDataTypeCode::OPAQUE_HANDLE,
    ] {
        assert_eq!(count(code), 255, "{:?}", code.name());
    }
    // Complex takes two equal halves: 2, 4, …, 254.
    assert_eq!(count(DLDataTypeCode::COMPLEX), 127);
    // Every other code has one width, fixed by its format.
    let fixed = [
        (DLDataTypeCode::BFLOAT, 16),
        (DLDataTypeCode::BOOL, 8),
        (DLDataTypeCode::FLOAT8_E3M4, 8),
        (DLDataTypeCode::FLOAT8_E4M3, 8),
        (DLDataTypeCode::FLOAT8_E4M3B11FNUZ, 8),
        (DLDataTypeCode::FLOAT8_E4M3FN, 8),
        (DLDataTypeCode::FLOAT8_E4M3FNUZ, 8),
        (DLDataTypeCode::FLOAT8_E5M2, 8),
        (DLDataTypeCode::FLOAT8_E5M2FNUZ, 8),
        (DLDataTypeCode::FLOAT8_E8M0FNU, 8),
        (DLDataTypeCode::FLOAT6_E2M3FN, 6),
        (DLDataTypeCode::FLOAT6_E3M2FN, 6),
        (DLDataTypeCode::FLOAT4_E2M1FN, 4),
        (DLDataTypeCode::BCOMPLEX, 32),
    ];
    for (code, bits) in fixed {
        let only: Vec<u8> = widths
            .iter()
            .filter(|&&(c, _)| c == code.0)
            .map(|&(_, b)| b)
            .collect();
        assert_eq!(only, [bits], "{:?}", code.name());
    }
    assert_eq!(widths.len(), 4 * 255 + 127 + fixed.len());
}

#[test]
fn every_code_and_width_round_trips_at_boundary_lanes() {
    let widths = valid_code_bits();
    for &(code, bits) in &widths {
        for &lanes in BOUNDARY_LANES {
            assert_data_type_round_trips(DataType::new(DLDataTypeCode(code), bits, lanes));
        }
    }
}

#[test]
fn every_device_type_round_trips_at_boundary_ids() {
    let types = known_device_types();
    assert_eq!(types.len(), 19, "known device types: {types:?}");
    for &device_type in &types {
        for &id in BOUNDARY_IDS {
            assert_device_round_trips(Device::new(DLDeviceType(device_type), id));
        }
    }
}

#[test]
fn edge_strings_explain_themselves() {
    for s in [
        "",
        " ",
        ":",
        "x",
        "x4",
        "float",
        "float32x",
        "float32x0",
        "float32x65536",
        "int0",
        "int256",
        "bfloat0",
        "bool8",
        "complex33",
        "handle0",
        "cuda:",
        "cuda:-1",
        "cuda:+1",
        "cuda:2147483648",
        "cpu:0:0",
        "CUDA:0",
        "cuda :0",
        "float32 ",
        "\u{0}",
        "é",
        "float32x4x4",
        "float8_e4m3fnx",
        "fp8_",
        "bf",
        "i",
        "uint",
        "cuda:99999999999999999999999",
    ] {
        check_any_string(s);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 4096,
        // Next to this file: proptest's default looks for a `lib.rs`, which a test target lacks.
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_valid_data_type_round_trips(
        (code, bits) in prop::sample::select(valid_code_bits()),
        lanes in 1..=u16::MAX,
    ) {
        assert_data_type_round_trips(DataType::new(DLDataTypeCode(code), bits, lanes));
    }

    #[test]
    fn every_valid_device_round_trips(
        device_type in prop::sample::select(known_device_types()),
        id in 0..=i32::MAX,
    ) {
        assert_device_round_trips(Device::new(DLDeviceType(device_type), id));
    }

    /// Any triple either is valid and round-trips, or prints as something no parser accepts.
    #[test]
    fn invalid_data_types_never_print_a_valid_name(code: u8, bits: u8, lanes: u16) {
        let data_type = DataType::new(DLDataTypeCode(code), bits, lanes);
        if data_type.check().is_ok() {
            assert_data_type_round_trips(data_type);
        } else {
            let printed = data_type.to_string();
            prop_assert!(printed.parse::<DataType>().is_err(), "{printed}");
        }
    }

    #[test]
    fn invalid_devices_never_print_a_valid_name(device_type: i32, id: i32) {
        let device = Device::new(DLDeviceType(device_type), id);
        if device.check().is_ok() {
            assert_device_round_trips(device);
        } else {
            let printed = device.to_string();
            prop_assert!(printed.parse::<Device>().is_err(), "{printed}");
        }
    }

    #[test]
    fn arbitrary_strings_never_panic_and_explain_themselves(s in any::<String>()) {
        check_any_string(&s);
    }

    /// Strings over the grammar's own alphabet reach deeper into the parser than random
    /// Unicode does.
    #[test]
    fn near_miss_strings_never_panic_and_explain_themselves(s in "[a-z0-9_:x-]{0,24}") {
        check_any_string(&s);
    }

    /// One edit away from a valid name: the typos users make.
    #[test]
    fn one_edit_from_a_valid_name(
        (code, bits) in prop::sample::select(valid_code_bits()),
        lanes in prop::sample::select(BOUNDARY_LANES.to_vec()),
        device_type in prop::sample::select(known_device_types()),
        id in prop::sample::select(BOUNDARY_IDS.to_vec()),
        at in any::<prop::sample::Index>(),
        edit in 0..3u8,
        c in "[a-z0-9_:x-]",
    ) {
        let names = [
            DataType::new(DLDataTypeCode(code), bits, lanes).to_string(),
            Device::new(DLDeviceType(device_type), id).to_string(),
        ];
        for name in names {
            let mut chars: Vec<char> = name.chars().collect();
            let i = at.index(chars.len() + 1);
            match edit {
                0 => chars.insert(i, c.chars().next().unwrap()),
                1 if i < chars.len() => { chars.remove(i); }
                _ if i < chars.len() => chars[i] = c.chars().next().unwrap(),
                _ => chars.push(c.chars().next().unwrap()),
            }
            let edited: String = chars.into_iter().collect();
            check_any_string(&edited);
        }
    }
}
