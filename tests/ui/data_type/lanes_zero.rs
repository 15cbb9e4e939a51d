use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack(code = float, bits = 32, lanes = 0)]
    F32x0,
}

fn main() {}
