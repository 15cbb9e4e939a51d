//! `Tensor` publishes DLPack's C exchange API (`__dlpack_c_exchange_api__`): C, C++ and Rust
//! consumers (TVM FFI, PaddlePaddle, `dlpack_core::python::from_dlpack`) take its tensors
//! without a Python call, and a TVM FFI function hands back the tensors it allocates through
//! our allocator as `dlpack_demo.Tensor`s.

use dlpack_core::dispatch::Kernel;
use dlpack_core::python::exchange::{AllocError, ExchangeApi, ExchangeTensor};
use dlpack_core::python::{TensorArg, tensor_args};
use dlpack_core::tensor::require::{ANY_NDIM, AnyDevice};
use dlpack_core::tensor::{Flags, Iter, TensorParts};
use dlpack_core::{
    DataType, Device as DlDevice, DlpackDataType, DlpackDevice, Element, ManagedTensor,
};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;

use super::Tensor;
use crate::device::Device;
use crate::dtype::DType;

/// The table, one for the type, published by the `__dlpack_c_exchange_api__` class attribute.
pub static EXCHANGE: ExchangeApi = ExchangeApi::new::<Tensor>();

// SAFETY: `borrow_parts` describes `shared`, which the frozen class never replaces: its memory
// (ours, or a foreign tensor it keeps alive) and the layout checked for it when the tensor was
// made live as long as the object, on the device the tensor was made on. After `arange` made
// it, Rust writes the elements only when Python asks (`fill`), as NumPy's `ndarray.fill` does.
unsafe impl ExchangeTensor for Tensor {
    /// A zeroed tensor in memory of ours: host memory, or (feature `cuda`) a CUDA device's.
    /// Python is attached only to read an error.
    fn allocate(
        dtype: DataType,
        shape: &[i64],
        device: DlDevice,
    ) -> Result<ManagedTensor, AllocError> {
        let dtype = DType::from_dlpack_data_type(dtype)
            .map_err(|err| AllocError::Value(format!("dlpack_demo cannot allocate it: {err}")))?;
        let device = Device::from_dlpack_device(device)
            .map_err(|err| AllocError::Value(format!("dlpack_demo cannot allocate it: {err}")))?;
        // Non-negative (the prototype was checked), so these convert.
        let shape: Vec<usize> = shape.iter().map(|&extent| extent as usize).collect();
        let tensor = Tensor::zeros_on(&shape, dtype, device).map_err(|err| {
            Python::attach(|py| {
                let message = err.value(py).to_string();
                if err.is_instance_of::<PyMemoryError>(py) {
                    AllocError::Memory(message)
                } else if err.is_instance_of::<PyValueError>(py) {
                    AllocError::Value(message)
                } else {
                    AllocError::Runtime(message)
                }
            })
        })?;
        Ok(ManagedTensor::from_owner(tensor.exported(Flags::EMPTY))?)
    }

    /// What `__dlpack__()` shares, without a capsule.
    fn export(&self, _py: Python<'_>) -> PyResult<ManagedTensor> {
        Ok(ManagedTensor::from_owner(
            self.exported(self.share_flags()),
        )?)
    }

    /// The layout checked when the tensor was made: its shape and strides are ours.
    fn borrow_parts(&self) -> PyResult<TensorParts<'_>> {
        let shared = &*self.shared;
        Ok(TensorParts::from_layout(
            shared.data.0.cast(),
            shared.device.dl_device(),
            &shared.layout,
        )
        .with_flags(self.share_flags()))
    }

    fn import(_py: Python<'_>, tensor: ManagedTensor) -> PyResult<Self> {
        Tensor::import(tensor)
    }

    /// The library's stream on a CUDA device, where it queues its work; none elsewhere.
    #[cfg(feature = "cuda")]
    fn current_work_stream(_py: Python<'_>, device: DlDevice) -> PyResult<*mut core::ffi::c_void> {
        match Device::from_dlpack_device(device) {
            Ok(Device::Cuda(ordinal)) => Ok(crate::cuda::stream(ordinal)?.cu_stream().cast()),
            _ => Ok(core::ptr::null_mut()),
        }
    }
}

/// The element types `sum` adds: an enum of its own, so that the kernel over floats is proven
/// to take each one, and a tensor of another dtype is refused before `sum`'s body runs.
#[derive(Clone, Copy, Debug, DlpackDataType)]
pub enum Real {
    #[dlpack("float32")]
    F32,
    #[dlpack("float64")]
    F64,
}

/// The kernel of `sum`: written once, over every element type that widens to `f64`, in any
/// strides.
struct Sum;

impl<T: Element + Into<f64>> Kernel<Iter<'_, T>> for Sum {
    type Output = f64;

    fn run(self, x: Iter<'_, T>) -> f64 {
        x.map(Into::into).sum()
    }
}

/// `sum(x)`: the sum of the elements of any float32 or float64 tensor of any library, in any
/// strides, as a float. `x` is a typed argument, checked before the body runs (a tensor of
/// another dtype is a `TypeError` that names `sum` and `x`), borrowed through the type's
/// exchange table without an allocation when it has one, through `__dlpack__` otherwise; the
/// kernel is dispatched on its dtype.
#[tensor_args]
#[pyfunction]
pub fn sum(x: TensorArg<'_, Real>) -> PyResult<f64> {
    Ok(x.dispatch_iter(Sum)?)
}

/// `nbytes(x)`: the bytes the elements of any tensor of any library, of any dtype and on any
/// device, take (packed sub-byte elements counted as stored), read from the typed argument's
/// metadata: the cheapest kernel there is, so that its time is the argument's own.
#[tensor_args]
#[pyfunction]
pub fn nbytes(x: TensorArg<'_, DataType, ANY_NDIM, AnyDevice>) -> PyResult<usize> {
    let view = x.view();
    view.dtype()
        .packed_size(view.len())
        .ok_or_else(|| PyValueError::new_err("the tensor's size overflows"))
}

/// `nbytes_of_view(x)`: `nbytes` written with `with_tensor_view` and no typed argument, for
/// the benchmark that compares the two.
#[pyfunction]
pub fn nbytes_of_view(x: &Bound<'_, PyAny>) -> PyResult<usize> {
    dlpack_core::python::with_tensor_view(x, |view| {
        view.dtype()
            .packed_size(view.len())
            .ok_or_else(|| PyValueError::new_err("the tensor's size overflows"))
    })?
}

/// A table with another major version than 1, for the consumers' tests.
#[repr(transparent)]
struct Newer(dlpack_core::ffi::DLPackExchangeAPI);

// SAFETY: immutable, and its one pointer leads to `EXCHANGE`, a `static` too.
unsafe impl Sync for Newer {}

const fn newer(prev_api: *mut dlpack_core::ffi::DLPackExchangeAPIHeader) -> Newer {
    Newer(dlpack_core::ffi::DLPackExchangeAPI {
        header: dlpack_core::ffi::DLPackExchangeAPIHeader {
            version: dlpack_core::ffi::DLPackVersion { major: 2, minor: 0 },
            prev_api,
        },
        // A consumer reads nothing past the header of a table of a major version it does not
        // speak.
        managed_tensor_allocator: None,
        managed_tensor_from_py_object_no_sync: None,
        managed_tensor_to_py_object_no_sync: None,
        dltensor_from_py_object_no_sync: None,
        current_work_stream: None,
    })
}

static NEWER_ALONE: Newer = newer(core::ptr::null_mut());
static NEWER_OVER_OURS: Newer = newer((&raw const EXCHANGE).cast_mut().cast());

/// `_exchange_table_v2(chained)`: a `dlpack_exchange_api` capsule of a table of major version
/// 2, alone or with `Tensor`'s table as its `prev_api`, for the tests of consumers.
#[pyfunction]
#[pyo3(name = "_exchange_table_v2")]
pub fn exchange_table_v2(
    py: Python<'_>,
    chained: bool,
) -> PyResult<Bound<'_, pyo3::types::PyCapsule>> {
    let table: &'static Newer = if chained {
        &NEWER_OVER_OURS
    } else {
        &NEWER_ALONE
    };
    let pointer = core::ptr::NonNull::from(table).cast();
    // SAFETY: a `static` table, alive for the whole process.
    unsafe {
        pyo3::types::PyCapsule::new_with_pointer(
            py,
            pointer,
            dlpack_core::python::exchange::CAPSULE_NAME,
        )
    }
}
