use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
#[dlpack(skip)]
enum DType {
    #[dlpack("float32")]
    F32,
}

fn main() {}
