use dlpack_core::{DataType, DlpackDataType};

struct QuantScheme {
    bits: u8,
}

// Takes the scheme by value: `data_type_with` lends it, as a `fn(&QuantScheme) -> D`.
fn storage(scheme: QuantScheme) -> DataType {
    DataType::new(dlpack_core::ffi::DLDataTypeCode(0), scheme.bits, 1)
}

#[derive(DlpackDataType)]
enum DType {
    #[dlpack(data_type_with = storage, export_only)]
    QFloat(QuantScheme),
}

fn main() {}
