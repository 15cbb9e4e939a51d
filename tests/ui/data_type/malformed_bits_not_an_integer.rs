use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack(code = float, bits = "32")]
    F32,
}

fn main() {}
