use dlpack_core::{DataType, DlpackDataType};

fn storage(_: &u8) -> DataType {
    DataType::I8
}

#[derive(DlpackDataType)]
enum DType {
    // A unit variant has no field for the function to read.
    #[dlpack(data_type_with = storage, export_only)]
    QFloat,
}

fn main() {}
