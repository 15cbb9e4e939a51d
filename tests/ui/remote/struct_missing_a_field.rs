use dlpack_core::DlpackDevice;

// `foreign::Gpu` also has `exclusive`.
#[derive(DlpackDevice)]
#[dlpack(remote = "dlpack_tests::foreign::Gpu", cuda)]
struct Gpu {
    #[dlpack(id)]
    ordinal: u16,
}

fn main() {}
