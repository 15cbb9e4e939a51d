// `delegate` on one field of a struct or variant with other fields: the others come back by
// the item's policy (`default`, `import_with`), or the item is `export_only`.
use dlpack_core::{Device, DlpackDevice, Error};

#[derive(Debug, PartialEq, Clone, Copy, Default, DlpackDevice)]
enum Inner {
    #[default]
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(u8),
}

/// A device with a label: the label comes back from `Labelled::default()`.
#[derive(Debug, PartialEq, Default, DlpackDevice)]
#[dlpack(default)]
struct Labelled {
    #[dlpack(delegate)]
    device: Inner,
    label: String,
}

/// A device with a stream that only a function can open.
#[derive(Debug, PartialEq, DlpackDevice)]
#[dlpack(import_with = WithStream::open)]
struct WithStream {
    #[dlpack(delegate)]
    device: Inner,
    stream: u64,
}

impl WithStream {
    fn open(device: Device) -> Result<Self, Error> {
        Ok(WithStream { device: Inner::from_dlpack_device(device)?, stream: 42 })
    }
}

/// A device with a borrowed allocator: never imported.
#[derive(Debug, DlpackDevice)]
#[dlpack(export_only)]
struct Borrowed<'a> {
    #[dlpack(delegate)]
    device: Inner,
    #[allow(dead_code)]
    allocator: &'a str,
}

#[derive(Debug, PartialEq, DlpackDevice)]
enum Place {
    #[dlpack(default)]
    Plain(#[dlpack(delegate)] Inner, Vec<u8>),
    #[dlpack(rocm)]
    Rocm(u8),
}

fn main() -> Result<(), Error> {
    let labelled = Labelled { device: Inner::Cuda(1), label: "gpu".into() };
    assert_eq!(labelled.dlpack_device()?, Device::cuda(1));
    assert_eq!(Labelled::from_dlpack_device(Device::cuda(2))?, Labelled { device: Inner::Cuda(2), label: String::new() });
    assert_eq!(WithStream::from_dlpack_device(Device::CPU)?, WithStream { device: Inner::Cpu, stream: 42 });
    // `import_with` on a delegate receives what the delegate's type exports.
    assert!(WithStream::from_dlpack_device(Device::metal(0)).is_err());
    let borrowed = Borrowed { device: Inner::Cuda(0), allocator: "arena" };
    assert_eq!(borrowed.dlpack_device()?, Device::cuda(0));
    assert!(Borrowed::from_dlpack_device(Device::cuda(0)).is_err());
    assert_eq!(Place::from_dlpack_device(Device::cuda(5))?, Place::Plain(Inner::Cuda(5), Vec::new()));
    assert_eq!(Place::from_dlpack_device(Device::rocm(5))?, Place::Rocm(5));
    Ok(())
}
