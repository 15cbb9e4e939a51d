use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("int8")]
    QInt8(#[dlpack(default)] f32),
}

fn main() {}
