//! [`import_tensor`](super::import_tensor) against producers written in Python.

use std::ffi::CString;

use pyo3::exceptions::{PyBufferError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::import_tensor;
use crate::python::capsule::{legacy_capsule, versioned_capsule};
use crate::tensor::{Flags, ManagedTensor};
use crate::{DataType, Device};

fn with_python(test: impl FnOnce(Python<'_>) -> PyResult<()>) {
    Python::initialize();
    Python::attach(test).unwrap();
}

/// Runs `code` and returns the global it binds to `name`.
fn eval<'py>(py: Python<'py>, code: &str, name: &str) -> PyResult<Bound<'py, PyAny>> {
    let globals = PyDict::new(py);
    py.run(&CString::new(code).unwrap(), Some(&globals), None)?;
    Ok(globals.get_item(name)?.unwrap())
}

#[test]
fn from_dlpack_falls_back_to_the_legacy_call() {
    with_python(|py| {
        let class = eval(
            py,
            "class Legacy:\n    def __init__(self, capsule): self.capsule, self.calls = capsule, 0\n    def __dlpack__(self):\n        self.calls += 1\n        return self.capsule\n",
            "Legacy",
        )?;
        let tensor = ManagedTensor::from_vec(vec![1.5_f32, 2.5], &[2])?.into_legacy()?;
        let producer = class.call1((legacy_capsule(py, tensor)?,))?;
        let imported = import_tensor(&producer, None, None)?;
        assert_eq!(imported.view()?.as_slice::<f32>()?, [1.5, 2.5]);
        assert_eq!(imported.view()?.dtype(), DataType::F32);
        assert_eq!(producer.getattr("calls")?.extract::<u32>()?, 1);
        Ok(())
    });
}

#[test]
fn from_dlpack_copies_when_the_producer_did_not() {
    with_python(|py| {
        let original = ManagedTensor::from_vec(vec![7_u16, 8, 9], &[3])?;
        let data = original.view()?.data_ptr();
        let capsule = versioned_capsule(py, original)?;
        let copy = import_tensor(&capsule, Some(Device::CPU), Some(true))?;
        assert!(copy.flags().contains(Flags::IS_COPIED));
        assert_ne!(copy.view()?.data_ptr(), data);
        assert_eq!(copy.view()?.as_slice::<u16>()?, [7, 8, 9]);
        Ok(())
    });
}

#[test]
fn from_dlpack_copies_itself_when_the_producer_refuses_to() {
    with_python(|py| {
        // TVM FFI's tensors refuse `copy=True` with a BufferError.
        let class = eval(
            py,
            "class NoCopy:\n    def __init__(self, capsule): self.capsule, self.asked = capsule, []\n    def __dlpack_device__(self): return (1, 0)\n    def __dlpack__(self, **kwargs):\n        self.asked.append(sorted(kwargs))\n        if kwargs.get('copy'): raise BufferError('no copies here')\n        return self.capsule\n",
            "NoCopy",
        )?;
        let original = ManagedTensor::from_vec(vec![3_i32, 4], &[2])?;
        let data = original.view()?.data_ptr();
        let producer = class.call1((versioned_capsule(py, original)?,))?;
        let copy = import_tensor(&producer, Some(Device::CPU), Some(true))?;
        assert!(copy.flags().contains(Flags::IS_COPIED));
        assert_ne!(copy.view()?.data_ptr(), data);
        assert_eq!(copy.view()?.as_slice::<i32>()?, [3, 4]);
        // Asked with `copy=True`, then again without it (and with the rest as before).
        let asked: Vec<Vec<String>> = producer.getattr("asked")?.extract()?;
        assert_eq!(
            asked,
            [
                vec!["copy", "dl_device", "max_version"],
                vec!["dl_device", "max_version"]
            ]
        );
        // Any other refusal, or one of `copy=False`, goes through unchanged.
        let producer = class.call1((versioned_capsule(
            py,
            ManagedTensor::from_vec(vec![1_u8], &[1])?,
        )?,))?;
        let err = eval(
            py,
            "class Refuses:\n    def __dlpack_device__(self): return (1, 0)\n    def __dlpack__(self, **kwargs): raise BufferError('never')\n",
            "Refuses",
        )?
        .call0()
        .and_then(|refuses| import_tensor(&refuses, None, Some(true)))
        .unwrap_err();
        assert!(err.is_instance_of::<PyBufferError>(py) && err.to_string().contains("never"));
        drop(import_tensor(&producer, None, Some(false))?);
        Ok(())
    });
}

#[test]
fn from_dlpack_checks_what_it_is_given() {
    with_python(|py| {
        let err = import_tensor(&3_i32.into_pyobject(py)?.into_any(), None, None).unwrap_err();
        assert!(err.to_string().contains("expected a tensor"), "{err}");
        let capsule = versioned_capsule(py, ManagedTensor::from_vec(vec![1_u8], &[1])?)?;
        let err = import_tensor(&capsule, Some(Device::cuda(0)), None).unwrap_err();
        assert!(err.is_instance_of::<PyBufferError>(py), "{err}");
        assert!(
            err.to_string().contains("not on the requested cuda:0"),
            "{err}"
        );
        let err = import_tensor(&capsule, None, None).unwrap_err();
        assert!(err.is_instance_of::<PyValueError>(py), "{err}");
        Ok(())
    });
}

/// Two imports of one producer's memory, as two `__dlpack__` calls on one NumPy array give:
/// neither may hand out a mutable view, or safe code would hold two `&mut` over one buffer.
#[test]
fn imports_of_memory_a_producer_lends_give_no_mutable_view() {
    use crate::Error;
    use crate::tensor::{TensorError, TensorOwner, TensorParts};

    /// A producer's export of memory it keeps lending (leaked here, so that it outlives
    /// every export).
    struct Lends(*mut f32);
    // SAFETY: the memory is leaked, so valid for ever; the test writes it through no view,
    // which is what this test proves the crate refuses.
    unsafe impl TensorOwner for Lends {
        fn describe(&mut self) -> TensorParts<'_> {
            TensorParts::host(self.0, &[4_usize])
        }
    }
    // SAFETY: the pointer is only described, never dereferenced, by the owner.
    unsafe impl Send for Lends {}

    with_python(|py| {
        let memory: &'static mut [f32] = Box::leak(vec![1.0_f32, 2.0, 3.0, 4.0].into_boxed_slice());
        let address = memory.as_mut_ptr();
        let capsule = |_| versioned_capsule(py, ManagedTensor::from_owner(Lends(address))?);
        let mut first = crate::python::import::capsule_tensor(&capsule(())?)?;
        let mut second = import_tensor(capsule(())?.as_any(), None, None)?;
        assert_eq!(
            first.view()?.as_slice::<f32>()?,
            second.view()?.as_slice::<f32>()?
        );
        for tensor in [&mut first, &mut second] {
            assert_eq!(
                tensor.view_mut().unwrap_err(),
                Error::Tensor(TensorError::LentByProducer)
            );
        }
        // A copy is the consumer's own.
        let mut copy = import_tensor(capsule(())?.as_any(), None, Some(true))?;
        copy.view_mut()?.as_slice_mut::<f32>()?[0] = 10.0;
        assert_eq!(first.view()?.as_slice::<f32>()?[0], 1.0);
        Ok(())
    });
}

/// Typed arguments that require a CUDA device (`require::Cuda`), against tensors described on
/// one at a device address nothing reads: the device and ordinal are checked before the body
/// runs, and the producer is asked on the stream rule of `__dlpack__` (with feature `cuda`,
/// the legacy default stream).
#[test]
fn cuda_arguments_take_cuda_tensors_of_their_ordinal() {
    use super::TensorArg;
    use crate::tensor::require::{ANY_NDIM, Cuda, Owned};
    use crate::tensor::{TensorOwner, TensorParts};

    struct OnDevice(Device, [usize; 1]);
    // SAFETY: only described: nothing reads or writes the elements at the made-up address.
    unsafe impl TensorOwner for OnDevice {
        fn describe(&mut self) -> TensorParts<'_> {
            TensorParts::new(
                core::ptr::without_provenance_mut(0x7f00_0000_1000),
                self.0,
                DataType::F32,
                &self.1[..],
            )
        }
    }

    with_python(|py| {
        // With a driver, the source's device is made current around `__dlpack__`: it must
        // exist. Without one (here, CI), any ordinal may be described.
        #[cfg(feature = "cuda")]
        if crate::cuda::try_cuda_devices().is_ok_and(|devices| devices.is_empty()) {
            return Ok(());
        }
        let class = eval(
            py,
            "class OnGpu:\n    def __init__(self, device, capsule): self.device, self.capsule, self.calls = device, capsule, []\n    def __dlpack_device__(self): return self.device\n    def __dlpack__(self, **kwargs):\n        self.calls.append(sorted(kwargs))\n        return self.capsule\n",
            "OnGpu",
        )?;
        let on = |device: Device| -> PyResult<Bound<'_, PyAny>> {
            let pair: (i32, i32) = device.into();
            let tensor = ManagedTensor::from_owner(OnDevice(device, [4]))?;
            class.call1((pair, versioned_capsule(py, tensor)?))
        };
        let gpu = on(Device::cuda(0))?;
        let x: TensorArg<'_, f32, 1, Cuda> = gpu.extract()?;
        assert_eq!(x.view().device(), Device::cuda(0));
        drop(x);
        let asked: Vec<Vec<String>> = gpu.getattr("calls")?.extract()?;
        #[cfg(feature = "cuda")]
        assert_eq!(asked, [["max_version", "stream"]]);
        #[cfg(not(feature = "cuda"))]
        assert_eq!(asked, [["max_version"]]);

        let err = on(Device::cuda(0))?
            .extract::<TensorArg<'_, f32, 1, Cuda<Owned, 1>>>()
            .unwrap_err();
        assert_eq!(
            err.value(py).to_string(),
            "expected a float32 tensor with 1 dimension on cuda:1, got a float32 OnGpu with \
             shape (4,) on cuda:0"
        );
        let host = versioned_capsule(py, ManagedTensor::from_vec(vec![0.0_f32; 4], &[4])?)?;
        let err = host
            .extract::<TensorArg<'_, f32, ANY_NDIM, Cuda>>()
            .unwrap_err();
        assert_eq!(
            err.value(py).to_string(),
            "expected a float32 tensor on cuda, got a float32 PyCapsule with shape (4,) on cpu"
        );
        // And the host's own arguments refuse the CUDA tensor, as before.
        let err = on(Device::cuda(0))?
            .extract::<TensorArg<'_, f32, 1>>()
            .unwrap_err();
        assert!(
            err.value(py)
                .to_string()
                .ends_with("with shape (4,) on cuda:0")
        );
        Ok(())
    });
}

/// An `Owned` CUDA argument may cross threads, as every `Owned` one.
#[test]
fn owned_cuda_arguments_are_send() {
    fn send<T: Send>() {}
    send::<
        super::TensorArg<
            'static,
            f32,
            1,
            crate::tensor::require::Cuda<crate::tensor::require::Owned>,
        >,
    >();
}
