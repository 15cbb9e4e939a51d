use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
#[dlpack(remote = "dlpack_tests::foreign::Precision")]
enum Precision {
    #[dlpack("float16")]
    Half,
    #[dlpack("float32")]
    Float,
    #[dlpack("float64")]
    Double,
}

fn main() {}
