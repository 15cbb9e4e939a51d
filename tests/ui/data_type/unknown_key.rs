use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32", exportonly)]
    Flex32,
}

fn main() {}
