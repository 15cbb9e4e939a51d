//! Types as another crate declares them, with no DLPack impls: the `remote` tests mirror
//! them from the test crates (`tests/remote.rs`, `ui/remote/`), where they are foreign.

/// A dtype enum that may gain variants, as candle's `DType` is.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)]
pub enum DType {
    U8,
    F16,
    BF16,
    F32,
    F8E4M3,
}

/// An exhaustive dtype enum.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Precision {
    Half,
    Single,
    Double,
}

/// A device location with every shape of variant, as candle's `DeviceLocation` is.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Location {
    Cpu,
    Cuda(usize),
    Metal { gpu_id: usize },
}

/// A device struct with public fields.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub struct Gpu {
    /// The device ordinal.
    pub ordinal: u16,
    /// Whether the device is in exclusive mode (no DLPack meaning).
    pub exclusive: bool,
}

/// A device enum whose crate implements the DLPack traits for it through a mirror
/// ([`crate::bridge`]), as dlpack-core's bridges do for other crates' types.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)]
pub enum Backend {
    Host,
    Gpu(u8),
}
