use dlpack_core::{DataType, Device, DlpackDataType, DlpackDevice, assert_convertible};

#[derive(Debug, PartialEq, DlpackDataType)]
enum BoolStore {
    #[dlpack("bool")]
    Native,
    #[dlpack("bool", export_only)]
    U8,
}

#[derive(Debug, PartialEq, DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    #[dlpack("bfloat16")]
    BF16,
    #[dlpack(code = float, bits = 16)]
    F16,
    #[dlpack(element = u8)]
    U8,
    #[dlpack("float32", export_only)]
    Flex32,
    #[dlpack(skip)]
    QInt8,
    Bool(#[dlpack(delegate)] BoolStore),
}

struct CudaContext(usize);
fn handle_ordinal(c: &CudaContext) -> usize {
    c.0
}

#[derive(DlpackDevice)]
enum InnerDevice {
    #[dlpack(vulkan)]
    Vulkan(u32),
}

#[derive(DlpackDevice)]
enum MyDevice {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(usize),
    #[dlpack(rocm)]
    Rocm {
        #[dlpack(id)]
        ordinal: u32,
    },
    #[dlpack(cuda_host)]
    Pinned,
    #[dlpack(cuda, id_with = handle_ordinal)]
    Handle(CudaContext),
    Dispatch(#[dlpack(delegate)] InnerDevice),
    #[dlpack(skip)]
    Remote(String),
}

#[derive(DlpackDevice)]
#[dlpack(cuda)]
struct CudaDevice {
    #[dlpack(id)]
    index: usize,
}

#[derive(DlpackDataType)]
struct RawDType {
    #[dlpack(code)]
    code: u8,
    #[dlpack(bits)]
    bits: u8,
    #[dlpack(lanes)]
    lanes: u16,
}

assert_convertible!(BoolStore => DType);

#[test]
fn design_example() {
    assert_eq!(DType::BF16.dlpack_data_type().unwrap(), DataType::BF16);
    assert_eq!(
        DType::from_dlpack_data_type(DataType::U8).unwrap(),
        DType::U8
    );
    assert_eq!(
        DType::from_dlpack_data_type(DataType::BOOL).unwrap(),
        DType::Bool(BoolStore::Native)
    );
    assert!(DType::QInt8.dlpack_data_type().is_err());
    println!(
        "{}",
        DType::from_dlpack_data_type(DataType::I64).unwrap_err()
    );
    println!("{:?}", <DType as DlpackDataType>::ACCEPTS);
    assert_eq!(
        MyDevice::Handle(CudaContext(3)).dlpack_device().unwrap(),
        Device::cuda(3)
    );
    assert_eq!(
        CudaDevice { index: 2 }.dlpack_device().unwrap(),
        Device::cuda(2)
    );
    let r = RawDType {
        code: 2,
        bits: 32,
        lanes: 1,
    };
    assert_eq!(r.dlpack_data_type().unwrap(), DataType::F32);
    println!(
        "{}",
        MyDevice::from_dlpack_device(Device::cuda(-1))
            .err()
            .unwrap()
    );
    println!(
        "{}",
        MyDevice::from_dlpack_device(Device::metal(0))
            .err()
            .unwrap()
    );
    const X: Option<DataType> = DType::F16.to_dlpack_data_type();
    assert_eq!(X, Some(DataType::F16));
}
