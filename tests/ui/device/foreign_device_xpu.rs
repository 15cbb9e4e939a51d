use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Device {
    #[dlpack(xpu)]
    Xpu(usize),
}

fn main() {}
