use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack(code = float, bits = 16, bits = 32)]
    F,
}

fn main() {}
