//! The ABI of `dlpack_core::ffi` against the official C headers.
//!
//! Each test writes a C program that prints `sizeof`, `_Alignof` and `offsetof` of every DLPack
//! struct and field and the value of every enumerator and flag macro, compiles it with the C
//! compiler (`$CC`, or `cc`) against a real `dlpack.h`, runs it, and compares every number with
//! what Rust says (`size_of`, `align_of`, `offset_of!`, the `ffi` constants).
//!
//! - DLPack 1.3: the header shipped in the `apache-tvm-ffi` wheel, from `$DLPACK_H` or found
//!   by asking Python where `tvm_ffi` is installed (`$PYTHON`, or `python3`; install it with
//!   `pip install apache-tvm-ffi`).
//! - DLPack 0.7, for the legacy structs: the header bundled in the `dlpack-sys` 0.1 crate, from
//!   `$DLPACK_SYS_H` or found in cargo's registry (`cargo fetch` puts it there).
//!
//! Where a header or the C compiler cannot be had, the test prints a `SKIPPED` line saying why
//! and passes; with `DLPACK_ABI_REQUIRED=1` (set by CI) it fails instead. It never passes
//! without saying which of the two happened.

mod c;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::mem::{align_of, offset_of, size_of};

use c::{assert_same_names, compare, evaluate_in_c, header_0_7, header_1_3, identifiers, skip};

use dlpack_core::ffi::{
    self, DLDataTypeCode, DLDeviceType, DLPACK_FLAG_BITMASK_IS_COPIED,
    DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED, DLPACK_FLAG_BITMASK_READ_ONLY,
    DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION,
};

/// Every enumerator of DLPack 1.3 with the Rust constant that stands for it.
const ENUMERATORS_1_3: &[(&str, i64)] = &[
    ("kDLCPU", DLDeviceType::CPU.0 as i64),
    ("kDLCUDA", DLDeviceType::CUDA.0 as i64),
    ("kDLCUDAHost", DLDeviceType::CUDA_HOST.0 as i64),
    ("kDLOpenCL", DLDeviceType::OPENCL.0 as i64),
    ("kDLVulkan", DLDeviceType::VULKAN.0 as i64),
    ("kDLMetal", DLDeviceType::METAL.0 as i64),
    ("kDLVPI", DLDeviceType::VPI.0 as i64),
    ("kDLROCM", DLDeviceType::ROCM.0 as i64),
    ("kDLROCMHost", DLDeviceType::ROCM_HOST.0 as i64),
    ("kDLExtDev", DLDeviceType::EXT_DEV.0 as i64),
    ("kDLCUDAManaged", DLDeviceType::CUDA_MANAGED.0 as i64),
    ("kDLOneAPI", DLDeviceType::ONEAPI.0 as i64),
    ("kDLWebGPU", DLDeviceType::WEBGPU.0 as i64),
    ("kDLHexagon", DLDeviceType::HEXAGON.0 as i64),
    ("kDLMAIA", DLDeviceType::MAIA.0 as i64),
    ("kDLTrn", DLDeviceType::TRN.0 as i64),
    ("kDLInt", DLDataTypeCode::INT.0 as i64),
    ("kDLUInt", DLDataTypeCode::UINT.0 as i64),
    ("kDLFloat", DLDataTypeCode::FLOAT.0 as i64),
    ("kDLOpaqueHandle", DLDataTypeCode::OPAQUE_HANDLE.0 as i64),
    ("kDLBfloat", DLDataTypeCode::BFLOAT.0 as i64),
    ("kDLComplex", DLDataTypeCode::COMPLEX.0 as i64),
    ("kDLBool", DLDataTypeCode::BOOL.0 as i64),
    ("kDLFloat8_e3m4", DLDataTypeCode::FLOAT8_E3M4.0 as i64),
    ("kDLFloat8_e4m3", DLDataTypeCode::FLOAT8_E4M3.0 as i64),
    (
        "kDLFloat8_e4m3b11fnuz",
        DLDataTypeCode::FLOAT8_E4M3B11FNUZ.0 as i64,
    ),
    ("kDLFloat8_e4m3fn", DLDataTypeCode::FLOAT8_E4M3FN.0 as i64),
    (
        "kDLFloat8_e4m3fnuz",
        DLDataTypeCode::FLOAT8_E4M3FNUZ.0 as i64,
    ),
    ("kDLFloat8_e5m2", DLDataTypeCode::FLOAT8_E5M2.0 as i64),
    (
        "kDLFloat8_e5m2fnuz",
        DLDataTypeCode::FLOAT8_E5M2FNUZ.0 as i64,
    ),
    ("kDLFloat8_e8m0fnu", DLDataTypeCode::FLOAT8_E8M0FNU.0 as i64),
    ("kDLFloat6_e2m3fn", DLDataTypeCode::FLOAT6_E2M3FN.0 as i64),
    ("kDLFloat6_e3m2fn", DLDataTypeCode::FLOAT6_E3M2FN.0 as i64),
    ("kDLFloat4_e2m1fn", DLDataTypeCode::FLOAT4_E2M1FN.0 as i64),
];

/// Enumerators added upstream after the 1.3 release, with the values upstream gave them and the
/// row of the table in `dlpack-grammar/src/tables.rs` (from which `ffi` generates the
/// constants and their docs) that must document them as post-1.3: (C name, upstream value,
/// Rust value, declaration).
const POST_1_3: &[(&str, i64, i64, &str)] = &[
    (
        "kDLBcomplex",
        18,
        DLDataTypeCode::BCOMPLEX.0 as i64,
        "BCOMPLEX = ",
    ),
    ("kDLTPU", 19, DLDeviceType::TPU.0 as i64, "TPU = "),
    (
        "kDLTPUHost",
        20,
        DLDeviceType::TPU_HOST.0 as i64,
        "TPU_HOST = ",
    ),
    ("kDLAscend", 21, DLDeviceType::ASCEND.0 as i64, "ASCEND = "),
];

/// The flag macros of DLPack 1.3 with their Rust constants.
const FLAGS: &[(&str, u64)] = &[
    (
        "DLPACK_FLAG_BITMASK_READ_ONLY",
        DLPACK_FLAG_BITMASK_READ_ONLY,
    ),
    (
        "DLPACK_FLAG_BITMASK_IS_COPIED",
        DLPACK_FLAG_BITMASK_IS_COPIED,
    ),
    (
        "DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED",
        DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED,
    ),
];

/// A C expression and the value Rust gives it.
pub(crate) struct Fact {
    pub(crate) c_expr: String,
    pub(crate) rust: i64,
}

/// Size and alignment of the type a field accessor returns: the Rust side of
/// `sizeof(((T *)0)->field)` and `_Alignof(__typeof__(((T *)0)->field))`.
fn field_layout<T, F>(_field: impl Fn(&T) -> &F) -> (usize, usize) {
    (size_of::<F>(), align_of::<F>())
}

/// Facts about a struct: its size and alignment, and each listed field's offset, size and
/// alignment. The C type and the Rust type have the same name.
macro_rules! layout {
    ($facts:ident, $ty:ident { $($field:ident),+ $(,)? }) => {{
        let ty = stringify!($ty);
        $facts.push(fact(format!("sizeof({ty})"), size_of::<ffi::$ty>()));
        $facts.push(fact(format!("_Alignof({ty})"), align_of::<ffi::$ty>()));
        $(
            let field = stringify!($field);
            let (size, align) = field_layout(|t: &ffi::$ty| &t.$field);
            $facts.push(fact(format!("offsetof({ty}, {field})"), offset_of!(ffi::$ty, $field)));
            $facts.push(fact(format!("sizeof((({ty} *)0)->{field})"), size));
            $facts.push(fact(format!("_Alignof(__typeof__((({ty} *)0)->{field}))"), align));
        )+
    }};
}

fn fact(c_expr: String, rust: usize) -> Fact {
    Fact {
        c_expr,
        rust: i64::try_from(rust).unwrap(),
    }
}

/// The structs both headers have.
fn legacy_layout_facts() -> Vec<Fact> {
    let mut facts = Vec::new();
    layout!(
        facts,
        DLDevice {
            device_type,
            device_id
        }
    );
    layout!(facts, DLDataType { code, bits, lanes });
    layout!(
        facts,
        DLTensor {
            data,
            device,
            ndim,
            dtype,
            shape,
            strides,
            byte_offset
        }
    );
    layout!(
        facts,
        DLManagedTensor {
            dl_tensor,
            manager_ctx,
            deleter
        }
    );
    // The C enum is the type of `DLDevice::device_type`; the newtype must match it.
    facts.push(fact(
        "sizeof(DLDeviceType)".into(),
        size_of::<DLDeviceType>(),
    ));
    facts
}

/// Everything DLPack 1.3 declares.
fn layout_facts_1_3() -> Vec<Fact> {
    let mut facts = legacy_layout_facts();
    layout!(facts, DLPackVersion { major, minor });
    layout!(
        facts,
        DLManagedTensorVersioned {
            version,
            manager_ctx,
            deleter,
            flags,
            dl_tensor
        }
    );
    layout!(facts, DLPackExchangeAPIHeader { version, prev_api });
    layout!(
        facts,
        DLPackExchangeAPI {
            header,
            managed_tensor_allocator,
            managed_tensor_from_py_object_no_sync,
            managed_tensor_to_py_object_no_sync,
            dltensor_from_py_object_no_sync,
            current_work_stream,
        }
    );
    for &(name, value) in FLAGS {
        facts.push(Fact {
            c_expr: name.into(),
            rust: i64::try_from(value).unwrap(),
        });
    }
    facts.push(Fact {
        c_expr: "DLPACK_MAJOR_VERSION".into(),
        rust: DLPACK_MAJOR_VERSION.into(),
    });
    facts.push(Fact {
        c_expr: "DLPACK_MINOR_VERSION".into(),
        rust: DLPACK_MINOR_VERSION.into(),
    });
    facts
}

/// Every known code and device type has an entry in the tables above, so a constant added to
/// `ffi` without a C counterpart is noticed.
#[test]
fn the_tables_cover_every_known_code_and_device_type() {
    let codes: BTreeSet<i64> = (0..=u8::MAX)
        .filter(|&c| DLDataTypeCode(c).name().is_some())
        .map(i64::from)
        .collect();
    let devices: BTreeSet<i64> = (-1024..=1024)
        .filter(|&t| DLDeviceType(t).name().is_some())
        .map(i64::from)
        .collect();
    let all = ENUMERATORS_1_3
        .iter()
        .copied()
        .chain(POST_1_3.iter().map(|&(name, _, value, _)| (name, value)));
    let (listed_codes, listed_devices): (Vec<_>, Vec<_>) =
        all.partition(|(name, _)| is_code_enumerator(name));
    let values = |list: Vec<(&str, i64)>| list.into_iter().map(|(_, v)| v).collect::<BTreeSet<_>>();
    assert_eq!(values(listed_codes), codes, "data type codes");
    assert_eq!(values(listed_devices), devices, "device types");
    for &(name, upstream, rust, _) in POST_1_3 {
        assert_eq!(rust, upstream, "{name} has upstream value {upstream}");
    }
}

/// Whether an enumerator is a `DLDataTypeCode` (rather than a `DLDeviceType`).
fn is_code_enumerator(name: &str) -> bool {
    const CODES: &[&str] = &[
        "kDLInt",
        "kDLUInt",
        "kDLOpaqueHandle",
        "kDLBfloat",
        "kDLComplex",
        "kDLBool",
        "kDLBcomplex",
    ];
    // `kDLFloat`, `kDLFloat8_*`, `kDLFloat6_*`, `kDLFloat4_*`.
    CODES.contains(&name) || name.starts_with("kDLFloat")
}

#[test]
fn abi_matches_the_dlpack_1_3_header() {
    let header = match header_1_3() {
        Ok(path) => path,
        Err(reason) => return skip("ABI check against DLPack 1.3's dlpack.h", &reason),
    };
    let text = fs::read_to_string(&header).unwrap();
    let idents = identifiers(&text);

    // The header is 1.3, and every enumerator and flag it declares is one we know.
    let header_enumerators: BTreeSet<&str> = idents
        .iter()
        .map(String::as_str)
        .filter(|w| w.starts_with("kDL"))
        .collect();
    let ours: BTreeSet<&str> = ENUMERATORS_1_3.iter().map(|&(name, _)| name).collect();
    assert_same_names("enumerators", &header, &header_enumerators, &ours);
    let header_flags: BTreeSet<&str> = idents
        .iter()
        .map(String::as_str)
        .filter(|w| w.starts_with("DLPACK_FLAG_BITMASK_"))
        .collect();
    let our_flags: BTreeSet<&str> = FLAGS.iter().map(|&(name, _)| name).collect();
    assert_eq!(
        header_flags,
        our_flags,
        "flag macros of {}",
        header.display()
    );

    let mut facts = layout_facts_1_3();
    facts.extend(ENUMERATORS_1_3.iter().map(|&(name, rust)| Fact {
        c_expr: name.into(),
        rust,
    }));
    let exprs: Vec<String> = facts.iter().map(|f| f.c_expr.clone()).collect();
    let c = match evaluate_in_c("1.3", &header, &exprs) {
        Ok(values) => values,
        Err(reason) => return skip("ABI check against DLPack 1.3's dlpack.h", &reason),
    };
    compare("DLPack 1.3", &header, &facts, &c);
}

#[test]
fn legacy_structs_match_the_dlpack_0_7_header() {
    let header = match header_0_7() {
        Ok(path) => path,
        Err(reason) => {
            return skip(
                "ABI check against dlpack-sys's DLPack 0.7 dlpack.h",
                &reason,
            );
        }
    };
    let text = fs::read_to_string(&header).unwrap();
    let idents = identifiers(&text);
    assert!(
        idents.contains("DLPACK_VERSION") && !idents.contains("DLManagedTensorVersioned"),
        "{} is not a pre-1.0 DLPack header",
        header.display()
    );

    // Every enumerator of the old header still has its old value.
    let all: BTreeMap<&str, i64> = ENUMERATORS_1_3.iter().copied().collect();
    let mut facts = legacy_layout_facts();
    for name in idents.iter().filter(|w| w.starts_with("kDL")) {
        let rust = *all
            .get(name.as_str())
            .unwrap_or_else(|| panic!("{name} of {} is unknown to ffi", header.display()));
        facts.push(Fact {
            c_expr: name.clone(),
            rust,
        });
    }
    facts.push(Fact {
        c_expr: "DLPACK_VERSION".into(),
        rust: 70,
    });
    let exprs: Vec<String> = facts.iter().map(|f| f.c_expr.clone()).collect();
    let c = match evaluate_in_c("0.7", &header, &exprs) {
        Ok(values) => values,
        Err(reason) => {
            return skip(
                "ABI check against dlpack-sys's DLPack 0.7 dlpack.h",
                &reason,
            );
        }
    };
    compare("DLPack 0.7 (dlpack-sys)", &header, &facts, &c);
}

/// The codes added upstream after 1.3 are not in the 1.3 header (so a 1.3 producer never sends
/// them), and the Rust items say they are post-1.3.
#[test]
fn post_1_3_enumerators_are_absent_from_1_3_and_documented() {
    let source = include_str!("../../../dlpack-grammar/src/tables.rs");
    for &(name, _, _, declaration) in POST_1_3 {
        let docs = doc_above(source, declaration)
            .unwrap_or_else(|| panic!("`{declaration}` not found in dlpack-grammar/src/tables.rs"));
        assert!(
            docs.contains("after 1.3"),
            "the docs of `{declaration}` ({name}) must say it was added upstream after 1.3; they are: {docs:?}"
        );
    }
    let header = match header_1_3() {
        Ok(path) => path,
        Err(reason) => {
            return skip(
                "absence of post-1.3 enumerators from DLPack 1.3's dlpack.h",
                &reason,
            );
        }
    };
    let idents = identifiers(&fs::read_to_string(&header).unwrap());
    assert!(idents.contains("kDLTrn") && idents.contains("kDLFloat4_e2m1fn"));
    for &(name, ..) in POST_1_3 {
        assert!(
            !idents.contains(name),
            "{name} is in {}: it is not post-1.3 after all",
            header.display()
        );
    }
}

/// The `///` lines directly above the line that starts (after indentation) with `declaration`.
fn doc_above(source: &str, declaration: &str) -> Option<String> {
    let lines: Vec<&str> = source.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with(declaration))?;
    let mut docs: Vec<&str> = lines[..at]
        .iter()
        .rev()
        .map(|l| l.trim_start())
        .take_while(|l| l.starts_with("///") || l.starts_with("#["))
        .filter_map(|l| l.strip_prefix("///"))
        .collect();
    docs.reverse();
    Some(docs.join(" "))
}
