//! The consumer's decisions, made before the producer is asked: which stream to name in
//! `__dlpack__(stream=…)`, which device to make current around the call, whether to ask the
//! producer for another device and a copy or to copy here, and when the host waits before it
//! reads. `from_dlpack` of the Python feature carries them out.
//!
//! - The stream is chosen from the *source*: where `__dlpack_device__()` says the tensor is, for
//!   that is where the producer's pending work is queued. A CPU producer is never sent a stream
//!   (NumPy, PyTorch and this crate's producer refuse one), whatever `device=` asks for.
//! - The source's device is made current around `__dlpack__`: PyTorch exports only tensors of
//!   the current device ("different CUDA device index"), and records its event on the current
//!   device's stream.
//! - When the target differs from the source and the copy is one this backend makes (between
//!   `cpu`, `cuda_host`, `cuda:n` and `cuda_managed` memory, to `cpu` or `cuda:n`), the tensor
//!   is imported where it is and copied here, as PyTorch does: a producer is not asked to copy
//!   to a device it may not serve.
//! - A consumer working on its per-thread default stream names the legacy default stream (1)
//!   instead of 2: PyTorch refuses `stream=2` ("per-thread default stream is not supported"),
//!   and the per-thread default stream waits for the legacy one by itself (it is a blocking
//!   stream), so the producer's work is ordered before it just the same.

use crate::Device;
use crate::cuda::CudaError;
use crate::cuda::StreamArg;
use crate::error::Error;
use crate::ffi::DLDeviceType;

/// The consumer's own stream: its device (`cuda:n`) and the argument naming it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Own {
    pub(crate) device: Device,
    pub(crate) arg: StreamArg,
}

/// What the consumer asks the producer for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ask {
    /// `stream=`, or `None` to leave it out.
    pub(crate) stream: Option<StreamArg>,
    /// Whether `stream` names the consumer's own stream; else the legacy default stream of
    /// `device`.
    pub(crate) own: bool,
    /// The `cuda:n` device made current around `__dlpack__`.
    pub(crate) device: Option<Device>,
    /// `dl_device=`, or `None` to leave it out.
    pub(crate) dl_device: Option<Device>,
    /// `copy=`, or `None` to leave it out.
    pub(crate) copy: Option<bool>,
}

/// Whether this backend copies between the two (see [`to_device`](crate::cuda::to_device)).
fn copies(from: Device, to: Device) -> bool {
    matches!(
        from.device_type,
        DLDeviceType::CPU
            | DLDeviceType::CUDA_HOST
            | DLDeviceType::CUDA
            | DLDeviceType::CUDA_MANAGED
    ) && matches!(to.device_type, DLDeviceType::CPU | DLDeviceType::CUDA)
}

/// What to ask a producer whose tensor is on `source` (`None`: it cannot say) for, when the
/// consumer wants it on `target` (`None`: where it is) with `copy`, working on `own` (`None`:
/// on the legacy default stream).
///
/// Errors, before the producer is asked: `copy=False` for a target that cannot read the
/// source ([`CudaError::CopyRequired`]), and a stream of another device than the one the
/// tensor stays on ([`CudaError::WrongStream`]).
pub(crate) fn ask(
    source: Option<Device>,
    target: Option<Device>,
    copy: Option<bool>,
    own: Option<Own>,
) -> Result<Ask, Error> {
    let Some(source) = source else {
        return Ok(Ask {
            stream: None,
            own: false,
            device: None,
            dl_device: target,
            copy,
        });
    };
    let same = target.is_none_or(|target| target == source);
    let (stream, own_named, device) = match source.device_type {
        DLDeviceType::CUDA => match own {
            Some(own) if own.device == source => (Some(own.arg), true, Some(source)),
            Some(own) if same => {
                return Err(CudaError::WrongStream {
                    stream: own.device,
                    device: source,
                }
                .into());
            }
            _ => (Some(StreamArg::LegacyDefault), false, Some(source)),
        },
        // Memory every device reads: the consumer's stream, of whatever device.
        DLDeviceType::CUDA_MANAGED | DLDeviceType::CUDA_HOST => match own {
            Some(own) => (Some(own.arg), true, Some(own.device)),
            None => (Some(StreamArg::LegacyDefault), false, Some(Device::cuda(0))),
        },
        _ => (None, false, None),
    };
    let stream = stream.map(|arg| match arg {
        StreamArg::PerThreadDefault => StreamArg::LegacyDefault,
        other => other,
    });
    let (dl_device, copy) = match target {
        Some(target) if !same && copies(source, target) => {
            if copy == Some(false) && !target.can_access(source) {
                return Err(CudaError::CopyRequired {
                    from: source,
                    to: target,
                }
                .into());
            }
            // Imported where it is, and copied here: the producer is asked for no copy.
            (None, copy.filter(|copy| !copy))
        }
        _ => (target, copy),
    };
    Ok(Ask {
        stream,
        own: own_named,
        device,
        dl_device,
        copy,
    })
}

/// Whether the host may read a tensor that arrived in `here` memory before the consumer gets
/// it (so the host waits for the producer's work first): pinned or managed memory asked for on
/// the CPU, copied with `copy=True` where it is (a host copy), or imported by a consumer with no
/// stream of its own and no device (plain `from_dlpack`, whose result the host reads in place).
pub(crate) fn host_reads(
    here: Device,
    target: Option<Device>,
    copy: Option<bool>,
    own: bool,
) -> bool {
    matches!(
        here.device_type,
        DLDeviceType::CUDA_HOST | DLDeviceType::CUDA_MANAGED
    ) && match target {
        Some(target) => target.device_type == DLDeviceType::CPU,
        None => copy == Some(true) || !own,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPU: Device = Device::CPU;
    const GPU0: Device = Device::cuda(0);
    const GPU1: Device = Device::cuda(1);
    const MANAGED: Device = Device::CUDA_MANAGED;
    const PINNED: Device = Device::CUDA_HOST;
    const LEGACY: Option<StreamArg> = Some(StreamArg::LegacyDefault);

    fn own(device: Device, handle: usize) -> Option<Own> {
        Some(Own {
            device,
            arg: StreamArg::Handle(handle),
        })
    }

    fn asked(stream: Option<StreamArg>, own: bool, device: Option<Device>) -> Ask {
        Ask {
            stream,
            own,
            device,
            dl_device: None,
            copy: None,
        }
    }

    #[test]
    fn the_stream_comes_from_the_source_not_the_target() {
        // A CPU producer asked for cuda:0 gets no stream, and no dl_device: it is imported on
        // the CPU and copied here.
        assert_eq!(
            ask(Some(CPU), Some(GPU0), None, None),
            Ok(asked(None, false, None))
        );
        assert_eq!(
            ask(Some(CPU), Some(GPU0), None, own(GPU0, 0x99)),
            Ok(asked(None, false, None))
        );
        // A cuda:1 producer asked for the CPU: the legacy stream of cuda:1, made current.
        assert_eq!(
            ask(Some(GPU1), Some(CPU), None, None),
            Ok(asked(LEGACY, false, Some(GPU1)))
        );
        // … and asked for cuda:0 by a consumer on cuda:0: cuda:1's legacy stream, since the
        // consumer's is of another device; the copy to cuda:0 is made here.
        assert_eq!(
            ask(Some(GPU1), Some(GPU0), None, own(GPU0, 0x99)),
            Ok(asked(LEGACY, false, Some(GPU1)))
        );
        // On the source's device, the consumer's own stream.
        assert_eq!(
            ask(Some(GPU1), None, None, own(GPU1, 0x99)),
            Ok(asked(Some(StreamArg::Handle(0x99)), true, Some(GPU1)))
        );
    }

    #[test]
    fn a_stream_of_another_device_is_refused_where_the_tensor_stays() {
        for target in [None, Some(GPU1)] {
            let err = ask(Some(GPU1), target, None, own(GPU0, 0x99)).unwrap_err();
            assert_eq!(
                err,
                Error::Cuda(CudaError::WrongStream {
                    stream: GPU0,
                    device: GPU1
                })
            );
            assert!(err.to_string().contains("pass a stream of cuda:1"), "{err}");
        }
    }

    #[test]
    fn managed_and_pinned_memory_are_ordered_too() {
        for memory in [MANAGED, PINNED] {
            assert_eq!(
                ask(Some(memory), None, None, None),
                Ok(asked(LEGACY, false, Some(GPU0)))
            );
            // Any device's stream orders them.
            assert_eq!(
                ask(Some(memory), None, None, own(GPU1, 0x99)),
                Ok(asked(Some(StreamArg::Handle(0x99)), true, Some(GPU1)))
            );
            // Read on the CPU: asked where it is (the CPU reads it), not copied.
            let on_cpu = ask(Some(memory), Some(CPU), Some(false), None).unwrap();
            assert_eq!((on_cpu.dl_device, on_cpu.copy), (None, Some(false)));
        }
    }

    #[test]
    fn per_thread_consumers_name_the_legacy_stream() {
        let per_thread = Some(Own {
            device: GPU0,
            arg: StreamArg::PerThreadDefault,
        });
        assert_eq!(
            ask(Some(GPU0), None, None, per_thread),
            Ok(asked(LEGACY, true, Some(GPU0)))
        );
    }

    #[test]
    fn the_producer_is_asked_for_a_device_and_a_copy_only_where_it_stays() {
        // Same device: dl_device and copy go to the producer.
        let same = ask(Some(GPU0), Some(GPU0), Some(true), None).unwrap();
        assert_eq!((same.dl_device, same.copy), (Some(GPU0), Some(true)));
        let here = ask(Some(GPU0), None, Some(true), None).unwrap();
        assert_eq!((here.dl_device, here.copy), (None, Some(true)));
        // Elsewhere, and a copy this backend makes: neither (a copy=True would copy twice).
        let elsewhere = ask(Some(GPU0), Some(CPU), Some(true), None).unwrap();
        assert_eq!((elsewhere.dl_device, elsewhere.copy), (None, None));
        // A device this backend cannot copy to: the producer's job.
        let rocm = Device::rocm(0);
        let other = ask(Some(GPU0), Some(rocm), None, None).unwrap();
        assert_eq!((other.dl_device, other.copy), (Some(rocm), None));
        // An unknown source: the producer is asked for everything, with no stream.
        let unknown = ask(None, Some(GPU0), Some(true), own(GPU0, 0x99)).unwrap();
        assert_eq!(
            unknown,
            Ask {
                stream: None,
                own: false,
                device: None,
                dl_device: Some(GPU0),
                copy: Some(true)
            }
        );
    }

    #[test]
    fn copy_false_across_devices_is_refused_before_asking() {
        for (from, to) in [(GPU0, CPU), (CPU, GPU0), (GPU0, GPU1)] {
            assert_eq!(
                ask(Some(from), Some(to), Some(false), None),
                Err(Error::Cuda(CudaError::CopyRequired { from, to }))
            );
        }
        assert!(ask(Some(PINNED), Some(GPU0), Some(false), None).is_ok());
    }

    #[test]
    fn the_host_waits_for_what_it_reads_in_place() {
        for memory in [MANAGED, PINNED] {
            assert!(host_reads(memory, Some(CPU), None, true));
            assert!(host_reads(memory, None, None, false), "plain from_dlpack");
            assert!(host_reads(memory, None, Some(true), true), "a host copy");
            assert!(
                !host_reads(memory, None, None, true),
                "a consumer on its stream"
            );
            assert!(
                !host_reads(memory, Some(GPU0), None, false),
                "read on a GPU"
            );
        }
        for memory in [CPU, GPU0] {
            assert!(!host_reads(memory, Some(CPU), None, false));
            assert!(!host_reads(memory, None, None, false));
        }
    }
}
