use dlpack_core::{DataType, DlpackDataType, Error};

#[derive(Debug, PartialEq, DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    Other(#[dlpack(delegate)] DataType),
}

fn main() -> Result<(), Error> {
    assert_eq!(DType::from_dlpack_data_type(DataType::F32)?, DType::F32);
    assert_eq!(DType::from_dlpack_data_type(DataType::I64)?, DType::Other(DataType::I64));
    assert!(<DType as DlpackDataType>::ACCEPTS.is_all());
    Ok(())
}
