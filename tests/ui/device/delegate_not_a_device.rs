use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
    Other(#[dlpack(delegate)] String),
}

fn main() {}
