//! CUDA tensors (feature `cuda`): device discovery, the stream rule of `__dlpack__`, export
//! and import of `kDLCUDA` tensors, and host-device copies.
//!
//! Built on [`cudarc`] (re-exported as [`cuda::cudarc`](cudarc) so that your code uses the
//! same version) with the driver loaded at run time: the crate builds without a CUDA toolkit,
//! and on a machine without a driver every function here returns
//! [`CudaError::NoDriver`] ("no CUDA driver found: libcuda could not be loaded") instead of
//! panicking. [`cuda_devices`] is then empty.
//!
//! # Streams
//!
//! [`StreamArg`] is the `stream` argument of `__dlpack__` parsed by the array API standard's
//! rules, and [`sync_for_consumer`] is what the producer does with it: an event recorded on
//! the producer's stream that the consumer's stream waits for, never a device-wide
//! synchronisation. A consumer passes [`StreamArg::of`]`(&its_stream).to_python()`.
//!
//! # Minimum Rust version
//!
//! The feature needs Rust 1.88 (cudarc's `libloading` dependency), above the crate's 1.85.
pub use cudarc;

mod device;
mod driver;
mod error;
mod stream;

pub use device::{CudaDeviceInfo, cuda_device_info, cuda_devices, try_cuda_devices};
pub use driver::context;
pub use error::CudaError;
pub use stream::{StreamArg, Synced, sync_for_consumer};
