// `data_type_with`: a value whose data type a function computes from its fields, as burn's
// `QFloat(QuantScheme)`, whose storage depends on two fields of the scheme (the quantised value
// and how it is stored). On a newtype variant the function takes the field, on a struct the
// whole value, on a field that field; the result is any `DlpackDataType`: `DataType` itself, or
// a dtype enum whose `skip` variant says "no DLPack data type" (a `Result`-free function
// reports a value with none as `device_with`'s does, through its result's own export).
use dlpack_core::{DataType, DlpackDataType, Error, assert_convertible};

#[derive(Debug, Clone, Copy, PartialEq)]
enum QuantValue {
    Q8S,
    Q4S,
    E4M3,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum QuantStore {
    Native,
    PackedU32(usize),
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct QuantScheme {
    value: QuantValue,
    store: QuantStore,
}

/// What a quantised tensor's values are stored as.
#[derive(Debug, Clone, Copy, PartialEq, DlpackDataType)]
enum Storage {
    #[dlpack("int8")]
    I8,
    #[dlpack("uint32")]
    U32,
    #[dlpack("float8_e4m3fn")]
    F8,
    /// Sub-byte values, natively: no DLPack data type.
    #[dlpack(skip)]
    SubByte,
}

impl QuantScheme {
    fn storage(&self) -> Storage {
        match (self.store, self.value) {
            (QuantStore::PackedU32(_), _) => Storage::U32,
            (QuantStore::Native, QuantValue::Q8S) => Storage::I8,
            (QuantStore::Native, QuantValue::E4M3) => Storage::F8,
            (QuantStore::Native, QuantValue::Q4S) => Storage::SubByte,
        }
    }

    /// The storage as a `DataType`, for a value that always has one.
    fn packed(&self) -> DataType {
        DataType::U32
    }
}

/// burn's shape: the quantised variant exports its storage; import never chooses it.
#[derive(Debug, Clone, Copy, PartialEq, DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    #[dlpack("int8")]
    I8,
    #[dlpack("uint32")]
    U32,
    #[dlpack(data_type_with = QuantScheme::storage, export_only)]
    QFloat(QuantScheme),
}

/// A type whose only int8 and uint32 values are quantised: they come back through
/// `import_with`, called for every data type the function's result type exports.
#[derive(Debug, Clone, Copy, PartialEq, DlpackDataType)]
enum Quantised {
    #[dlpack("float32")]
    F32,
    #[dlpack(data_type_with = QuantScheme::storage, import_with = Quantised::from_storage)]
    QFloat(QuantScheme),
}

impl Quantised {
    fn from_storage(data_type: DataType) -> Result<Self, Error> {
        let (value, store) = match data_type {
            DataType::I8 => (QuantValue::Q8S, QuantStore::Native),
            DataType::U32 => (QuantValue::Q8S, QuantStore::PackedU32(0)),
            DataType::FLOAT8_E4M3FN => (QuantValue::E4M3, QuantStore::Native),
            other => return Err(Error::msg(format_args!("no quantised store is {other}"))),
        };
        Ok(Quantised::QFloat(QuantScheme { value, store }))
    }
}

/// On a struct the function reads the whole value; here it returns a `DataType`.
#[derive(Debug, PartialEq, DlpackDataType)]
#[dlpack(data_type_with = Packed::data_type, export_only)]
struct Packed {
    scheme: QuantScheme,
}

impl Packed {
    fn data_type(&self) -> DataType {
        self.scheme.packed()
    }
}

/// On the field the function reads, beside other fields.
#[derive(Debug, PartialEq, DlpackDataType)]
enum Tagged {
    #[dlpack(export_only)]
    Quantised {
        #[dlpack(data_type_with = QuantScheme::storage)]
        scheme: QuantScheme,
        #[allow(dead_code)]
        block: usize,
    },
}

// What `Storage` produces, `Quantised` accepts (its `import_with` gets every one of them).
assert_convertible!(Storage => Quantised);

fn main() -> Result<(), Error> {
    let q8 = QuantScheme { value: QuantValue::Q8S, store: QuantStore::Native };
    let packed = QuantScheme { value: QuantValue::Q4S, store: QuantStore::PackedU32(0) };
    let q4 = QuantScheme { value: QuantValue::Q4S, store: QuantStore::Native };
    assert_eq!(DType::QFloat(q8).dlpack_data_type()?, DataType::I8);
    assert_eq!(DType::QFloat(packed).dlpack_data_type()?, DataType::U32);
    // Import never chooses the export-only variant.
    assert_eq!(DType::from_dlpack_data_type(DataType::I8)?, DType::I8);
    assert_eq!(DType::from_dlpack_data_type(DataType::U32)?, DType::U32);
    // A scheme with no DLPack storage is the storage type's own error.
    let err = DType::QFloat(q4).dlpack_data_type().unwrap_err();
    assert!(matches!(err, Error::NoDataType { value: "SubByte", .. }), "{err}");
    // No `From<DType> for DataType`: the function's result may have none.
    assert_eq!(DType::QFloat(q8).to_dlpack_data_type(), None);

    assert_eq!(Quantised::QFloat(packed).dlpack_data_type()?, DataType::U32);
    assert_eq!(Quantised::from_dlpack_data_type(DataType::I8)?, Quantised::QFloat(q8));
    assert_eq!(Quantised::from_dlpack_data_type(DataType::F32)?, Quantised::F32);
    assert!(<Quantised as DlpackDataType>::ACCEPTS.contains(DataType::U32));
    assert!(Quantised::from_dlpack_data_type(DataType::F16).is_err());

    assert_eq!(Packed { scheme: q8 }.dlpack_data_type()?, DataType::U32);
    let tagged = Tagged::Quantised { scheme: packed, block: 32 };
    assert_eq!(tagged.dlpack_data_type()?, DataType::U32);
    assert!(Tagged::from_dlpack_data_type(DataType::U32).is_err());
    Ok(())
}
