use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda, rocm)]
    Gpu(usize),
}

fn main() {}
