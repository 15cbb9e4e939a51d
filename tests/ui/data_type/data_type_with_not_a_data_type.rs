use dlpack_core::DlpackDataType;

struct QuantScheme {
    bits: u8,
}

impl QuantScheme {
    fn bits(&self) -> u8 {
        self.bits
    }
}

#[derive(DlpackDataType)]
enum DType {
    // `data_type_with` returns a data type, not its bit width.
    #[dlpack(data_type_with = QuantScheme::bits, export_only)]
    QFloat(QuantScheme),
}

fn main() {}
