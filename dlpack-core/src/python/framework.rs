//! [`Framework`]: a result built in Rust, handed back in the array library of the tensor it
//! came from — NumPy for a NumPy array, PyTorch for a PyTorch tensor, JAX for JAX — through
//! that library's own `from_dlpack`, without the author knowing which libraries exist.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};
use pyo3::{PyTypeInfo, intern};

use crate::ManagedTensor;
use crate::python::error::buffer_error;
use crate::python::import::{ArgType, TensorArg};
use crate::python::to_python::PyTensor;
use crate::tensor::require::Requirement;

/// The array library a Python tensor belongs to, as the consumer of a result: the
/// `from_dlpack` its class's library offers, found once per class, by this rule:
///
/// 1. the class has `__array_namespace__` (the array API standard: NumPy, JAX, CuPy,
///    array-api-strict, …): the namespace's `from_dlpack`;
/// 2. else the class's module, then its top-level package, has a `from_dlpack` (PyTorch,
///    PaddlePaddle, TVM FFI, an extension of yours whose module offers the RFC's
///    [`from_dlpack`](crate::python::from_dlpack));
/// 3. else none: the result is handed back as this crate's [`PyTensor`] (`dlpack_core`'s
///    `Tensor` class), which every DLPack consumer reads. [`is_known`](Self::is_known) says
///    which.
///
/// The result crosses without a copy: [`from_dlpack`](Self::from_dlpack) hands the
/// [`ManagedTensor`] itself to the library's `from_dlpack` through `__dlpack__`, which applies
/// the request's rules as for any export (a library that asks for a copy, or for another
/// device, gets what it asks for or a `BufferError`). Host tensors only.
///
/// ```
/// use dlpack_core::ManagedTensor;
/// use dlpack_core::python::{Framework, to_python};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     // A tensor of a library with no `from_dlpack`: the result comes back as this crate's.
///     let x = to_python(py, &[1.0_f32, 2.0][..])?;
///     let framework = Framework::of(x.as_any())?;
///     assert!(!framework.is_known());
///     let result = framework.from_dlpack(ManagedTensor::from_vec(vec![3.0_f32], &[1])?)?;
///     assert_eq!(result.get_type().name()?, "Tensor");
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
///
/// In a kernel, the result goes back where the argument came from:
///
/// ```text
/// #[pyfunction]
/// fn negated<'py>(x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
///     let values: Vec<f32> = with_tensor_view(x, |v| v.iter::<f32>().map(|i| i.map(|v| -v).collect()))??;
///     Framework::of(x)?.from_dlpack(ManagedTensor::from_vec(values, &[n])?)
/// }
/// >>> negated(numpy.ones(2))   # array([-1., -1.], dtype=float32)
/// >>> negated(torch.ones(2))   # tensor([-1., -1.])
/// ```
pub struct Framework<'py> {
    py: Python<'py>,
    /// The library's `from_dlpack`, or `None`.
    from_dlpack: Option<Bound<'py, PyAny>>,
}

/// The library's `from_dlpack`, or that there is none.
///
/// ```
/// # use dlpack_core::python::{Framework, to_python};
/// # pyo3::Python::initialize();
/// pyo3::Python::attach(|py| -> pyo3::PyResult<()> {
///     let x = to_python(py, &[1_u8][..])?;
///     assert_eq!(format!("{:?}", Framework::of(x.as_any())?), "Framework(None)");
///     Ok(())
/// })?;
/// # Ok::<(), pyo3::PyErr>(())
/// ```
impl core::fmt::Debug for Framework<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Framework").field(&self.from_dlpack).finish()
    }
}

impl<'py> Framework<'py> {
    /// The library of `obj`'s class (see the type's documentation for the rule), found once
    /// per class and remembered.
    ///
    /// ```
    /// use dlpack_core::python::Framework;
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     // A module that offers `from_dlpack`, and a class of it.
    ///     let module = pyo3::types::PyModule::from_code(
    ///         py,
    ///         c"class Array:\n    pass\ndef from_dlpack(x):\n    return ('mine', x)\n",
    ///         c"mylib.py",
    ///         c"mylib",
    ///     )?;
    ///     py.import("sys")?.getattr("modules")?.set_item("mylib", &module)?;
    ///     let array = module.getattr("Array")?.call0()?;
    ///     assert!(Framework::of(&array)?.is_known());
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn of(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        static FOUND: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
        let py = obj.py();
        let found = FOUND.get_or_init(py, || PyDict::new(py).unbind()).bind(py);
        let class = obj.get_type();
        let from_dlpack = match found.get_item(&class)? {
            Some(known) => known,
            None => {
                let known = find(obj, &class)?.unwrap_or_else(|| py.None().into_bound(py));
                found.set_item(&class, &known)?;
                known
            }
        };
        Ok(Self {
            py,
            from_dlpack: (!from_dlpack.is_none()).then_some(from_dlpack),
        })
    }

    /// Whether the library's own `from_dlpack` was found; `false` when results come back as
    /// this crate's [`PyTensor`].
    pub fn is_known(&self) -> bool {
        self.from_dlpack.is_some()
    }

    /// `tensor` as an array of the library: `library.from_dlpack(tensor)`, the tensor handed
    /// over without a copy (a host tensor; a `BufferError` for another device), or as a
    /// [`PyTensor`] where no `from_dlpack` was found.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// use dlpack_core::python::{Framework, import_tensor, to_python};
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let x = to_python(py, &[0_u8][..])?;
    ///     let result = Framework::of(x.as_any())?.from_dlpack(ManagedTensor::from_vec(vec![4_u8, 2], &[2])?)?;
    ///     assert_eq!(import_tensor(&result, None, None)?.view()?.as_slice::<u8>()?, [4, 2]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn from_dlpack(&self, tensor: ManagedTensor) -> PyResult<Bound<'py, PyAny>> {
        let object = Bound::new(
            self.py,
            PyTensor::from_managed(tensor).map_err(buffer_error)?,
        )?;
        match &self.from_dlpack {
            Some(from_dlpack) => from_dlpack.call1((object,)),
            None => Ok(object.into_any()),
        }
    }
}

/// The `from_dlpack` of `obj`'s library, by the rule of [`Framework`].
fn find<'py>(
    obj: &Bound<'py, PyAny>,
    class: &Bound<'py, PyType>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = obj.py();
    let name = intern!(py, "from_dlpack");
    let callable = |candidate: Bound<'py, PyAny>| {
        candidate
            .getattr(name)
            .ok()
            .filter(|from_dlpack| from_dlpack.is_callable())
    };
    // Our own class has no library: this crate's `PyTensor` is what comes back anyway.
    if class.is(PyTensor::type_object(py)) {
        return Ok(None);
    }
    if class.hasattr(intern!(py, "__array_namespace__"))? {
        if let Some(found) = obj
            .call_method0(intern!(py, "__array_namespace__"))
            .ok()
            .and_then(callable)
        {
            return Ok(Some(found));
        }
    }
    let Ok(module) = class
        .getattr(intern!(py, "__module__"))?
        .extract::<String>()
    else {
        return Ok(None);
    };
    let modules = py
        .import(intern!(py, "sys"))?
        .getattr(intern!(py, "modules"))?;
    let root = module.split('.').next().unwrap_or(&module);
    for name in [module.as_str(), root] {
        if let Some(found) = modules
            .get_item(name)
            .ok()
            .filter(|module| !module.is_none())
            .and_then(callable)
        {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// Where a typed argument's caller lives.
impl<T: ArgType, const NDIM: usize, A: Requirement> TensorArg<'_, T, NDIM, A> {
    /// The array library of the object the argument came from, to hand a result back in it
    /// (a NumPy array for a NumPy array, a PyTorch tensor for a PyTorch tensor, …): see
    /// [`Framework`].
    ///
    /// ```
    /// use dlpack_core::python::{TensorArg, to_python};
    /// use dlpack_core::ManagedTensor;
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let obj = to_python(py, &[1.0_f32, 2.0][..])?;
    ///     let x: TensorArg<'_, f32, 1> = obj.as_any().extract()?;
    ///     let doubled: Vec<f32> = x.iter()?.map(|v| 2.0 * v).collect();
    ///     let result = x.framework(py)?.from_dlpack(ManagedTensor::from_vec(doubled, &[2])?)?;
    ///     // This crate's own tensor class has no library of its own: it comes back as itself.
    ///     assert_eq!(result.get_type().name()?, "Tensor");
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn framework<'py>(&self, py: Python<'py>) -> PyResult<Framework<'py>> {
        // SAFETY: the object lives for 'a, which `self` does not outlive, and `py` attaches
        // the thread.
        let object = unsafe { pyo3::Borrowed::from_ptr(py, self.object.0) };
        Framework::of(&object.to_owned())
    }
}
