use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda, id = 0)]
    Cuda(#[dlpack(id)] usize),
}

fn main() {}
