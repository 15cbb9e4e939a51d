// Hand-written impls that name other types' sets, next to derived types that name theirs: no
// `const` item the derive generates refers back to a type that refers to it, so none of these
// is a cycle (a real cycle, a type's set defined by itself, is rustc's error).
use dlpack_core::set::DeviceSet;
use dlpack_core::{Device, DlpackDevice, Error, assert_convertible};

#[derive(Debug, PartialEq, DlpackDevice)]
#[dlpack(metal)]
struct MetalLocation {
    #[dlpack(id)]
    index: u8,
}

/// A handle whose hand-written impl takes its sets from the location type it reports.
#[derive(Debug, PartialEq)]
struct MetalDevice {
    index: u8,
}

impl DlpackDevice for MetalDevice {
    const PRODUCES: DeviceSet = <MetalLocation as DlpackDevice>::PRODUCES;
    const ACCEPTS: DeviceSet = <MetalLocation as DlpackDevice>::ACCEPTS;

    fn dlpack_device(&self) -> Result<Device, Error> {
        MetalLocation { index: self.index }.dlpack_device()
    }

    fn from_dlpack_device(device: Device) -> Result<Self, Error> {
        MetalLocation::from_dlpack_device(device).map(|l| MetalDevice { index: l.index })
    }
}

/// A handle that exports only what `Place` imports: its impl names the sets of the enum that
/// holds it, which reaches it through an `export_only` delegate (not part of `ACCEPTS`).
#[derive(Debug, PartialEq)]
struct Stream(u8);

impl DlpackDevice for Stream {
    const PRODUCES: DeviceSet = <Place as DlpackDevice>::ACCEPTS;

    fn dlpack_device(&self) -> Result<Device, Error> {
        Ok(Device::cuda(i32::from(self.0)))
    }

    fn from_dlpack_device(device: Device) -> Result<Self, Error> {
        Err(Error::msg(format_args!("a stream cannot be opened from {device}")))
    }
}

/// A context whose impl names `Place`'s sets, reached from `Place` through `device_with`,
/// which reads the sets of the function's result type, not of the handle.
struct Context(u8);

impl Context {
    fn location(&self) -> Device {
        Device::cuda(i32::from(self.0))
    }
}

impl DlpackDevice for Context {
    const PRODUCES: DeviceSet = <Place as DlpackDevice>::PRODUCES;

    fn dlpack_device(&self) -> Result<Device, Error> {
        Ok(self.location())
    }

    fn from_dlpack_device(device: Device) -> Result<Self, Error> {
        Err(Error::msg(format_args!("no context for {device}")))
    }
}

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(u8),
    Metal(#[dlpack(delegate)] MetalDevice),
    #[dlpack(export_only)]
    Stream(#[dlpack(delegate)] Stream),
    #[dlpack(cuda, device_with = Context::location, export_only)]
    Context(Context),
}

assert_convertible!(MetalDevice => Place);
assert_convertible!(Stream => Place);
assert_convertible!(Place => Device);

const METAL: bool = <Place as DlpackDevice>::ACCEPTS.contains(Device::metal(255));
const CUDA: bool = <Context as DlpackDevice>::PRODUCES.contains(Device::cuda(7));

fn main() -> Result<(), Error> {
    assert!(METAL && CUDA);
    assert!(matches!(Place::from_dlpack_device(Device::metal(1))?, Place::Metal(MetalDevice { index: 1 })));
    assert_eq!(Place::Stream(Stream(2)).dlpack_device()?, Device::cuda(2));
    assert_eq!(Place::Context(Context(3)).dlpack_device()?, Device::cuda(3));
    Ok(())
}
