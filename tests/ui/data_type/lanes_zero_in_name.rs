use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32x0")]
    F32x0,
}

fn main() {}
