use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("uint8")]
    U8,
    #[dlpack(element = u8)]
    Byte,
}

fn main() {}
