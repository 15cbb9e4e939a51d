use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
struct RawDType {
    #[dlpack(code)]
    code: u8,
    #[dlpack(bits)]
    bits: u32,
}

fn main() {}
