use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("flaot32")]
    F32,
}

fn main() {}
