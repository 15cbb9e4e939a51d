//! Our canonical spellings against what the real peers print.
//!
//! `tests/data/peers.json` was recorded by calling apache-tvm-ffi 0.1.15.post2 and
//! paddlepaddle 3.3.1 from PyPI (see its `source` field): TVM FFI's string for 58
//! (code, bits, lanes) triples and for every device type it knows at ids 0 and 1, whether TVM
//! FFI parses its own device string back, and PaddlePaddle's `__dlpack_data_type__()` for its
//! 17 dtypes. Where our spelling deliberately differs from TVM FFI's, the tables below say so
//! and why; everywhere else the strings must be equal.

use std::collections::BTreeSet;

use dlpack_core::ffi::DLDeviceType;
use dlpack_core::{DataType, Device};
use serde_json::Value;

const PEERS: &str = include_str!("../data/peers.json");

/// A value we print differently from TVM FFI, on purpose.
struct Difference<K> {
    /// (code, bits, lanes) or (device_type, device_id).
    value: K,
    tvm_ffi: &'static str,
    ours: &'static str,
    why: &'static str,
}

const fn differ<K>(
    value: K,
    tvm_ffi: &'static str,
    ours: &'static str,
    why: &'static str,
) -> Difference<K> {
    Difference {
        value,
        tvm_ffi,
        ours,
        why,
    }
}

/// Data types we print differently from TVM FFI.
const DATA_TYPE_DIFFERENCES: &[Difference<(u8, u8, u16)>] = &[differ(
    (3, 64, 4),
    "handle",
    "handlex4",
    "TVM FFI drops the lanes of a handle vector (a TVM bug: its `handle` names one lane); \
     we keep them, so the name parses back to the same value",
)];

/// Why host-side kinds print without an id.
const HOST_SIDE: &str = "host-side memory: dlpack.h sets its device_id to 0, so we print the \
                         bare name for id 0 (and `name:n` for any other id)";
/// Why the other non-indexed kinds print without an id.
const NOT_INDEXED: &str = "not an indexed device type in our grammar (the design spells it \
                           bare): id 0 prints as the bare name, any other id as `name:n`";

/// Devices we print differently from TVM FFI.
const DEVICE_DIFFERENCES: &[Difference<(i32, i32)>] = &[
    differ((1, 0), "cpu:0", "cpu", HOST_SIDE),
    differ((3, 0), "cuda_host:0", "cuda_host", HOST_SIDE),
    differ((9, 0), "vpi:0", "vpi", NOT_INDEXED),
    differ((11, 0), "rocm_host:0", "rocm_host", HOST_SIDE),
    differ((12, 0), "ext_dev:0", "ext_dev", NOT_INDEXED),
    differ((13, 0), "cuda_managed:0", "cuda_managed", HOST_SIDE),
    differ((15, 0), "webgpu:0", "webgpu", NOT_INDEXED),
    differ((16, 0), "hexagon:0", "hexagon", NOT_INDEXED),
    differ((17, 0), "maia:0", "maia", NOT_INDEXED),
];

/// The device names TVM FFI prints but cannot parse back (recorded as `tvm_ffi_parses_back:
/// false`); we parse them all.
const TVM_FFI_CANNOT_PARSE: &[&str] = &["cuda_host", "rocm_host", "cuda_managed", "oneapi"];

/// The named data types of DLPack 1.3, each of which the recording must cover.
const NAMED_1_3: &[DataType] = &[
    DataType::BOOL,
    DataType::I8,
    DataType::I16,
    DataType::I32,
    DataType::I64,
    DataType::U8,
    DataType::U16,
    DataType::U32,
    DataType::U64,
    DataType::F16,
    DataType::BF16,
    DataType::F32,
    DataType::F64,
    DataType::FLOAT8_E3M4,
    DataType::FLOAT8_E4M3,
    DataType::FLOAT8_E4M3B11FNUZ,
    DataType::FLOAT8_E4M3FN,
    DataType::FLOAT8_E4M3FNUZ,
    DataType::FLOAT8_E5M2,
    DataType::FLOAT8_E5M2FNUZ,
    DataType::FLOAT8_E8M0FNU,
    DataType::FLOAT6_E2M3FN,
    DataType::FLOAT6_E3M2FN,
    DataType::FLOAT4_E2M1FN,
    DataType::HANDLE,
    // Not in the recording: `complex64`/`complex128` (the Paddle table below pins those), and
    // `bcomplex32`, added upstream after 1.3.
];

fn peers() -> Value {
    serde_json::from_str(PEERS).expect("tests/data/peers.json is JSON")
}

fn rows<'a>(peers: &'a Value, key: &str) -> &'a [Value] {
    peers[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} is a list"))
}

fn int<T: TryFrom<i64>>(row: &Value, key: &str) -> T {
    let n = row[key]
        .as_i64()
        .unwrap_or_else(|| panic!("{key} in {row}"));
    T::try_from(n).unwrap_or_else(|_| panic!("{key} out of range in {row}"))
}

fn string<'a>(row: &'a Value, key: &str) -> &'a str {
    row[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} in {row}"))
}

#[test]
fn data_type_names_match_tvm_ffi() {
    let peers = peers();
    let rows = rows(&peers, "tvm_ffi_dtype_strings");
    assert_eq!(rows.len(), 58);
    let mut differences_seen = BTreeSet::new();
    for row in rows {
        let triple: (u8, u8, u16) = (int(row, "code"), int(row, "bits"), int(row, "lanes"));
        let data_type = DataType::from(triple);
        let tvm = string(row, "tvm_ffi");
        let ours = data_type.to_string();
        match DATA_TYPE_DIFFERENCES.iter().find(|d| d.value == triple) {
            Some(d) => {
                assert_eq!(tvm, d.tvm_ffi, "the recording changed for {triple:?}");
                assert_eq!(ours, d.ours, "{triple:?}: {}", d.why);
                differences_seen.insert(triple);
            }
            None => assert_eq!(ours, tvm, "{triple:?}"),
        }
        // We parse what we print back to the very same value.
        let parsed: DataType = ours.parse().unwrap();
        assert_eq!(parsed, data_type);
        assert_eq!(<(u8, u8, u16)>::from(parsed), triple, "`{ours}`");
    }
    assert_eq!(
        differences_seen.len(),
        DATA_TYPE_DIFFERENCES.len(),
        "a listed difference is not in the recording"
    );
    // What TVM FFI prints for the handle vector names a different value: one lane.
    assert_eq!("handle".parse::<DataType>().unwrap(), DataType::HANDLE);

    // The recording covers every named data type of 1.3.
    let recorded: BTreeSet<(u8, u8, u16)> = rows
        .iter()
        .map(|r| (int(r, "code"), int(r, "bits"), int(r, "lanes")))
        .collect();
    for named in NAMED_1_3 {
        assert!(
            recorded.contains(&(*named).into()),
            "{named} is not recorded"
        );
    }
}

#[test]
fn device_names_match_tvm_ffi_and_we_parse_every_one() {
    let peers = peers();
    let rows = rows(&peers, "tvm_ffi_device_strings");
    let mut differences_seen = BTreeSet::new();
    let mut unparseable_by_tvm = BTreeSet::new();
    for row in rows {
        let pair: (i32, i32) = (int(row, "device_type"), int(row, "device_id"));
        let device = Device::from(pair);
        let tvm = string(row, "tvm_ffi");
        let ours = device.to_string();
        match DEVICE_DIFFERENCES.iter().find(|d| d.value == pair) {
            Some(d) => {
                assert_eq!(tvm, d.tvm_ffi, "the recording changed for {pair:?}");
                assert_eq!(ours, d.ours, "{pair:?}: {}", d.why);
                differences_seen.insert(pair);
            }
            None => assert_eq!(ours, tvm, "{pair:?}"),
        }
        // We parse our spelling and TVM FFI's back to the exact (type, id), including the
        // names TVM FFI itself cannot parse.
        for s in [ours.as_str(), tvm] {
            let parsed: Device = s
                .parse()
                .unwrap_or_else(|e| panic!("`{s}` ({pair:?}) does not parse: {e}"));
            assert_eq!(<(i32, i32)>::from(parsed), pair, "`{s}`");
        }
        if !row["tvm_ffi_parses_back"].as_bool().unwrap() {
            unparseable_by_tvm.insert(device.device_type.name().unwrap());
        }
    }
    assert_eq!(differences_seen.len(), DEVICE_DIFFERENCES.len());
    assert_eq!(
        unparseable_by_tvm,
        TVM_FFI_CANNOT_PARSE.iter().copied().collect(),
        "the names TVM FFI cannot parse back"
    );

    // The recording covers every device type of 1.3 at ids 0 and 1, and none of the three
    // added upstream after 1.3 (tpu, tpu_host, ascend).
    let recorded: BTreeSet<(i32, i32)> = rows
        .iter()
        .map(|r| (int(r, "device_type"), int(r, "device_id")))
        .collect();
    let post_1_3 = [
        DLDeviceType::TPU,
        DLDeviceType::TPU_HOST,
        DLDeviceType::ASCEND,
    ];
    for device_type in (0..=255).map(DLDeviceType).filter(|t| t.name().is_some()) {
        for id in [0, 1] {
            assert_eq!(
                recorded.contains(&(device_type.0, id)),
                !post_1_3.contains(&device_type),
                "{:?}:{id}",
                device_type.name()
            );
        }
    }
}

#[test]
fn paddle_dtypes_parse_to_what_paddle_reports() {
    let peers = peers();
    let dtypes = rows(&peers, "paddle_dtypes");
    assert_eq!(dtypes.len(), 17);
    for row in dtypes {
        let name = string(row, "paddle");
        let reported: Vec<i64> = row["dlpack"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        let ours: DataType = name
            .parse()
            .unwrap_or_else(|e| panic!("paddle.{name}: {e}"));
        assert_eq!(
            reported,
            [
                i64::from(ours.code.0),
                i64::from(ours.bits),
                i64::from(ours.lanes)
            ],
            "paddle.{name}.__dlpack_data_type__() against \"{name}\".parse::<DataType>()"
        );
        // Paddle's names are our canonical spellings.
        assert_eq!(ours.to_string(), name);
    }
    for row in rows(&peers, "paddle_places") {
        let reported = (
            row["dlpack"][0].as_i64().unwrap(),
            row["dlpack"][1].as_i64().unwrap(),
        );
        assert_eq!(string(row, "paddle"), "CPUPlace()");
        let cpu = Device::CPU;
        assert_eq!(
            reported,
            (i64::from(cpu.device_type.0), i64::from(cpu.device_id))
        );
    }
}
