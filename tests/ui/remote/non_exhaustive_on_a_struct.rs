use dlpack_core::DlpackDevice;

#[derive(Default, DlpackDevice)]
#[dlpack(remote = "dlpack_tests::foreign::Gpu", non_exhaustive = "error", cuda, default)]
struct Gpu {
    #[dlpack(id)]
    ordinal: u16,
    exclusive: bool,
}

fn main() {}
