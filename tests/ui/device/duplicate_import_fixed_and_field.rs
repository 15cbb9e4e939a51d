use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda)]
    Cuda(usize),
    #[dlpack(cuda, id = 0)]
    Default,
}

fn main() {}
