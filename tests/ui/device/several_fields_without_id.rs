use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda)]
    Cuda(usize, u32),
}

fn main() {}
