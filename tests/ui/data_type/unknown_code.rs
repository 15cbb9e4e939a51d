use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack(code = flaot, bits = 32)]
    F32,
}

fn main() {}
