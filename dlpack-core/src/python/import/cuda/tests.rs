//! The stream rule's argument handling, without a GPU: what a producer decides from the
//! arguments of `__dlpack__`, and what a consumer passes to a producer. Tensors "on" a CUDA
//! device here are descriptions with a made-up device address that nothing dereferences.

use std::ffi::CString;

use pyo3::exceptions::{PyBufferError, PyRuntimeError, PyValueError};
use pyo3::types::PyDict;

use super::*;
use crate::cuda::CudaError;
use crate::error::Error;
use crate::python::capsule::versioned_capsule;
use crate::python::{DataAccess, DlpackRequest, ExportPlan, import_tensor};
use crate::tensor::{TensorOwner, TensorParts};
use crate::{DataType, cuda::try_cuda_devices};

fn with_python(test: impl FnOnce(Python<'_>) -> PyResult<()>) {
    Python::initialize();
    Python::attach(test).unwrap();
}

/// Four `f32`s described on `device` at a device address that is never read.
struct Described {
    device: Device,
    shape: [usize; 1],
}

// SAFETY: the tensor is only ever described (its metadata validated and passed around);
// no test reads or writes its elements, and the description never changes.
unsafe impl TensorOwner for Described {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(
            core::ptr::without_provenance_mut(0x7f00_0000_1000),
            self.device,
            DataType::F32,
            &self.shape[..],
        )
    }
}

fn described(device: Device) -> PyResult<ManagedTensor> {
    Ok(ManagedTensor::from_owner(Described { device, shape: [4] })?)
}

/// A request for `stream` (and the other arguments), as `new` checks them.
fn request(
    py: Python<'_>,
    stream: Option<i64>,
    dl_device: Option<(i32, i32)>,
    copy: Option<bool>,
) -> PyResult<DlpackRequest> {
    let stream = stream.map(|s| s.into_pyobject(py)).transpose()?;
    let version = (1, 3).into_pyobject(py)?;
    let dl_device = dl_device.map(|d| d.into_pyobject(py)).transpose()?;
    DlpackRequest::new(
        stream.as_ref().map(|s| s.as_any()),
        Some(version.as_any()),
        dl_device.as_ref().map(|d| d.as_any()),
        copy,
    )
}

#[test]
fn the_producer_reads_every_stream_value_the_standard_defines() {
    with_python(|py| {
        let gpu = Device::cuda(0);
        for (stream, expected) in [
            (None, StreamArg::LegacyDefault),
            (Some(1), StreamArg::LegacyDefault),
            (Some(2), StreamArg::PerThreadDefault),
            (Some(-1), StreamArg::NoSync),
            (Some(0x7f00_2000), StreamArg::Handle(0x7f00_2000)),
        ] {
            let request = request(py, stream, None, None)?;
            assert_eq!(
                request.cuda_plan(gpu, DataAccess::Writable)?,
                (ExportPlan::Share, expected),
                "{stream:?}"
            );
            assert_eq!(
                request.cuda_plan(Device::CUDA_MANAGED, DataAccess::Writable)?,
                (ExportPlan::Share, expected)
            );
        }
        // 0 is ROCm's default stream, which `new` takes; the CUDA reading refuses it, for
        // device memory, managed and pinned memory alike.
        let zero = request(py, Some(0), None, None)?;
        for device in [gpu, Device::CUDA_MANAGED] {
            let err = zero.cuda_plan(device, DataAccess::Writable).unwrap_err();
            assert!(err.is_instance_of::<PyValueError>(py), "{err}");
            assert!(err.to_string().contains("0 is ambiguous"), "{err}");
        }
        let err = zero
            .plan(Device::CUDA_HOST, DataAccess::Writable, |_| true)
            .unwrap_err();
        assert!(err.is_instance_of::<PyValueError>(py), "{err}");
        // A request whose field is set by hand is refused the same way.
        let mut negative = DlpackRequest::LEGACY;
        negative.stream = Some(-5);
        let err = negative.cuda_stream().unwrap_err();
        assert!(err.is_instance_of::<PyValueError>(py), "{err}");
        Ok(())
    });
}

#[test]
fn the_producer_copies_to_the_cpu_or_its_own_device_only() {
    with_python(|py| {
        let gpu = Device::cuda(0);
        let plan = |stream, dl_device, copy, read_only| -> PyResult<ExportPlan> {
            Ok(request(py, stream, dl_device, copy)?
                .cuda_plan(
                    gpu,
                    if read_only {
                        DataAccess::ReadOnly
                    } else {
                        DataAccess::Writable
                    },
                )?
                .0)
        };
        assert_eq!(
            plan(None, Some((1, 0)), None, false)?,
            ExportPlan::Copy(Device::CPU)
        );
        assert_eq!(
            plan(Some(1), None, Some(true), false)?,
            ExportPlan::Copy(gpu)
        );
        assert_eq!(
            plan(Some(1), Some((2, 0)), Some(false), false)?,
            ExportPlan::Share
        );
        for refused in [
            plan(None, Some((1, 0)), Some(false), false), // copy=False, another device
            plan(None, Some((2, 1)), None, false),        // another GPU
            plan(None, Some((10, 0)), None, false),       // ROCm
        ] {
            let err = refused.unwrap_err();
            assert!(err.is_instance_of::<PyBufferError>(py), "{err}");
        }
        // Read-only data for a legacy consumer: a writable copy on the same device.
        let legacy = DlpackRequest::LEGACY;
        assert_eq!(
            legacy.cuda_plan(gpu, DataAccess::ReadOnly)?.0,
            ExportPlan::Copy(gpu)
        );
        // Managed memory can be copied to the CPU, not into new managed memory.
        let managed = Device::CUDA_MANAGED;
        let copy = request(py, None, None, Some(true))?;
        assert!(copy.cuda_plan(managed, DataAccess::Writable).is_err());
        let to_cpu = request(py, None, Some((1, 0)), None)?;
        assert_eq!(
            to_cpu.cuda_plan(managed, DataAccess::Writable)?.0,
            ExportPlan::Copy(Device::CPU)
        );
        Ok(())
    });
}

#[test]
fn cuda_capsule_is_for_cuda_memory_only() {
    with_python(|py| {
        for device in [Device::CPU, Device::CUDA_HOST, Device::rocm(0)] {
            let err = DlpackRequest::LEGACY
                .cuda_plan(device, DataAccess::Writable)
                .unwrap_err();
            assert!(err.is_instance_of::<PyBufferError>(py), "{err}");
            assert!(err.to_string().contains("DlpackRequest::capsule"), "{err}");
        }
        Ok(())
    });
}

/// Runs `code` and returns the global it binds to `name`.
fn eval<'py>(py: Python<'py>, code: &str, name: &str) -> PyResult<Bound<'py, PyAny>> {
    let globals = PyDict::new(py);
    py.run(&CString::new(code).unwrap(), Some(&globals), None)?;
    Ok(globals.get_item(name)?.unwrap())
}

/// A producer class that says it lives on `(device_type, device_id)`, hands out the capsule
/// it was made with, and records the keyword arguments of each `__dlpack__` call.
fn recording_producer<'py>(
    py: Python<'py>,
    device: Device,
    tensor: ManagedTensor,
) -> PyResult<Bound<'py, PyAny>> {
    let class = eval(
        py,
        "class Producer:\n    def __init__(self, device, capsule):\n        self.device, self.capsule, self.calls = device, capsule, []\n    def __dlpack_device__(self):\n        return self.device\n    def __dlpack__(self, **kwargs):\n        self.calls.append(kwargs)\n        return self.capsule\n",
        "Producer",
    )?;
    let pair: (i32, i32) = device.into();
    class.call1((pair, versioned_capsule(py, tensor)?))
}

/// The keyword arguments of each call, sorted by name.
fn calls(producer: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<(String, String)>>> {
    let mut out = Vec::new();
    for call in producer.getattr("calls")?.try_iter()? {
        let call = call?.cast_into::<PyDict>()?;
        let mut kwargs: Vec<(String, String)> = call
            .iter()
            .map(|(key, value)| Ok((key.extract()?, value.repr()?.to_string())))
            .collect::<PyResult<_>>()?;
        kwargs.sort();
        out.push(kwargs);
    }
    Ok(out)
}

fn kwargs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// Devices a described tensor may claim here: with a driver the source's device is made
/// current around `__dlpack__`, so it must exist.
fn claimable(devices: &[Device]) -> Vec<Device> {
    let count = try_cuda_devices().map_or(usize::MAX, |devices| devices.len());
    devices
        .iter()
        .copied()
        .filter(|device| {
            device.device_type != DLDeviceType::CUDA
                || usize::try_from(device.device_id).is_ok_and(|id| id < count)
        })
        .collect()
}

/// Whether there is no driver: tests that would copy from a made-up device address run only
/// then (with a driver, the copy would reach the device).
fn no_driver() -> bool {
    try_cuda_devices() == Err(Error::Cuda(CudaError::NoDriver))
}

#[test]
fn the_consumer_names_the_legacy_default_stream_for_cuda_tensors() {
    with_python(|py| {
        for gpu in claimable(&[Device::cuda(0), Device::cuda(3)]) {
            // Where the tensor is comes from `__dlpack_device__`…
            let producer = recording_producer(py, gpu, described(gpu)?)?;
            let imported = import_tensor(&producer, None, None)?;
            assert_eq!(imported.device(), gpu);
            assert_eq!(
                calls(&producer)?,
                [kwargs(&[("max_version", "(1, 3)"), ("stream", "1")])]
            );
            // …and `device=` on the same device is passed on.
            let producer = recording_producer(py, gpu, described(gpu)?)?;
            let imported = import_tensor(&producer, Some(gpu), None)?;
            assert_eq!(imported.device(), gpu);
            let (device_type, device_id) = gpu.into();
            let dl_device = format!("({device_type}, {device_id})");
            assert_eq!(
                calls(&producer)?,
                [kwargs(&[
                    ("dl_device", &dl_device),
                    ("max_version", "(1, 3)"),
                    ("stream", "1")
                ])]
            );
        }
        Ok(())
    });
}

#[test]
fn the_stream_follows_the_source_not_the_target() {
    with_python(|py| {
        // A CPU producer asked for a GPU is sent no stream (NumPy, PyTorch and our own
        // producer refuse one on the CPU) and no `dl_device`: it is imported on the CPU and
        // copied here, which needs the driver.
        let host = ManagedTensor::from_vec(vec![1.0_f32, 2.0], &[2])?;
        let producer = recording_producer(py, Device::CPU, host)?;
        match import_tensor(&producer, Some(Device::cuda(0)), None) {
            Ok(copy) => {
                assert_eq!(copy.device(), Device::cuda(0));
                assert!(copy.flags().contains(Flags::IS_COPIED));
            }
            Err(err) => {
                assert!(no_driver(), "{err}");
                assert!(err.is_instance_of::<PyRuntimeError>(py), "{err}");
                assert!(err.to_string().contains("no CUDA driver found"), "{err}");
            }
        }
        assert_eq!(calls(&producer)?, [kwargs(&[("max_version", "(1, 3)")])]);
        // A CUDA tensor asked for on the CPU: its producer is sent the legacy stream of the
        // tensor's device and no `dl_device`; the copy to the host is made here.
        if no_driver() {
            let gpu = Device::cuda(0);
            let producer = recording_producer(py, gpu, described(gpu)?)?;
            let err = import_tensor(&producer, Some(Device::CPU), None).unwrap_err();
            assert!(err.to_string().contains("no CUDA driver found"), "{err}");
            assert_eq!(
                calls(&producer)?,
                [kwargs(&[("max_version", "(1, 3)"), ("stream", "1")])]
            );
            // copy=False across devices is refused before the producer is asked.
            let producer = recording_producer(py, gpu, described(gpu)?)?;
            let err = import_tensor(&producer, Some(Device::CPU), Some(false)).unwrap_err();
            assert!(err.is_instance_of::<PyBufferError>(py), "{err}");
            assert!(calls(&producer)?.is_empty());
        }
        Ok(())
    });
}

#[test]
fn managed_and_pinned_memory_are_asked_for_on_a_stream() {
    with_python(|py| {
        // Host tensors are asked for exactly as without feature `cuda`.
        let host = ManagedTensor::from_vec(vec![1.0_f32, 2.0], &[2])?;
        let producer = recording_producer(py, Device::CPU, host)?;
        let imported = import_tensor(&producer, None, None)?;
        assert_eq!(imported.view()?.as_slice::<f32>()?, [1.0, 2.0]);
        assert_eq!(calls(&producer)?, [kwargs(&[("max_version", "(1, 3)")])]);
        // Managed and pinned memory is written by the GPU on a stream too: the producer is
        // asked to order its work before the legacy default stream, which the host then waits
        // for before it reads (nothing to wait for without a driver).
        for device in [Device::CUDA_MANAGED, Device::CUDA_HOST] {
            let producer = recording_producer(py, device, described(device)?)?;
            assert_eq!(import_tensor(&producer, None, None)?.device(), device);
            assert_eq!(
                calls(&producer)?,
                [kwargs(&[("max_version", "(1, 3)"), ("stream", "1")])]
            );
            // Asked for on the CPU, which reads it in place: no `dl_device`, no copy.
            let producer = recording_producer(py, device, described(device)?)?;
            assert_eq!(
                import_tensor(&producer, Some(Device::CPU), None)?.device(),
                device
            );
            assert_eq!(
                calls(&producer)?,
                [kwargs(&[("max_version", "(1, 3)"), ("stream", "1")])]
            );
        }
        Ok(())
    });
}

#[test]
fn the_legacy_fallback_keeps_the_stream() {
    with_python(|py| {
        let class = eval(
            py,
            "class Legacy:\n    def __init__(self, capsule):\n        self.capsule, self.streams = capsule, []\n    def __dlpack_device__(self):\n        return (2, 0)\n    def __dlpack__(self, stream=None):\n        self.streams.append(stream)\n        return self.capsule\n",
            "Legacy",
        )?;
        let gpu = Device::cuda(0);
        let producer = class.call1((versioned_capsule(py, described(gpu)?)?,))?;
        let imported = import_tensor(&producer, None, None)?;
        assert_eq!(imported.device(), gpu);
        // The first call (with `max_version`) raised TypeError before appending.
        let streams: Vec<Option<i64>> = producer.getattr("streams")?.extract()?;
        assert_eq!(streams, [Some(1)]);
        Ok(())
    });
}

#[test]
fn an_unreadable_dlpack_device_names_no_stream() {
    // PaddlePaddle 3.3 returns `(kDLCPU, None)`; others raise. Such a producer is asked as
    // without feature `cuda` (no `stream`, which means the legacy default stream), and its
    // tensor is taken.
    with_python(|py| {
        let class = eval(
            py,
            "class Odd:\n    def __init__(self, capsule, device):\n        self.capsule, self.device, self.calls = capsule, device, []\n    def __dlpack_device__(self):\n        if self.device is None:\n            raise RuntimeError('no device')\n        return self.device\n    def __dlpack__(self, **kwargs):\n        self.calls.append(kwargs)\n        return self.capsule\n",
            "Odd",
        )?;
        let gpu = Device::cuda(0);
        for device in [
            (1_i32, py.None()).into_pyobject(py)?.into_any(),
            py.None().into_bound(py),
            (2_i32, 0_i32, 0_i32).into_pyobject(py)?.into_any(),
        ] {
            let producer = class.call1((versioned_capsule(py, described(gpu)?)?, device))?;
            assert_eq!(import_tensor(&producer, None, None)?.device(), gpu);
            assert_eq!(calls(&producer)?, [kwargs(&[("max_version", "(1, 3)")])]);
        }
        // Given `device=`, the producer is asked for it, still without a stream: where its
        // work is queued is unknown.
        let producer = class.call1((versioned_capsule(py, described(gpu)?)?, py.None()))?;
        import_tensor(&producer, Some(gpu), None)?;
        assert_eq!(
            calls(&producer)?,
            [kwargs(&[
                ("dl_device", "(2, 0)"),
                ("max_version", "(1, 3)")
            ])]
        );
        Ok(())
    });
}

#[test]
fn a_consumer_copy_of_cuda_memory_needs_the_driver() {
    // Only where there is no driver: with one, the made-up address would reach a real copy.
    if !no_driver() {
        return;
    }
    with_python(|py| {
        let gpu = Device::cuda(0);
        let producer = recording_producer(py, gpu, described(gpu)?)?;
        let err = import_tensor(&producer, None, Some(true)).unwrap_err();
        assert!(err.is_instance_of::<PyRuntimeError>(py), "{err}");
        assert!(err.to_string().contains("no CUDA driver found"), "{err}");
        // The producer was asked for a copy on the legacy default stream first.
        assert_eq!(
            calls(&producer)?,
            [kwargs(&[
                ("copy", "True"),
                ("max_version", "(1, 3)"),
                ("stream", "1")
            ])]
        );
        Ok(())
    });
}
