use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32", skip, export_only)]
    F,
}

fn main() {}
