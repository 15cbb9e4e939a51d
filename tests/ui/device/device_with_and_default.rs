use dlpack_core::{Device, DlpackDevice};

#[derive(Default)]
struct MetalDevice;

impl MetalDevice {
    fn location(&self) -> Device {
        Device::metal(0)
    }
}

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(device_with = MetalDevice::location, default)]
    Metal(MetalDevice),
}

fn main() {}
