use dlpack_core::DlpackDevice;

fn ordinal(_: &()) -> usize {
    0
}

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda, id_with = ordinal)]
    Handle,
}

fn main() {}
