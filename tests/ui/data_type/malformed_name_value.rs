use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack = "float32"]
    F32,
}

fn main() {}
