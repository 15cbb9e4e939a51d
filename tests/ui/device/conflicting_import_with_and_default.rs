use dlpack_core::{Device, DlpackDevice, Error};

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda, import_with = Place::open, default)]
    Cuda { #[dlpack(id)] ordinal: u32, stream: u64 },
}

impl Place {
    fn open(_: Device) -> Result<Self, Error> {
        Err(Error::msg("no"))
    }
}

fn main() {}
