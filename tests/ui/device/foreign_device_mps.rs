use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Device {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(mps, id = 0)]
    Mps,
}

fn main() {}
