use dlpack_core::{Device, DlpackDevice};

struct Context;

fn location(_: &Context) -> Device {
    Device::cuda(0)
}

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(device_with = location, export_only)]
    Graph(Context, usize),
}

fn main() {}
