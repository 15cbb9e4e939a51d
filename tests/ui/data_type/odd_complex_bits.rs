use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack(code = complex, bits = 33)]
    C,
}

fn main() {}
