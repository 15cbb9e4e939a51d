use dlpack_core::{Device, DlpackDevice};

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda, import_with = Place::open)]
    Cuda { #[dlpack(id)] ordinal: u32, stream: u64 },
}

impl Place {
    // Returns `Self`, not `Result<Self, dlpack_core::Error>`.
    fn open(device: Device) -> Self {
        Place::Cuda { ordinal: device.device_id as u32, stream: 0 }
    }
}

fn main() {}
