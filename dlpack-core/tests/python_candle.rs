//! A candle tensor handed to Python in one call (`dlpack_core::python::to_python`) and read by
//! NumPy's `from_dlpack` (and PyTorch's where installed): values, dtypes, candle's strided,
//! transposed, narrowed and broadcast layouts, copied by default and shared read-only through
//! `bridges::candle::Shared`, and the capsule each kind of consumer gets. NumPy is looked for where the embedded interpreter finds it, then in the venv
//! of `DLPACK_VENV` or the repository's `.venv` (what `scripts/python-tests.sh` makes); the
//! tests that need it print why they skip when it is in neither.
#![cfg(all(feature = "candle", feature = "pyo3"))]

use candle_core::{DType, Device as CandleDevice, IndexOp, Tensor, Var};
use dlpack_core::__private::{LEGACY, VERSIONED, capsule_tensor};
use dlpack_core::bridges::candle::Shared;
use dlpack_core::python::to_python;
use dlpack_core::tensor::Flags;
use pyo3::exceptions::{PyBufferError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyCapsule, PyDict};

#[path = "support/python.rs"]
mod python_support;
use python_support::import;

fn with_python(test: impl FnOnce(Python<'_>) -> PyResult<()>) {
    Python::initialize();
    Python::attach(test).unwrap();
}

/// `numpy.from_dlpack(object)`.
fn numpy_from<'py>(
    numpy: &Bound<'py, PyModule>,
    object: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    numpy.call_method1("from_dlpack", (object,))
}

/// `array.tolist()`.
fn to_list<'py>(array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    array.call_method0("tolist")
}

/// `t`, shared by its exports. SAFETY (of the callers): the tests never write a tensor they
/// share in place.
fn shared(t: &Tensor) -> Shared {
    // SAFETY: see above.
    unsafe { Shared::new(t.clone()) }
}

fn matrix() -> Tensor {
    Tensor::arange(0_f32, 12.0, &CandleDevice::Cpu)
        .unwrap()
        .reshape((3, 4))
        .unwrap()
}

#[test]
fn numpy_reads_a_copy_of_a_candle_tensor_that_is_its_own() {
    with_python(|py| {
        let Some(numpy) = import(py, "numpy", "numpy_reads_a_copy_of_a_candle_tensor") else {
            return Ok(());
        };
        let t = matrix();
        let array = numpy_from(&numpy, to_python(py, &t)?.as_any())?;
        assert_eq!(
            to_list(&array)?.extract::<Vec<Vec<f32>>>()?,
            t.to_vec2::<f32>().unwrap()
        );
        assert_eq!(array.getattr("dtype")?.str()?.to_str()?, "float32");
        // The copy is NumPy's alone: writable, and writes reach neither way.
        let flags = array.getattr("flags")?;
        assert!(flags.getattr("writeable")?.extract::<bool>()?);
        py.run(
            c"array[0, 0] = 100.0",
            None,
            Some(&[("array", &array)].into_py_dict(py)?),
        )?;
        assert_eq!(t.to_vec2::<f32>().unwrap()[0][0], 0.0);
        t.zero_set().unwrap();
        assert_eq!(to_list(&array)?.extract::<Vec<Vec<f32>>>()?[1][1], 5.0);
        Ok(())
    });
}

#[test]
fn numpy_reads_a_shared_candle_tensor_without_a_copy_and_read_only() {
    with_python(|py| {
        let Some(numpy) = import(py, "numpy", "numpy_reads_a_shared_candle_tensor") else {
            return Ok(());
        };
        let t = matrix();
        let array = numpy_from(&numpy, to_python(py, &shared(&t))?.as_any())?;
        assert_eq!(
            to_list(&array)?.extract::<Vec<Vec<f32>>>()?,
            t.to_vec2::<f32>().unwrap()
        );
        // NumPy honours READ_ONLY: candle's storage is shared by every tensor made from it.
        let flags = array.getattr("flags")?;
        assert!(!flags.getattr("writeable")?.extract::<bool>()?);
        let write = py.run(
            c"array[0, 0] = 1.0",
            None,
            Some(&[("array", &array)].into_py_dict(py)?),
        );
        assert!(write.unwrap_err().is_instance_of::<PyValueError>(py));
        // The same memory as candle's storage: the first element's address.
        let mut first = 0;
        dlpack_core::tensor::ToDlpackTensor::lend_view(&t, &mut |view| {
            first = view.data_ptr() as usize;
            Ok(())
        })
        .unwrap();
        let address: usize = array.getattr("ctypes")?.getattr("data")?.extract()?;
        assert_eq!(address, first);
        Ok(())
    });
}

#[test]
fn numpy_reads_transposed_narrowed_and_broadcast_layouts() {
    with_python(|py| {
        let Some(numpy) = import(py, "numpy", "numpy_reads_layouts") else {
            return Ok(());
        };
        let t = matrix();
        let row = Tensor::new(&[1_f32, 2.0, 3.0], &CandleDevice::Cpu).unwrap();
        let cases = [
            ("transposed", t.t().unwrap(), vec![4_isize, 16]),
            ("narrowed", t.narrow(1, 1, 2).unwrap(), vec![16, 4]),
            (
                "a column",
                t.i((.., 2)).unwrap().unsqueeze(1).unwrap(),
                vec![16, 4],
            ),
            (
                "transposed and narrowed",
                t.t().unwrap().narrow(0, 1, 3).unwrap(),
                vec![4, 16],
            ),
            ("broadcast", row.broadcast_as((2, 3)).unwrap(), vec![0, 4]),
        ];
        for (name, view, strides) in cases {
            assert!(!view.is_contiguous() || name == "a column", "{name}");
            // Copied by default: compact, the same values.
            let copy = numpy_from(&numpy, to_python(py, &view)?.as_any())?;
            assert_eq!(
                to_list(&copy)?.extract::<Vec<Vec<f32>>>()?,
                view.to_vec2::<f32>().unwrap(),
                "{name}"
            );
            let array = numpy_from(&numpy, to_python(py, &shared(&view))?.as_any())?;
            assert_eq!(
                to_list(&array)?.extract::<Vec<Vec<f32>>>()?,
                view.to_vec2::<f32>().unwrap(),
                "{name}"
            );
            let shape: Vec<usize> = array.getattr("shape")?.extract()?;
            assert_eq!(shape, view.dims(), "{name}");
            // Byte strides: candle's layout as it is, nothing gathered.
            let byte_strides: Vec<isize> = array.getattr("strides")?.extract()?;
            assert_eq!(byte_strides, strides, "{name}");
        }
        Ok(())
    });
}

#[test]
fn numpy_reads_every_dtype_it_has() {
    with_python(|py| {
        let Some(numpy) = import(py, "numpy", "numpy_reads_every_dtype_it_has") else {
            return Ok(());
        };
        let values = Tensor::new(&[0_f32, 1.0, 2.0, 3.0, 4.0, 5.0], &CandleDevice::Cpu)
            .unwrap()
            .reshape((2, 3))
            .unwrap();
        for (dtype, name) in [
            (DType::U8, "uint8"),
            (DType::U32, "uint32"),
            (DType::I16, "int16"),
            (DType::I32, "int32"),
            (DType::I64, "int64"),
            (DType::F16, "float16"),
            (DType::F32, "float32"),
            (DType::F64, "float64"),
        ] {
            let t = values.to_dtype(dtype).unwrap().t().unwrap();
            let array = numpy_from(&numpy, to_python(py, &t)?.as_any())?;
            assert_eq!(array.getattr("dtype")?.str()?.to_str()?, name);
            let as_f64 = array.call_method1("astype", ("float64",))?;
            let expected = t.to_dtype(DType::F64).unwrap().to_vec2::<f64>().unwrap();
            assert_eq!(
                to_list(&as_f64)?.extract::<Vec<Vec<f64>>>()?,
                expected,
                "{name}"
            );
        }
        // bfloat16 is no NumPy dtype: NumPy refuses the capsule, with an exception, not a crash.
        let bf16 = values.to_dtype(DType::BF16).unwrap();
        assert!(numpy_from(&numpy, to_python(py, &bf16)?.as_any()).is_err());
        Ok(())
    });
}

#[test]
fn numpy_copies_when_asked_and_the_copy_is_its_own() {
    with_python(|py| {
        let Some(numpy) = import(py, "numpy", "numpy_copies_when_asked") else {
            return Ok(());
        };
        let t = matrix().t().unwrap();
        let object = to_python(py, &t)?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("copy", true)?;
        let array = numpy.call_method("from_dlpack", (&object,), Some(&kwargs))?;
        assert!(
            array
                .getattr("flags")?
                .getattr("writeable")?
                .extract::<bool>()?
        );
        assert_eq!(
            to_list(&array)?.extract::<Vec<Vec<f32>>>()?,
            t.to_vec2::<f32>().unwrap()
        );
        Ok(())
    });
}

#[test]
fn torch_reads_a_candle_tensor_where_installed() {
    with_python(|py| {
        let Some(torch) = import(py, "torch", "torch_reads_a_candle_tensor") else {
            return Ok(());
        };
        let t = matrix().t().unwrap();
        let tensor = torch.call_method1("from_dlpack", (to_python(py, &t)?,))?;
        assert_eq!(
            to_list(&tensor)?.extract::<Vec<Vec<f32>>>()?,
            t.to_vec2::<f32>().unwrap()
        );
        Ok(())
    });
}

/// `object.__dlpack__(**kwargs)`, as a capsule.
fn dlpack<'py>(
    object: &Bound<'py, PyAny>,
    kwargs: &[(&str, Bound<'py, PyAny>)],
) -> PyResult<Bound<'py, PyCapsule>> {
    let dict = PyDict::new(object.py());
    for (key, value) in kwargs {
        dict.set_item(key, value)?;
    }
    Ok(object
        .call_method("__dlpack__", (), Some(&dict))?
        .cast_into::<PyCapsule>()?)
}

#[test]
fn each_consumer_gets_the_capsule_it_asks_for() {
    with_python(|py| {
        let t = matrix().narrow(0, 1, 2).unwrap();
        let object = to_python(py, &shared(&t))?.into_any();
        let version = (1, 3).into_pyobject(py)?.into_any();
        assert_eq!(
            object
                .call_method0("__dlpack_device__")?
                .extract::<(i32, i32)>()?,
            (1, 0)
        );

        // Versioned: shared, READ_ONLY, candle's offset and strides.
        let capsule = dlpack(&object, &[("max_version", version.clone())])?;
        assert!(capsule.is_valid_checked(Some(VERSIONED)));
        let shared = capsule_tensor(&capsule)?;
        assert_eq!(shared.flags(), Flags::READ_ONLY);
        let view = shared.view().unwrap();
        assert_eq!(view.byte_offset(), 16);
        assert_eq!(
            view.to_vec::<f32>().unwrap(),
            [4., 5., 6., 7., 8., 9., 10., 11.]
        );

        // copy=True: a compact copy, IS_COPIED and writable.
        let yes = true.into_pyobject(py)?.to_owned().into_any();
        let capsule = dlpack(&object, &[("max_version", version.clone()), ("copy", yes)])?;
        let copy = capsule_tensor(&capsule)?;
        assert_eq!(copy.flags(), Flags::IS_COPIED);
        assert_eq!(
            copy.view().unwrap().to_vec::<f32>().unwrap(),
            view.to_vec::<f32>().unwrap()
        );

        // Legacy (no max_version): the capsule cannot say READ_ONLY, so a copy.
        let capsule = dlpack(&object, &[])?;
        assert!(capsule.is_valid_checked(Some(LEGACY)));
        let legacy = capsule_tensor(&capsule)?;
        assert_ne!(legacy.view().unwrap().data_ptr(), view.data_ptr());
        assert_eq!(
            legacy.view().unwrap().to_vec::<f32>().unwrap(),
            view.to_vec::<f32>().unwrap()
        );

        // copy=False with a legacy consumer: refused, as is another device and a stream.
        let no = false.into_pyobject(py)?.to_owned().into_any();
        let err = dlpack(&object, &[("copy", no)]).unwrap_err();
        assert!(err.is_instance_of::<PyBufferError>(py), "{err}");
        let cuda = (2, 0).into_pyobject(py)?.into_any();
        let err = dlpack(
            &object,
            &[("max_version", version.clone()), ("dl_device", cuda)],
        )
        .unwrap_err();
        assert!(err.is_instance_of::<PyBufferError>(py), "{err}");
        let stream = 1_i64.into_pyobject(py)?.into_any();
        let err = dlpack(&object, &[("max_version", version), ("stream", stream)]).unwrap_err();
        assert!(err.is_instance_of::<PyValueError>(py), "{err}");
        Ok(())
    });
}

#[test]
fn a_variable_reaches_python_as_the_copy_each_export_takes() {
    with_python(|py| {
        let var = Var::new(&[0.5_f32, 1.5], &CandleDevice::Cpu).unwrap();
        let object = to_python(py, var.as_tensor())?.into_any();
        var.set(&Tensor::new(&[9_f32, 9.], &CandleDevice::Cpu).unwrap())
            .unwrap();
        let version = (1, 0).into_pyobject(py)?.into_any();
        let first = capsule_tensor(&dlpack(&object, &[("max_version", version.clone())])?)?;
        assert_eq!(first.flags(), Flags::IS_COPIED);
        assert_eq!(first.view().unwrap().as_slice::<f32>().unwrap(), [0.5, 1.5]);
        // A later consumer gets a copy of its own, taken when it asks.
        let later = capsule_tensor(&dlpack(&object, &[("max_version", version)])?)?;
        assert_eq!(later.view().unwrap().as_slice::<f32>().unwrap(), [9.0, 9.0]);
        Ok(())
    });
}

#[test]
fn a_tensor_candle_cannot_export_is_refused_by_to_python() {
    with_python(|py| {
        // Packed float4 elements have no byte address: a strided view of them is refused.
        let t =
            Tensor::from_raw_buffer(&[0x21, 0x43], DType::F4, &[2, 2], &CandleDevice::Cpu).unwrap();
        let err = to_python(py, &t.t().unwrap()).unwrap_err();
        assert!(err.is_instance_of::<PyBufferError>(py), "{err}");
        assert!(err.to_string().contains("cannot be exported"), "{err}");
        Ok(())
    });
}

#[test]
fn a_refusal_that_reaches_python_names_candles_type_by_its_path() {
    with_python(|py| {
        let err = dlpack_core::from_dlpack::<DType>(&dlpack_core::DataType::BOOL).unwrap_err();
        let err = PyErr::from(err);
        assert!(err.is_instance_of::<PyValueError>(py), "{err}");
        assert!(
            err.to_string()
                .starts_with("ValueError: candle_core.DType has no DLPack data type for bool"),
            "{err}"
        );
        Ok(())
    });
}
