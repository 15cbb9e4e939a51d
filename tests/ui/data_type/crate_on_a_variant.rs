use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32", crate = "dlpack_core")]
    F32,
}

fn main() {}
