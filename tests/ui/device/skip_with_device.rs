use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda, skip)]
    Gpu(usize),
}

fn main() {}
