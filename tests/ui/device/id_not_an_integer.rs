use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda)]
    Cuda(String),
}

fn main() {}
