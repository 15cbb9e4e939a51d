use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
#[dlpack(non_exhaustive = "error")]
enum DType {
    #[dlpack("float32")]
    F32,
}

fn main() {}
