use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Device {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(half)]
    Half,
}

fn main() {}
