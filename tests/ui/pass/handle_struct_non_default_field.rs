// A handle struct whose other field has no `Default` (a stream of a CUDA context): import
// cannot rebuild it from an ordinal, so the struct says how it comes back, with `import_with`.
use dlpack_core::{Device, DlpackDevice, Error};

/// An opaque driver object: no `Default`, not `Clone`.
#[derive(Debug, PartialEq)]
struct RawStream(u64);

#[derive(Debug, PartialEq, DlpackDevice)]
#[dlpack(cuda, import_with = Stream::open)]
struct Stream {
    #[dlpack(id)]
    ordinal: u16,
    raw: RawStream,
}

impl Stream {
    fn open(device: Device) -> Result<Self, Error> {
        let ordinal = u16::try_from(device.device_id).map_err(Error::msg)?;
        Ok(Stream { ordinal, raw: RawStream(0x1000 + u64::from(ordinal)) })
    }
}

// The same handle, never imported.
#[derive(Debug, DlpackDevice)]
#[dlpack(cuda, export_only)]
struct BorrowedStream {
    #[dlpack(id)]
    ordinal: u16,
    #[allow(dead_code)]
    raw: RawStream,
}

fn main() -> Result<(), Error> {
    let stream = Stream { ordinal: 3, raw: RawStream(7) };
    assert_eq!(stream.dlpack_device()?, Device::cuda(3));
    assert_eq!(Stream::from_dlpack_device(Device::cuda(2))?, Stream { ordinal: 2, raw: RawStream(0x1002) });
    // `import_with` receives every CUDA device, and its error is the import's.
    assert!(Stream::from_dlpack_device(Device::cuda(70_000)).is_err());
    assert!(Stream::from_dlpack_device(Device::CPU).is_err());
    // The id field still bounds the set: `u16` ids.
    assert!(<Stream as DlpackDevice>::ACCEPTS.contains(Device::cuda(65_535)));
    assert!(!<Stream as DlpackDevice>::ACCEPTS.contains(Device::cuda(65_536)));
    // `From<Stream> for Device` is generated: a `u16` id always fits.
    assert_eq!(Device::from(Stream { ordinal: 1, raw: RawStream(0) }), Device::cuda(1));
    let borrowed = BorrowedStream { ordinal: 4, raw: RawStream(0) };
    assert_eq!(borrowed.dlpack_device()?, Device::cuda(4));
    assert!(BorrowedStream::from_dlpack_device(Device::cuda(4)).is_err());
    assert!(<BorrowedStream as DlpackDevice>::ACCEPTS.iter().next().is_none());
    Ok(())
}
