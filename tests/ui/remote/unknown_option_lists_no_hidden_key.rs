use dlpack_core::DlpackDevice;

// A misspelt option on a mirror: the message lists and suggests the options a user can write,
// never the hidden key dlpack-core's bridges use to implement the traits for a foreign type.
#[derive(DlpackDevice)]
#[dlpack(remote = "dlpack_tests::foreign::Backend", impl_remot)]
enum Backend {
    #[dlpack(cpu)]
    Host,
    #[dlpack(cuda)]
    Gpu(#[dlpack(id)] u8),
}

fn main() {}
