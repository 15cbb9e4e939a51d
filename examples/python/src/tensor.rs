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

use dlpack_core::python::{DataAccess, DlpackRequest, ExportPlan, TensorClass};
use dlpack_core::tensor::{CheckedLayout, Flags, TensorError, TensorParts};
use dlpack_core::{Device as DlDevice, DlpackDataType, DlpackDevice, ManagedTensor};
use pyo3::exceptions::{PyBufferError, PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyCapsule, PyTuple};

use crate::device::{Device, PyDevice};
use crate::dtype::DType;
use crate::live::{BUFFERS, EXPORTS, IMPORTS, Live, TENSORS};
use crate::memory::{Buffer, Memory, Ptr};
use crate::scalar;
use layout::{Exported, Shared, nest, offsets};

mod exchange;
mod layout;
#[cfg(feature = "cuda")]
mod on_cuda;
pub use exchange::{Real, exchange_table_v2, nbytes, nbytes_of_view, sum};
#[cfg(feature = "cuda")]
pub use on_cuda::import_on_stream;

/// `dlpack_demo.Tensor`: a strided n-dimensional array.
#[pyclass(module = "dlpack_demo", frozen)]
pub struct Tensor {
    /// The memory and its description, shared with the tensor's exports: an export (one on
    /// every `__dlpack__` call) takes a reference, not a copy of the shape and strides.
    shared: Arc<Shared>,
    _live: Live,
}

impl Tensor {
    /// A zeroed, compact tensor in host memory.
    pub fn zeros(shape: &[usize], dtype: DType) -> PyResult<Self> {
        Self::zeros_on(shape, dtype, Device::Cpu)
    }

    /// A zeroed, compact tensor on `device`: host memory, or (feature `cuda`) a CUDA device,
    /// zeroed on the library's stream there.
    pub fn zeros_on(shape: &[usize], dtype: DType, device: Device) -> PyResult<Self> {
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
        // Sub-byte elements (`float4_e2m1fn`) are packed, two to a byte. No allocation can
        // span more than `isize::MAX` bytes: beyond it the shape is wrong, not the memory short.
        let bytes = dtype
            .data_type()
            .packed_size(count)
            .filter(|&bytes| isize::try_from(bytes).is_ok())
            .ok_or_else(|| PyValueError::new_err(format!("shape {shape:?} is too large")))?;
        let memory = match device {
            Device::Cpu => Memory::Owned(Buffer::zeroed(bytes, BUFFERS.track())?),
            #[cfg(feature = "cuda")]
            Device::Cuda(ordinal) => Memory::Cuda(crate::cuda::DeviceMemory::zeroed(
                ordinal,
                bytes,
                BUFFERS.track(),
            )?),
            other => {
                let (where_, hint) = if cfg!(feature = "cuda") {
                    ("the cpu and on cuda:n devices", "")
                } else {
                    (
                        "the cpu",
                        " (build it with the `cuda` feature for CUDA memory)",
                    )
                };
                return Err(PyValueError::new_err(format!(
                    "dlpack_demo allocates memory on {where_} only, not on {}{hint}",
                    other.dl_device()
                )));
            }
        };
        Self::new(memory, 0, dims, None, dtype, device, false)
            .map_err(|err| PyValueError::new_err(err.to_string()))
    }

    /// `[0, 1, …, n - 1]` (for `bool`: `[False, True, True, …]`), each converted as `fill`
    /// converts it. Not for `float4_e2m1fnx2`, whose elements are pairs.
    pub fn arange(py: Python<'_>, n: usize, dtype: DType) -> PyResult<Self> {
        if dtype == DType::Float4E2M1FNx2 {
            return Err(PyValueError::new_err(
                "arange() makes numbers, and a float4_e2m1fnx2 element is a pair of them",
            ));
        }
        let tensor = Self::zeros(&[n], dtype)?;
        for (i, element) in tensor.elements().enumerate() {
            let value = if dtype == DType::Bool {
                PyBool::new(py, i != 0).to_owned().into_any()
            } else {
                i.into_pyobject(py)?.into_any()
            };
            let bytes = scalar::encode(dtype, &value)?;
            // SAFETY: element `i` of a fresh compact buffer of `dtype`, `bytes.len()` bytes.
            unsafe { scalar::store(dtype, element, &bytes) };
        }
        Ok(tensor)
    }

    /// A tensor over `memory` (our own: a host or CUDA buffer) with this layout, checked here.
    fn new(
        memory: Memory,
        byte_offset: u64,
        shape: Vec<i64>,
        strides: Option<Vec<i64>>,
        dtype: DType,
        device: Device,
        read_only: bool,
    ) -> Result<Self, TensorError> {
        let data = match &memory {
            Memory::Owned(buffer) => buffer.ptr(),
            // A device address: never dereferenced on the host, so it has no provenance.
            #[cfg(feature = "cuda")]
            Memory::Cuda(memory) => {
                Ptr(core::ptr::without_provenance_mut(memory.address() as usize))
            }
            Memory::Foreign { tensor, .. } => Ptr(tensor
                .view()
                .map(|view| view.data_ptr().cast_mut().cast())
                .unwrap_or(core::ptr::null_mut())),
        };
        let parts = TensorParts::new(data.0.cast(), device.dl_device(), dtype.data_type(), &shape)
            .with_byte_offset(byte_offset);
        let layout = CheckedLayout::new(&match &strides {
            Some(strides) => parts.with_strides(strides),
            None => parts,
        })?;
        Ok(Self::with_layout(
            memory, data, layout, dtype, device, read_only,
        ))
    }

    /// A tensor over `memory`, whose elements start at `data` and lie as `layout` says.
    fn with_layout(
        memory: Memory,
        data: Ptr,
        layout: CheckedLayout,
        dtype: DType,
        device: Device,
        read_only: bool,
    ) -> Self {
        Self {
            shared: Arc::new(Shared {
                _memory: memory,
                data,
                layout,
                dtype,
                device,
                read_only,
            }),
            _live: TENSORS.track(),
        }
    }

    /// A tensor over an imported one, without a copy. Its layout was validated by the
    /// import's view, and is kept as it is ([`CheckedLayout`] from the view), not checked
    /// again.
    pub fn import(tensor: ManagedTensor) -> PyResult<Self> {
        let view = tensor.view().map_err(buffer_error)?;
        let dtype = DType::from_dlpack_data_type(view.dtype()).map_err(buffer_error)?;
        let device = Device::from_dlpack_device(view.device()).map_err(buffer_error)?;
        let read_only = view.flags().contains(Flags::READ_ONLY);
        if view.dtype().size_in_bits() < 8 && !view.is_packed() {
            return Err(PyBufferError::new_err(format!(
                "dlpack_demo stores {} packed, two to a byte, and this tensor is padded, one to \
                 a byte (IS_SUBBYTE_TYPE_PADDED)",
                view.dtype()
            )));
        }
        // DLPack lets a producer pass null data for an empty tensor only; the element paths
        // below address memory from `data` themselves, without dlpack-core's typed accessors
        // and their checks, so a null pointer with elements is refused here.
        if !view.is_empty() && view.data_ptr().is_null() {
            let elements = view.len();
            return Err(buffer_error(TensorError::NullData { elements }.into()));
        }
        let data = Ptr(view.data_ptr().cast_mut().cast());
        let layout = CheckedLayout::from(&*view);
        drop(view);
        let memory = Memory::Foreign {
            tensor,
            _live: IMPORTS.track(),
            #[cfg(feature = "cuda")]
            wait: match device {
                Device::Cuda(ordinal) => crate::cuda::stream(ordinal).ok(),
                _ => None,
            },
        };
        Ok(Self::with_layout(
            memory, data, layout, dtype, device, read_only,
        ))
    }

    /// The element type.
    pub fn dtype_value(&self) -> DType {
        self.shared.dtype
    }

    /// The extents as `usize` (each validated non-negative when the tensor was made).
    fn extents(&self) -> impl Iterator<Item = usize> + '_ {
        self.shared
            .layout
            .shape()
            .iter()
            .map(|&extent| extent as usize)
    }

    /// The number of elements.
    fn count(&self) -> usize {
        self.extents().product()
    }

    /// Whether the host can read and write the elements.
    fn on_host(&self) -> bool {
        DlDevice::CPU.can_access(self.shared.device.dl_device())
    }

    /// Whether the elements are of a sub-byte type, packed two to a byte.
    fn packed(&self) -> bool {
        self.shared.dtype.data_type().size_in_bits() < 8
    }

    /// The bytes the elements take: all of them compact, packed or not.
    fn byte_len(&self) -> usize {
        let count = self.count();
        // The tensor's extent was checked when it was made, so this does not overflow.
        (self.shared.dtype.data_type().packed_size(count)).unwrap_or(count)
    }

    /// Where each element is, in row-major order. Only for host tensors.
    fn elements(&self) -> impl Iterator<Item = scalar::Element> + '_ {
        let itemsize = self.shared.dtype.data_type().itemsize() as isize;
        let packed = self.packed();
        let first = self
            .shared
            .data
            .0
            .wrapping_add(self.shared.layout.byte_offset() as usize);
        // Packed elements have compact strides (checked when the tensor was made): element
        // `i` is in byte `i / 2`, the first of each pair in the low bits.
        offsets(self.shared.layout.shape(), self.shared.layout.strides()).map(move |offset| {
            if packed {
                scalar::Element {
                    ptr: first.wrapping_offset(offset as isize / 2),
                    shift: 4 * (offset % 2) as u32,
                }
            } else {
                scalar::Element::at(first.wrapping_offset(offset as isize * itemsize))
            }
        })
    }

    fn require_host(&self, what: &str) -> PyResult<()> {
        if self.on_host() {
            // Pinned and managed memory: once the GPU work on it is done.
            #[cfg(feature = "cuda")]
            Python::attach(|py| self.before_host_access(py))?;
            Ok(())
        } else {
            Err(PyBufferError::new_err(format!(
                "{what} needs the elements, and the host cannot read a tensor on {}",
                self.shared.device.dl_device()
            )))
        }
    }

    /// The flags of an export that shares the memory.
    fn share_flags(&self) -> Flags {
        if self.shared.read_only {
            Flags::READ_ONLY
        } else {
            Flags::EMPTY
        }
    }

    /// An export of this tensor's own memory, flagged `flags`.
    fn exported(&self, flags: Flags) -> Exported {
        Exported {
            tensor: Arc::clone(&self.shared),
            flags,
            _live: EXPORTS.track(),
        }
    }

    /// A compact copy in a new host buffer. (Kept out of line: `__dlpack__` shares far more
    /// often than it copies.)
    #[cold]
    #[inline(never)]
    fn host_copy(&self) -> PyResult<Tensor> {
        self.require_host("a copy")?;
        let shape: Vec<usize> = self.extents().collect();
        let copy = Tensor::zeros(&shape, self.shared.dtype)?;
        if self.packed() {
            let (from, to) = (self.elements().next(), copy.elements().next());
            if let (Some(from), Some(to)) = (from, to) {
                // SAFETY: packed tensors are compact: both hold `byte_len()` bytes of host
                // memory from their first element (the source validated on import or laid out
                // here, the destination a fresh buffer), in different buffers.
                unsafe { core::ptr::copy_nonoverlapping(from.ptr, to.ptr, self.byte_len()) };
            }
            return Ok(copy);
        }
        let itemsize = self.shared.dtype.data_type().itemsize();
        for (from, to) in self.elements().zip(copy.elements()) {
            // SAFETY: both point to `itemsize` bytes of host memory inside their tensors'
            // extents (the source validated on import or laid out here, the destination a
            // fresh compact buffer); the buffers differ, so the ranges do not overlap.
            unsafe { core::ptr::copy_nonoverlapping(from.ptr, to.ptr, itemsize) };
        }
        Ok(copy)
    }
}

/// The DLPack producer: `#[pymethods(tensor)]` writes `__dlpack__(*, stream=None,
/// max_version=None, dl_device=None, copy=None)`, as the array API standard defines it, and
/// `__dlpack_device__()` around this: a versioned capsule for `max_version >= (1, 0)`, a legacy
/// one otherwise; a copy when asked for or needed (only to the CPU); `BufferError` for what
/// cannot be done.
impl TensorClass for Tensor {
    fn dlpack_device(&self) -> PyResult<DlDevice> {
        Ok(self.shared.device.dl_device())
    }

    fn dlpack<'py>(
        &self,
        py: Python<'py>,
        request: &DlpackRequest,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        #[cfg(feature = "cuda")]
        if let Device::Cuda(ordinal) = self.shared.device {
            return self.cuda_dlpack(py, request, ordinal);
        }
        let here = self.shared.device.dl_device();
        let access = if self.shared.read_only {
            DataAccess::ReadOnly
        } else {
            DataAccess::Writable
        };
        let plan = request.plan(here, access, |target| {
            target == DlDevice::CPU && self.on_host()
        })?;
        let (source, flags) = match plan {
            ExportPlan::Share => (None, self.share_flags()),
            ExportPlan::Copy(_) => (Some(self.host_copy()?), Flags::IS_COPIED),
        };
        let source = source.as_ref().unwrap_or(self);
        let exported = source.exported(flags);
        request.capsule(py, exported)
    }
}

#[dlpack_core::python::tensor_args]
#[dlpack_core::python::pymethods(tensor)]
impl Tensor {
    /// `t.same_shape(other)`: whether any tensor on the CPU has this tensor's shape; a typed
    /// argument of a method, named `Tensor.same_shape` in its errors (`#[tensor_args]` above
    /// the block).
    fn same_shape(&self, other: dlpack_core::python::TensorArg<'_>) -> bool {
        other.view().shape() == self.shared.layout.shape()
    }

    /// DLPack's C exchange API: a capsule of the type's table (see `tensor/exchange.rs`).
    #[classattr]
    fn __dlpack_c_exchange_api__(py: Python<'_>) -> PyResult<Bound<'_, PyCapsule>> {
        exchange::EXCHANGE.capsule(py)
    }

    /// The extents.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.shared.layout.shape().iter())
    }

    /// The strides, in elements.
    #[getter]
    fn strides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.shared.layout.strides().iter())
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.shared.layout.shape().len()
    }

    #[getter]
    fn size(&self) -> usize {
        self.count()
    }

    #[getter]
    fn dtype(&self) -> DType {
        self.shared.dtype
    }

    #[getter]
    fn device(&self) -> PyDevice {
        PyDevice(self.shared.device)
    }

    /// Whether writing is refused (the producer flagged the data `READ_ONLY`).
    #[getter]
    fn readonly(&self) -> bool {
        self.shared.read_only
    }

    /// The elements as nested lists of Python scalars.
    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        #[cfg(feature = "cuda")]
        if let Device::Cuda(ordinal) = self.shared.device {
            return self.cuda_to_host(py, ordinal)?.tolist(py);
        }
        self.require_host("tolist()")?;
        // Zero strides let a valid tensor have more elements than its memory, and a zero
        // extent after large ones makes an empty tensor whose nested list is vast: either may
        // not fit, which is a MemoryError, not a panic or a process killed for its memory. A
        // slot reserved for each Python object to be made, element or list, stands for them.
        let count = self.count();
        let shape = self.shared.layout.shape();
        let objects = layout::list_count(shape).and_then(|lists| lists.checked_add(count));
        let mut flat = Vec::new();
        if objects.is_none_or(|objects| flat.try_reserve_exact(objects).is_err()) {
            let lists = layout::list_count(shape).map_or("too many".to_owned(), |n| n.to_string());
            return Err(PyMemoryError::new_err(format!(
                "tolist() cannot make a list of {count} elements in {lists} nested lists"
            )));
        }
        for element in self.elements() {
            // SAFETY: a host element of `self.shared.dtype` inside the tensor's extent (see
            // `elements`), alive while `self` holds the memory.
            flat.push(unsafe { scalar::read(py, self.shared.dtype, element)? });
        }
        nest(py, shape, &mut flat.into_iter())
    }

    /// Sets every element to `value`: a bool, an int (`__index__`), a float (`__float__`) or a
    /// complex number (`__complex__`; NumPy's scalars included) the dtype can hold; see
    /// `scalar.rs` for the rules.
    fn fill(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        if self.shared.read_only {
            return Err(PyValueError::new_err("the tensor is read-only"));
        }
        let bytes = scalar::encode(self.shared.dtype, value)?;
        #[cfg(feature = "cuda")]
        if let Device::Cuda(ordinal) = self.shared.device {
            return self.cuda_fill(ordinal, &bytes);
        }
        self.require_host("fill()")?;
        for element in self.elements() {
            // SAFETY: a writable host element of `itemsize == bytes.len()` bytes (for a packed
            // type, the byte holding it) inside the tensor's extent (see `elements`); the
            // producer did not flag it READ_ONLY.
            unsafe { scalar::store(self.shared.dtype, element, &bytes) };
        }
        Ok(())
    }

    /// `clone()`: a compact copy in new memory on the same device. On a CUDA device the copy
    /// is queued on the library's stream and `clone()` returns at once.
    #[pyo3(name = "clone")]
    fn copy_of(&self) -> PyResult<Tensor> {
        #[cfg(feature = "cuda")]
        if let Device::Cuda(ordinal) = self.shared.device {
            return self.cuda_clone(ordinal);
        }
        self.host_copy()
    }

    /// The address of the first element (a device address for a tensor on a GPU), as DLPack
    /// consumers see it (`data + byte_offset`): equal addresses mean shared memory.
    #[getter]
    fn data_ptr(&self) -> usize {
        self.shared
            .data
            .0
            .addr()
            .wrapping_add(self.shared.layout.byte_offset() as usize)
    }

    fn __repr__(&self) -> String {
        let shape: Vec<String> = self
            .shared
            .layout
            .shape()
            .iter()
            .map(i64::to_string)
            .collect();
        let shape = match shape.as_slice() {
            [one] => format!("({one},)"),
            _ => format!("({})", shape.join(", ")),
        };
        format!(
            "Tensor(shape={shape}, dtype={}, device={})",
            self.shared.dtype.data_type(),
            self.shared.device.dl_device()
        )
    }
}

/// A `BufferError` with the message of a `dlpack_core` error, in Python's terms.
fn buffer_error(err: dlpack_core::Error) -> PyErr {
    err.into_buffer_error()
}
