use dlpack_core::DlpackDevice;

// `foreign::Location::Metal` has a named field `gpu_id`, not a tuple field.
#[derive(DlpackDevice)]
#[dlpack(remote = "dlpack_tests::foreign::Location")]
enum Location {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(#[dlpack(id)] usize),
    #[dlpack(metal)]
    Metal(#[dlpack(id)] usize),
}

fn main() {}
