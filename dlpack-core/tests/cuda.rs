//! CUDA backend tests. Those that need a GPU (named `gpu_*`) skip with a printed reason when none is found,
//! and fail instead when `DLPACK_REQUIRE_GPU=1` (as `scripts/gpu-check.sh` sets it), so a GPU
//! run cannot pass by skipping. The others run everywhere and check that a machine without a
//! driver gets errors, not panics.
#![cfg(feature = "cuda")]

mod support;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use dlpack_core::cuda::cudarc::driver::CudaContext;
use dlpack_core::cuda::{
    self, CopyMode, CudaBuffer, CudaError, CudaTensorView, StreamArg, Synced, cuda_device_info,
    cuda_devices, try_cuda_devices,
};
use dlpack_core::{Device, Error, ManagedTensor};
use support::{Gate, bind, current, gpu, stream, two_gpus, within};

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
    let sync = |producer, arg| {
        // SAFETY: every handle passed below is a live stream of this context, or a default.
        unsafe { cuda::sync_for_consumer(producer, arg) }.expect("sync")
    };
    assert_eq!(sync(&producer, StreamArg::NoSync), Synced::NotRequested);
    assert_eq!(
        sync(&producer, StreamArg::of(&producer)),
        Synced::SameStream
    );
    assert_eq!(sync(&producer, StreamArg::of(&consumer)), Synced::Waited);
    assert_eq!(sync(&producer, StreamArg::LegacyDefault), Synced::Waited);
    assert_eq!(sync(&producer, StreamArg::PerThreadDefault), Synced::Waited);
    // The legacy default stream of the context is the producer: nothing to do.
    let legacy = context.default_stream();
    assert_eq!(sync(&legacy, StreamArg::LegacyDefault), Synced::SameStream);
    // A per-thread producer may be another thread's per-thread stream: never taken for the
    // consumer's, even when both say 2.
    let per_thread = context.per_thread_stream();
    assert_eq!(
        sync(&per_thread, StreamArg::PerThreadDefault),
        Synced::Waited
    );
    cuda::with_current(&context, || consumer.synchronize())
        .unwrap()
        .expect("consumer stream");
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
        let gate = Gate::hold(&producer);
        // SAFETY: a live stream of this context, or a default stream.
        let done = unsafe { cuda::sync_for_consumer(&producer, StreamArg::of(consumer)) };
        assert_eq!(done, Ok(Synced::Waited));
        let after = cuda::with_current(&context, || consumer.record_event(None))
            .unwrap()
            .expect("record on consumer");
        // The producer is held at the gate, so the consumer cannot have passed its wait.
        assert_eq!(
            after.try_is_complete(),
            Ok(false),
            "{:?}",
            StreamArg::of(consumer)
        );
        gate.open();
        cuda::with_current(&context, || after.synchronize())
            .unwrap()
            .expect("consumer passes once the producer does");
        assert_eq!(after.try_is_complete(), Ok(true));
    }
}

#[test]
fn gpu_another_threads_per_thread_stream_is_waited_for() {
    let name = "gpu_another_threads_per_thread_stream_is_waited_for";
    let Some(device) = gpu(name) else {
        return;
    };
    let context = cuda::context(device).expect("context");
    // The producer's work is queued on thread A's per-thread default stream, behind a gate…
    let held = {
        let context = Arc::clone(&context);
        std::thread::spawn(move || Gate::hold(&context.per_thread_stream()))
            .join()
            .expect("thread A")
    };
    // …and the consumer, on this thread, asks with stream=2: its own per-thread stream.
    let producer = context.per_thread_stream();
    // SAFETY: the per-thread default stream needs no promise.
    let done = unsafe { cuda::sync_for_consumer(&producer, StreamArg::PerThreadDefault) };
    assert_eq!(done, Ok(Synced::Waited));
    let after = cuda::with_current(&context, || producer.record_event(None))
        .unwrap()
        .expect("record on this thread's per-thread stream");
    let while_held = after.try_is_complete();
    drop(held);
    assert_eq!(
        while_held,
        Ok(false),
        "this thread's stream did not wait for thread A's"
    );
    cuda::with_current(&context, || after.synchronize())
        .unwrap()
        .expect("passes once thread A's stream does");
}

#[test]
fn gpu_a_gate_opens_when_dropped() {
    let Some(device) = gpu("gpu_a_gate_opens_when_dropped") else {
        return;
    };
    let (_context, held) = stream(device);
    // An assertion fails while the stream is held: the unwinding drops the gate.
    let failed = catch_unwind(AssertUnwindSafe(|| {
        let _gate = Gate::hold(&held);
        panic!("a failing assertion while the stream is held (expected by this test)");
    }));
    assert!(failed.is_err());
    let passed = within(30, move || {
        cuda::with_current(held.context(), || held.synchronize())
            .unwrap()
            .is_ok()
    });
    assert_eq!(
        passed,
        Some(true),
        "the stream stayed held after its gate dropped"
    );
}

/// Runs each entry point of the backend with `bound` current (or none), and checks after each
/// that it still is: the CUDA runtime reads the thread's current context as its device.
fn every_entry_point_keeps(bound: Option<&CudaContext>, device: Device, name: &str) {
    let check = |what: &str| {
        let expected = bound.map(CudaContext::cu_ctx);
        assert_eq!(
            current(),
            expected,
            "{name}: {what} changed the current context"
        );
    };
    bind(bound);
    let context = cuda::context(device).expect("context");
    check("cuda::context");
    let producer = cuda::with_current(&context, || context.new_stream())
        .unwrap()
        .expect("stream");
    check("with_current");
    let buffer = CudaBuffer::from_host(&producer, &[1.0_f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    check("CudaBuffer::from_host");
    // SAFETY: the legacy default stream needs no promise.
    unsafe { cuda::sync_for_consumer(buffer.stream(), StreamArg::LegacyDefault) }.unwrap();
    check("sync_for_consumer");
    // SAFETY: as above.
    let tensor = unsafe { buffer.into_dlpack_for(StreamArg::LegacyDefault) }.unwrap();
    check("into_dlpack_for");
    let values = CudaTensorView::<f32>::new(tensor.view().unwrap())
        .unwrap()
        .to_host_vec(None)
        .unwrap();
    assert_eq!(values, [1.0, 2.0, 3.0, 4.0]);
    check("to_host_vec");
    let twin = cuda::to_device(tensor, device, CopyMode::Always, None).unwrap();
    check("to_device (device to device)");
    let host = cuda::to_device(twin, Device::CPU, CopyMode::IfNeeded, None).unwrap();
    check("to_device (device to host)");
    let back = cuda::to_device(host, device, CopyMode::IfNeeded, Some(&producer)).unwrap();
    check("to_device (host to device)");
    drop(back);
    check("the deleter");
    // A deleter on another thread where the same context is bound leaves it there too.
    let tensor = CudaBuffer::from_host(&producer, &[5_u8], &[1])
        .unwrap()
        .into_dlpack()
        .unwrap();
    let theirs = bound.map(|context| context.cu_ctx().expose_provenance());
    let after = std::thread::spawn(move || {
        let raw = std::ptr::with_exposed_provenance_mut(theirs.unwrap_or(0));
        // SAFETY: null, or a context the test holds.
        unsafe { cuda::cudarc::driver::result::ctx::set_current(raw) }.unwrap();
        drop(tensor);
        current().map(|context| context.expose_provenance())
    })
    .join()
    .unwrap();
    assert_eq!(after, theirs, "{name}: a deleter on another thread");
    check("the deleter on another thread");
    bind(None);
}

#[test]
fn gpu_no_context_is_left_bound() {
    let Some(device) = gpu("gpu_no_context_is_left_bound") else {
        return;
    };
    // No context bound, as on a fresh thread…
    every_entry_point_keeps(None, device, "none bound");
    // …the device's primary context (PyTorch's, on its current device)…
    let primary = cuda::context(device).unwrap();
    every_entry_point_keeps(Some(&primary), device, "the primary context");
    // …and another library's own context on the same device.
    let theirs = CudaContext::new_non_primary(0, 0).expect("a non-primary context");
    bind(None);
    every_entry_point_keeps(Some(&theirs), device, "a non-primary context");
}

#[test]
fn gpu_a_tensor_on_cuda1_leaves_cuda0_current() {
    let Some((gpu0, gpu1)) = two_gpus("gpu_a_tensor_on_cuda1_leaves_cuda0_current") else {
        return;
    };
    let zero = cuda::context(gpu0).unwrap();
    every_entry_point_keeps(Some(&zero), gpu1, "cuda:0 bound, work on cuda:1");
}

#[test]
fn gpu_the_same_context_every_time() {
    let Some(device) = gpu("gpu_the_same_context_every_time") else {
        return;
    };
    let first = cuda::context(device).unwrap();
    assert!(Arc::ptr_eq(&first, &cuda::context(device).unwrap()));
    // A tensor round trip through the C ABI between them changes nothing.
    let tensor = ManagedTensor::from_vec(vec![1_u8, 2], &[2]).unwrap();
    let copied = cuda::to_device(tensor, device, CopyMode::IfNeeded, None).unwrap();
    drop(copied);
    assert!(Arc::ptr_eq(&first, &cuda::context(device).unwrap()));
}
