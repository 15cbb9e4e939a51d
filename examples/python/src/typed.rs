//! Functions that take typed tensor arguments (`dlpack_core::python::TensorArg`) in each of
//! their forms, for the tests of what each checks before the body runs: `row_sums` (a compact
//! float32 matrix, read in place), `scale` (a float tensor written in place: a read-only one is
//! refused), and `total_detached` (a float64 vector held owned, read without the GIL).

use dlpack_core::Element;
use dlpack_core::dispatch::Kernel;
use dlpack_core::python::{TensorArg, tensor_args};
use dlpack_core::tensor::IterMut;
use dlpack_core::tensor::require::{ANY_NDIM, Compact, Owned, ReadWrite};
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
