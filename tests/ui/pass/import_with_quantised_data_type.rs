// A quantised data type: DLPack describes its storage (`int8`, `uint8`), not its scale and zero
// point. Each variant says how it comes back: through a function that chooses the parameters
// (`import_with`), never (`export_only`), or with `Default` parameters, written out.
use dlpack_core::{DataType, DlpackDataType, Error};

#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct QuantParams {
    scale: f32,
    zero_point: i32,
}

impl QuantParams {
    const IDENTITY: QuantParams = QuantParams { scale: 1.0, zero_point: 0 };
}

#[derive(Debug, Clone, Copy, PartialEq, DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    #[dlpack("int8")]
    I8,
    // Exports its storage; an `int8` tensor imports as `I8`, not as quantised values.
    #[dlpack("int8", export_only)]
    QInt8(QuantParams),
    // A `uint8` tensor imports as quantised values with the identity parameters.
    #[dlpack("uint8", import_with = DType::quint8_identity)]
    QUInt8(QuantParams),
    // An `int32` tensor imports with `QuantParams::default()` (scale 0): chosen, not silent.
    #[dlpack("int32", default)]
    QInt32(QuantParams),
}

impl DType {
    fn quint8_identity(data_type: DataType) -> Result<Self, Error> {
        if data_type != DataType::U8 {
            return Err(Error::msg(format_args!("quint8 stores uint8, not {data_type}")));
        }
        Ok(DType::QUInt8(QuantParams::IDENTITY))
    }
}

/// A struct that is a quantised data type as a whole.
#[derive(Debug, PartialEq, DlpackDataType)]
#[dlpack("int8", import_with = QInt8Tensor::unquantised)]
struct QInt8Tensor {
    params: QuantParams,
}

impl QInt8Tensor {
    fn unquantised(_: DataType) -> Result<Self, Error> {
        Ok(QInt8Tensor { params: QuantParams::IDENTITY })
    }
}

fn main() -> Result<(), Error> {
    let q = DType::QInt8(QuantParams { scale: 0.5, zero_point: 3 });
    assert_eq!(q.dlpack_data_type()?, DataType::I8);
    assert_eq!(DType::from_dlpack_data_type(DataType::I8)?, DType::I8);
    assert_eq!(DType::from_dlpack_data_type(DataType::U8)?, DType::QUInt8(QuantParams::IDENTITY));
    assert_eq!(DType::from_dlpack_data_type(DataType::I32)?, DType::QInt32(QuantParams::default()));
    assert!(DType::from_dlpack_data_type(DataType::U16).is_err());
    // Every variant maps to a data type, so `From` is generated; the const fns see the
    // unit variants only.
    assert_eq!(DataType::from(DType::QUInt8(QuantParams::IDENTITY)), DataType::U8);
    assert_eq!(DType::unit_from_dlpack_data_type(DataType::U8), None);
    assert_eq!(DType::unit_from_dlpack_data_type(DataType::I8), Some(DType::I8));
    assert_eq!(QInt8Tensor::from_dlpack_data_type(DataType::I8)?, QInt8Tensor { params: QuantParams::IDENTITY });
    assert!(QInt8Tensor::from_dlpack_data_type(DataType::U8).is_err());
    Ok(())
}
