use dlpack_core::DlpackDevice;

// `foreign::Gpu` has `ordinal` and `exclusive`; this mirror calls the first `id`.
#[derive(DlpackDevice)]
#[dlpack(remote = "dlpack_tests::foreign::Gpu", cuda, default)]
#[derive(Default)]
struct Gpu {
    #[dlpack(id)]
    id: u16,
    exclusive: bool,
}

fn main() {}
