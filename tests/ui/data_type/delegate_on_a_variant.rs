use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    #[dlpack(delegate)]
    Other(dlpack_core::DataType),
}

fn main() {}
