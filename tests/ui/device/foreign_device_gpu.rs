use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Device {
    #[dlpack(gpu)]
    Gpu(usize),
}

fn main() {}
