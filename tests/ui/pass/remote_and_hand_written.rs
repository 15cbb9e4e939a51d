// A mirror of each foreign shape, and hand-written impls joined to `from_dlpack`.
use dlpack_core::{
    DataType, Device, DlpackDataType, DlpackDevice, Error, assert_convertible, from_dlpack,
    impl_from_dlpack,
};
use dlpack_core::set::{DeviceRange, DeviceSet};
use dlpack_tests::foreign;

#[derive(Debug, Clone, Copy, PartialEq, DlpackDataType)]
#[dlpack(remote = "foreign::DType", non_exhaustive = "error")]
enum DType {
    #[dlpack("uint8")]
    U8,
    #[dlpack("float16")]
    F16,
    #[dlpack("bfloat16")]
    BF16,
    #[dlpack("float32")]
    F32,
    #[dlpack("float8_e4m3fn")]
    F8E4M3,
}

#[derive(Debug, PartialEq, DlpackDevice)]
#[dlpack(remote = "foreign::Location")]
enum Location {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(#[dlpack(id)] usize),
    #[dlpack(metal)]
    Metal {
        #[dlpack(id)]
        gpu_id: usize,
    },
}

struct Host;

impl DlpackDevice for Host {
    const PRODUCES: DeviceSet = DeviceSet::EMPTY.with(DeviceRange::one(Device::CPU));

    fn dlpack_device(&self) -> Result<Device, Error> {
        Ok(Device::CPU)
    }

    fn from_dlpack_device(device: Device) -> Result<Self, Error> {
        if device == Device::CPU {
            Ok(Host)
        } else {
            Err(Error::msg(format_args!("`Host` is the CPU only, not {device}")))
        }
    }
}

impl_from_dlpack!(DlpackDevice for Host);

assert_convertible!(Host => Location);
assert_convertible!(DType => DataType);

fn main() -> Result<(), Error> {
    let theirs: foreign::DType = from_dlpack::<DType>(&DataType::BF16)?.into();
    assert_eq!(theirs, foreign::DType::BF16);
    let location: foreign::Location = from_dlpack::<Location>(&Host)?.into();
    assert_eq!(location, foreign::Location::Cpu);
    assert!(from_dlpack::<Host>(&Location::from(&foreign::Location::Cuda(0))).is_err());
    Ok(())
}
