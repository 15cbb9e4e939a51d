use dlpack_core::{DlpackDevice, assert_convertible};

#[derive(DlpackDevice)]
enum Small {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(u8),
}

#[derive(DlpackDevice)]
enum Large {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(usize),
}

assert_convertible!(Small => Large);
assert_convertible!(Large => Small);

fn main() {}
