use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    Other(#[dlpack("float64")] u8),
}

fn main() {}
