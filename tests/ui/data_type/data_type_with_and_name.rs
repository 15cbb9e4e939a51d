use dlpack_core::{DataType, DlpackDataType};

#[derive(Clone, Copy)]
struct QuantScheme {
    bits: u8,
}

fn storage(scheme: &QuantScheme) -> DataType {
    DataType::new(dlpack_core::ffi::DLDataTypeCode(0), scheme.bits, 1)
}

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("int8", data_type_with = storage, export_only)]
    QFloat(QuantScheme),
    #[dlpack(code = int, bits = 4, data_type_with = storage, export_only)]
    QInt4(QuantScheme),
}

fn main() {}
