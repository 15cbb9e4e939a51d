use std::sync::Arc;

use dlpack_core::DlpackDevice;

struct Context;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
    Cuda(#[dlpack(delegate)] Arc<Context>),
}

fn main() {}
