use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda, idd = 0)]
    Gpu,
}

fn main() {}
