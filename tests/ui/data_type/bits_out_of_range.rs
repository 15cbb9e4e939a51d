use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack(code = int, bits = 256)]
    I256,
}

fn main() {}
