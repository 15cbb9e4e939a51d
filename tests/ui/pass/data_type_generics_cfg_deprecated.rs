use dlpack_core::{DataType, DlpackDataType, Error};

#[derive(Debug, PartialEq, DlpackDataType)]
#[non_exhaustive]
enum DType<T> {
    #[dlpack("float32")]
    F32,
    #[cfg(target_pointer_width = "64")]
    #[dlpack("float64")]
    F64,
    #[cfg(all(unix, windows))]
    #[dlpack("float16")]
    Never,
    #[deprecated(note = "use F32")]
    #[dlpack("float32", export_only)]
    Single,
    Inner(#[dlpack(delegate)] T),
}

#[derive(Debug, PartialEq, DlpackDataType)]
enum Ints {
    #[dlpack("int8")]
    I8,
}

#[derive(Debug, PartialEq, DlpackDataType)]
enum Empty {}

#[deny(deprecated)]
fn main() -> Result<(), Error> {
    assert_eq!(DType::<Ints>::from_dlpack_data_type(DataType::I8)?, DType::Inner(Ints::I8));
    assert_eq!(DType::<Ints>::from_dlpack_data_type(DataType::F64)?, DType::F64);
    assert!(DType::<Ints>::from_dlpack_data_type(DataType::F16).is_err());
    assert!(Empty::from_dlpack_data_type(DataType::F16).is_err());
    // `from_dlpack` names a generic derived type alone, as source and as target.
    assert_eq!(dlpack_core::from_dlpack::<DType<Ints>>(&Ints::I8)?, DType::Inner(Ints::I8));
    assert_eq!(dlpack_core::from_dlpack::<DataType>(&DType::<Ints>::F32)?, DataType::F32);
    Ok(())
}
