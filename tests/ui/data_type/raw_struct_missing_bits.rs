use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
struct RawDType {
    #[dlpack(code)]
    code: u8,
    width: u8,
}

fn main() {}
