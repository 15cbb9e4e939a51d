use dlpack_core::{DataType, DlpackDataType, Error, from_dlpack};

struct Byte;

impl DlpackDataType for Byte {
    fn dlpack_data_type(&self) -> Result<DataType, Error> {
        Ok(DataType::U8)
    }

    fn from_dlpack_data_type(_: DataType) -> Result<Self, Error> {
        Ok(Byte)
    }
}

// Missing: `dlpack_core::impl_from_dlpack!(DlpackDataType for Byte);`
fn main() {
    let _ = from_dlpack::<Byte>(&DataType::U8);
}
