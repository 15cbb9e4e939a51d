use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32", export_only = true)]
    F32,
}

fn main() {}
