use dlpack_core::{Device, DlpackDevice, Error};

#[derive(Debug, PartialEq, DlpackDevice)]
#[dlpack(cuda)]
struct CudaDevice {
    #[dlpack(id)]
    index: usize,
}

#[derive(Debug, PartialEq, DlpackDevice)]
#[dlpack(cuda)]
struct Ordinal(u8);

#[derive(Debug, PartialEq, DlpackDevice)]
#[dlpack(cpu)]
struct Cpu;

#[derive(Debug, PartialEq, DlpackDevice)]
struct MyDevice(Device);

#[derive(Debug, PartialEq, DlpackDevice)]
enum Either<A, B> {
    Left(#[dlpack(delegate)] A),
    #[dlpack(export_only)]
    Right(#[dlpack(delegate)] B),
}

#[derive(Debug, PartialEq, DlpackDevice)]
enum Webgpu {
    #[dlpack(webgpu, export_only)]
    Discrete(usize),
    #[dlpack(webgpu)]
    Default,
    #[deprecated]
    #[dlpack(webgpu, export_only)]
    BestAvailable,
    #[cfg(all(unix, windows))]
    #[dlpack(webgpu)]
    Never,
}

fn main() -> Result<(), Error> {
    assert_eq!(CudaDevice::from_dlpack_device(Device::cuda(4))?, CudaDevice { index: 4 });
    assert_eq!(Device::from(Ordinal(9)), Device::cuda(9));
    assert!(Ordinal::from_dlpack_device(Device::cuda(256)).is_err());
    assert_eq!(Cpu::from_dlpack_device(Device::CPU)?, Cpu);
    assert_eq!(Device::from(Cpu), Device::CPU);
    assert_eq!(MyDevice::from_dlpack_device(Device::rocm(1))?, MyDevice(Device::rocm(1)));
    let e = Either::<Cpu, CudaDevice>::from_dlpack_device(Device::CPU)?;
    assert_eq!(e, Either::Left(Cpu));
    // `from_dlpack` names a generic derived type alone, as source and as target.
    let e = dlpack_core::from_dlpack::<Either<Cpu, CudaDevice>>(&Cpu)?;
    assert_eq!(e, Either::Left(Cpu));
    let right = Either::<Cpu, CudaDevice>::Right(CudaDevice { index: 2 });
    assert_eq!(dlpack_core::from_dlpack::<Device>(&right)?, Device::cuda(2));
    assert!(Either::<Cpu, CudaDevice>::from_dlpack_device(Device::cuda(0)).is_err());
    assert_eq!(Either::<Cpu, CudaDevice>::Right(CudaDevice { index: 1 }).dlpack_device()?, Device::cuda(1));
    // `webgpu` prints without an id at 0, but it is an accelerator: a lone integer field is
    // its id, and a unit variant is id 0.
    assert_eq!(Webgpu::Discrete(3).dlpack_device()?, Device::new(Device::WEBGPU.device_type, 3));
    assert_eq!(Webgpu::Default.dlpack_device()?, Device::WEBGPU);
    assert!(Webgpu::from_dlpack_device(Device::new(Device::WEBGPU.device_type, 1)).is_err());
    assert_eq!(Webgpu::from_dlpack_device(Device::WEBGPU)?, Webgpu::Default);
    Ok(())
}
