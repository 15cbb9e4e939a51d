use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32", code = float, bits = 16)]
    F,
}

fn main() {}
