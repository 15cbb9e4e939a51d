// `delegate` through `Box`, `Arc` and `Rc` (however the path is written), and a newtype over a
// pointer: export reads through the pointer, import wraps what the inner type builds.
use std::rc::Rc;
use std::sync::Arc;

use dlpack_core::{DataType, Device, DlpackDataType, DlpackDevice, Error};

#[derive(Debug, PartialEq, DlpackDevice)]
#[dlpack(cuda)]
struct CudaContext {
    #[dlpack(id)]
    ordinal: u8,
}

#[derive(Debug, PartialEq, DlpackDevice)]
enum Vulkan {
    #[dlpack(vulkan)]
    Gpu(u8),
}

#[derive(Debug, PartialEq, DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
    Cuda(#[dlpack(delegate)] Arc<CudaContext>),
    Vulkan(#[dlpack(delegate)] Box<Vulkan>),
    Rocm(#[dlpack(delegate)] std::rc::Rc<Rocm>),
}

#[derive(Debug, PartialEq, DlpackDevice)]
#[dlpack(rocm)]
struct Rocm(u8);

// A newtype over a pointer delegates through it.
#[derive(Debug, PartialEq, DlpackDevice)]
struct Shared(Arc<Device>);

#[derive(Debug, PartialEq, DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    Other(#[dlpack(delegate)] Box<DataType>),
}

fn main() -> Result<(), Error> {
    let cuda = Place::Cuda(Arc::new(CudaContext { ordinal: 1 }));
    assert_eq!(cuda.dlpack_device()?, Device::cuda(1));
    assert_eq!(Place::from_dlpack_device(Device::cuda(2))?, Place::Cuda(Arc::new(CudaContext { ordinal: 2 })));
    assert_eq!(Place::from_dlpack_device(Device::vulkan(3))?, Place::Vulkan(Box::new(Vulkan::Gpu(3))));
    assert_eq!(Place::from_dlpack_device(Device::rocm(4))?, Place::Rocm(Rc::new(Rocm(4))));
    assert!(Place::from_dlpack_device(Device::rocm(256)).is_err());
    assert_eq!(Shared::from_dlpack_device(Device::metal(0))?, Shared(Arc::new(Device::metal(0))));
    assert_eq!(Shared(Arc::new(Device::CPU)).dlpack_device()?, Device::CPU);
    assert_eq!(DType::from_dlpack_data_type(DataType::BF16)?, DType::Other(Box::new(DataType::BF16)));
    assert_eq!(DType::Other(Box::new(DataType::I8)).dlpack_data_type()?, DataType::I8);
    Ok(())
}
