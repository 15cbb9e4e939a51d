use dlpack_core::{Device, DlpackDevice, Error};

fn open(_: Device) -> Result<Place, Error> {
    Err(Error::msg("no"))
}

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(skip, import_with = open)]
    Remote(String),
}

fn main() {}
