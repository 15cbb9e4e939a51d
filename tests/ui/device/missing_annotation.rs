use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
    Remote(String),
}

fn main() {}
