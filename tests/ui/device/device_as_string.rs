use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack("cuda:0")]
    Gpu,
}

fn main() {}
