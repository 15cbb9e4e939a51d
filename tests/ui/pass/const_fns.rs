use dlpack_core::{DataType, Device, DlpackDataType, DlpackDevice};

#[derive(Debug, PartialEq, Clone, Copy, DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    #[dlpack(element = u8)]
    U8,
    #[dlpack("float32", export_only)]
    Flex32,
    #[dlpack(skip)]
    Q,
}

#[derive(Debug, PartialEq, Clone, Copy, DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(usize),
    #[dlpack(vulkan, id = 1)]
    Second,
}

const F32: DataType = DType::F32.to_dlpack_data_type().unwrap();
const FLEX: Option<DataType> = DType::Flex32.to_dlpack_data_type();
const Q: Option<DataType> = DType::Q.to_dlpack_data_type();
const BYTE: Option<DType> = DType::unit_from_dlpack_data_type(DataType::U8);
const CPU: Device = Place::Cpu.to_dlpack_device().unwrap();
const SECOND: Option<Place> = Place::unit_from_dlpack_device(Device::vulkan(1));
const NOT_CONST: Option<Device> = Place::Cuda(0).to_dlpack_device();

fn main() {
    assert_eq!(F32, DataType::F32);
    assert_eq!(FLEX, Some(DataType::F32));
    assert_eq!(Q, None);
    assert_eq!(BYTE, Some(DType::U8));
    assert_eq!(CPU, Device::CPU);
    assert_eq!(SECOND, Some(Place::Second));
    assert_eq!(NOT_CONST, None);
    assert_eq!(DType::unit_from_dlpack_data_type(DataType::F64), None);
}
