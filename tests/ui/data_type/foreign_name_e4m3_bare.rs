use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack(e4m3)]
    Fp8,
}

fn main() {}
