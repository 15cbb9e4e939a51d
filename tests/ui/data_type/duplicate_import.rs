use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    #[dlpack(code = float, bits = 32)]
    Single,
}

fn main() {}
