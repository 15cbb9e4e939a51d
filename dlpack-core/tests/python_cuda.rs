//! The stream rule of `__dlpack__` through the Python feature, on a GPU: a producer's capsule
//! makes the consumer's stream wait for the producer's pending work, and a consumer names its
//! stream. The argument handling itself is tested without a GPU in the library's unit tests
//! (`python::cuda::tests`); these tests, named `gpu_*`, skip with a printed reason when no
//! GPU is found and fail instead with `DLPACK_REQUIRE_GPU=1`.
#![cfg(all(feature = "cuda", feature = "pyo3"))]

mod support;

use std::ffi::CString;
use std::sync::{Arc, Mutex};

use dlpack_core::__private::{USED_LEGACY, capsule_tensor, versioned_capsule};
use dlpack_core::Device;
use dlpack_core::cuda::cudarc::driver::{CudaContext, DevicePtr};
use dlpack_core::cuda::{self, CudaBuffer, CudaTensorView, StreamArg};
use dlpack_core::python::{DlpackRequest, import_tensor, import_tensor_on_stream};
use dlpack_core::tensor::{Flags, TensorOwner, TensorParts};
use pyo3::exceptions::{PyBufferError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCFunction, PyCapsule, PyDict, PyTuple};
use support::{Gate, bind, current, gpu, stream, two_gpus};

const N: usize = 1024;

fn with_python(test: impl FnOnce(Python<'_>) -> PyResult<()>) {
    Python::initialize();
    Python::attach(test).unwrap();
}

/// `DlpackRequest::new` from Python values, as `__dlpack__` receives them.
fn request(
    py: Python<'_>,
    stream: Option<i128>,
    max_version: Option<(u32, u32)>,
    dl_device: Option<(i32, i32)>,
    copy: Option<bool>,
) -> PyResult<DlpackRequest> {
    let stream = stream.map(|s| s.into_pyobject(py)).transpose()?;
    let version = max_version.map(|v| v.into_pyobject(py)).transpose()?;
    let device = dl_device.map(|d| d.into_pyobject(py)).transpose()?;
    DlpackRequest::new(
        stream.as_ref().map(|s| s.as_any()),
        version.as_ref().map(|v| v.as_any()),
        device.as_ref().map(|d| d.as_any()),
        copy,
    )
}

#[test]
fn gpu_python_the_consumer_stream_waits_for_the_capsules_producer() {
    let Some(device) = gpu("gpu_python_the_consumer_stream_waits_for_the_capsules_producer") else {
        return;
    };
    let (context, producer) = stream(device);
    let (_, consumer) = stream(device);
    for (name, consumer) in [
        ("a stream handle", &consumer),
        ("the legacy default stream", &context.default_stream()),
        (
            "the per-thread default stream",
            &context.per_thread_stream(),
        ),
    ] {
        with_python(|py| {
            let buffer = CudaBuffer::from_host(&producer, &[0.0_f32; N], &[N])?;
            let address = buffer.slice().device_ptr(&producer).0;
            let gate = Gate::hold(&producer);
            // The producer's pending work: 4.0 everywhere, queued behind the gate.
            // SAFETY: `N` floats of the buffer, which the capsule below keeps alive.
            unsafe { support::write_u32(&producer, address, 4.0_f32.to_bits(), N) };

            let request = request(
                py,
                Some(i128::from(StreamArg::of(consumer))),
                Some((1, 3)),
                None,
                None,
            )?;
            // SAFETY: the consumer stream is a live stream of this context, or a default one.
            let capsule = unsafe { request.cuda_capsule(py, buffer, &producer) }?;
            let tensor = capsule_tensor(&capsule)?;
            let after = cuda::with_current(&context, || consumer.record_event(None))?
                .expect("record on the consumer");
            // The gate opens when dropped, should this fail.
            assert_eq!(after.try_is_complete(), Ok(false), "{name} did not wait");
            gate.open();

            let view = CudaTensorView::<f32>::new(tensor.view()?)?;
            assert_eq!(view.device_ptr(), address, "shared, not copied");
            assert_eq!(view.to_host_vec(Some(consumer))?, [4.0; N], "{name}");
            Ok(())
        });
    }
}

#[test]
fn gpu_python_cuda_capsule_honours_the_request() {
    let Some(device) = gpu("gpu_python_cuda_capsule_honours_the_request") else {
        return;
    };
    let (_, producer) = stream(device);
    let data: Vec<i32> = (0..N as i32).collect();
    with_python(|py| {
        let buffer = || CudaBuffer::from_host(&producer, &data, &[N]);
        // dl_device=(1, 0): a host copy, complete, flagged.
        let to_cpu = request(py, Some(1), Some((1, 3)), Some((1, 0)), None)?;
        // SAFETY: the legacy default stream.
        let host = capsule_tensor(&unsafe { to_cpu.cuda_capsule(py, buffer()?, &producer) }?)?;
        assert_eq!(host.device(), Device::CPU);
        assert!(host.flags().contains(Flags::IS_COPIED));
        assert_eq!(host.view()?.as_slice::<i32>()?, &data[..]);

        // copy=True: a copy on the same device.
        let source = buffer()?;
        let original = source.slice().device_ptr(&producer).0;
        let copy = request(py, Some(-1), Some((1, 3)), None, Some(true))?;
        // SAFETY: -1 names no stream.
        let copied = capsule_tensor(&unsafe { copy.cuda_capsule(py, source, &producer) }?)?;
        let view = CudaTensorView::<i32>::new(copied.view()?)?;
        assert!(view.flags().contains(Flags::IS_COPIED));
        assert_ne!(view.device_ptr(), original);
        assert_eq!(view.to_host_vec(Some(&producer))?, data);

        // No max_version: a legacy capsule, on the legacy default stream.
        // SAFETY: no stream named.
        let capsule = unsafe { DlpackRequest::LEGACY.cuda_capsule(py, buffer()?, &producer) }?;
        let legacy = capsule_tensor(&capsule)?;
        assert!(capsule.is_valid_checked(Some(USED_LEGACY)));
        assert_eq!(legacy.device(), device);

        // Another device, and stream=0: refused.
        let elsewhere = request(py, None, Some((1, 3)), Some((2, 1)), None)?;
        // SAFETY: no stream named.
        let err = unsafe { elsewhere.cuda_capsule(py, buffer()?, &producer) }.unwrap_err();
        assert!(err.is_instance_of::<PyBufferError>(py), "{err}");
        let mut zero = DlpackRequest::LEGACY;
        zero.stream = Some(0);
        // SAFETY: refused before any stream is used.
        let err = unsafe { zero.cuda_capsule(py, buffer()?, &producer) }.unwrap_err();
        assert!(err.is_instance_of::<PyValueError>(py), "{err}");
        // A host tensor is not for `cuda_capsule`.
        let host = Host(vec![1, 2], [2]);
        // SAFETY: refused before any stream is used.
        let err = unsafe { DlpackRequest::LEGACY.cuda_capsule(py, host, &producer) }.unwrap_err();
        assert!(err.is_instance_of::<PyBufferError>(py), "{err}");
        Ok(())
    });
}

/// Bytes in host memory, with their shape.
struct Host(Vec<u8>, [usize; 1]);

// SAFETY: the Vec's elements, as many as the shape says, stay put while the owner lives.
unsafe impl TensorOwner for Host {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::host(self.0.as_mut_ptr(), &self.1[..])
    }
}

/// A Python producer that hands out `capsule`, says it lives on `device`, and records the
/// `stream` of each `__dlpack__` call.
fn recording<'py>(
    py: Python<'py>,
    device: Device,
    capsule: Bound<'py, PyCapsule>,
) -> PyResult<Bound<'py, PyAny>> {
    let globals = PyDict::new(py);
    let code = "class Producer:\n    def __init__(self, device, capsule):\n        self.device, self.capsule, self.streams = device, capsule, []\n    def __dlpack_device__(self):\n        return self.device\n    def __dlpack__(self, stream=None, **kwargs):\n        self.streams.append(stream)\n        return self.capsule\n";
    py.run(&CString::new(code).unwrap(), Some(&globals), None)?;
    let pair: (i32, i32) = device.into();
    globals
        .get_item("Producer")?
        .unwrap()
        .call1((pair, capsule))
}

#[test]
fn gpu_python_the_consumer_names_its_stream() {
    let Some(device) = gpu("gpu_python_the_consumer_names_its_stream") else {
        return;
    };
    let (context, ours) = stream(device);
    with_python(|py| {
        let export = || -> PyResult<Bound<'_, PyCapsule>> {
            let buffer = CudaBuffer::from_host(&ours, &[1_u16, 2, 3], &[3])?;
            versioned_capsule(py, buffer.into_dlpack()?)
        };
        // The per-thread default stream is named as the legacy one: PyTorch refuses 2, and the
        // per-thread stream waits for the legacy stream by itself.
        for (stream, expected) in [
            (Some(&ours), i128::from(StreamArg::of(&ours))),
            (Some(&context.default_stream()), 1),
            (Some(&context.per_thread_stream()), 1),
            (None, 1),
        ] {
            let producer = recording(py, device, export()?)?;
            let tensor = match stream {
                Some(stream) => import_tensor_on_stream(&producer, None, None, stream)?,
                None => import_tensor(&producer, None, None)?,
            };
            assert_eq!(tensor.device(), device);
            let streams: Vec<i128> = producer.getattr("streams")?.extract()?;
            assert_eq!(streams, [expected]);
        }
        // A stream of another device than the tensor's: refused before the producer is asked.
        let elsewhere = Device::cuda(device.device_id + 1);
        let producer = recording(py, elsewhere, export()?)?;
        let err = import_tensor_on_stream(&producer, None, None, &ours).unwrap_err();
        assert!(err.is_instance_of::<PyValueError>(py), "{err}");
        assert!(err.to_string().contains("pass a stream of"), "{err}");
        let streams: Vec<i128> = producer.getattr("streams")?.extract()?;
        assert!(streams.is_empty());
        Ok(())
    });
}

#[test]
fn gpu_python_a_consumer_copy_runs_on_the_consumers_stream() {
    let Some(device) = gpu("gpu_python_a_consumer_copy_runs_on_the_consumers_stream") else {
        return;
    };
    let (_, ours) = stream(device);
    with_python(|py| {
        let buffer = CudaBuffer::from_host(&ours, &[1.5_f64, 2.5, 3.5], &[3])?;
        let original = buffer.slice().device_ptr(&ours).0;
        // A producer that ignores `copy=True` (it hands out what it has).
        let producer = recording(py, device, versioned_capsule(py, buffer.into_dlpack()?)?)?;
        let copy = import_tensor_on_stream(&producer, None, Some(true), &ours)?;
        assert!(copy.flags().contains(Flags::IS_COPIED));
        let view = CudaTensorView::<f64>::new(copy.view()?)?;
        assert_eq!(view.device(), device);
        assert_ne!(view.device_ptr(), original);
        assert_eq!(view.to_host_vec(Some(&ours))?, [1.5, 2.5, 3.5]);
        Ok(())
    });
}

#[test]
fn gpu_python_a_producer_that_does_not_say_its_device_is_ordered_by_the_legacy_stream() {
    let name = "gpu_python_a_producer_that_does_not_say_its_device_is_ordered_by_the_legacy_stream";
    let Some(device) = gpu(name) else {
        return;
    };
    let (context, ours) = stream(device);
    let legacy = context.default_stream();
    with_python(|py| {
        let buffer = CudaBuffer::from_host(&ours, &[7_u32; 4], &[4])?;
        cuda::with_current(&context, || ours.synchronize())?.expect("upload");
        let capsule = versioned_capsule(py, buffer.into_dlpack()?)?;
        // No `__dlpack_device__`: the consumer cannot name a stream, and the producer orders
        // its work before the legacy default stream, as `stream=None` asks.
        let globals = PyDict::new(py);
        let code = c"class Mute:\n    def __init__(self, capsule):\n        self.capsule, self.calls = capsule, []\n    def __dlpack__(self, **kwargs):\n        self.calls.append(sorted(kwargs))\n        return self.capsule\n";
        py.run(code, Some(&globals), None)?;
        let producer = globals.get_item("Mute")?.unwrap().call1((capsule,))?;

        let gate = Gate::hold(&legacy);
        let tensor = import_tensor_on_stream(&producer, None, None, &ours)?;
        let after = cuda::with_current(&context, || ours.record_event(None))?
            .expect("record on our stream");
        assert_eq!(
            after.try_is_complete(),
            Ok(false),
            "our stream did not wait for the legacy one"
        );
        gate.open();
        assert_eq!(tensor.device(), device);
        let calls: Vec<Vec<String>> = producer.getattr("calls")?.extract()?;
        assert_eq!(calls, [["max_version"]]);
        Ok(())
    });
}

/// A Python producer of `capsule` on `device` whose `__dlpack__` records the context current
/// while it runs (through a Rust function), as PyTorch reads its current device there.
fn watching<'py>(
    py: Python<'py>,
    device: Device,
    capsule: Bound<'py, PyCapsule>,
    seen: Arc<Mutex<Vec<usize>>>,
) -> PyResult<Bound<'py, PyAny>> {
    let look = PyCFunction::new_closure(
        py,
        None,
        None,
        move |_args: &Bound<'_, PyTuple>, _kwargs| {
            let raw = current().map_or(0, |context| context.expose_provenance());
            seen.lock().unwrap().push(raw);
        },
    )?;
    let globals = PyDict::new(py);
    globals.set_item("look", look)?;
    let code = c"class Producer:\n    def __init__(self, device, capsule):\n        self.device, self.capsule = device, capsule\n    def __dlpack_device__(self):\n        return self.device\n    def __dlpack__(self, **kwargs):\n        look()\n        return self.capsule\n";
    py.run(code, Some(&globals), None)?;
    let pair: (i32, i32) = device.into();
    globals
        .get_item("Producer")?
        .unwrap()
        .call1((pair, capsule))
}

/// Imports a tensor of `device` while `bound` is current, and checks that `device` was current
/// during `__dlpack__` and `bound` is again after it and after the deleter.
fn import_keeps_the_callers_context(device: Device, bound: Option<&Arc<CudaContext>>) {
    let (context, ours) = stream(device);
    let raw = |context: Option<&Arc<CudaContext>>| {
        context.map_or(0, |context| context.cu_ctx().expose_provenance())
    };
    with_python(|py| {
        let buffer = CudaBuffer::from_host(&ours, &[1.5_f32, 2.5], &[2])?;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let capsule = versioned_capsule(py, buffer.into_dlpack()?)?;
        let producer = watching(py, device, capsule, Arc::clone(&seen))?;
        bind(bound.map(|context| &**context));
        let tensor = import_tensor(&producer, None, None)?;
        let after_import = current().map_or(0, |c| c.expose_provenance());
        drop(tensor);
        let after_release = current().map_or(0, |c| c.expose_provenance());
        bind(None);
        assert_eq!(
            *seen.lock().unwrap(),
            [raw(Some(&context))],
            "current during __dlpack__"
        );
        assert_eq!(after_import, raw(bound), "current after from_dlpack");
        assert_eq!(after_release, raw(bound), "current after the deleter");
        Ok(())
    });
}

#[test]
fn gpu_python_the_tensors_device_is_current_around_dlpack_and_only_then() {
    let Some(device) = gpu("gpu_python_the_tensors_device_is_current_around_dlpack_and_only_then")
    else {
        return;
    };
    // Nothing bound before: the tensor's context during `__dlpack__`, nothing after.
    import_keeps_the_callers_context(device, None);
}

#[test]
fn gpu_python_a_cuda1_tensor_is_imported_while_cuda0_is_current() {
    let Some((gpu0, gpu1)) =
        two_gpus("gpu_python_a_cuda1_tensor_is_imported_while_cuda0_is_current")
    else {
        return;
    };
    let zero = cuda::context(gpu0).unwrap();
    import_keeps_the_callers_context(gpu1, Some(&zero));
    // And the producer side: `cuda_capsule` of a cuda:1 tensor while cuda:0 is current.
    let (_, one) = stream(gpu1);
    with_python(|py| {
        let buffer = CudaBuffer::from_host(&one, &[3_i32; 8], &[8])?;
        bind(Some(&zero));
        let request = request(py, Some(1), Some((1, 3)), None, None)?;
        // SAFETY: the legacy default stream.
        let capsule = unsafe { request.cuda_capsule(py, buffer, &one) }?;
        let during = current();
        drop(capsule_tensor(&capsule)?);
        let after = current();
        bind(None);
        assert_eq!(during, Some(zero.cu_ctx()), "current after __dlpack__");
        assert_eq!(after, Some(zero.cu_ctx()), "current after the deleter");
        Ok(())
    });
}

#[test]
fn gpu_python_a_producer_copy_neither_blocks_nor_races() {
    let Some(device) = gpu("gpu_python_a_producer_copy_neither_blocks_nor_races") else {
        return;
    };
    let (context, producer) = stream(device);
    let (_, consumer) = stream(device);
    with_python(|py| {
        let buffer = CudaBuffer::from_host(&producer, &[0_u32; N], &[N])?;
        let address = buffer.slice().device_ptr(&producer).0;
        let gate = Gate::hold(&producer);
        // SAFETY: the buffer's `N` u32s, kept by the capsule below.
        unsafe { support::write_u32(&producer, address, 6, N) };
        // copy=True for a consumer on its own stream: queued on the producer's stream after
        // the write, and the consumer's stream ordered after the copy. The host does not wait
        // (it would wait for the gate forever: the gate opens on drop only after this returns).
        let copy = request(
            py,
            Some(i128::from(StreamArg::of(&consumer))),
            Some((1, 3)),
            None,
            Some(true),
        )?;
        // SAFETY: the consumer's stream lives past the release below.
        let capsule = unsafe { copy.cuda_capsule(py, buffer, &producer) }?;
        let tensor = capsule_tensor(&capsule)?;
        assert!(tensor.flags().contains(Flags::IS_COPIED));
        let after = cuda::with_current(&context, || consumer.record_event(None))?
            .expect("record on the consumer");
        assert_eq!(
            after.try_is_complete(),
            Ok(false),
            "the consumer did not wait for the copy"
        );
        gate.open();
        let view = CudaTensorView::<u32>::new(tensor.view()?)?;
        assert_ne!(view.device_ptr(), address);
        assert_eq!(view.to_host_vec(Some(&consumer))?, [6; N]);
        Ok(())
    });
}

#[test]
fn gpu_python_a_producer_stream_of_another_device_is_refused() {
    let Some((gpu0, gpu1)) = two_gpus("gpu_python_a_producer_stream_of_another_device_is_refused")
    else {
        return;
    };
    let (_, zero) = stream(gpu0);
    let (_, one) = stream(gpu1);
    with_python(|py| {
        let buffer = CudaBuffer::from_host(&one, &[1_u8], &[1])?;
        // SAFETY: refused before any stream is used.
        let err = unsafe { DlpackRequest::LEGACY.cuda_capsule(py, buffer, &zero) }.unwrap_err();
        assert!(err.is_instance_of::<PyValueError>(py), "{err}");
        assert!(err.to_string().contains("pass a stream of cuda:1"), "{err}");
        Ok(())
    });
}
