//! Every constant and constructor that dlpack-core generates from dlpack-grammar's tables,
//! checked in one table test instead of one doctest each.
//!
//! `DataType::F32` … come from `named!` (`src/data_type/mod.rs`) over
//! `for_each_named_data_type!`; `Device::CPU`, `Device::cuda(id)` … from `constructors!`
//! (`src/device/mod.rs`) over `for_each_device_type!`, and `DLDataTypeCode::FLOAT` … and
//! `DLDeviceType::CUDA` … from `named_values!` (`src/ffi/code.rs`) over `for_each_code!` and
//! `for_each_device_type!`. The lists below are expanded from those same
//! grammar macros, naming each generated item explicitly (`DataType::$name`, `Device::$ctor`),
//! so a new table row is checked without touching this file, and a row whose item is missing
//! does not compile. Each list is also held against the grammar's runtime tables
//! (`NAMED_DATA_TYPES`, `DEVICES`), row by row, and a few values are pinned by hand below, so
//! that a table and a macro cannot agree on a wrong value between themselves.

use dlpack_core::ffi::{DLDataTypeCode, DLDeviceType};
use dlpack_core::{DataType, Device};

/// One `DataType` constant and the row of `for_each_named_data_type!` it was generated from.
struct NamedRow {
    item: &'static str,
    constant: DataType,
    name: &'static str,
    code: DLDataTypeCode,
    bits: u8,
}

macro_rules! named_rows {
    ($($(#[$doc:meta])* $name:ident = $str:literal, $code:ident, $bits:literal;)*) => {
        vec![$(NamedRow {
            item: concat!("DataType::", stringify!($name)),
            constant: DataType::$name,
            name: $str,
            code: DLDataTypeCode::$code,
            bits: $bits,
        }),*]
    };
}

fn named_rows() -> Vec<NamedRow> {
    dlpack_grammar::for_each_named_data_type!(named_rows)
}

/// What `constructors!` makes of a row: a constant with id 0, or a `const fn` taking the id.
#[derive(Clone, Copy)]
enum Made {
    Constant(Device),
    Constructor(fn(i32) -> Device),
}

/// One `Device` item and the row of `for_each_device_type!` it was generated from.
struct DeviceRow {
    item: &'static str,
    made: Made,
    device_type: DLDeviceType,
    value: i32,
    name: &'static str,
    kind: &'static str,
}

macro_rules! device_rows {
    ($($(#[$doc:meta])* $name:ident = $value:literal, $str:literal, $c_name:literal, $kind:ident $($ctor:ident)?;)*) => {
        vec![$(device_row!($kind $($ctor)?, $name, $value, $str)),*]
    };
}

macro_rules! device_row {
    (indexed $ctor:ident, $name:ident, $value:literal, $str:literal) => {
        DeviceRow {
            item: concat!("Device::", stringify!($ctor)),
            made: Made::Constructor(Device::$ctor),
            device_type: DLDeviceType::$name,
            value: $value,
            name: $str,
            kind: "indexed",
        }
    };
    ($kind:ident, $name:ident, $value:literal, $str:literal) => {
        DeviceRow {
            item: concat!("Device::", stringify!($name)),
            made: Made::Constant(Device::$name),
            device_type: DLDeviceType::$name,
            value: $value,
            name: $str,
            kind: stringify!($kind),
        }
    };
}

fn device_rows() -> Vec<DeviceRow> {
    dlpack_grammar::for_each_device_type!(device_rows)
}

/// A device as its two fields: `Device`'s `PartialEq` ignores the id of host-side memory.
fn fields(device: Device) -> (DLDeviceType, i32) {
    (device.device_type, device.device_id)
}

#[test]
fn every_named_data_type_constant() {
    let rows = named_rows();
    let table = dlpack_grammar::NAMED_DATA_TYPES;
    assert_eq!(
        rows.len(),
        table.len(),
        "rows expanded here against NAMED_DATA_TYPES"
    );
    for (row, entry) in rows.iter().zip(table) {
        let item = row.item;
        assert_eq!(
            (row.name, row.code.0, row.bits),
            (entry.name, entry.code, entry.bits),
            "{item}: the macro's row against NAMED_DATA_TYPES"
        );
        let c = row.constant;
        assert_eq!(
            (c.code, c.bits, c.lanes),
            (row.code, row.bits, 1),
            "{item}: (code, bits, lanes)"
        );
        assert_eq!(c.to_string(), row.name, "{item}: Display");
        assert_eq!(
            row.name.parse::<DataType>(),
            Ok(c),
            "{item}: FromStr of {:?}",
            row.name
        );
        assert!(c.check().is_ok(), "{item}: a valid data type");
    }
    let mut names: Vec<_> = rows.iter().map(|row| row.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), rows.len(), "two constants with one name");
}

#[test]
fn every_device_constant_and_constructor() {
    let rows = device_rows();
    let table = dlpack_grammar::DEVICES;
    assert_eq!(
        rows.len(),
        table.len(),
        "rows expanded here against DEVICES"
    );
    for (row, entry) in rows.iter().zip(table) {
        let item = row.item;
        assert_eq!(
            (
                row.value,
                row.name,
                row.kind == "indexed",
                row.kind == "host"
            ),
            (
                entry.device_type,
                entry.name,
                entry.indexed,
                entry.host_side
            ),
            "{item}: the macro's row against DEVICES"
        );
        assert_eq!(
            row.device_type,
            DLDeviceType(row.value),
            "{item}: DLDeviceType constant"
        );
        let name = row.name;
        match row.made {
            Made::Constant(device) => {
                assert_eq!(
                    fields(device),
                    (row.device_type, 0),
                    "{item}: (device_type, device_id)"
                );
                assert_eq!(device.to_string(), name, "{item}: Display");
                let parsed = name.parse::<Device>();
                assert_eq!(
                    parsed.map(fields),
                    Ok(fields(device)),
                    "{item}: FromStr of {name:?}"
                );
                assert_eq!(
                    device.is_host_side(),
                    row.kind == "host",
                    "{item}: host side"
                );
            }
            Made::Constructor(make) => {
                for id in [0, 1, 7] {
                    let device = make(id);
                    let shown = format!("{name}:{id}");
                    assert_eq!(fields(device), (row.device_type, id), "{item}({id})");
                    assert_eq!(device.to_string(), shown, "{item}({id}): Display");
                    let parsed = shown.parse::<Device>();
                    assert_eq!(
                        parsed.map(fields),
                        Ok((row.device_type, id)),
                        "{item}({id}): FromStr of {shown:?}"
                    );
                    assert!(!device.is_host_side(), "{item}({id}): not host side");
                }
            }
        }
    }
}

/// A few values written out by hand, outside the tables: a row wrong in the grammar itself would
/// otherwise pass above, its constant being wrong the same way.
#[test]
fn pinned_by_hand() {
    for (constant, triple, name) in [
        (DataType::BOOL, (6, 8, 1), "bool"),
        (DataType::I64, (0, 64, 1), "int64"),
        (DataType::U8, (1, 8, 1), "uint8"),
        (DataType::F16, (2, 16, 1), "float16"),
        (DataType::BF16, (4, 16, 1), "bfloat16"),
        (DataType::F32, (2, 32, 1), "float32"),
        (DataType::C64, (5, 64, 1), "complex64"),
        (DataType::FLOAT8_E4M3FN, (10, 8, 1), "float8_e4m3fn"),
        (DataType::FLOAT4_E2M1FN, (17, 4, 1), "float4_e2m1fn"),
        (DataType::HANDLE, (3, 64, 1), "handle"),
    ] {
        assert_eq!(
            (constant.code.0, constant.bits, constant.lanes),
            triple,
            "{name}"
        );
        assert_eq!(constant.to_string(), name);
    }
    for (device, pair, shown) in [
        (Device::CPU, (1, 0), "cpu"),
        (Device::cuda(1), (2, 1), "cuda:1"),
        (Device::CUDA_HOST, (3, 0), "cuda_host"),
        (Device::rocm(0), (10, 0), "rocm:0"),
        (Device::WEBGPU, (15, 0), "webgpu"),
        (Device::ascend(3), (21, 3), "ascend:3"),
    ] {
        assert_eq!((device.device_type.0, device.device_id), pair, "{shown}");
        assert_eq!(device.to_string(), shown);
    }
}

/// One named value of a code newtype (`named_values!` in `src/ffi/code.rs`) and its row.
struct CodeRow {
    item: &'static str,
    value: i64,
    expected: i64,
    name: Option<&'static str>,
    expected_name: &'static str,
}

macro_rules! code_rows {
    ($($(#[$doc:meta])* $name:ident = $value:literal, $stem:literal, $c_name:literal, $bits:ident $(($n:literal))?;)*) => {
        vec![$(CodeRow {
            item: concat!("DLDataTypeCode::", stringify!($name)),
            value: i64::from(DLDataTypeCode::$name.0),
            expected: $value,
            name: DLDataTypeCode::$name.name(),
            expected_name: $stem,
        }),*]
    };
}

macro_rules! device_type_rows {
    ($($(#[doc = $desc:literal])* $name:ident = $value:literal, $str:literal, $c_name:literal, $kind:ident $($ctor:ident)?;)*) => {
        vec![$(CodeRow {
            item: concat!("DLDeviceType::", stringify!($name)),
            value: i64::from(DLDeviceType::$name.0),
            expected: $value,
            name: DLDeviceType::$name.name(),
            expected_name: $str,
        }),*]
    };
}

#[test]
fn every_named_code_and_device_type() {
    let codes: Vec<CodeRow> = dlpack_grammar::for_each_code!(code_rows);
    let device_types: Vec<CodeRow> = dlpack_grammar::for_each_device_type!(device_type_rows);
    assert_eq!(codes.len(), dlpack_grammar::CODES.len());
    assert_eq!(device_types.len(), dlpack_grammar::DEVICES.len());
    for row in codes.iter().chain(&device_types) {
        assert_eq!(row.value, row.expected, "{}", row.item);
        assert_eq!(row.name, Some(row.expected_name), "{}", row.item);
    }
    // Pinned by hand, so that the table and the macro cannot agree on a wrong value.
    assert_eq!(DLDataTypeCode::FLOAT.0, 2);
    assert_eq!(DLDataTypeCode::BOOL.0, 6);
    assert_eq!(DLDataTypeCode::FLOAT8_E4M3FN.0, 10);
    assert_eq!(DLDataTypeCode::FLOAT4_E2M1FN.0, 17);
    assert_eq!(DLDeviceType::CUDA.0, 2);
    assert_eq!(DLDeviceType::CUDA_HOST.0, 3);
    assert_eq!(DLDeviceType::ROCM.0, 10);
    assert_eq!(DLDeviceType::CUDA_MANAGED.0, 13);
}
