use dlpack_core::{Device, DlpackDevice};

#[derive(DlpackDevice)]
struct Labelled {
    #[dlpack(delegate)]
    device: Device,
    label: String,
}

fn main() {}
