use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum WgpuDevice {
    // The adapter index is not a DLPack id: `id = 0` fixes it. Importing `webgpu:0` must not
    // silently build `DiscreteGpu(0)`.
    #[dlpack(webgpu, id = 0)]
    DiscreteGpu(usize),
}

fn main() {}
