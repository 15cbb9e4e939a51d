//! Names users bring from other frameworks, and what DLPack calls them.
//!
//! These are *not* accepted names: `"half"` does not parse as a data type, and `mps` is not a
//! device. They exist so that a mistake gets the right suggestion rather than "unknown name" or
//! a wrong guess by edit distance (`gpu` is one letter from `tpu`, `f8e4m3` is closer to
//! `float8_e4m3` than to `float8_e4m3fn`, which is what every framework that spells it so means).
//!
//! A spelling is compared after [normalising](normalise) it: the part after the last `.` (so
//! `torch.half` is `half`), lower-cased, with `_` and `-` removed (so ONNX's `FLOAT8E4M3FN`,
//! safetensors' `F8_E4M3` and candle's `F8E4M3` each find their entry). A spelling that
//! normalises to a canonical name (`BFloat16`, `Float8_E4M3FN`, `CudaHost`) finds that name.

use crate::tables::{DEVICES, NAMED_DATA_TYPES};

/// What another framework's spelling means in DLPack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForeignName {
    /// DLPack's names for it: usually one; several when the spelling names a family (`gpu`,
    /// `fp8`); none when DLPack has no equivalent (`qint8`, PyTorch's `meta` device).
    pub dlpack: &'static [&'static str],
    /// What the spelling is, to follow "`half` is" in a message: "the name PyTorch
    /// (`torch.half`) and C++ use".
    pub origin: &'static str,
    /// A sentence that explains a choice, or `""`.
    pub note: &'static str,
}

/// The difference that makes `e4m3` worth a sentence.
const E4M3_NOTE: &str = "PyTorch, safetensors, ONNX Runtime and JAX all mean `float8_e4m3fn` \
    (DLPack code 10: finite, largest value 448, a NaN but no infinities); DLPack's `float8_e4m3` \
    (code 8) is the IEEE-style format with infinities (largest value 240), which only ml_dtypes names";

const QUANTISED_NOTE: &str = "a quantised type carries a scale and a zero point that DLPack \
    cannot describe: mark it `skip`, or export its storage type (`\"int8\"`) and say how it comes \
    back with `import_with`";

const fn name(dlpack: &'static [&'static str], origin: &'static str) -> ForeignName {
    ForeignName {
        dlpack,
        origin,
        note: "",
    }
}

const fn noted(
    dlpack: &'static [&'static str],
    origin: &'static str,
    note: &'static str,
) -> ForeignName {
    ForeignName {
        dlpack,
        origin,
        note,
    }
}

const E4M3FN: &[&str] = &["float8_e4m3fn"];
const E5M2: &[&str] = &["float8_e5m2"];
const E8M0: &[&str] = &["float8_e8m0fnu"];
const E2M1: &[&str] = &["float4_e2m1fn"];
const NONE: &[&str] = &[];

/// Data type spellings of other frameworks, by normalised spelling.
const DATA_TYPES: &[(&str, ForeignName)] = &[
    (
        "half",
        name(&["float16"], "the name PyTorch (`torch.half`) and C++ use"),
    ),
    ("fp16", name(&["float16"], "a common abbreviation")),
    ("fp32", name(&["float32"], "a common abbreviation")),
    ("fp64", name(&["float64"], "a common abbreviation")),
    (
        "double",
        name(&["float64"], "the name PyTorch (`torch.double`) and C use"),
    ),
    ("long", name(&["int64"], "PyTorch's name (`torch.long`)")),
    ("short", name(&["int16"], "PyTorch's name (`torch.short`)")),
    (
        "cfloat",
        name(&["complex64"], "PyTorch's name (`torch.cfloat`)"),
    ),
    (
        "cdouble",
        name(&["complex128"], "PyTorch's name (`torch.cdouble`)"),
    ),
    (
        "chalf",
        name(&["complex32"], "PyTorch's name (`torch.chalf`)"),
    ),
    (
        "complexhalf",
        name(&["complex32"], "tch's name (`Kind::ComplexHalf`)"),
    ),
    (
        "complexfloat",
        name(&["complex64"], "tch's name (`Kind::ComplexFloat`)"),
    ),
    (
        "complexdouble",
        name(&["complex128"], "tch's name (`Kind::ComplexDouble`)"),
    ),
    (
        "tf32",
        noted(
            &["float32"],
            "NVIDIA's TensorFloat-32",
            "TF32 is a way to compute; its tensors are stored as `float32`",
        ),
    ),
    (
        "e4m3",
        noted(E4M3FN, "the short name of OCP FP8 E4M3", E4M3_NOTE),
    ),
    (
        "f8e4m3",
        noted(
            E4M3FN,
            "the name safetensors (`F8_E4M3`) and candle (`F8E4M3`) use",
            E4M3_NOTE,
        ),
    ),
    (
        "fp8e4m3",
        noted(E4M3FN, "a common spelling of FP8 E4M3", E4M3_NOTE),
    ),
    ("e4m3fn", name(E4M3FN, "the suffix PyTorch and ONNX use")),
    ("f8e4m3fn", name(E4M3FN, "a short spelling")),
    (
        "e4m3fnuz",
        name(&["float8_e4m3fnuz"], "the suffix PyTorch and ONNX use"),
    ),
    ("f8e4m3fnuz", name(&["float8_e4m3fnuz"], "a short spelling")),
    ("e5m2", name(E5M2, "the short name of OCP FP8 E5M2")),
    (
        "f8e5m2",
        name(
            E5M2,
            "the name safetensors (`F8_E5M2`) and candle (`F8E5M2`) use",
        ),
    ),
    ("fp8e5m2", name(E5M2, "a common spelling of FP8 E5M2")),
    (
        "e5m2fnuz",
        name(&["float8_e5m2fnuz"], "the suffix PyTorch and ONNX use"),
    ),
    ("f8e5m2fnuz", name(&["float8_e5m2fnuz"], "a short spelling")),
    ("e3m4", name(&["float8_e3m4"], "the short name of FP8 E3M4")),
    ("f8e3m4", name(&["float8_e3m4"], "a short spelling")),
    ("e8m0", name(E8M0, "OCP MX's scale type E8M0")),
    ("e8m0fnu", name(E8M0, "the suffix PyTorch uses")),
    (
        "f8e8m0",
        name(
            E8M0,
            "the name safetensors (`F8_E8M0`) and candle (`F8E8M0`) use",
        ),
    ),
    ("float8e8m0", name(E8M0, "ONNX's name (`FLOAT8E8M0`)")),
    (
        "fp8",
        noted(
            &["float8_e4m3fn", "float8_e5m2"],
            "a family of formats",
            "`float8_e4m3fn` has more precision (for weights and activations), `float8_e5m2` more range (for gradients)",
        ),
    ),
    ("e2m1", name(E2M1, "OCP MX's FP4 E2M1")),
    ("fp4", name(E2M1, "the usual name of FP4 E2M1")),
    ("f4e2m1", name(E2M1, "a short spelling")),
    ("float4e2m1", name(E2M1, "ONNX's name (`FLOAT4E2M1`)")),
    (
        "float4e2m1fnx2",
        noted(
            E2M1,
            "PyTorch's packed type (`torch.float4_e2m1fn_x2`)",
            "PyTorch's type holds two `float4_e2m1fn` values in a byte",
        ),
    ),
    (
        "mxfp4",
        noted(
            E2M1,
            "OCP MX's MXFP4",
            "MXFP4 is `float4_e2m1fn` values with one `float8_e8m0fnu` scale per block of 32; map the element type",
        ),
    ),
    (
        "nvfp4",
        noted(
            E2M1,
            "NVIDIA's NVFP4",
            "NVFP4 is `float4_e2m1fn` values with one `float8_e4m3fn` scale per block of 16; map the element type",
        ),
    ),
    ("e2m3", name(&["float6_e2m3fn"], "OCP MX's FP6 E2M3")),
    (
        "f6e2m3",
        name(&["float6_e2m3fn"], "candle's name (`F6E2M3`)"),
    ),
    ("e3m2", name(&["float6_e3m2fn"], "OCP MX's FP6 E3M2")),
    (
        "f6e3m2",
        name(&["float6_e3m2fn"], "candle's name (`F6E3M2`)"),
    ),
    (
        "fp6",
        noted(
            &["float6_e2m3fn", "float6_e3m2fn"],
            "a family of formats",
            "FP6 is two OCP MX formats",
        ),
    ),
    (
        "qint8",
        noted(
            NONE,
            "PyTorch's quantised int8 (`torch.qint8`)",
            QUANTISED_NOTE,
        ),
    ),
    (
        "quint8",
        noted(
            NONE,
            "PyTorch's quantised uint8 (`torch.quint8`)",
            QUANTISED_NOTE,
        ),
    ),
    (
        "qint32",
        noted(
            NONE,
            "PyTorch's quantised int32 (`torch.qint32`)",
            QUANTISED_NOTE,
        ),
    ),
    (
        "quint4x2",
        noted(
            NONE,
            "PyTorch's quantised 4-bit type (`torch.quint4x2`)",
            QUANTISED_NOTE,
        ),
    ),
];

/// The GPUs `gpu` may mean, the most common first: a suggestion names that one.
const GPUS: &[&str] = &[
    "cuda", "rocm", "metal", "vulkan", "opencl", "oneapi", "webgpu",
];

/// Device spellings of other frameworks, by normalised spelling.
const DEVICES_ELSEWHERE: &[(&str, ForeignName)] = &[
    (
        "mps",
        name(&["metal"], "PyTorch's name (Metal Performance Shaders)"),
    ),
    (
        "hip",
        noted(
            &["rocm"],
            "the programming interface of AMD's ROCm",
            "PyTorch built for ROCm calls these devices `cuda`, and still exports them as DLPack's `rocm`",
        ),
    ),
    ("xpu", name(&["oneapi"], "PyTorch's name for Intel GPUs")),
    (
        "sycl",
        name(&["oneapi"], "the programming interface of oneAPI"),
    ),
    (
        "gpu",
        noted(
            GPUS,
            "PaddlePaddle's, JAX's and TensorFlow's name for any GPU",
            "DLPack names the kind of GPU, because a consumer needs to know which API its memory belongs to",
        ),
    ),
    (
        "wgpu",
        name(&["webgpu"], "the WebGPU backend of burn and cubecl"),
    ),
    (
        "npu",
        name(&["ascend"], "torch_npu's name for Huawei Ascend"),
    ),
    ("neuron", name(&["trn"], "the SDK of AWS Trainium")),
    (
        "pinned",
        name(&["cuda_host"], "pinned (page-locked) host memory"),
    ),
    (
        "cudapinned",
        name(&["cuda_host"], "pinned (page-locked) host memory"),
    ),
    (
        "cpupinned",
        name(&["cuda_host"], "pinned (page-locked) host memory"),
    ),
    ("managed", name(&["cuda_managed"], "CUDA managed memory")),
    (
        "unified",
        name(&["cuda_managed"], "CUDA unified (managed) memory"),
    ),
    (
        "meta",
        noted(
            NONE,
            "PyTorch's device for tensors without data",
            "it holds no data, so it has no DLPack device: mark it `skip`",
        ),
    ),
    (
        "xla",
        noted(
            NONE,
            "PyTorch/XLA's device",
            "an XLA device is whichever accelerator runs it: map that accelerator (`cuda`, `tpu`, …), or read it from the handle with `device_with`",
        ),
    ),
    (
        "directml",
        noted(
            NONE,
            "DirectML (ONNX Runtime, torch-directml)",
            "DLPack has no DirectML device type: mark it `skip`",
        ),
    ),
];

/// What a data type spelling from another framework means in DLPack, whether or not it is also
/// a DLPack name: the lookup behind [`foreign_data_type`](crate::foreign_data_type) (which
/// first rules out DLPack names) and [`suggest_data_type`](crate::suggest_data_type). The
/// parser asks for a suggestion after refusing a name, so nothing here parses.
pub(crate) fn data_type_meaning(spelling: &str) -> Option<ForeignName> {
    let mut buf = [0; MAX];
    let key = normalise(spelling, &mut buf)?;
    lookup(DATA_TYPES, key).or_else(|| {
        NAMED_DATA_TYPES
            .iter()
            .find(|named| same(named.name, key))
            .map(|named| respelt(&named.name))
    })
}

/// The same for a device spelling: the lookup behind
/// [`foreign_device`](crate::foreign_device) and [`suggest_device`](crate::suggest_device).
pub(crate) fn device_meaning(spelling: &str) -> Option<ForeignName> {
    let mut buf = [0; MAX];
    let key = normalise(spelling, &mut buf)?;
    lookup(DEVICES_ELSEWHERE, key).or_else(|| {
        DEVICES
            .iter()
            .find(|info| same(info.name, key))
            .map(|info| respelt(&info.name))
    })
}

/// The longest spelling compared; longer ones match nothing.
const MAX: usize = 40;

/// The spelling as the tables hold it: after the last `.`, ASCII lower case, without `_` and
/// `-`. `None` when it is too long to be any entry.
fn normalise<'b>(spelling: &str, buf: &'b mut [u8; MAX]) -> Option<&'b str> {
    let tail = spelling.rsplit('.').next().unwrap_or(spelling);
    let mut len = 0;
    for b in tail.bytes().filter(|b| !matches!(b, b'_' | b'-')) {
        *buf.get_mut(len)? = b.to_ascii_lowercase();
        len += 1;
    }
    core::str::from_utf8(&buf[..len]).ok()
}

fn lookup(table: &[(&str, ForeignName)], key: &str) -> Option<ForeignName> {
    table.iter().find(|(k, _)| *k == key).map(|(_, name)| *name)
}

/// Whether a canonical name normalises to `key`.
fn same(canonical: &str, key: &str) -> bool {
    let mut buf = [0; MAX];
    normalise(canonical, &mut buf) == Some(key)
}

fn respelt(canonical: &'static &'static str) -> ForeignName {
    ForeignName {
        dlpack: core::slice::from_ref(canonical),
        origin: "another spelling",
        note: "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{foreign_data_type, foreign_device, parse_data_type, parse_device};

    #[test]
    fn every_target_is_a_dlpack_name() {
        for (key, foreign) in DATA_TYPES {
            for target in foreign.dlpack {
                assert!(parse_data_type(target).is_ok(), "{key} -> {target}");
            }
        }
        for (key, foreign) in DEVICES_ELSEWHERE {
            for target in foreign.dlpack {
                assert!(crate::device_by_name(target).is_some(), "{key} -> {target}");
            }
        }
    }

    #[test]
    fn no_foreign_spelling_is_accepted_or_normalised_away() {
        let mut buf = [0; MAX];
        for (key, _) in DATA_TYPES {
            assert!(
                parse_data_type(key).is_err(),
                "{key} parses: it is not foreign"
            );
            assert_eq!(
                normalise(key, &mut buf),
                Some(*key),
                "{key} is not normalised"
            );
            assert!(foreign_data_type(key).is_some(), "{key}");
        }
        for (key, _) in DEVICES_ELSEWHERE {
            assert!(
                parse_device(key).is_err(),
                "{key} parses: it is not foreign"
            );
            assert_eq!(
                normalise(key, &mut buf),
                Some(*key),
                "{key} is not normalised"
            );
            assert!(foreign_device(key).is_some(), "{key}");
        }
    }

    #[test]
    fn other_frameworks_spellings() {
        let dt = |s| foreign_data_type(s).map(|f| f.dlpack);
        assert_eq!(dt("torch.half"), Some(&["float16"][..]));
        assert_eq!(dt("f16"), None, "an accepted alias");
        assert_eq!(dt("float8_e4m3"), None, "a DLPack name (code 8)");
        assert_eq!(dt("F8_E4M3"), Some(E4M3FN));
        assert_eq!(dt("F8E4M3"), Some(E4M3FN));
        assert_eq!(dt("e4m3"), Some(E4M3FN));
        assert_eq!(dt("FLOAT8E4M3FN"), Some(E4M3FN));
        assert_eq!(
            dt("jnp.float8_e4m3fn"),
            Some(E4M3FN),
            "JAX's name, qualified"
        );
        assert_eq!(dt("float8"), None, "DLPack's float code with 8 bits");
        assert_eq!(dt("Float8_E5M2"), Some(E5M2));
        assert_eq!(dt("float4_e2m1fn_x2"), Some(E2M1));
        assert_eq!(dt("qint8"), Some(NONE));
        assert_eq!(dt("definitely_not_a_type"), None);
        assert!(foreign_data_type("e4m3").unwrap().note.contains("code 8"));

        let dev = |s| foreign_device(s).map(|f| f.dlpack);
        assert_eq!(dev("mps"), Some(&["metal"][..]));
        assert_eq!(dev("hip"), Some(&["rocm"][..]));
        assert_eq!(dev("xpu"), Some(&["oneapi"][..]));
        assert_eq!(dev("gpu"), Some(GPUS));
        assert_eq!(dev("CUDA"), Some(&["cuda"][..]));
        assert_eq!(dev("meta"), Some(NONE));
        assert_eq!(dev("cuda"), None);
        assert_eq!(dev("tpu"), None);
    }

    #[test]
    fn long_spellings_match_nothing() {
        let long = "float8_e4m3fn_float8_e4m3fn_float8_e4m3fn";
        assert!(long.len() > MAX);
        assert_eq!(foreign_data_type(long), None);
        assert_eq!(foreign_device(long), None);
    }
}
