//! [`with_tensor_view`]: a borrowed, validated view of any Python tensor, for a kernel.

use pyo3::prelude::*;

use crate::python::error::buffer_error;
use crate::python::import::borrow::{Borrow, Holder};
#[cfg(numpy_buffer)]
use crate::python::import::buffer;
use crate::python::import::import_routed;
use crate::python::import::route::{Lent, Route, lend, route};
use crate::python::import::table::Table;
use crate::tensor::{Flags, TensorView};

/// Lends `f` a validated [`TensorView`] of the Python tensor `obj` for the duration of the
/// call, and returns what `f` returns: **the** way to write a Rust kernel that takes tensors
/// from Python.
///
/// - When `obj`'s type publishes DLPack's C exchange API with `dltensor_from_py_object_no_sync`
///   (PaddlePaddle, `dlpack_demo.Tensor`, any [`ExchangeTensor`](crate::python::exchange::ExchangeTensor)),
///   the producer fills a `DLTensor` on this function's stack, pointing at its own shape and
///   strides: nothing is allocated, nothing is called through Python.
/// - A `numpy.ndarray` (the class itself, not a subclass) is read through CPython's buffer
///   protocol, which describes it exactly as its `__dlpack__` would, without making and
///   consuming a capsule; the buffer is released when `f` returns. A read-only array, or
///   one whose dtype or byte order the buffer cannot carry (ml_dtypes' `bfloat16`, a
///   byte-swapped array), takes the next way.
/// - Otherwise (TVM FFI, PyTorch, JAX, a capsule) the tensor is imported as
///   [`import_tensor`](super::import_tensor) imports it (through the table's owning export when there is one, else
///   `__dlpack__`), and released to its producer when `f` returns.
///
/// Either way the view is validated as every import is, and it cannot outlive the call: the
/// borrow checker refuses a view, slice or element reference that escapes `f`.
///
/// While `f` runs, the view is registered in the borrow table [`TensorArg`](crate::python::TensorArg)
/// arguments share ("Borrows" on its page): a view of memory that a live writable argument
/// holds is refused with a `BufferError` naming it
/// (`with_tensor_view(): the tensor overlaps argument 'x' of scale_(), which is writable`), and
/// so is a writable argument taken inside `f` over the memory it reads. Python code that `f`
/// calls, or that runs while `f` releases the GIL, can still write the elements, or replace
/// the storage of a tensor lent in place through its class's exchange table: read what you
/// need before calling back into Python.
///
/// A `DLTensor` carries no flags, so a tensor its producer holds read-only is lent through
/// the owning path, which says so (and `TensorView` only reads). On a device with streams,
/// a producer that names a current work stream is imported through `__dlpack__`, which
/// synchronises with it, rather than lent unsynchronised.
///
/// ```
/// use dlpack_core::python::{to_python, with_tensor_view};
/// use pyo3::prelude::*;
///
/// /// The kernel: the sum of a float32 tensor of any strides, from any library.
/// fn sum(obj: &Bound<'_, PyAny>) -> PyResult<f32> {
///     with_tensor_view(obj, |view| -> PyResult<f32> { Ok(view.iter::<f32>()?.sum()) })?
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let tensor = to_python(py, &[1.0_f32, 2.0, 3.5][..])?;
///     assert_eq!(sum(tensor.as_any())?, 6.5);
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
///
/// The view is the closure's alone:
///
/// ```compile_fail,E0521
/// use dlpack_core::python::with_tensor_view;
/// use dlpack_core::tensor::TensorView;
/// use pyo3::prelude::*;
///
/// fn escape<'a>(obj: &Bound<'_, PyAny>, out: &mut Option<TensorView<'a>>) -> PyResult<()> {
///     with_tensor_view(obj, |view| *out = Some(view)) // error: borrowed data escapes
/// }
/// ```
pub fn with_tensor_view<R>(
    obj: &Bound<'_, PyAny>,
    f: impl FnOnce(TensorView<'_>) -> R,
) -> PyResult<R> {
    match route(obj, true)? {
        #[cfg(numpy_buffer)]
        Route::Buffer => ndarray_view(obj, f),
        route @ Route::Table { table, torch } => {
            let mut raw = Table::UNFILLED;
            match lend(obj, table, torch, &mut raw)? {
                Lent::InPlace => {
                    let version = table.0.header.version;
                    // SAFETY: the producer filled `raw` for `obj`, which `obj` keeps alive
                    // until control returns to Python, after `f`; the view lives only inside
                    // `f`.
                    let view = unsafe { TensorView::from_dl_tensor(&raw, Flags::EMPTY, version) }
                        .map_err(buffer_error)?;
                    lend_to(obj, view, f)
                }
                Lent::Owning { table_error } => with_imported(obj, route, table_error, f),
            }
        }
        route => with_imported(obj, route, None, f),
    }
}

/// `f`'s result on `view`, registered in the borrow table while `f` runs.
#[inline(always)]
fn lend_to<R>(
    obj: &Bound<'_, PyAny>,
    view: TensorView<'_>,
    f: impl FnOnce(TensorView<'_>) -> R,
) -> PyResult<R> {
    let borrow = if view.flags().contains(Flags::IS_COPIED) {
        Borrow::NONE
    } else {
        Borrow::acquire(obj.py(), &view, false, false, Holder::VIEW)?
    };
    let result = f(view);
    drop(borrow);
    Ok(result)
}

/// `f` with a view of what [`import_tensor`](super::import_tensor) imports of `obj` as `route`
/// decided, released when `f` returns.
#[inline(always)]
fn with_imported<R>(
    obj: &Bound<'_, PyAny>,
    route: Route,
    table_error: Option<PyErr>,
    f: impl FnOnce(TensorView<'_>) -> R,
) -> PyResult<R> {
    let tensor = import_routed(obj, route, None, None, table_error)?;
    let view = tensor.view().map_err(buffer_error)?;
    lend_to(obj, view, f)
}

/// `f`'s result on a NumPy array itself, read through its buffer (`buffer/`), or imported
/// where the buffer does not describe it exactly.
#[cfg(numpy_buffer)]
#[inline(always)]
fn ndarray_view<R>(obj: &Bound<'_, PyAny>, f: impl FnOnce(TensorView<'_>) -> R) -> PyResult<R> {
    let Some((raw, buffer, flags)) = buffer::lend(obj) else {
        return with_imported(obj, Route::Buffer, None, f);
    };
    // SAFETY: the shape and strides `raw` points to stay valid and unchanged while `buffer` is
    // held (`lend`), which it is until `f` returns, and the view lives only inside `f`; the
    // elements are readable and unwritten meanwhile, the contract of every import from Python
    // (tensor/mod.rs, "Imports").
    let Ok(view) =
        (unsafe { TensorView::from_dl_tensor(&raw, flags, crate::ffi::DLPackVersion::CURRENT) })
    else {
        drop(buffer);
        return with_imported(obj, Route::Buffer, None, f);
    };
    let result = lend_to(obj, view, f);
    drop(buffer);
    result
}
