use dlpack_core::DlpackDataType;

// `foreign::DType` is `#[non_exhaustive]`: the mirror must say what a variant it gains does.
#[derive(DlpackDataType)]
#[dlpack(remote = "dlpack_tests::foreign::DType")]
enum DType {
    #[dlpack("uint8")]
    U8,
    #[dlpack("float16")]
    F16,
    #[dlpack("bfloat16")]
    BF16,
    #[dlpack("float32")]
    F32,
    #[dlpack("float8_e4m3fn")]
    F8E4M3,
}

fn main() {}
