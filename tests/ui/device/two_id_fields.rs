use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda)]
    Cuda {
        #[dlpack(id)]
        ordinal: usize,
        #[dlpack(id)]
        index: usize,
    },
}

fn main() {}
