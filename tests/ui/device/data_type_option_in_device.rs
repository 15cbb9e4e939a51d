use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda, bits = 32)]
    Gpu(usize),
}

fn main() {}
