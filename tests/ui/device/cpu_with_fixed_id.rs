use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cpu, id = 1)]
    Cpu,
}

fn main() {}
