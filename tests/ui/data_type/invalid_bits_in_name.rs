use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("bfloat32")]
    BF32,
}

fn main() {}
