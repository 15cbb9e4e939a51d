use dlpack_core::{Device, DlpackDevice};

struct MetalDevice;

impl MetalDevice {
    fn location(&self) -> Device {
        Device::metal(0)
    }
}

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(device_with = MetalDevice::location)]
    Metal(MetalDevice),
}

fn main() {}
