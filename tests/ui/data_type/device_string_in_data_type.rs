use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("cuda")]
    Cuda,
}

fn main() {}
