use core::marker::PhantomData;
use dlpack_core::{DataType, DlpackDataType, Element, Error, ffi::DLDataTypeCode};

#[derive(Debug, PartialEq, DlpackDataType)]
struct RawDType {
    #[dlpack(code)]
    code: DLDataTypeCode,
    #[dlpack(bits)]
    bits: u8,
    #[dlpack(lanes)]
    lanes: u16,
}

#[derive(Debug, PartialEq, Default, DlpackDataType)]
#[dlpack(default)] // `note` comes back from `Scalar::default()`
struct Scalar {
    #[dlpack(code)]
    code: u8,
    #[dlpack(bits)]
    bits: u8,
    note: Option<String>,
}

#[derive(Debug, PartialEq, DlpackDataType)]
struct MyDType(DataType);

#[derive(Debug, PartialEq, DlpackDataType)]
#[dlpack("float32")]
struct F32;

#[derive(Debug, PartialEq, DlpackDataType)]
#[dlpack(element = E)]
struct ElementOf<E: Element>(PhantomData<E>);

fn main() -> Result<(), Error> {
    let raw = RawDType::from_dlpack_data_type(DataType::BF16.with_lanes(2))?;
    assert_eq!(raw.dlpack_data_type()?, DataType::BF16.with_lanes(2));
    let scalar = Scalar::from_dlpack_data_type(DataType::U16)?;
    assert_eq!(scalar, Scalar { code: 1, bits: 16, note: None });
    assert!(Scalar::from_dlpack_data_type(DataType::U16.with_lanes(2)).is_err());
    assert_eq!(MyDType::from_dlpack_data_type(DataType::C64)?, MyDType(DataType::C64));
    assert_eq!(F32.dlpack_data_type()?, DataType::F32);
    assert_eq!(DataType::from(F32), DataType::F32);
    assert!(F32::from_dlpack_data_type(DataType::F64).is_err());
    assert_eq!(ElementOf::<u16>(PhantomData).dlpack_data_type()?, DataType::U16);
    assert_eq!(ElementOf::<i64>::from_dlpack_data_type(DataType::I64)?, ElementOf(PhantomData));
    Ok(())
}
