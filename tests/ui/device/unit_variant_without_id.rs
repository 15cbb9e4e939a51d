use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Gpu,
}

fn main() {}
