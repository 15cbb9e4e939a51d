use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum Kind {
    #[dlpack("int8")]
    Int8,
    #[dlpack("qint8")]
    QInt8,
}

fn main() {}
