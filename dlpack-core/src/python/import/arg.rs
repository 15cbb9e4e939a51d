//! [`TensorArg`]: any Python tensor as a typed `#[pyfunction]` argument, checked before the
//! body runs.

use core::fmt::Write as _;
use core::marker::PhantomData;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::DataType;
use crate::Device;
use crate::dispatch::{Dispatch, Iterated, IteratedMut, Runs, Slice, SliceMut};
use crate::element::Element;
use crate::error::Error;
use crate::ffi::DLDeviceType;
use crate::python::error::buffer_error;
use crate::python::import::borrow::{Borrow, Holder};
#[cfg(numpy_buffer)]
use crate::python::import::buffer::{self, ArrayBuffer};
use crate::python::import::import_routed;
use crate::python::import::route::{Lent, Route, lend, route};
use crate::python::import::table::Table;
use crate::python::message::{a_or_an, type_name};
use crate::python::named::{NamedArg, Names};
use crate::tensor::import::meta::TensorMeta;
use crate::tensor::import::validate::StridesRule;
use crate::tensor::require::{ANY_NDIM, ANY_ORDINAL, ReadOnly, Requirement};
use crate::tensor::{Flags, Iter, IterMut, ManagedTensor, TensorView, TensorViewMut};

/// Any Python object that speaks DLPack (NumPy, PyTorch, JAX, PaddlePaddle, TVM FFI, CuPy, a
/// class of yours) as a typed argument of a `#[pyfunction]`, checked before the body runs:
/// the element type `T`, the number of dimensions `NDIM` (any by default), and what `A`
/// requires ([`tensor::require`](crate::tensor::require): read in place by default, or
/// written, held owned and `Send`, compact, on any device). The device is one the host reads
/// (the CPU, and pinned or managed memory) unless `A` is `AnyDevice<…>`.
///
/// `T` is a Rust element type (`f32`, `half::f16`, …) for typed access
/// ([`as_slice`](Self::as_slice), [`iter`](Self::iter)), or a dtype type — [`DataType`] (the
/// default: any data type) or an enum that derives `DlpackDataType` (one of its data types) —
/// whose kernels are [dispatched](crate::dispatch) on the tensor's data type
/// ([`dispatch_slice`](Self::dispatch_slice), [`dispatch_iter`](Self::dispatch_iter)).
///
/// Nothing is copied: a tensor whose type publishes DLPack's C exchange table is borrowed
/// through it, as [`with_tensor_view`](crate::python::with_tensor_view) borrows it; a
/// `numpy.ndarray` (the class itself; not for `Owned`) is read through CPython's buffer
/// protocol, which describes it exactly as its `__dlpack__` would, without the capsule (a
/// read-only array, one whose dtype or byte order the buffer cannot carry, a subclass, go
/// through `__dlpack__`); any other is imported (`__dlpack__`). What is held is released when the
/// argument is dropped, or when extraction fails. An `Owned` argument always holds an import,
/// which it can hand over ([`into_tensor`](Self::into_tensor)) and release on any thread. A tensor that is not what the argument requires is a `TypeError` that says
/// what was expected and what was given; one its producer cannot export is its `BufferError`.
/// With `#[tensor_args]` (from this module, written above `#[pyfunction]`) the message names
/// the function and the argument, as Python's own do, and so do the errors of the argument's
/// dispatches. The attribute also names `Option<TensorArg<…>>` (`None` for Python's `None`,
/// or the signature's default when left out), [`DataTypeLike`](crate::python::DataTypeLike),
/// [`DeviceLike`](crate::python::DeviceLike) and `bool` arguments (`copy=`: "must be True,
/// False or None, got 'yes'"); for methods, write it above `#[pymethods]` on the impl block
/// (a method is named `Class.method`): on a method inside the block it comes after PyO3 has
/// read the arguments, and says so. A borrowed (`ReadOnly`, `ReadWrite`) argument is not
/// `Send`: used inside `py.detach`, it is a compile error that says to take it `Owned`.
///
/// ```text
/// #[tensor_args]
/// #[pymethods]
/// impl Model {
///     fn forward(&self, x: TensorArg<'_, f32>, mask: Option<TensorArg<'_, bool>>) -> PyResult<f32>
/// }
/// ```
///
///
/// ```
/// use dlpack_core::python::{PyTensor, TensorArg, tensor_args, to_python};
/// use dlpack_core::{DlpackDataType, ManagedTensor};
/// use dlpack_core::tensor::require::{ANY_NDIM, Owned, ReadWrite};
/// use pyo3::prelude::*;
///
/// /// The sum of a float32 matrix's elements, in any strides.
/// #[tensor_args]
/// #[pyfunction]
/// fn sum(x: TensorArg<'_, f32, 2>) -> PyResult<f32> {
///     Ok(x.iter()?.sum())
/// }
///
/// /// Scales a float64 tensor in place.
/// #[tensor_args]
/// #[pyfunction]
/// fn scale(mut x: TensorArg<'_, f64, ANY_NDIM, ReadWrite>, by: f64) -> PyResult<()> {
///     x.iter_mut()?.for_each(|v| *v *= by);
///     Ok(())
/// }
///
/// /// The largest element, found without the GIL.
/// #[tensor_args]
/// #[pyfunction]
/// fn max(py: Python<'_>, x: TensorArg<'_, u8, 1, Owned>) -> PyResult<u8> {
///     py.detach(|| Ok(x.as_slice()?.iter().copied().max().unwrap_or(0)))
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let sum = wrap_pyfunction!(sum, py)?;
///     let matrix = Bound::new(py, PyTensor::from_managed(ManagedTensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[2, 2])?)?)?;
///     assert_eq!(sum.call1((matrix,))?.extract::<f32>()?, 10.0);
///
///     let vector = to_python(py, &[1.0_f64, 2.0, 3.0][..])?;
///     let err = sum.call1((vector,)).unwrap_err();
///     assert!(err.is_instance_of::<pyo3::exceptions::PyTypeError>(py));
///     assert_eq!(
///         err.value(py).to_string(),
///         "sum(): argument 'x' must be a float32 tensor with 2 dimensions on cpu, \
///          got a float64 Tensor with shape (3,)"
///     );
///     let bytes = to_python(py, &[3_u8, 9, 4][..])?;
///     assert_eq!(wrap_pyfunction!(max, py)?.call1((bytes,))?.extract::<u8>()?, 9);
///     let _ = wrap_pyfunction!(scale, py)?;
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
///
/// An untyped argument dispatches a kernel written once over the element types of your dtype
/// enum, with the tensor's dtype checked against it before the body runs; a dispatch's error
/// (a data type with no Rust element type, a view it cannot make) names the function and the
/// argument too:
///
/// ```
/// use dlpack_core::dispatch::{Kernel, ToF64};
/// use dlpack_core::python::{PyTensor, TensorArg, tensor_args, to_python};
/// use dlpack_core::tensor::{Iter, TensorOwner, TensorParts};
/// use dlpack_core::{DataType, Device, DlpackDataType, Element, ManagedTensor};
/// use pyo3::prelude::*;
///
/// #[derive(Clone, Copy, DlpackDataType)]
/// enum Real {
///     #[dlpack("float32")] F32,
///     #[dlpack("float64")] F64,
///     #[dlpack("float8_e4m3fn")] F8, // no Rust element type
/// }
///
/// struct Mean;
/// impl<T: Element + ToF64> Kernel<Iter<'_, T>> for Mean {
///     type Output = f64;
///     fn run(self, x: Iter<'_, T>) -> f64 {
///         let n = x.len() as f64;
///         x.map(ToF64::to_f64).sum::<f64>() / n
///     }
/// }
///
/// #[tensor_args]
/// #[pyfunction]
/// fn mean(x: TensorArg<'_, Real>) -> PyResult<f64> {
///     Ok(x.dispatch_iter(Mean)?)
/// }
///
/// /// Float8 bytes, which no Rust type reads.
/// struct Fp8(Vec<u8>, [usize; 1]);
/// // SAFETY: the vector holds the elements, owned by `Fp8` alone.
/// unsafe impl TensorOwner for Fp8 {
///     fn describe(&mut self) -> TensorParts<'_> {
///         let data = self.0.as_mut_ptr().cast();
///         TensorParts::new(data, Device::CPU, DataType::FLOAT8_E4M3FN, &self.1[..])
///     }
/// }
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let mean = wrap_pyfunction!(mean, py)?;
///     let x = to_python(py, &[1.0_f32, 2.0][..])?;
///     assert_eq!(mean.call1((x,))?.extract::<f64>()?, 1.5);
///     let ints = to_python(py, &[1_i32][..])?;
///     let err = mean.call1((ints,)).unwrap_err().value(py).to_string();
///     assert_eq!(err, "mean(): argument 'x' must be a float32, float64 or float8_e4m3fn tensor on cpu, got an int32 Tensor with shape (1,)");
///     let fp8 = Bound::new(py, PyTensor::from_managed(ManagedTensor::from_owner(Fp8(vec![0; 2], [2]))?)?)?;
///     let err = mean.call1((fp8,)).unwrap_err();
///     assert!(err.is_instance_of::<pyo3::exceptions::PyTypeError>(py));
///     assert_eq!(
///         err.value(py).to_string(),
///         "mean(): argument 'x': Real.F8 (float8_e4m3fn) has no Rust element type; \
///          a dispatch over Real runs kernels on float32, float64"
///     );
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
///
/// # Borrows: what Rust may hold, and what Python may still do
///
/// Before the body runs, the argument's memory (the bytes its elements reach) is registered in
/// a borrow table that every `TensorArg` and [`with_tensor_view`](crate::python::with_tensor_view)
/// of the process share, other extensions built on this crate included; it is released when
/// the argument is dropped, whichever way the function ends. A writable (`ReadWrite`) argument
/// is refused when any other live view overlaps it, and any argument when a live writable one
/// does, with a `BufferError` naming both: `f(x, x)`, `f(x[:4], x[1:])`, a callback that hands
/// `x` to another typed function while the body holds it writable. Disjoint views of one
/// array (`x[::2]` and `x[1::2]`, the two halves) are lent side by side. So the `&mut [T]` of
/// [`as_slice_mut`](Self::as_slice_mut) is the only reference to its elements that Rust code
/// holds. A tensor the import copied (`IS_COPIED`) is no one else's and is not registered.
///
/// ```text
/// #[tensor_args] #[pyfunction]
/// fn add_(mut a: TensorArg<'_, f32, ANY_NDIM, ReadWrite>, b: TensorArg<'_, f32>) -> PyResult<()>
///
/// >>> x = numpy.arange(4, dtype=numpy.float32)
/// >>> ext.add_(x, x)
/// BufferError: add_(): argument 'b' overlaps argument 'a', which is writable: Rust may not
/// hold a writable view of memory that another view reads or writes (pass a copy, or disjoint
/// slices)
/// >>> ext.add_(x[::2], x[1::2])      # disjoint: lent side by side
/// >>> ext.add_(x, x.copy())
/// ```
///
/// As with rust-numpy's `PyReadonlyArray`/`PyReadwriteArray`, which keep the same kind of
/// table, Python code itself is not stopped. Where the body runs Python code — a callback it
/// calls, or other threads while it releases the GIL (`py.detach`):
///
/// - **Python can write the elements** (`x[0] = 1`, `x.fill(0)`, `t.add_(1)`): the body then
///   reads values that change under it, a data race if another thread writes. Read what you
///   need before calling back into Python, or take a copy.
/// - **Python can replace the tensor's storage** (`t.set_(torch.empty(0))`, `t.resize_(…)`).
///   A `ReadOnly` argument lent in place through the tensor class's exchange table (PyTorch,
///   PaddlePaddle, TVM FFI) points into the storage without holding it, and would read freed
///   memory: a body that calls Python code should take its arguments `Owned` (or
///   `ReadWrite`), which hold the storage through their export and keep reading the old
///   memory. NumPy refuses to resize an array whose buffer is lent.
/// - **`Owned` invites releasing the GIL** — that is what it is for — and then any Python
///   thread may write the array, as above. The borrow table still stops every other typed
///   argument and `with_tensor_view`.
///
/// A [`ManagedTensor`] that [`import_tensor`](crate::python::import_tensor) or
/// [`into_tensor`](Self::into_tensor) hands over is checked against the table when it is
/// made (an import of memory a live writable argument holds is refused), and gives no mutable
/// view unless the producer copied it: the producer may lend the same memory again. It is not
/// registered for its lifetime, so a Rust object that keeps one and reads it while Python
/// code calls a function whose typed argument writes the same memory is in the case above.
pub struct TensorArg<
    'a,
    T: ArgType = DataType,
    const NDIM: usize = ANY_NDIM,
    A: Requirement = ReadOnly,
> {
    /// The validated metadata, borrowed from the Python object (for `'a`) or from what
    /// `keeper` holds. Declared first: dropped before `keeper`.
    meta: TensorMeta<'a>,
    /// What keeps the metadata and the elements valid beside the object.
    keeper: Keeper,
    /// The Python object, alive for 'a: where [`framework`](Self::framework) finds the
    /// caller's library.
    pub(crate) object: Object,
    /// The view's entry in the borrow table, released when the argument is dropped.
    #[allow(dead_code, reason = "held for its drop, which releases the entry")]
    borrow: Borrow,
    /// The function's and the argument's names, when `#[tensor_args]` extracted it, for the
    /// errors of its dispatches: one pointer, so that the argument stays small.
    names: Option<Names>,
    _types: Types<T, A>,
}

/// The Python object a [`TensorArg`] was extracted from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Object(pub(crate) *mut pyo3::ffi::PyObject);

// SAFETY: the pointer is only followed with a `Python` token (the thread attached), to an
// object alive for the argument's 'a; whether the argument itself may cross threads is
// decided by `Requirement::Holds`, not by this field.
unsafe impl Send for Object {}
// SAFETY: as for `Send`: `&Object` only hands out the pointer.
unsafe impl Sync for Object {}

/// What a [`TensorArg`] holds besides its borrow of the Python object.
enum Keeper {
    /// Nothing: the tensor was lent through its type's exchange table, and its metadata is the
    /// object's.
    Object,
    /// The tensor imported through `__dlpack__` (or the owning export of an exchange table),
    /// released to its producer when dropped.
    Tensor(ManagedTensor),
    /// A NumPy array's buffer (`buffer/`), released when dropped.
    #[cfg(numpy_buffer)]
    Buffer(
        #[allow(dead_code, reason = "held for its drop, which releases the buffer")] ArrayBuffer,
    ),
}

/// What a [`TensorArg`]'s type parameters leave in it: the element type's marker, and what
/// makes a borrowed argument neither `Send` nor `Sync` ([`Requirement::Holds`]).
type Types<T, A> = PhantomData<(fn() -> T, <A as Requirement>::Holds)>;

/// The bound of a [`TensorArg`]'s type parameter: the element types and dtype types it takes,
/// every Rust type that implements [`Element`] in this crate, [`DataType`], and every enum that
/// derives `DlpackDataType` (through [`Dispatch`]). Implemented by the crate alone; you name it
/// only in code generic over the argument's type.
///
/// ```
/// use dlpack_core::python::{ArgType, TensorArg, to_python};
/// use dlpack_core::DataType;
/// use pyo3::prelude::*;
///
/// /// The data type of any typed argument, whatever it holds.
/// fn data_type<T: ArgType>(x: &TensorArg<'_, T>) -> DataType {
///     x.view().dtype()
/// }
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let obj = to_python(py, &[1_u8, 2][..])?;
///     assert_eq!(data_type(&obj.as_any().extract::<TensorArg<'_, u8>>()?), DataType::U8);
///     assert_eq!(data_type(&obj.as_any().extract::<TensorArg<'_>>()?), DataType::U8);
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is neither a DLPack element type nor a dtype type, so no tensor argument holds it",
    label = "not an `Element` (`f32`, `half::f16`, …) nor a dtype type (`DataType`, an enum that derives `DlpackDataType`)",
    note = "a typed argument names its element type (`TensorArg<'_, f32>`); an untyped one, the dtype type its kernels are dispatched over (`TensorArg<'_, DType>`)"
)]
pub trait ArgType: sealed::Sealed {
    /// Whether a tensor of `data_type` is taken.
    #[doc(hidden)]
    fn accepts(data_type: DataType) -> bool;
    /// What is taken, for the message: `float32`, `float32 or float64`, or empty for any.
    #[doc(hidden)]
    fn expected(out: &mut String);
}

/// The metadata, as the views show it.
///
/// ```
/// use dlpack_core::python::{TensorArg, to_python};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let obj = to_python(py, &[0_u8; 2][..])?;
///     let x: TensorArg<'_, u8> = obj.as_any().extract()?;
///     assert!(format!("{x:?}").starts_with("TensorArg"));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
impl<T: ArgType, const NDIM: usize, A: Requirement> core::fmt::Debug for TensorArg<'_, T, NDIM, A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.meta.debug_as("TensorArg", f)
    }
}

/// A [`TensorArg`], read by name: what `#[tensor_args]`'s extractors call.
impl<'a, T: ArgType, const NDIM: usize, A: Requirement> NamedArg<'a> for TensorArg<'a, T, NDIM, A> {
    #[inline(always)]
    fn __extract_named(obj: Borrowed<'a, '_, PyAny>, names: Names) -> PyResult<Self> {
        // SAFETY: a `Borrowed<'a, '_, PyAny>` is a reference to an object that lives for 'a.
        unsafe { Self::extract_as(&obj, Some(names)) }
    }
}

/// Writes `a, b or c`.
fn one_of(out: &mut String, data_types: impl Iterator<Item = DataType>) {
    let all: Vec<DataType> = data_types.collect();
    for (i, data_type) in all.iter().enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == all.len() { " or " } else { ", " });
        }
        let _ = write!(out, "{data_type}");
    }
}

/// Seals [`ArgType`]: its impls are this file's, so a type it takes is an `Element` or a
/// dtype type, as its messages say.
mod sealed {
    pub trait Sealed {}
}

impl<E: Dispatch> sealed::Sealed for E {}

#[diagnostic::do_not_recommend]
impl<E: Dispatch> ArgType for E {
    #[inline]
    fn accepts(data_type: DataType) -> bool {
        // `DataType` (every data type) takes this branch and no call (see `checked`).
        (const { E::ACCEPTS.is_all() }) || E::ACCEPTS.contains(data_type)
    }

    fn expected(out: &mut String) {
        if !E::ACCEPTS.is_all() {
            one_of(out, E::ACCEPTS.iter());
        }
    }
}

macro_rules! element_args {
    ($($(#[$cfg:meta])* $ty:ty,)*) => {
        $(
            $(#[$cfg])*
            impl sealed::Sealed for $ty {}

            $(#[$cfg])*
            impl ArgType for $ty {
                #[inline]
                fn accepts(data_type: DataType) -> bool {
                    data_type == <$ty as Element>::DATA_TYPE
                }

                fn expected(out: &mut String) {
                    let _ = write!(out, "{}", <$ty as Element>::DATA_TYPE);
                }
            }
        )*
    };
}

element_args! {
    bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64,
    #[cfg(feature = "half")] half::f16,
    #[cfg(feature = "half")] half::bf16,
    #[cfg(feature = "num-complex")] num_complex::Complex<f32>,
    #[cfg(feature = "num-complex")] num_complex::Complex<f64>,
}

impl<'a, T: ArgType, const NDIM: usize, A: Requirement> TensorArg<'a, T, NDIM, A> {
    /// # Safety
    ///
    /// The object `obj` points to lives for 'a.
    #[inline(always)]
    unsafe fn extract_as(obj: &Bound<'_, PyAny>, names: Option<Names>) -> PyResult<Self> {
        // A NumPy array itself is read through its buffer (`buffer/`) unless the argument is
        // owned: an `Owned` argument hands its tensor over (`into_tensor`) and may be released
        // on any thread without the interpreter, which a `__dlpack__` import allows.
        match route(obj, !A::OWNED)? {
            #[cfg(numpy_buffer)]
            Route::Buffer => Self::from_ndarray(obj, names),
            Route::NotTensor => Err(mismatch::<T, NDIM, A>(obj, names, None)),
            // Borrowed through the exchange table, as `with_tensor_view` borrows: read in
            // place, on the host. A `DLTensor` carries no flags, so a writable argument asks
            // for an export, which says whether the tensor is read-only.
            route @ Route::Table { table, torch } if !A::WRITE && !A::OWNED => {
                // SAFETY: forwarded from the caller.
                match unsafe { borrow(obj, table, torch)? } {
                    Ok(meta) => Self::checked(obj, names, meta, Keeper::Object),
                    Err(table_error) => Self::imported(obj, names, route, table_error),
                }
            }
            route => Self::imported(obj, names, route, None),
        }
    }

    /// A NumPy array itself, through its buffer, or through `__dlpack__` where the buffer does
    /// not describe it exactly.
    #[cfg(numpy_buffer)]
    #[inline(always)]
    fn from_ndarray(obj: &Bound<'_, PyAny>, names: Option<Names>) -> PyResult<Self> {
        // A writable argument of a read-only buffer asks `__dlpack__`, which alone tells an
        // array that is not writeable from one NumPy warns about writing (`buffer/`).
        if let Some((raw, buffer, flags)) =
            buffer::lend(obj).filter(|lent| !A::WRITE || lent.2.is_empty())
        {
            // SAFETY: the shape and strides `raw` points to stay valid and unchanged while
            // `buffer` is held (`lend`), which the argument keeps beside the metadata, declared
            // after it, so that the metadata is dropped first; on a refusal both are dropped
            // here. The data is read as every import from Python is (`view`).
            let meta = unsafe { TensorMeta::new(&raw, flags, StridesRule::NullIsCompact) };
            if let Ok(meta) = meta {
                // SAFETY: only the lifetime changes: the metadata borrows the shape and
                // strides `raw` points to, which live as long as `buffer` (above), not `raw`.
                let meta = unsafe { core::mem::transmute::<TensorMeta<'_>, TensorMeta<'a>>(meta) };
                return Self::checked(obj, names, meta, Keeper::Buffer(buffer));
            }
        }
        Self::imported(obj, names, Route::Buffer, None)
    }

    /// The tensor imported through `__dlpack__` (or an exchange table's owning export), as
    /// `route` decided; `table_error`, what the table raised when asked to lend it.
    #[inline(always)]
    fn imported(
        obj: &Bound<'_, PyAny>,
        names: Option<Names>,
        route: Route,
        table_error: Option<PyErr>,
    ) -> PyResult<Self> {
        let tensor = import_routed(obj, route, None, None, table_error)?;
        // SAFETY: `meta` is kept in the argument beside `tensor`, declared before it, so it is
        // dropped first; on a refusal both are dropped here.
        let meta =
            unsafe { tensor.meta_detached() }.map_err(|err| buffer_error(Error::Tensor(err)))?;
        Self::checked(obj, names, meta, Keeper::Tensor(tensor))
    }

    #[inline(always)]
    fn checked(
        obj: &Bound<'_, PyAny>,
        names: Option<Names>,
        meta: TensorMeta<'a>,
        keeper: Keeper,
    ) -> PyResult<Self> {
        // Every check is a comparison inlined here in the common case: a call between the
        // validation and the move into the argument (`Device::can_access`, `Set::contains`)
        // makes the compiler keep the metadata on the stack across it and copy it again
        // afterwards, which costs more than the checks (docs/decisions.md, "Typed access").
        let device = meta.device();
        let device_ok = match A::CUDA {
            None => {
                A::ANY_DEVICE
                    || device.device_type == DLDeviceType::CPU
                    || Device::CPU.can_access(device)
            }
            Some(ordinal) => {
                device.device_type == DLDeviceType::CUDA
                    && (ordinal == ANY_ORDINAL || device.device_id == ordinal)
            }
        };
        let fits = T::accepts(meta.dtype())
            && (NDIM == ANY_NDIM || meta.ndim() == NDIM)
            && device_ok
            && (!A::COMPACT || meta.is_compact())
            && (!A::WRITE || !meta.flags().contains(Flags::READ_ONLY));
        if !fits {
            // The import, if any, is released here, before the error reaches Python.
            return Err(mismatch::<T, NDIM, A>(obj, names, Some(&meta)));
        }
        // Registered (`borrow.rs`) before it is handed out: no writable argument overlaps
        // another live view of the same memory. What the import copied is no one else's.
        // The result is built where it is returned, and the borrow written into it: a local
        // argument moved into `Ok` afterwards is a copy of the whole argument.
        let mut result = Ok(Self {
            meta,
            keeper,
            object: Object(obj.as_ptr()),
            borrow: Borrow::NONE,
            names,
            _types: PhantomData,
        });
        if let Ok(arg) = &mut result {
            if !arg.meta.flags().contains(Flags::IS_COPIED) {
                let holder = match names {
                    Some(&(function, argument)) => Holder { function, argument },
                    None => Holder::UNNAMED,
                };
                match Borrow::acquire(obj.py(), &arg.meta, A::WRITE, A::OWNED, holder) {
                    Ok(borrow) => arg.borrow = borrow,
                    Err(err) => result = Err(err),
                }
            }
        }
        result
    }

    /// A read-only view: shape, strides, data type, device, and typed access.
    ///
    /// ```
    /// use dlpack_core::python::{PyTensor, TensorArg};
    /// use dlpack_core::ManagedTensor;
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let obj = Bound::new(py, PyTensor::from_managed(ManagedTensor::from_vec(vec![0_u8; 6], &[2, 3])?)?)?;
    ///     let x: TensorArg<'_> = obj.as_any().extract()?;
    ///     assert_eq!(x.view().shape(), [2, 3]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    #[inline]
    pub fn view(&self) -> TensorView<'_> {
        // SAFETY: the elements are readable and unwritten while the Python object (borrowed
        // for 'a) or what `self.keeper` holds lives, as for `with_tensor_view` and
        // `ManagedTensor::view`; the view borrows `self`.
        unsafe { TensorView::from_meta(self.meta.reborrow()) }
    }

    /// The imported tensor, when the argument holds one: always for `Owned`; for `ReadWrite`,
    /// unless it is a NumPy array read through its buffer; for `ReadOnly`, unless it is that,
    /// or was borrowed through its type's exchange table.
    ///
    /// ```
    /// use dlpack_core::python::{TensorArg, to_python};
    /// use dlpack_core::tensor::require::{ANY_NDIM, Owned};
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let obj = to_python(py, &[1_i8][..])?;
    ///     let x: TensorArg<'_, i8, ANY_NDIM, Owned> = obj.as_any().extract()?;
    ///     let tensor = x.into_tensor().expect("owned");
    ///     assert_eq!(tensor.view()?.as_slice::<i8>()?, [1]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn into_tensor(self) -> Option<ManagedTensor> {
        let Self { meta, keeper, .. } = self;
        drop(meta);
        match keeper {
            // No mutable view unless the import copied, as from `python::import_tensor`.
            Keeper::Tensor(tensor) => Some(tensor.lent_by_producer()),
            _ => None,
        }
    }
}

impl<'a, T: Element + ArgType, const NDIM: usize, A: Requirement> TensorArg<'a, T, NDIM, A> {
    /// The elements as a slice, for a compact tensor (`Compact<…>` makes sure of it); refuses
    /// an address not aligned for `T`, and for `bool` a byte other than 0 or 1.
    ///
    /// ```
    /// use dlpack_core::python::{TensorArg, to_python};
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let obj = to_python(py, &[1_u16, 2][..])?;
    ///     let x: TensorArg<'_, u16, 1> = obj.as_any().extract()?;
    ///     assert_eq!(x.as_slice()?, [1, 2]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    #[inline]
    pub fn as_slice(&self) -> Result<&[T], Error> {
        let (first, len) = self.meta.slice_ptr::<T>()?;
        // SAFETY: `slice_ptr` checked the type, layout, alignment and bools; the elements are
        // readable and unwritten while `self` lives (see `view`), which the slice borrows.
        Ok(unsafe { core::slice::from_raw_parts(first, len) })
    }

    /// The elements in row-major order, in any strides.
    ///
    /// ```
    /// use dlpack_core::python::{TensorArg, to_python};
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let obj = to_python(py, &[1_i32, 2, 3][..])?;
    ///     let x: TensorArg<'_, i32> = obj.as_any().extract()?;
    ///     assert_eq!(x.iter()?.sum::<i32>(), 6);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    #[inline]
    pub fn iter(&self) -> Result<Iter<'_, T>, Error> {
        self.view().iter::<T>()
    }
}

impl<'a, T: Element + ArgType, const NDIM: usize, A: Requirement> TensorArg<'a, T, NDIM, A> {
    /// The elements as a mutable slice (`ReadWrite`, and compact). A `ReadOnly` or `Owned`
    /// argument refuses: it may share its memory with readers.
    ///
    /// ```
    /// use dlpack_core::python::{TensorArg, to_python};
    /// use dlpack_core::tensor::require::{ANY_NDIM, ReadWrite};
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let obj = to_python(py, &[3_u8, 1, 2][..])?;
    ///     let mut x: TensorArg<'_, u8, ANY_NDIM, ReadWrite> = obj.as_any().extract()?;
    ///     x.as_slice_mut()?.sort();
    ///     assert_eq!(x.as_slice()?, [1, 2, 3]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    #[inline]
    pub fn as_slice_mut(&mut self) -> Result<&mut [T], Error> {
        let (first, len) = self.writable()?.slice_ptr::<T>()?;
        // SAFETY: as `as_slice`; the argument requires a writable tensor, which Rust code
        // reaches only through this `&mut self`.
        Ok(unsafe { core::slice::from_raw_parts_mut(first, len) })
    }

    /// Mutable references to the elements in row-major order, in any strides that reach each
    /// element once (`ReadWrite`).
    ///
    /// ```
    /// use dlpack_core::python::{TensorArg, to_python};
    /// use dlpack_core::tensor::require::{ANY_NDIM, ReadWrite};
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let obj = to_python(py, &[1.0_f32, 2.0][..])?;
    ///     let mut x: TensorArg<'_, f32, 1, ReadWrite> = obj.as_any().extract()?;
    ///     x.iter_mut()?.for_each(|v| *v = -*v);
    ///     assert_eq!(x.as_slice()?, [-1.0, -2.0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    #[inline]
    pub fn iter_mut(&mut self) -> Result<IterMut<'_, T>, Error> {
        self.view_mut()?.into_iter_mut::<T>()
    }
}

impl<'a, T: ArgType, const NDIM: usize, A: Requirement> TensorArg<'a, T, NDIM, A> {
    /// A view that may write the elements (`ReadWrite`); a `ReadOnly` or `Owned` argument
    /// refuses.
    ///
    /// ```
    /// use dlpack_core::python::{TensorArg, to_python};
    /// use dlpack_core::tensor::require::{ANY_NDIM, ReadWrite};
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let obj = to_python(py, &[0_u8; 2][..])?;
    ///     let mut x: TensorArg<'_, u8, ANY_NDIM, ReadWrite> = obj.as_any().extract()?;
    ///     x.view_mut()?.as_slice_mut::<u8>()?.fill(7);
    ///     assert_eq!(x.as_slice()?, [7, 7]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn view_mut(&mut self) -> Result<TensorViewMut<'_>, Error> {
        let meta = self.writable()?.reborrow();
        // SAFETY: a writable tensor (checked on extraction), whose elements Rust code reaches
        // only through `&mut self`, borrowed by the view.
        Ok(unsafe { TensorViewMut::from_meta(meta)? })
    }

    fn writable(&self) -> Result<&TensorMeta<'a>, Error> {
        if A::WRITE {
            Ok(&self.meta)
        } else {
            Err(Error::msg(
                "a tensor argument that is not `ReadWrite` may share its memory with readers: \
                 it is not written",
            ))
        }
    }
}

impl<'a, E: Dispatch, const NDIM: usize, A: Requirement> TensorArg<'a, E, NDIM, A> {
    /// Runs `kernel` on the elements as `&[T]`, `T` the element type of the tensor's data type
    /// as a value of `E` (see [`Dispatch::dispatch_slice`]).
    ///
    /// ```
    /// use dlpack_core::dispatch::Kernel;
    /// use dlpack_core::python::{TensorArg, to_python};
    /// use dlpack_core::DataType;
    /// use pyo3::prelude::*;
    ///
    /// struct Len;
    /// impl<T> Kernel<&[T]> for Len {
    ///     type Output = usize;
    ///     fn run(self, x: &[T]) -> usize { x.len() }
    /// }
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let obj = to_python(py, &[0_u64; 5][..])?;
    ///     let x: TensorArg<'_, DataType> = obj.as_any().extract()?;
    ///     assert_eq!(x.dispatch_slice(Len)?, 5);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    #[inline]
    pub fn dispatch_slice<'v, K, R>(&'v self, kernel: K) -> Result<R, Error>
    where
        E: for<'w> Runs<K, Slice<'w, 'v>, R>,
    {
        let result = E::dispatch_slice(&self.view(), kernel);
        result.map_err(|err| named(self.names, err))
    }

    /// Runs `kernel` on the elements as an [`Iter<'_, T>`](Iter), in any strides, `T` as for
    /// [`dispatch_slice`](Self::dispatch_slice).
    ///
    /// ```
    /// use dlpack_core::dispatch::Kernel;
    /// use dlpack_core::python::{PyTensor, TensorArg};
    /// use dlpack_core::tensor::Iter;
    /// use dlpack_core::{DataType, Element, ManagedTensor};
    /// use pyo3::prelude::*;
    ///
    /// struct Count;
    /// impl<T: Element> Kernel<Iter<'_, T>> for Count {
    ///     type Output = usize;
    ///     fn run(self, x: Iter<'_, T>) -> usize { x.count() }
    /// }
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let obj = Bound::new(py, PyTensor::from_managed(ManagedTensor::from_vec(vec![0_i16; 4], &[2, 2])?)?)?;
    ///     let x: TensorArg<'_, DataType, 2> = obj.as_any().extract()?;
    ///     assert_eq!(x.dispatch_iter(Count)?, 4);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    #[inline]
    pub fn dispatch_iter<'v, K, R>(&'v self, kernel: K) -> Result<R, Error>
    where
        E: for<'w> Runs<K, Iterated<'w, 'v>, R>,
    {
        let result = E::dispatch_iter(&self.view(), kernel);
        result.map_err(|err| named(self.names, err))
    }
}

impl<'a, E: Dispatch, const NDIM: usize, A: Requirement> TensorArg<'a, E, NDIM, A> {
    /// Runs `kernel` on the elements as `&mut [T]` (`ReadWrite`), `T` as for
    /// [`dispatch_slice`](Self::dispatch_slice).
    ///
    /// ```
    /// use dlpack_core::dispatch::Kernel;
    /// use dlpack_core::python::{TensorArg, to_python};
    /// use dlpack_core::tensor::require::{ANY_NDIM, ReadWrite};
    /// use dlpack_core::DataType;
    /// use pyo3::prelude::*;
    ///
    /// struct Reverse;
    /// impl<T> Kernel<&mut [T]> for Reverse {
    ///     type Output = ();
    ///     fn run(self, x: &mut [T]) { x.reverse() }
    /// }
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let obj = to_python(py, &[1_u8, 2][..])?;
    ///     let mut x: TensorArg<'_, DataType, ANY_NDIM, ReadWrite> = obj.as_any().extract()?;
    ///     x.dispatch_slice_mut(Reverse)?;
    ///     assert_eq!(x.view().as_slice::<u8>()?, [2, 1]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    #[inline]
    pub fn dispatch_slice_mut<'v, K, R>(&'v mut self, kernel: K) -> Result<R, Error>
    where
        E: for<'w> Runs<K, SliceMut<'w, 'v>, R>,
    {
        let names = self.names;
        let result = match self.view_mut() {
            Ok(mut view) => E::dispatch_slice_mut(&mut view, kernel),
            Err(err) => Err(err),
        };
        result.map_err(|err| named(names, err))
    }

    /// Runs `kernel` on the elements as an [`IterMut<'_, T>`](IterMut) (`ReadWrite`), in any
    /// strides that reach each element once, `T` as for [`dispatch_slice`](Self::dispatch_slice).
    ///
    /// ```
    /// use dlpack_core::dispatch::Kernel;
    /// use dlpack_core::python::{TensorArg, to_python};
    /// use dlpack_core::tensor::{IterMut, require::{ANY_NDIM, ReadWrite}};
    /// use dlpack_core::{DataType, Element};
    /// use pyo3::prelude::*;
    ///
    /// struct Zero;
    /// impl<T: Element + Default> Kernel<IterMut<'_, T>> for Zero {
    ///     type Output = ();
    ///     fn run(self, x: IterMut<'_, T>) { x.for_each(|v| *v = T::default()) }
    /// }
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let obj = to_python(py, &[5_i64; 3][..])?;
    ///     let mut x: TensorArg<'_, DataType, ANY_NDIM, ReadWrite> = obj.as_any().extract()?;
    ///     x.dispatch_iter_mut(Zero)?;
    ///     assert_eq!(x.view().as_slice::<i64>()?, [0, 0, 0]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    #[inline]
    pub fn dispatch_iter_mut<'v, K, R>(&'v mut self, kernel: K) -> Result<R, Error>
    where
        E: for<'w> Runs<K, IteratedMut<'w, 'v>, R>,
    {
        let names = self.names;
        let result = match self.view_mut() {
            Ok(mut view) => E::dispatch_iter_mut(&mut view, kernel),
            Err(err) => Err(err),
        };
        result.map_err(|err| named(names, err))
    }
}

/// Any object with `__dlpack__` (or a capsule) that is what the argument requires; the
/// message of a refusal says what was expected and what was given (without the function's
/// and argument's names, which `#[tensor_args]` adds; PyO3 notes the argument's).
///
/// ```
/// use dlpack_core::python::{TensorArg, to_python};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let obj = to_python(py, &[0_u8; 3][..])?;
///     let err = obj.as_any().extract::<TensorArg<'_, f32>>().unwrap_err();
///     assert_eq!(err.value(py).to_string(), "expected a float32 tensor on cpu, got a uint8 Tensor with shape (3,)");
///     let ints = to_python(py, &[0_i64; 1][..])?;
///     let err = ints.as_any().extract::<TensorArg<'_, i8, 2>>().unwrap_err();
///     assert_eq!(err.value(py).to_string(), "expected an int8 tensor with 2 dimensions on cpu, got an int64 Tensor with shape (1,)");
///     let list = pyo3::types::PyList::empty(py);
///     let err = list.as_any().extract::<TensorArg<'_, f32>>().unwrap_err();
///     assert_eq!(err.value(py).to_string(), "expected a float32 tensor on cpu, got a list");
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
impl<'a, 'py, T: ArgType, const NDIM: usize, A: Requirement> FromPyObject<'a, 'py>
    for TensorArg<'a, T, NDIM, A>
{
    type Error = PyErr;

    /// Any DLPack tensor: `dlpack_typing.TensorLike` (`__dlpack__` and `__dlpack_device__`, or
    /// a DLPack capsule), for the stubs of the `inspect` feature.
    #[cfg(feature = "inspect")]
    const INPUT_TYPE: pyo3::inspect::PyStaticExpr =
        pyo3::type_hint_identifier!("dlpack_typing", "TensorLike");

    #[inline]
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        // SAFETY: a `Borrowed<'a, 'py, PyAny>` is a reference to an object that lives for 'a.
        unsafe { Self::extract_as(&obj, None) }
    }
}

/// The tensor borrowed through its type's exchange table (`DLTensor` on this stack, shape and
/// strides in the producer's object), when the table lends it on the host; else the owning
/// path is to be taken (`route::lend`), with what the table raised, if anything.
///
/// # Safety
///
/// The object `obj` points to lives for 'a.
#[inline(always)]
unsafe fn borrow<'a>(
    obj: &Bound<'_, PyAny>,
    table: Table,
    torch: bool,
) -> PyResult<Result<TensorMeta<'a>, Option<PyErr>>> {
    let mut raw = Table::UNFILLED;
    match lend(obj, table, torch, &mut raw)? {
        Lent::InPlace => {
            let rule = StridesRule::for_version(table.0.header.version);
            // SAFETY: the producer filled `raw` for `obj`, whose shape and strides it points
            // to live as long as `obj`, borrowed for 'a; the data is read as
            // `with_tensor_view` reads it.
            let meta = unsafe { TensorMeta::new(&raw, Flags::EMPTY, rule) }
                .map_err(|err| buffer_error(Error::Tensor(err)))?;
            // SAFETY: only the lifetime changes: the metadata borrows the shape and strides
            // `raw` points to, which are the object's (alive for 'a by the caller's contract),
            // not `raw` itself.
            Ok(Ok(unsafe {
                core::mem::transmute::<TensorMeta<'_>, TensorMeta<'a>>(meta)
            }))
        }
        Lent::Owning { table_error } => Ok(Err(table_error)),
    }
}

/// `err` of a dispatch, naming the function and the argument when `#[tensor_args]` extracted
/// it: `mean(): argument 'x': float8_e4m3fn has no Rust element type; …`.
#[cold]
#[inline(never)]
fn named(names: Option<Names>, err: Error) -> Error {
    match names {
        Some(&(function, argument)) => Error::Argument {
            function,
            argument,
            source: alloc::boxed::Box::new(err),
        },
        None => err,
    }
}

/// The `TypeError` of an object that is not the tensor the argument requires.
#[cold]
#[inline(never)]
fn mismatch<T: ArgType, const NDIM: usize, A: Requirement>(
    obj: &Bound<'_, PyAny>,
    names: Option<Names>,
    meta: Option<&TensorMeta<'_>>,
) -> PyErr {
    let mut message = String::new();
    match names {
        Some(&(function, argument)) => {
            let _ = write!(message, "{function}(): argument '{argument}' must be ");
        }
        None => message.push_str("expected "),
    }
    let mut expected = String::new();
    if A::WRITE {
        expected.push_str("writable ");
    }
    if A::COMPACT {
        expected.push_str("compact ");
    }
    let before = expected.len();
    T::expected(&mut expected);
    if expected.len() > before {
        expected.push(' ');
    }
    expected.push_str("tensor");
    let _ = write!(message, "{} {expected}", a_or_an(&expected));
    // `ANY_NDIM` says nothing, rather than its value.
    if NDIM != ANY_NDIM {
        let plural = if NDIM == 1 { "" } else { "s" };
        let _ = write!(message, " with {NDIM} dimension{plural}");
    }
    match A::CUDA {
        Some(ANY_ORDINAL) => message.push_str(" on cuda"),
        Some(ordinal) => {
            let _ = write!(message, " on cuda:{ordinal}");
        }
        None if !A::ANY_DEVICE => message.push_str(" on cpu"),
        None => {}
    }
    message.push_str(", got ");
    let mut given = String::new();
    match meta {
        None => given.push_str(&type_name(obj)),
        Some(meta) => {
            if A::WRITE && meta.flags().contains(Flags::READ_ONLY) {
                given.push_str("read-only ");
            }
            if A::COMPACT && !meta.is_compact() {
                given.push_str("non-compact ");
            }
            let _ = write!(given, "{} {} with shape (", meta.dtype(), type_name(obj));
            for (i, extent) in meta.shape().iter().enumerate() {
                if i > 0 {
                    given.push_str(", ");
                }
                let _ = write!(given, "{extent}");
            }
            given.push_str(if meta.ndim() == 1 { ",)" } else { ")" });
            if A::CUDA.is_some() || (!A::ANY_DEVICE && !Device::CPU.can_access(meta.device())) {
                let _ = write!(given, " on {}", meta.device());
            }
        }
    }
    let _ = write!(message, "{} {given}", a_or_an(&given));
    PyTypeError::new_err(message)
}
