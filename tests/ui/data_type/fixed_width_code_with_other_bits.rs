use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack(code = float8_e4m3fn, bits = 16)]
    F8,
}

fn main() {}
