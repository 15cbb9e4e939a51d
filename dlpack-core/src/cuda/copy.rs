//! The `copy` argument of the array API's `from_dlpack(x, /, *, device=None, copy=None)`, and
//! the decision it leads to between CPU and CUDA memory; [`to_device`](super::to_device)
//! carries it out.

use crate::Device;
use crate::cuda::error::CudaError;
use crate::error::Error;
use crate::ffi::DLDeviceType;

/// The `copy` argument of `from_dlpack`: whether the result may, must not, or must be a copy.
///
/// ```
/// use dlpack_core::cuda::CopyMode;
///
/// assert_eq!(CopyMode::from(None), CopyMode::IfNeeded);
/// assert_eq!(CopyMode::from(Some(false)), CopyMode::Never);
/// assert_eq!(CopyMode::from(Some(true)), CopyMode::Always);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopyMode {
    /// `copy=None`: share the memory when the target device can read it, copy otherwise.
    IfNeeded,
    /// `copy=False`: share the memory, or fail with
    /// [`CudaError::CopyRequired`] when the target device cannot read it.
    Never,
    /// `copy=True`: always copy; the result is flagged `IS_COPIED`.
    Always,
}

/// [`IfNeeded`](CopyMode::IfNeeded): what `copy=None`, the standard's default, means.
///
/// ```
/// use dlpack_core::cuda::CopyMode;
/// assert_eq!(CopyMode::default(), CopyMode::from(None));
/// ```
impl Default for CopyMode {
    fn default() -> Self {
        Self::IfNeeded
    }
}

/// From the Python-level `copy` argument: `None` is [`IfNeeded`](CopyMode::IfNeeded),
/// `False` [`Never`](CopyMode::Never), `True` [`Always`](CopyMode::Always).
///
/// ```
/// use dlpack_core::cuda::CopyMode;
/// let copy: CopyMode = Some(true).into();
/// assert_eq!(copy, CopyMode::Always);
/// assert_eq!(CopyMode::from(None), CopyMode::IfNeeded);
/// ```
impl From<Option<bool>> for CopyMode {
    fn from(copy: Option<bool>) -> Self {
        match copy {
            None => Self::IfNeeded,
            Some(false) => Self::Never,
            Some(true) => Self::Always,
        }
    }
}

/// Back to the Python-level `copy` argument.
///
/// ```
/// use dlpack_core::cuda::CopyMode;
/// assert_eq!(Option::<bool>::from(CopyMode::Always), Some(true));
/// assert_eq!(Option::<bool>::from(CopyMode::IfNeeded), None);
/// ```
impl From<CopyMode> for Option<bool> {
    fn from(copy: CopyMode) -> Self {
        match copy {
            CopyMode::IfNeeded => None,
            CopyMode::Never => Some(false),
            CopyMode::Always => Some(true),
        }
    }
}

/// Which side of the host-device divide a device's memory is on, for copying.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// Readable by the CPU: `cpu`, `cuda_host`; copied with plain memory copies.
    Host,
    /// CUDA memory the CPU may not read directly: `cuda:n` and `cuda_managed` (which the
    /// driver copies safely whatever the GPU is doing); copied by the driver.
    Cuda,
}

impl Side {
    fn of(device: Device) -> Option<Self> {
        match device.device_type {
            DLDeviceType::CPU | DLDeviceType::CUDA_HOST => Some(Self::Host),
            DLDeviceType::CUDA | DLDeviceType::CUDA_MANAGED => Some(Self::Cuda),
            _ => None,
        }
    }
}

/// What [`to_device`](super::to_device) does with a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// Hand the tensor back as it is: the target reads its memory.
    Keep,
    /// Copy from `from` to new memory on the target (`cpu` or `cuda:n`).
    Copy { from: Side, to: Side },
}

/// Decides the route: the pure part of `to_device`, shared by its tests.
///
/// Targets are `cpu` and `cuda:n`, plus any device that can already read the tensor when no
/// copy is asked for. Sources are host memory (`cpu`, `cuda_host`) and CUDA memory (`cuda:n`,
/// `cuda_managed`).
pub(crate) fn route(from: Device, to: Device, copy: CopyMode) -> Result<Route, Error> {
    let readable = to.can_access(from);
    match copy {
        CopyMode::IfNeeded | CopyMode::Never if readable => return Ok(Route::Keep),
        CopyMode::Never => return Err(CudaError::CopyRequired { from, to }.into()),
        CopyMode::IfNeeded | CopyMode::Always => {}
    }
    let target = match to.device_type {
        DLDeviceType::CPU => Side::Host,
        DLDeviceType::CUDA => Side::Cuda,
        _ => {
            return Err(CudaError::UnsupportedDevice {
                device: to,
                expected: "cpu or a cuda:n device as the target of a copy",
            }
            .into());
        }
    };
    let Some(source) = Side::of(from) else {
        return Err(CudaError::UnsupportedDevice {
            device: from,
            expected: "a tensor in host or CUDA memory (cpu, cuda_host, cuda:n, cuda_managed)",
        }
        .into());
    };
    Ok(Route::Copy {
        from: source,
        to: target,
    })
}

/// How the host waits before it reads memory on a device that the GPU may still be writing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HostSync {
    /// Not needed: host memory, or memory the host cannot read at all.
    Nothing,
    /// Wait for the stream the producer ordered its work before.
    Stream,
    /// Wait for the whole context: managed memory on a device without concurrent managed
    /// access (Windows and WSL, Jetson), where the host may touch managed memory only while
    /// the device runs nothing, or the access faults.
    Context,
}

/// The pure part of [`sync_for_host`](super::sync_for_host): what the host waits for before
/// reading `memory`, on a device whose `CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS` is
/// `concurrent_managed_access`.
pub(crate) fn host_sync(memory: Device, concurrent_managed_access: bool) -> HostSync {
    match memory.device_type {
        DLDeviceType::CUDA_HOST => HostSync::Stream,
        DLDeviceType::CUDA_MANAGED if concurrent_managed_access => HostSync::Stream,
        DLDeviceType::CUDA_MANAGED => HostSync::Context,
        _ => HostSync::Nothing,
    }
}

/// The stream a copy runs on, by the device it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StreamOn {
    /// A stream of this `cuda:n` device; its legacy default stream when none is given.
    Device(Device),
    /// A stream of any device (the memory is managed or pinned, which every device reads);
    /// the legacy default stream of `default` when none is given.
    Any { default: Device },
}

/// Where the copy from memory on `from` to `to` runs: on the device whose memory it reads,
/// where the producer ordered its pending work (the stream the consumer named to it); into a
/// device from memory every device reads (host, pinned, managed), on the target device; from
/// pinned or managed memory to the host, on any device's stream. `None` for a copy between
/// host memories, which needs no stream.
pub(crate) fn stream_on(from: Device, to: Device) -> Option<StreamOn> {
    match (from.device_type, to.device_type) {
        (DLDeviceType::CUDA, _) => Some(StreamOn::Device(from)),
        (_, DLDeviceType::CUDA) => Some(StreamOn::Device(to)),
        (DLDeviceType::CUDA_MANAGED | DLDeviceType::CUDA_HOST, _) => Some(StreamOn::Any {
            default: Device::cuda(0),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPU: Device = Device::CPU;
    const PINNED: Device = Device::CUDA_HOST;
    const MANAGED: Device = Device::CUDA_MANAGED;
    const GPU0: Device = Device::cuda(0);
    const GPU1: Device = Device::cuda(1);
    const fn copy(from: Side, to: Side) -> Route {
        Route::Copy { from, to }
    }

    #[test]
    fn copy_none_shares_what_the_target_reads() {
        let keep = Ok(Route::Keep);
        assert_eq!(route(CPU, CPU, CopyMode::IfNeeded), keep);
        assert_eq!(route(PINNED, CPU, CopyMode::IfNeeded), keep);
        assert_eq!(route(MANAGED, CPU, CopyMode::IfNeeded), keep);
        assert_eq!(route(GPU0, GPU0, CopyMode::IfNeeded), keep);
        assert_eq!(route(PINNED, GPU0, CopyMode::IfNeeded), keep);
        assert_eq!(route(MANAGED, GPU1, CopyMode::IfNeeded), keep);
        // … and copies what it does not.
        assert_eq!(
            route(GPU0, CPU, CopyMode::IfNeeded),
            Ok(copy(Side::Cuda, Side::Host))
        );
        assert_eq!(
            route(CPU, GPU0, CopyMode::IfNeeded),
            Ok(copy(Side::Host, Side::Cuda))
        );
        assert_eq!(
            route(GPU0, GPU1, CopyMode::IfNeeded),
            Ok(copy(Side::Cuda, Side::Cuda))
        );
    }

    #[test]
    fn copy_false_refuses_what_needs_a_copy() {
        assert_eq!(route(PINNED, CPU, CopyMode::Never), Ok(Route::Keep));
        for (from, to) in [(GPU0, CPU), (CPU, GPU0), (GPU0, GPU1)] {
            let err = route(from, to, CopyMode::Never).unwrap_err();
            assert_eq!(err, Error::Cuda(CudaError::CopyRequired { from, to }));
        }
        assert_eq!(
            route(GPU0, CPU, CopyMode::Never).unwrap_err().to_string(),
            "copy=False, but a tensor on cuda:0 cannot be used on cpu without a copy"
        );
    }

    #[test]
    fn copy_true_always_copies() {
        let always = CopyMode::Always;
        assert_eq!(route(CPU, CPU, always), Ok(copy(Side::Host, Side::Host)));
        assert_eq!(route(PINNED, CPU, always), Ok(copy(Side::Host, Side::Host)));
        assert_eq!(
            route(MANAGED, CPU, always),
            Ok(copy(Side::Cuda, Side::Host))
        );
        assert_eq!(route(GPU0, GPU0, always), Ok(copy(Side::Cuda, Side::Cuda)));
        assert_eq!(route(CPU, GPU1, always), Ok(copy(Side::Host, Side::Cuda)));
    }

    #[test]
    fn other_devices_are_refused_with_the_reason() {
        let err = route(Device::rocm(0), CPU, CopyMode::IfNeeded).unwrap_err();
        assert!(
            err.to_string().starts_with(
                "rocm:0 is not supported here: expected a tensor in host or CUDA memory"
            ),
            "{err}"
        );
        let err = route(CPU, PINNED, CopyMode::Always).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("cuda_host is not supported here: expected cpu or a cuda:n"),
            "{err}"
        );
        let err = route(GPU0, Device::rocm(0), CopyMode::IfNeeded).unwrap_err();
        assert!(
            err.to_string().contains("expected cpu or a cuda:n device"),
            "{err}"
        );
        // A target that already reads the memory needs no support for copies.
        assert_eq!(route(CPU, PINNED, CopyMode::IfNeeded), Ok(Route::Keep));
    }

    #[test]
    fn the_host_waits_before_it_reads_memory_the_gpu_writes() {
        for concurrent in [true, false] {
            assert_eq!(host_sync(CPU, concurrent), HostSync::Nothing);
            assert_eq!(host_sync(GPU0, concurrent), HostSync::Nothing);
            assert_eq!(host_sync(PINNED, concurrent), HostSync::Stream);
        }
        assert_eq!(host_sync(MANAGED, true), HostSync::Stream);
        // Without concurrent managed access the host may not touch managed memory while the
        // device runs anything: only the whole context is enough.
        assert_eq!(host_sync(MANAGED, false), HostSync::Context);
    }

    #[test]
    fn copies_run_on_the_device_whose_memory_they_read() {
        assert_eq!(stream_on(GPU1, CPU), Some(StreamOn::Device(GPU1)));
        assert_eq!(stream_on(GPU1, GPU0), Some(StreamOn::Device(GPU1)));
        assert_eq!(stream_on(CPU, GPU1), Some(StreamOn::Device(GPU1)));
        assert_eq!(stream_on(MANAGED, GPU1), Some(StreamOn::Device(GPU1)));
        assert_eq!(
            stream_on(PINNED, CPU),
            Some(StreamOn::Any { default: GPU0 })
        );
        assert_eq!(
            stream_on(MANAGED, CPU),
            Some(StreamOn::Any { default: GPU0 })
        );
        assert_eq!(stream_on(CPU, CPU), None);
    }
}
