use dlpack_core::{DataType, DlpackDataType, Error};

#[derive(Debug, PartialEq, Default, DlpackDataType)]
enum BoolStore {
    #[default]
    #[dlpack("bool")]
    Native,
    #[dlpack("bool", export_only)]
    U8,
}

#[derive(Debug, PartialEq, Default)]
struct Scheme(u8);

#[derive(Debug, PartialEq, DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    #[dlpack("bf16")]
    BF16,
    #[dlpack(code = float, bits = 16)]
    F16,
    #[dlpack(code = float, bits = 32, lanes = 4)]
    F32x4,
    #[dlpack(code = bool, export_only)]
    Bool8,
    #[dlpack(code = 0, bits = 4)]
    I4,
    #[dlpack(element = u8)]
    U8,
    #[dlpack(element = half::bf16, export_only)]
    HalfBf16,
    #[dlpack("float32", export_only)]
    Flex32,
    #[dlpack("int8", default)]
    Q8(Scheme),
    #[dlpack(skip)]
    QInt8,
    Bool(#[dlpack(delegate)] BoolStore),
}

fn main() -> Result<(), Error> {
    assert_eq!(DType::F32x4.dlpack_data_type()?, DataType::F32.with_lanes(4));
    assert_eq!(DType::Bool8.dlpack_data_type()?, DataType::BOOL);
    assert_eq!(DType::I4.dlpack_data_type()?.to_string(), "int4");
    assert_eq!(DType::HalfBf16.dlpack_data_type()?, DataType::BF16);
    assert_eq!(DType::from_dlpack_data_type(DataType::BF16)?, DType::BF16);
    // A variant with fields marked `default` imports with its fields' defaults.
    assert_eq!(DType::from_dlpack_data_type(DataType::I8)?, DType::Q8(Scheme(0)));
    assert_eq!(DType::from_dlpack_data_type(DataType::BOOL)?, DType::Bool(BoolStore::Native));
    assert!(matches!(DType::QInt8.dlpack_data_type(), Err(Error::NoDataType { value: "QInt8", .. })));
    assert_eq!(DType::try_from(DataType::F16)?, DType::F16);
    Ok(())
}
