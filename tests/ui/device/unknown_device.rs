use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cdua)]
    Gpu(usize),
}

fn main() {}
