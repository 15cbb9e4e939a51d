//! The device comparison: one 16-variant device enum with tuple (id-carrying) variants, three
//! ways, as in [`data_type`](crate::data_type).
//!
//! - [`Dev`](crate::derived::Dev): `#[derive(DlpackDevice)]`.
//! - [`HandDevice`]: the same enum with a hand-written `match`, with the derive's semantics:
//!   ids are range-checked both ways (never truncated), a host-side kind ignores the id it is
//!   given, and an unsupported device is an error naming what the type supports.
//! - [`to_dlpark`]/[`from_dlpark`]: the same mapping onto dlpark 0.10's `DLDevice`, returning
//!   `Option` as dlpark's own interop code does.

use dlpack_core::ffi::DLDeviceType;
use dlpack_core::{Device, DlpackDevice, Error};
use dlpark::ffi::{DLDevice as ParkDevice, DLDeviceType as ParkType};

macro_rules! hand_device {
    (
        unit { $($u:ident => $uconst:ident, $utype:ident, $upark:ident;)* }
        indexed { $($i:ident => $ictor:ident, $itype:ident, $ipark:ident;)* }
    ) => {
        /// The benchmark's device enum with a hand-written [`DlpackDevice`] implementation.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[allow(missing_docs)]
        pub enum HandDevice { $($u,)* $($i(usize),)* }

        impl HandDevice {
            /// Every unit variant, and every indexed variant with ids 0 to 3.
            pub fn samples() -> Vec<HandDevice> {
                let mut out = vec![$(HandDevice::$u,)*];
                for id in 0..4 {
                    out.extend([$(HandDevice::$i(id),)*]);
                }
                out
            }

            /// The variant's device type code and its id (0 for a unit variant), to compare
            /// it with the derived enum's value in tests.
            #[inline(always)]
            pub fn tag(&self) -> (i32, usize) {
                match *self {
                    $(HandDevice::$u => (DLDeviceType::$utype.0, 0),)*
                    $(HandDevice::$i(id) => (DLDeviceType::$itype.0, id),)*
                }
            }
        }

        impl DlpackDevice for HandDevice {
            #[inline]
            fn dlpack_device(&self) -> Result<Device, Error> {
                Ok(match *self {
                    $(HandDevice::$u => Device::$uconst,)*
                    $(HandDevice::$i(id) => Device::$ictor(export_id(id)?),)*
                })
            }

            #[inline]
            fn from_dlpack_device(device: Device) -> Result<Self, Error> {
                match device.device_type {
                    $(DLDeviceType::$utype => Ok(HandDevice::$u),)*
                    $(DLDeviceType::$itype => Ok(HandDevice::$i(import_id(device.device_id)?)),)*
                    _ => Err(unsupported(device)),
                }
            }
        }

        /// `variant` as dlpark's `DLDevice`, `None` if the id does not fit.
        #[inline]
        pub fn to_dlpark(variant: HandDevice) -> Option<ParkDevice> {
            Some(match variant {
                $(HandDevice::$u => ParkDevice { device_type: ParkType::$upark, device_id: 0 },)*
                $(HandDevice::$i(id) => ParkDevice {
                    device_type: ParkType::$ipark,
                    device_id: i32::try_from(id).ok()?,
                },)*
            })
        }

        /// The variant for dlpark's `DLDevice`, `None` if there is none.
        #[inline]
        pub fn from_dlpark(device: ParkDevice) -> Option<HandDevice> {
            match device.device_type {
                $(ParkType::$upark => Some(HandDevice::$u),)*
                $(ParkType::$ipark => Some(HandDevice::$i(usize::try_from(device.device_id).ok()?)),)*
                _ => None,
            }
        }

        /// The device types [`HandDevice`] supports, for its error message.
        const SUPPORTED: &[DLDeviceType] = &[$(DLDeviceType::$utype,)* $(DLDeviceType::$itype,)*];
    };
}

hand_device! {
    unit {
        Cpu => CPU, CPU, CPU;
        CudaHost => CUDA_HOST, CUDA_HOST, CUDAHOST;
        CudaManaged => CUDA_MANAGED, CUDA_MANAGED, CUDAMANAGED;
        RocmHost => ROCM_HOST, ROCM_HOST, ROCMHOST;
        Vpi => VPI, VPI, VPI;
        ExtDev => EXT_DEV, EXT_DEV, EXTDEV;
        WebGpu => WEBGPU, WEBGPU, WEBGPU;
        Hexagon => HEXAGON, HEXAGON, HEXAGON;
        Maia => MAIA, MAIA, MAIA;
    }
    indexed {
        Cuda => cuda, CUDA, CUDA;
        Rocm => rocm, ROCM, ROCM;
        OpenCl => opencl, OPENCL, OPENCL;
        Vulkan => vulkan, VULKAN, VULKAN;
        Metal => metal, METAL, METAL;
        OneApi => oneapi, ONEAPI, ONEAPI;
        Trn => trn, TRN, TRN;
    }
}

/// A `usize` id as a DLPack id: an error past `i32::MAX`, never a truncation.
#[inline]
fn export_id(id: usize) -> Result<i32, Error> {
    i32::try_from(id).map_err(|_| id_out_of_range("i32", id as i128, i32::MAX as i128))
}

/// A DLPack id as a `usize`: an error for a negative id.
#[inline]
fn import_id(id: i32) -> Result<usize, Error> {
    usize::try_from(id).map_err(|_| id_out_of_range("usize", id.into(), usize::MAX as i128))
}

#[cold]
#[inline(never)]
fn id_out_of_range(type_name: &'static str, id: i128, max: i128) -> Error {
    Error::DeviceIdOutOfRange {
        type_name,
        id,
        min: 0,
        max,
    }
}

#[cold]
#[inline(never)]
fn unsupported(device: Device) -> Error {
    Error::msg(format_args!(
        "{} has no value for DLPack device {device}; it supports device types {:?}",
        core::any::type_name::<HandDevice>(),
        SUPPORTED.iter().map(|t| t.0).collect::<Vec<_>>()
    ))
}

/// A shuffled stream of [`HandDevice::samples`].
pub fn variant_stream(seed: u64) -> Vec<HandDevice> {
    crate::stream::shuffled(&HandDevice::samples(), crate::stream::STREAM_LEN, seed)
}

/// A shuffled stream of the samples' devices (what `from_dlpack_device` is fed).
pub fn device_stream(seed: u64) -> Vec<Device> {
    variant_stream(seed)
        .into_iter()
        .map(|v| v.dlpack_device().expect("every sample maps"))
        .collect()
}

/// [`device_stream`] as dlpark's `DLDevice` values.
pub fn park_device_stream(seed: u64) -> Vec<ParkDevice> {
    variant_stream(seed)
        .into_iter()
        .map(|v| to_dlpark(v).expect("every sample maps"))
        .collect()
}
