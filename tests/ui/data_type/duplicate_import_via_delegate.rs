use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum BoolStore {
    #[dlpack("bool")]
    Native,
    #[dlpack("uint8")]
    U8,
}

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("uint8")]
    U8,
    Bool(#[dlpack(delegate)] BoolStore),
}

fn main() {}
