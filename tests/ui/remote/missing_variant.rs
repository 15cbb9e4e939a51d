use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
#[dlpack(remote = "dlpack_tests::foreign::Precision")]
enum Precision {
    #[dlpack("float16")]
    Half,
    #[dlpack("float32")]
    Single,
}

fn main() {}
