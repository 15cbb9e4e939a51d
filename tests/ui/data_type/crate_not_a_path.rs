use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
#[dlpack(crate = "not a path")]
enum DType {
    #[dlpack("float32")]
    F32,
}

fn main() {}
