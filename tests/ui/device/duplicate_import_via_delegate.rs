use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Inner {
    #[dlpack(cpu)]
    Cpu,
}

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
    Other(#[dlpack(delegate)] Inner),
}

fn main() {}
