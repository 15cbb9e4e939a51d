use dlpack_core::{Device, DlpackDevice, Error};

struct Handle;

fn open(_: Device) -> Result<Place, Error> {
    Err(Error::msg("no"))
}

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda, id = 0, export_only, import_with = open)]
    Cuda(Handle),
}

fn main() {}
