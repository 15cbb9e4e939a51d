use dlpack_core::{Device, DlpackDataType};

#[derive(DlpackDataType)]
enum DType {
    // A data type comes back from a `DataType`, not a `Device`.
    #[dlpack("int8", import_with = DType::unquantised)]
    QInt8(f32),
}

impl DType {
    fn unquantised(_: Device) -> Result<Self, dlpack_core::Error> {
        Ok(DType::QInt8(1.0))
    }
}

fn main() {}
