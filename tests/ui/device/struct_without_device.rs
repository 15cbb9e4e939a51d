use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
struct CudaDevice {
    #[dlpack(id)]
    index: usize,
}

fn main() {}
