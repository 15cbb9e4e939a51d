use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack(code = bfloat, bits = 32)]
    BF32,
}

fn main() {}
