use dlpack_core::{DataType, DlpackDataType};

fn storage(_: &DataType) -> DataType {
    DataType::I8
}

#[derive(DlpackDataType)]
enum DType {
    #[dlpack(data_type_with = storage)]
    Other(#[dlpack(delegate)] DataType),
}

fn main() {}
