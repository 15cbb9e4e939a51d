//! `Tensor`: an n-dimensional array that is a full DLPack producer (`__dlpack__`,
//! `__dlpack_device__`) and the target of `from_dlpack`.
//!
//! # Memory
//!
//! A tensor's elements live in a [`Memory`]: a zeroed heap block of our own, or a foreign
//! DLPack tensor kept alive until the last `Tensor` and export that use it are gone. The memory
//! is *shared*, as in every Python array library: `numpy.from_dlpack(tensor)` writes into it,
//! and the tensor sees the writes. So Rust never forms a reference to it: every read and write
//! here goes through raw pointers, while attached to the interpreter (as the Python code that
//! shares the memory is).

use std::sync::Arc;

use dlpack_core::python::{DlpackRequest, Export};
use dlpack_core::tensor::{Flags, TensorOwner, TensorParts};
use dlpack_core::{DataType, Device as DlDevice, DlpackDataType, DlpackDevice, ManagedTensor};
use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyCapsule, PyList, PyTuple};

use crate::device::{Device, PyDevice};
use crate::dtype::DType;
use crate::live::{BUFFERS, EXPORTS, IMPORTS, Live, TENSORS};
use crate::memory::{Buffer, Ptr};
use crate::scalar;

/// Where a tensor's elements live.
pub enum Memory {
    /// A block allocated here.
    Owned(Buffer),
    /// A tensor imported from another library, released to it when dropped.
    Foreign {
        /// The imported tensor (its deleter runs when this drops).
        tensor: ManagedTensor,
        /// Counts it in `live()["imports"]`.
        _live: Live,
    },
}

/// `dlpack_demo.Tensor`: a strided n-dimensional array.
#[pyclass(module = "dlpack_demo", frozen)]
pub struct Tensor {
    memory: Arc<Memory>,
    /// The data pointer as DLPack has it: the first element is `byte_offset` bytes past it.
    data: Ptr,
    byte_offset: u64,
    shape: Vec<i64>,
    /// In elements.
    strides: Vec<i64>,
    dtype: DType,
    device: Device,
    read_only: bool,
    _live: Live,
}

impl Tensor {
    /// A zeroed, compact tensor in host memory.
    pub fn zeros(shape: &[usize], dtype: DType) -> PyResult<Self> {
        let mut count = 1_usize;
        let mut dims = Vec::with_capacity(shape.len());
        for &extent in shape {
            count = count
                .checked_mul(extent)
                .ok_or_else(|| PyValueError::new_err(format!("shape {shape:?} is too large")))?;
            dims.push(
                i64::try_from(extent)
                    .map_err(|_| PyValueError::new_err(format!("extent {extent} is too large")))?,
            );
        }
        let bytes = count
            .checked_mul(dtype.data_type().itemsize())
            .ok_or_else(|| PyValueError::new_err(format!("shape {shape:?} is too large")))?;
        let buffer = Buffer::zeroed(bytes, BUFFERS.track())?;
        Ok(Self::new(
            Arc::new(Memory::Owned(buffer)),
            0,
            dims,
            None,
            dtype,
            Device::Cpu,
            false,
        ))
    }

    /// `[0, 1, …, n - 1]` (for `bool`: `[False, True, True, …]`).
    pub fn arange(py: Python<'_>, n: usize, dtype: DType) -> PyResult<Self> {
        let tensor = Self::zeros(&[n], dtype)?;
        for (i, element) in tensor.elements().enumerate() {
            let value = if dtype == DType::Bool {
                PyBool::new(py, i != 0).to_owned().into_any()
            } else {
                i.into_pyobject(py)?.into_any()
            };
            let bytes = scalar::encode(dtype, &value)?;
            // SAFETY: element `i` of a fresh compact buffer of `dtype`, `bytes.len()` bytes.
            unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), element, bytes.len()) };
        }
        Ok(tensor)
    }

    fn new(
        memory: Arc<Memory>,
        byte_offset: u64,
        shape: Vec<i64>,
        strides: Option<Vec<i64>>,
        dtype: DType,
        device: Device,
        read_only: bool,
    ) -> Self {
        let data = match &*memory {
            Memory::Owned(buffer) => buffer.ptr(),
            Memory::Foreign { tensor, .. } => Ptr(tensor
                .view()
                .map(|view| view.data_ptr().cast_mut().cast())
                .unwrap_or(core::ptr::null_mut())),
        };
        let strides = strides.unwrap_or_else(|| row_major(&shape));
        Self {
            memory,
            data,
            byte_offset,
            shape,
            strides,
            dtype,
            device,
            read_only,
            _live: TENSORS.track(),
        }
    }

    /// A tensor over an imported one, without a copy.
    pub fn import(tensor: ManagedTensor) -> PyResult<Self> {
        let view = tensor.view().map_err(buffer_error)?;
        let dtype = DType::from_dlpack_data_type(view.dtype()).map_err(buffer_error)?;
        let device = Device::from_dlpack_device(view.device()).map_err(buffer_error)?;
        let (shape, strides) = (view.shape().to_vec(), view.strides().to_vec());
        let byte_offset = view.byte_offset();
        let read_only = view.flags().contains(Flags::READ_ONLY);
        if view.is_packed() {
            return Err(PyBufferError::new_err(format!(
                "dlpack_demo has no packed {} tensors",
                view.dtype()
            )));
        }
        drop(view);
        let memory = Arc::new(Memory::Foreign {
            tensor,
            _live: IMPORTS.track(),
        });
        Ok(Self::new(
            memory,
            byte_offset,
            shape,
            Some(strides),
            dtype,
            device,
            read_only,
        ))
    }

    /// The element type.
    pub fn dtype_value(&self) -> DType {
        self.dtype
    }

    /// The number of elements.
    fn count(&self) -> usize {
        self.shape.iter().map(|&extent| extent as usize).product()
    }

    /// Whether the host can read and write the elements.
    fn on_host(&self) -> bool {
        DlDevice::CPU.can_access(self.device.dl_device())
    }

    /// The address of each element, in row-major order. Only for host tensors.
    fn elements(&self) -> impl Iterator<Item = *mut u8> + '_ {
        let itemsize = self.dtype.data_type().itemsize() as isize;
        let first = self.data.0.wrapping_add(self.byte_offset as usize);
        offsets(&self.shape, &self.strides)
            .map(move |offset| first.wrapping_offset(offset as isize * itemsize))
    }

    fn require_host(&self, what: &str) -> PyResult<()> {
        if self.on_host() {
            Ok(())
        } else {
            Err(PyBufferError::new_err(format!(
                "{what} needs the elements, and the host cannot read a tensor on {}",
                self.device.dl_device()
            )))
        }
    }

    /// A compact copy in a new host buffer.
    fn host_copy(&self) -> PyResult<Tensor> {
        self.require_host("a copy")?;
        let shape: Vec<usize> = self.shape.iter().map(|&extent| extent as usize).collect();
        let copy = Tensor::zeros(&shape, self.dtype)?;
        let itemsize = self.dtype.data_type().itemsize();
        for (from, to) in self.elements().zip(copy.elements()) {
            // SAFETY: both point to `itemsize` bytes of host memory inside their tensors'
            // extents (the source validated on import or laid out here, the destination a
            // fresh compact buffer); the buffers differ, so the ranges do not overlap.
            unsafe { core::ptr::copy_nonoverlapping(from, to, itemsize) };
        }
        Ok(copy)
    }
}

/// Offsets in elements of every element of a strided array, in row-major order.
fn offsets<'a>(shape: &'a [i64], strides: &'a [i64]) -> impl Iterator<Item = i64> + 'a {
    let count: i64 = shape.iter().product();
    let mut index = vec![0_i64; shape.len()];
    (0..count.max(0)).map(move |_| {
        let offset = index.iter().zip(strides).map(|(i, s)| i * s).sum();
        for axis in (0..shape.len()).rev() {
            index[axis] += 1;
            if index[axis] < shape[axis] {
                break;
            }
            index[axis] = 0;
        }
        offset
    })
}

/// Compact row-major strides for `shape`.
fn row_major(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1_i64; shape.len()];
    for axis in (0..shape.len().saturating_sub(1)).rev() {
        strides[axis] = strides[axis + 1] * shape[axis + 1].max(1);
    }
    strides
}

/// What an export keeps alive: the memory, and the description it was exported with.
struct Exported {
    _memory: Arc<Memory>,
    data: Ptr,
    byte_offset: u64,
    shape: Vec<i64>,
    strides: Vec<i64>,
    dtype: DataType,
    device: DlDevice,
    flags: Flags,
    _live: Live,
}

// SAFETY: the description never changes, and `_memory` (kept alive by the Arc until the
// deleter drops this) holds every element it addresses: our own buffer, or a foreign tensor
// whose layout was validated on import. The memory is shared rather than exclusive — that
// is the contract of Python's DLPack (NumPy shares its arrays the same way): this crate
// reads and writes it only through raw pointers while attached to the interpreter, and
// exports read-only data with READ_ONLY.
unsafe impl TensorOwner for Exported {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(self.data.0.cast(), self.device, self.dtype, &self.shape[..])
            .with_strides(&self.strides[..])
            .with_byte_offset(self.byte_offset)
            .with_flags(self.flags)
    }
}

#[pymethods]
impl Tensor {
    /// `__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)`, as the array
    /// API standard defines it: a versioned capsule for `max_version >= (1, 0)`, a legacy one
    /// otherwise; a copy when asked for or needed (only to the CPU); `BufferError` for what
    /// cannot be done.
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        stream: Option<&Bound<'py, PyAny>>,
        max_version: Option<&Bound<'py, PyAny>>,
        dl_device: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let request = DlpackRequest::new(stream, max_version, dl_device, copy)?;
        let here = self.device.dl_device();
        let plan = request.plan(here, self.read_only, |target| {
            target == DlDevice::CPU && self.on_host()
        })?;
        let (source, flags) = match plan {
            Export::Share => (
                None,
                if self.read_only {
                    Flags::READ_ONLY
                } else {
                    Flags::EMPTY
                },
            ),
            Export::Copy(_) => (Some(self.host_copy()?), Flags::IS_COPIED),
        };
        let source = source.as_ref().unwrap_or(self);
        let exported = Exported {
            _memory: Arc::clone(&source.memory),
            data: source.data,
            byte_offset: source.byte_offset,
            shape: source.shape.clone(),
            strides: source.strides.clone(),
            dtype: source.dtype.data_type(),
            device: source.device.dl_device(),
            flags,
            _live: EXPORTS.track(),
        };
        request.capsule(py, exported)
    }

    /// `(device_type, device_id)`: where the tensor lives.
    fn __dlpack_device__(&self) -> (i32, i32) {
        self.device.dl_device().into()
    }

    /// The extents.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.shape)
    }

    /// The strides, in elements.
    #[getter]
    fn strides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.strides)
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.shape.len()
    }

    #[getter]
    fn size(&self) -> usize {
        self.count()
    }

    #[getter]
    fn dtype(&self) -> DType {
        self.dtype
    }

    #[getter]
    fn device(&self) -> PyDevice {
        PyDevice(self.device)
    }

    /// Whether writing is refused (the producer flagged the data `READ_ONLY`).
    #[getter]
    fn readonly(&self) -> bool {
        self.read_only
    }

    /// The elements as nested lists of Python scalars.
    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.require_host("tolist()")?;
        let mut flat = Vec::with_capacity(self.count());
        for element in self.elements() {
            // SAFETY: a host element of `self.dtype` inside the tensor's extent (see
            // `elements`), alive while `self` holds the memory.
            flat.push(unsafe { scalar::read(py, self.dtype, element)? });
        }
        nest(py, &self.shape, &mut flat.into_iter())
    }

    /// Sets every element to `value` (a bool, int, float or complex the dtype can hold).
    fn fill(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.require_host("fill()")?;
        if self.read_only {
            return Err(PyValueError::new_err("the tensor is read-only"));
        }
        let bytes = scalar::encode(self.dtype, value)?;
        for element in self.elements() {
            // SAFETY: a writable host element of `itemsize == bytes.len()` bytes inside the
            // tensor's extent (see `elements`); the producer did not flag it READ_ONLY.
            unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), element, bytes.len()) };
        }
        Ok(())
    }

    fn __repr__(&self) -> String {
        let shape: Vec<String> = self.shape.iter().map(i64::to_string).collect();
        let shape = match shape.as_slice() {
            [one] => format!("({one},)"),
            _ => format!("({})", shape.join(", ")),
        };
        format!(
            "Tensor(shape={shape}, dtype={}, device={})",
            self.dtype.data_type(),
            self.device.dl_device()
        )
    }
}

/// Nested lists of `shape` from the flat values.
fn nest<'py>(
    py: Python<'py>,
    shape: &[i64],
    flat: &mut impl Iterator<Item = Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let Some((&extent, rest)) = shape.split_first() else {
        return flat
            .next()
            .ok_or_else(|| PyTypeError::new_err("ran out of elements"));
    };
    let items = (0..extent)
        .map(|_| nest(py, rest, flat))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, items)?.into_any())
}

/// A `BufferError` with the message of a `dlpack_core` error.
fn buffer_error(err: dlpack_core::Error) -> PyErr {
    PyBufferError::new_err(err.to_string())
}
