use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
#[dlpack(remote = "dlpack_tests::foreign::DType", non_exhaustive = "skip")]
enum DType {
    #[dlpack("uint8")]
    U8,
}

fn main() {}
