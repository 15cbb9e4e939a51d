use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("fp8")]
    Fp8,
}

fn main() {}
