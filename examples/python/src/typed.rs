//! Functions that take typed tensor arguments (`dlpack_core::python::TensorArg`) in each of
//! their forms, for the tests of what each checks before the body runs: `row_sums` (a compact
//! float32 matrix, read in place), `scale` (a float tensor written in place: a read-only one is
//! refused), and `total_detached` (a float64 vector held owned, read without the GIL); and
//! `arg_meta` / `view_meta`, what an argument of each form and `with_tensor_view` see of any
//! tensor, for the tests that hold the NumPy buffer path to the `__dlpack__` one; and the
//! hostile ones (`write_both`, `read_then_write`, `owned_and_written`, `write_calling`,
//! `write_viewing`, `write_importing`, `write_failing`, `write_unnamed`), which try to alias one
//! array through two arguments, a callback, a nested view or an import, and release it on
//! every path.

use dlpack_core::DataType;
use dlpack_core::Element;
use dlpack_core::ManagedTensor;
use dlpack_core::dispatch::{Kernel, ToF64};
use dlpack_core::python::{Framework, with_tensor_view};
use dlpack_core::python::{TensorArg, tensor_args};
use dlpack_core::tensor::Iter;
use dlpack_core::tensor::IterMut;
use dlpack_core::tensor::TensorMeta;
use dlpack_core::tensor::require::{
    ANY_NDIM, AnyDevice, Compact, Cuda, Owned, ReadOnly, ReadWrite,
};
use pyo3::prelude::*;

use crate::tensor::Real;

/// `row_sums(x)`: the sum of each row of a compact float32 matrix.
#[tensor_args]
#[pyfunction]
pub fn row_sums(x: TensorArg<'_, f32, 2, Compact>) -> PyResult<Vec<f32>> {
    let columns = x.view().shape()[1] as usize;
    let data = x.as_slice()?;
    if columns == 0 {
        return Ok(vec![0.0; x.view().shape()[0] as usize]);
    }
    Ok(data.chunks(columns).map(|row| row.iter().sum()).collect())
}

/// The kernel of `scale`: multiplies every element, for each float type.
struct Scale(f64);

/// The float types `scale` writes, and how a factor becomes one.
trait FromF64: Element + core::ops::MulAssign {
    fn from_f64(value: f64) -> Self;
}

impl FromF64 for f32 {
    fn from_f64(value: f64) -> Self {
        value as f32
    }
}

impl FromF64 for f64 {
    fn from_f64(value: f64) -> Self {
        value
    }
}

impl<T: FromF64> Kernel<IterMut<'_, T>> for Scale {
    type Output = ();

    fn run(self, x: IterMut<'_, T>) {
        let by = T::from_f64(self.0);
        x.for_each(|v| *v *= by);
    }
}

/// `scale(x, by)`: multiplies the elements of a float32 or float64 tensor by `by`, in place.
#[tensor_args]
#[pyfunction]
pub fn scale(mut x: TensorArg<'_, Real, ANY_NDIM, ReadWrite>, by: f64) -> PyResult<()> {
    Ok(x.dispatch_iter_mut(Scale(by))?)
}

/// `total_detached(x)`: the sum of a float64 vector, computed with the GIL released: the
/// argument holds the imported tensor, and is `Send`.
#[tensor_args]
#[pyfunction]
pub fn total_detached(py: Python<'_>, x: TensorArg<'_, f64, 1, Owned>) -> PyResult<f64> {
    Ok(py.detach(|| x.iter().map(Iterator::sum))?)
}

/// What `arg_meta` and `view_meta` return: the data type's name, shape, strides, flags, the
/// address of the first element (data pointer plus byte offset) and the byte range.
type Described = (String, Vec<i64>, Vec<i64>, u64, usize, (isize, isize));

fn described(meta: &TensorMeta<'_>) -> Described {
    let first = meta.data_ptr().addr() + meta.byte_offset() as usize;
    let range = meta.byte_range();
    (
        meta.dtype().to_string(),
        meta.shape().to_vec(),
        meta.strides().to_vec(),
        meta.flags().bits(),
        first,
        (range.start, range.end),
    )
}

/// `arg_meta(x, form="read")`: the metadata a typed argument of any data type, rank and device
/// sees, and whether it holds an import (`TensorArg::into_tensor`; not for a tensor lent
/// through its type's exchange table, nor a NumPy array read through its buffer). `form` is
/// `"read"` (`ReadOnly`), `"write"` (`ReadWrite`) or `"owned"` (`Owned`).
#[pyfunction]
#[pyo3(signature = (x, form = "read"))]
pub fn arg_meta(x: &Bound<'_, PyAny>, form: &str) -> PyResult<(Described, bool)> {
    fn seen<A: dlpack_core::tensor::require::Requirement>(
        x: TensorArg<'_, DataType, ANY_NDIM, AnyDevice<A>>,
    ) -> (Described, bool) {
        let meta = described(&x.view());
        (meta, x.into_tensor().is_some())
    }
    Ok(match form {
        "read" => seen::<ReadOnly>(x.extract()?),
        "write" => seen::<ReadWrite>(x.extract()?),
        "owned" => seen::<Owned>(x.extract()?),
        _ => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "no form {form:?}"
            )));
        }
    })
}

/// `view_meta(x)`: the metadata `with_tensor_view` lends of any tensor.
#[pyfunction]
pub fn view_meta(x: &Bound<'_, PyAny>) -> PyResult<Described> {
    with_tensor_view(x, |view| described(&view))
}

/// `write_both(a, b)`: writes 1 to `a[0]`, then 2 to `b[0]`, and returns `a[0]`: 1.0, unless
/// the two alias, which the borrow table refuses before the body runs.
#[tensor_args]
#[pyfunction]
pub fn write_both(
    mut a: TensorArg<'_, f32, 1, ReadWrite>,
    mut b: TensorArg<'_, f32, 1, ReadWrite>,
) -> PyResult<f32> {
    a.iter_mut()?.take(1).for_each(|v| *v = 1.0);
    b.iter_mut()?.take(1).for_each(|v| *v = 2.0);
    Ok(a.iter()?.next().unwrap_or(0.0))
}

/// `read_then_write(a, b)`: reads `a[0]`, adds 10 to `b[0]`, and returns what it read first
/// and what it reads of `a[0]` after.
#[tensor_args]
#[pyfunction]
pub fn read_then_write(
    a: TensorArg<'_, f32, 1>,
    mut b: TensorArg<'_, f32, 1, ReadWrite>,
) -> PyResult<(f32, f32)> {
    let before = a.iter()?.next().unwrap_or(0.0);
    b.iter_mut()?.take(1).for_each(|v| *v += 10.0);
    Ok((before, a.iter()?.next().unwrap_or(0.0)))
}

/// `owned_and_written(a, b)`: `a` held owned, `b` written.
#[tensor_args]
#[pyfunction]
pub fn owned_and_written(
    a: TensorArg<'_, f32, 1, Owned>,
    mut b: TensorArg<'_, f32, 1, ReadWrite>,
) -> PyResult<f32> {
    b.iter_mut()?.for_each(|v| *v = -1.0);
    Ok(a.iter()?.sum())
}

/// `write_calling(x, callback)`: holds `x` writable while `callback()` runs, then adds 1 to
/// each element; returns what `callback()` returned.
#[tensor_args]
#[pyfunction]
pub fn write_calling<'py>(
    mut x: TensorArg<'_, f32, ANY_NDIM, ReadWrite>,
    callback: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let returned = callback.call0()?;
    x.iter_mut()?.for_each(|v| *v += 1.0);
    Ok(returned)
}

/// `write_viewing(x, y)`: holds `x` writable and sums `y` through `with_tensor_view` meanwhile.
#[tensor_args]
#[pyfunction]
pub fn write_viewing(
    mut x: TensorArg<'_, f32, ANY_NDIM, ReadWrite>,
    y: &Bound<'_, PyAny>,
) -> PyResult<f32> {
    let sum = with_tensor_view(y, |view| view.iter::<f32>().map(Iterator::sum))??;
    x.iter_mut()?.for_each(|v| *v = 0.0);
    Ok(sum)
}

/// `write_failing(x, how)`: holds `x` writable, then raises (`how="error"`) or panics
/// (`how="panic"`): the argument is released either way.
#[tensor_args]
#[pyfunction]
pub fn write_failing(mut x: TensorArg<'_, f32, ANY_NDIM, ReadWrite>, how: &str) -> PyResult<()> {
    x.iter_mut()?.for_each(|v| *v = 7.0);
    match how {
        "panic" => panic!("write_failing was asked to panic"),
        _ => Err(pyo3::exceptions::PyRuntimeError::new_err(
            "write_failing was asked to fail",
        )),
    }
}

/// `write_unnamed(a, b)`: `write_both` without `#[tensor_args]`, whose refusal names neither.
#[pyfunction]
pub fn write_unnamed(
    mut a: TensorArg<'_, f32, 1, ReadWrite>,
    mut b: TensorArg<'_, f32, 1, ReadWrite>,
) -> PyResult<f32> {
    a.iter_mut()?.take(1).for_each(|v| *v = 1.0);
    b.iter_mut()?.take(1).for_each(|v| *v = 2.0);
    Ok(a.iter()?.next().unwrap_or(0.0))
}

/// `write_importing(x, y)`: holds `x` writable and imports `y` (`import_tensor`) meanwhile,
/// returning the sum of what it imported.
#[tensor_args]
#[pyfunction]
pub fn write_importing(
    mut x: TensorArg<'_, f32, ANY_NDIM, ReadWrite>,
    y: &Bound<'_, PyAny>,
) -> PyResult<f32> {
    let imported = dlpack_core::python::import_tensor(y, None, None)?;
    let sum = imported.view()?.iter::<f32>()?.sum();
    x.iter_mut()?.for_each(|v| *v = 0.0);
    Ok(sum)
}

/// `negated(x)`: `-x` for a float32 tensor of any library, handed back in that library (a
/// NumPy array for a NumPy array, a PyTorch tensor for a PyTorch tensor, …) by
/// `dlpack_core::python::Framework`, compact, without a copy of the result.
#[pyfunction]
pub fn negated<'py>(x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let result = negated_tensor(x)?;
    Framework::of(x)?.from_dlpack(result)
}

/// `negated_rust(x)`: `negated`'s result as this crate's own tensor class, for the benchmark
/// that converts it by hand in Python (`numpy.from_dlpack(negated_rust(x))`).
#[pyfunction]
pub fn negated_rust<'py>(
    x: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, dlpack_core::python::PyTensor>> {
    let result = negated_tensor(x)?;
    let tensor = dlpack_core::python::PyTensor::from_managed(result)
        .map_err(|err| pyo3::exceptions::PyBufferError::new_err(err.to_string()))?;
    Bound::new(x.py(), tensor)
}

fn negated_tensor(x: &Bound<'_, PyAny>) -> PyResult<ManagedTensor> {
    let (values, shape) = with_tensor_view(x, |view| -> PyResult<(Vec<f32>, Vec<usize>)> {
        let values = view.iter::<f32>()?.map(|v| -v).collect();
        let shape = view.shape().iter().map(|&extent| extent as usize).collect();
        Ok((values, shape))
    })??;
    Ok(ManagedTensor::from_vec(values, &shape)?)
}

/// `doubled(x)`: `2 * x` for a float32 tensor of any library and shape, through a typed
/// argument, handed back in the caller's library (`TensorArg::framework`), compact.
#[tensor_args]
#[pyfunction]
pub fn doubled<'py>(
    py: Python<'py>,
    x: TensorArg<'_, f32, ANY_NDIM>,
) -> PyResult<Bound<'py, PyAny>> {
    let values: Vec<f32> = x.iter()?.map(|v| 2.0 * v).collect();
    let shape: Vec<usize> = x.view().shape().iter().map(|&n| n as usize).collect();
    x.framework(py)?
        .from_dlpack(ManagedTensor::from_vec(values, &shape)?)
}

/// The kernel of `mean`: every real element type, through `ToF64`.
struct Mean;

impl<T: Element + ToF64> Kernel<Iter<'_, T>> for Mean {
    type Output = f64;

    fn run(self, x: Iter<'_, T>) -> f64 {
        let n = x.len() as f64;
        x.map(ToF64::to_f64).sum::<f64>() / n
    }
}

/// `mean(x)`: the mean of a tensor of any data type with a Rust element type (a dispatch over
/// `DataType`); a float8 one is refused by the dispatch, naming `mean()` and `x`.
#[tensor_args]
#[pyfunction]
pub fn mean(x: TensorArg<'_>) -> PyResult<f64> {
    Ok(x.dispatch_iter(Mean)?)
}

/// `weighted_sum(x, weights=None)`: the sum of a float32 vector, each element times its
/// weight when `weights` is given (an `Option<TensorArg>`, `None` when left out or `None`).
#[tensor_args]
#[pyfunction]
#[pyo3(signature = (x, weights=None))]
pub fn weighted_sum(
    x: TensorArg<'_, f32, 1>,
    weights: Option<TensorArg<'_, f32, 1>>,
) -> PyResult<f32> {
    let x = x.iter()?;
    Ok(match weights {
        Some(weights) => x.zip(weights.iter()?).map(|(a, b)| a * b).sum(),
        None => x.sum(),
    })
}

/// `gpu_nbytes(x)`: the bytes of a tensor of any data type on a CUDA device (`require::Cuda`),
/// read from its metadata alone, on the stream rule of `__dlpack__`; a tensor elsewhere is
/// refused before the body runs.
#[tensor_args]
#[pyfunction]
pub fn gpu_nbytes(x: TensorArg<'_, DataType, ANY_NDIM, Cuda>) -> usize {
    let view = x.view();
    view.len() * view.dtype().itemsize()
}
