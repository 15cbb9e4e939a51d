//! burn tensors handed to Python in one call (`python::to_python`) and read by NumPy's
//! `from_dlpack` (PyTorch's too, where it is installed), and NumPy arrays taken back as burn
//! tensors in one expression (`FromDlpackTensor::from_dlpack_tensor(python::import_tensor(..))`):
//! values, data types, the copies. NumPy is looked for as `dlpack-core`'s Python tests look
//! for it; a test that needs it prints why it skips when it is not found.

use burn_std::{DType, TensorData};
use burn_tensor::{Bool, Device, Int, Tensor};
use dlpack_core::python::{import_tensor, to_python};
use dlpack_core::tensor::FromDlpackTensor;
use pyo3::prelude::*;

#[path = "../../../dlpack-core/tests/support/python.rs"]
mod python_support;
use python_support::import;

fn with_python(test: impl FnOnce(Python<'_>) -> PyResult<()>) {
    Python::initialize();
    Python::attach(test).unwrap();
}

#[test]
fn a_burn_tensor_reaches_numpy_and_torch_in_one_call() {
    with_python(|py| {
        let Some(numpy) = import(
            py,
            "numpy",
            "a_burn_tensor_reaches_numpy_and_torch_in_one_call",
        ) else {
            return Ok(());
        };
        let data = TensorData::new((0..6).map(|x| x as f32 / 2.0).collect::<Vec<_>>(), [2, 3]);
        let t = Tensor::<2>::from_data(data, &Device::flex());
        let object = to_python(py, &t)?;
        let array = numpy.call_method1("from_dlpack", (&object,))?;
        assert_eq!(array.getattr("shape")?.extract::<(usize, usize)>()?, (2, 3));
        assert_eq!(array.getattr("dtype")?.str()?.to_str()?, "float32");
        let rows: Vec<Vec<f32>> = array.call_method0("tolist")?.extract()?;
        assert_eq!(rows, [[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]]);
        // The array is a copy of its own: writing it leaves the burn tensor as it was.
        array.set_item((0, 0), 42.0)?;
        assert_eq!(t.to_data().as_slice::<f32>().unwrap()[0], 0.0);

        let mask =
            Tensor::<1, Bool>::from_data(TensorData::new(vec![true, false], [2]), &Device::flex());
        let array = numpy.call_method1("from_dlpack", (to_python(py, &mask)?,))?;
        assert_eq!(array.getattr("dtype")?.str()?.to_str()?, "bool");
        assert_eq!(
            array.call_method0("tolist")?.extract::<Vec<bool>>()?,
            [true, false]
        );

        if let Some(torch) = import(
            py,
            "torch",
            "a_burn_tensor_reaches_numpy_and_torch_in_one_call (torch)",
        ) {
            let tensor = torch.call_method1("from_dlpack", (to_python(py, &t)?,))?;
            let rows: Vec<Vec<f32>> = tensor.call_method0("tolist")?.extract()?;
            assert_eq!(rows, [[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]]);
        }
        Ok(())
    });
}

#[test]
fn a_numpy_array_becomes_a_burn_tensor_over_its_memory() {
    with_python(|py| {
        let Some(numpy) = import(
            py,
            "numpy",
            "a_numpy_array_becomes_a_burn_tensor_over_its_memory",
        ) else {
            return Ok(());
        };
        let array = numpy
            .call_method1("arange", (6,))?
            .call_method1("astype", ("int64",))?
            .call_method1("reshape", ((2, 3),))?;
        let address: usize = array
            .getattr("__array_interface__")?
            .get_item("data")?
            .get_item(0)?
            .extract()?;
        let t = Tensor::<2, Int>::from_dlpack_tensor(import_tensor(&array, None, None)?)?;
        assert_eq!((t.dims(), t.dtype()), ([2, 3], DType::I64));
        // An op that flex may run in place writes a copy: the array keeps its values.
        let t = t.add_scalar(10);
        assert_eq!(
            t.into_data().as_slice::<i64>().unwrap(),
            [10, 11, 12, 13, 14, 15]
        );
        let values: Vec<Vec<i64>> = array.call_method0("tolist")?.extract()?;
        assert_eq!(values, [[0, 1, 2], [3, 4, 5]]);

        // Without an op, the tensor's data is the array's memory.
        let t = Tensor::<2, Int>::from_dlpack_tensor(import_tensor(&array, None, None)?)?;
        assert_eq!(t.into_data().as_bytes().as_ptr() as usize, address);

        // A transposed array is strided: one copy, then the same tensor.
        let t =
            Tensor::<2, Int>::from_dlpack_tensor(import_tensor(&array.getattr("T")?, None, None)?)?;
        assert_eq!(t.into_data().as_slice::<i64>().unwrap(), [0, 3, 1, 4, 2, 5]);

        // float64 for an Int tensor: a Python error naming both.
        let floats = numpy.call_method1("zeros", (3,))?;
        let err =
            Tensor::<1, Int>::from_dlpack_tensor(import_tensor(&floats, None, None)?).unwrap_err();
        assert_eq!(err.to_string(), "a burn Int tensor cannot hold F64 data");
        Ok(())
    });
}
