use dlpack_core::{Device, DlpackDevice, Error};

struct CudaContext(usize);

fn ordinal(context: &CudaContext) -> usize {
    context.0
}

fn checked_ordinal(context: &CudaContext) -> Result<u32, Error> {
    u32::try_from(context.0).map_err(|_| Error::msg("context was destroyed"))
}

#[derive(Debug, PartialEq, DlpackDevice)]
enum Inner {
    #[dlpack(vulkan)]
    Vulkan(u32),
}

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(usize),
    #[dlpack(rocm, default)] // `name` comes back as `String::default()`
    Rocm {
        #[dlpack(id)]
        ordinal: u16,
        name: String,
    },
    #[dlpack(cuda_host)]
    Pinned,
    #[dlpack(metal, id = 0)]
    Mps,
    #[dlpack(cuda, id_with = ordinal, export_only)] // an id cannot make a context
    Handle(CudaContext),
    #[dlpack(cuda, export_only)]
    Graph {
        #[dlpack(id_with = checked_ordinal)]
        context: CudaContext,
        nodes: usize,
    },
    #[dlpack(tpu)]
    Tpu(u8),
    #[dlpack(tpu_host)]
    TpuHost,
    #[dlpack(ascend)]
    Ascend(i32),
    Dispatch(#[dlpack(delegate)] Inner),
    #[dlpack(skip)]
    Remote(String),
}

fn main() -> Result<(), Error> {
    assert_eq!(Place::Cuda(3).dlpack_device()?, Device::cuda(3));
    assert_eq!(Place::Handle(CudaContext(2)).dlpack_device()?, Device::cuda(2));
    let graph = Place::Graph { context: CudaContext(1), nodes: 9 };
    assert_eq!(graph.dlpack_device()?, Device::cuda(1));
    let too_big = Place::Graph { context: CudaContext(usize::MAX), nodes: 0 };
    assert_eq!(too_big.dlpack_device().unwrap_err().to_string(), "context was destroyed");
    assert_eq!(Place::Mps.dlpack_device()?, Device::metal(0));
    assert_eq!(Place::Tpu(7).dlpack_device()?, Device::tpu(7));
    assert_eq!(Place::TpuHost.dlpack_device()?, Device::TPU_HOST);
    assert!(matches!(Place::from_dlpack_device(Device::ascend(1))?, Place::Ascend(1)));
    assert!(matches!(Place::from_dlpack_device(Device::rocm(4))?, Place::Rocm { ordinal: 4, .. }));
    assert!(Place::from_dlpack_device(Device::rocm(70_000)).is_err());
    assert!(Place::from_dlpack_device(Device::tpu(256)).is_err());
    assert!(matches!(Place::from_dlpack_device(Device::metal(0))?, Place::Mps));
    assert!(Place::from_dlpack_device(Device::metal(1)).is_err());
    assert!(matches!(Place::from_dlpack_device(Device::vulkan(2))?, Place::Dispatch(Inner::Vulkan(2))));
    assert!(matches!(Place::from_dlpack_device(Device::CUDA_HOST)?, Place::Pinned));
    assert!(Place::Remote(String::new()).dlpack_device().is_err());
    Ok(())
}
