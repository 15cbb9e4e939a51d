//! CUDA backend tests. Those that need a GPU (named `gpu_*`) skip with a printed reason when none is found,
//! and fail instead when `DLPACK_REQUIRE_GPU=1` (as `scripts/gpu-check.sh` sets it), so a GPU
//! run cannot pass by skipping. The others run everywhere and check that a machine without a
//! driver gets errors, not panics.
#![cfg(feature = "cuda")]

mod support;

use std::sync::Arc;

use dlpack_core::cuda::{
    self, CudaError, StreamArg, Synced, cuda_device_info, cuda_devices, try_cuda_devices,
};
use dlpack_core::{Device, Error};
use support::{Gate, gpu, stream};

#[test]
fn without_a_driver_every_entry_point_errors() {
    match try_cuda_devices() {
        Err(Error::Cuda(CudaError::NoDriver)) => {
            let no_driver = Err(Error::Cuda(CudaError::NoDriver));
            assert_eq!(cuda::context(Device::cuda(0)).map(drop), no_driver);
            assert_eq!(cuda_device_info(Device::cuda(0)).map(drop), no_driver);
            assert!(cuda_devices().is_empty());
            let message = try_cuda_devices().unwrap_err().to_string();
            assert_eq!(message, "no CUDA driver found: libcuda could not be loaded");
        }
        Err(other) => panic!("the driver loads but fails: {other}"),
        Ok(devices) => {
            // With a driver: the two discovery functions agree, and ordinals are dense.
            assert_eq!(cuda_devices(), devices);
            for (n, device) in devices.iter().enumerate() {
                assert_eq!(*device, Device::cuda(n as i32));
            }
        }
    }
}

#[test]
fn non_cuda_devices_are_refused_before_the_driver_is_asked() {
    for device in [Device::CPU, Device::CUDA_HOST, Device::rocm(0)] {
        let expected = Err(Error::Cuda(CudaError::UnsupportedDevice {
            device,
            expected: "a cuda:n device",
        }));
        assert_eq!(cuda::context(device).map(drop), expected);
        assert_eq!(cuda_device_info(device).map(drop), expected);
    }
}

#[test]
fn an_ordinal_past_the_last_device_is_not_found() {
    let count = cuda_devices().len();
    let device = Device::cuda(count as i32);
    match cuda_device_info(device) {
        Err(Error::Cuda(CudaError::DeviceNotFound {
            device: d,
            count: c,
        })) => {
            assert_eq!((d, c), (device, count));
        }
        Err(Error::Cuda(CudaError::NoDriver)) => assert_eq!(count, 0),
        other => panic!("{device}: {other:?}"),
    }
}

#[test]
fn gpu_device_info() {
    let Some(device) = gpu("gpu_device_info") else {
        return;
    };
    let info = cuda_device_info(device).expect("device info");
    assert_eq!(info.device, device);
    assert!(!info.name.is_empty());
    // DLPack-era GPUs: Kepler (3.x) and newer.
    assert!(
        info.compute_capability.0 >= 3,
        "{:?}",
        info.compute_capability
    );
    assert!(info.total_memory > 0);
    // Same answer as cudarc's context-based queries.
    let context = cuda::context(device).expect("context");
    assert_eq!(context.name().expect("name"), info.name);
    let (major, minor) = context.compute_capability().expect("capability");
    assert_eq!((major as u32, minor as u32), info.compute_capability);
}

#[test]
fn gpu_sync_for_consumer_waits_only_when_streams_differ() {
    let Some(device) = gpu("gpu_sync_for_consumer_waits_only_when_streams_differ") else {
        return;
    };
    let (context, producer) = stream(device);
    let (_, consumer) = stream(device);
    let sync = |arg| {
        // SAFETY: every handle passed below is a live stream of this context, or a default.
        unsafe { cuda::sync_for_consumer(&producer, arg) }.expect("sync")
    };
    assert_eq!(sync(StreamArg::NoSync), Synced::NotRequested);
    assert_eq!(sync(StreamArg::of(&producer)), Synced::SameStream);
    assert_eq!(sync(StreamArg::of(&consumer)), Synced::Waited);
    assert_eq!(sync(StreamArg::LegacyDefault), Synced::Waited);
    assert_eq!(sync(StreamArg::PerThreadDefault), Synced::Waited);
    // The legacy default stream of the context is the producer: nothing to do.
    let legacy = context.default_stream();
    // SAFETY: the default stream needs no promise.
    let same = unsafe { cuda::sync_for_consumer(&legacy, StreamArg::LegacyDefault) };
    assert_eq!(same, Ok(Synced::SameStream));
    consumer.synchronize().expect("consumer stream");
}

#[test]
fn gpu_the_consumer_stream_waits_for_the_producer_stream() {
    let Some(device) = gpu("gpu_the_consumer_stream_waits_for_the_producer_stream") else {
        return;
    };
    let (context, producer) = stream(device);
    let (_, consumer) = stream(device);
    let per_thread = context.per_thread_stream();
    let legacy = context.default_stream();
    for consumer in [&consumer, &per_thread, &legacy] {
        let gate = Arc::new(Gate::default());
        gate.hold(&producer);
        // SAFETY: a live stream of this context, or a default stream.
        let done = unsafe { cuda::sync_for_consumer(&producer, StreamArg::of(consumer)) };
        assert_eq!(done, Ok(Synced::Waited));
        let after = consumer.record_event(None).expect("record on consumer");
        // The producer is held at the gate, so the consumer cannot have passed its wait.
        // (Read before opening, assert after: a failed assertion must not leave the
        // producer stream blocked.)
        let while_held = after.try_is_complete();
        gate.open(&producer);
        assert_eq!(while_held, Ok(false), "{:?}", StreamArg::of(consumer));
        after
            .synchronize()
            .expect("consumer passes once the producer does");
        assert_eq!(after.try_is_complete(), Ok(true));
    }
}
