// `device_with`: handles that know their own device. On a newtype variant the function takes
// the field, on a struct the whole value, on a field that field; the result is any
// `DlpackDevice`. Beside a device name it says the device type (a result of another type is an
// error); alone, the variant takes the result type's sets.
use dlpack_core::{Device, DlpackDevice, Error, assert_convertible};

/// Where a handle is, as candle's `DeviceLocation` says it.
#[derive(Debug, Clone, Copy, PartialEq, DlpackDevice)]
enum Location {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda { gpu_id: usize },
    #[dlpack(metal)]
    Metal { gpu_id: usize },
}

/// A location that is always a Metal device.
#[derive(Debug, Clone, Copy, PartialEq, DlpackDevice)]
#[dlpack(metal)]
struct MetalLocation(u8);

#[derive(Debug)]
struct CudaContext(usize);

impl CudaContext {
    fn location(&self) -> Location {
        Location::Cuda { gpu_id: self.0 }
    }
}

#[derive(Debug)]
struct MetalContext(u8);

impl MetalContext {
    fn location(&self) -> MetalLocation {
        MetalLocation(self.0)
    }
}

#[derive(Debug, DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
    // The location type also holds CPU and Metal devices: `cuda` says which ones this is.
    #[dlpack(cuda, device_with = CudaContext::location, import_with = Place::open_cuda)]
    Cuda(CudaContext),
    // The location type holds only Metal devices: its sets are the variant's.
    #[dlpack(device_with = MetalContext::location, import_with = Place::open_metal)]
    Metal(MetalContext),
    // On the field the function reads, beside other fields.
    #[dlpack(export_only)]
    Graph {
        #[dlpack(device_with = CudaContext::location)]
        context: CudaContext,
        #[allow(dead_code)]
        nodes: usize,
    },
}

impl Place {
    fn open_cuda(device: Device) -> Result<Self, Error> {
        Ok(Place::Cuda(CudaContext(usize::try_from(device.device_id).map_err(Error::msg)?)))
    }

    fn open_metal(device: Device) -> Result<Self, Error> {
        Ok(Place::Metal(MetalContext(u8::try_from(device.device_id).map_err(Error::msg)?)))
    }
}

/// A handle struct: the function takes the whole value.
#[derive(Debug, DlpackDevice)]
#[dlpack(device_with = Queue::location, export_only)]
struct Queue {
    context: CudaContext,
}

impl Queue {
    fn location(&self) -> Location {
        self.context.location()
    }
}

/// A handle whose location may not be its declared type: exporting it is an error.
#[derive(Debug, DlpackDevice)]
#[dlpack(metal, device_with = Misplaced::location, export_only)]
struct Misplaced(Location);

impl Misplaced {
    fn location(&self) -> Location {
        self.0
    }
}

// Every Metal handle's device comes back as a `Place`: the variant's set is its location's.
assert_convertible!(MetalContextHolder => Place);

#[derive(DlpackDevice)]
#[dlpack(device_with = MetalContextHolder::location, export_only)]
struct MetalContextHolder(MetalContext);

impl MetalContextHolder {
    fn location(&self) -> MetalLocation {
        self.0.location()
    }
}

fn main() -> Result<(), Error> {
    assert_eq!(Place::Cuda(CudaContext(2)).dlpack_device()?, Device::cuda(2));
    assert_eq!(Place::Metal(MetalContext(1)).dlpack_device()?, Device::metal(1));
    let graph = Place::Graph { context: CudaContext(3), nodes: 10 };
    assert_eq!(graph.dlpack_device()?, Device::cuda(3));
    assert!(matches!(Place::from_dlpack_device(Device::cuda(4))?, Place::Cuda(CudaContext(4))));
    assert!(matches!(Place::from_dlpack_device(Device::metal(5))?, Place::Metal(MetalContext(5))));
    assert!(matches!(Place::from_dlpack_device(Device::CPU)?, Place::Cpu));
    assert!(Place::from_dlpack_device(Device::rocm(0)).is_err());
    assert!(Place::from_dlpack_device(Device::metal(256)).is_err());
    assert_eq!(Queue { context: CudaContext(6) }.dlpack_device()?, Device::cuda(6));
    assert_eq!(Misplaced(Location::Metal { gpu_id: 1 }).dlpack_device()?, Device::metal(1));
    let err = Misplaced(Location::Cpu).dlpack_device().unwrap_err();
    assert!(err.to_string().ends_with("maps to `metal` devices, but its `device_with` function returned cpu"), "{err}");
    assert_eq!(MetalContextHolder(MetalContext(2)).dlpack_device()?, Device::metal(2));
    Ok(())
}
