use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda, id = -1)]
    Gpu,
}

fn main() {}
