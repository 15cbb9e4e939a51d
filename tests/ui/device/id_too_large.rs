use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda, id = 4294967296)]
    Gpu,
}

fn main() {}
