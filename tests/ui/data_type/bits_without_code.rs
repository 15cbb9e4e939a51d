use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack(bits = 16)]
    Half,
}

fn main() {}
