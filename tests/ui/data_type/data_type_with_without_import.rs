use dlpack_core::{DataType, DlpackDataType};

struct QuantScheme;

impl QuantScheme {
    fn storage(&self) -> DataType {
        DataType::I8
    }
}

#[derive(DlpackDataType)]
enum DType {
    #[dlpack(data_type_with = QuantScheme::storage)]
    QFloat(QuantScheme),
}

fn main() {}
