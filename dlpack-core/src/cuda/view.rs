//! Import: typed views of `kDLCUDA` and `kDLCUDAManaged` tensors, checked without touching
//! device memory.

use core::marker::PhantomData;

use cudarc::driver::sys::CUdeviceptr;

use super::error::CudaError;
use crate::device::Device;
use crate::element::Element;
use crate::error::Error;
use crate::ffi::DLDeviceType;
use crate::tensor::{Flags, TensorError, TensorView};

/// A validated view of a CUDA tensor (`kDLCUDA` or `kDLCUDAManaged`) of elements `T`: its
/// shape, strides and device pointer, for kernels and copies. The host never dereferences the
/// pointer.
///
/// Made from a [`TensorView`] (any tensor's view, whose metadata is already validated) by
/// [`CudaTensorView::new`], which also checks the device, the data type against `T`, a null
/// data pointer, and the first element's alignment for `T` (arithmetic on the address only).
/// [`to_vec`](Self::to_vec) copies the elements to the host.
///
/// `kDLCUDAHost` (pinned) tensors are host memory: read them through the [`TensorView`]
/// itself, without a copy.
///
/// ```
/// use dlpack_core::{Device, ManagedTensor, cuda::CudaTensorView};
///
/// // A CPU tensor is not a CUDA tensor:
/// let cpu = ManagedTensor::from_vec(vec![1.0_f32, 2.0], &[2])?;
/// let err = CudaTensorView::<f32>::new(cpu.view()?).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "cpu is not supported here: expected a CUDA tensor (cuda:n or cuda_managed)"
/// );
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CudaTensorView<'a, T> {
    view: TensorView<'a>,
    _element: PhantomData<fn() -> T>,
}

impl<'a, T: Element> CudaTensorView<'a, T> {
    /// Checks that `view` is a CUDA tensor of `T` whose elements can be addressed.
    pub fn new(view: TensorView<'a>) -> Result<Self, Error> {
        match view.device().device_type {
            DLDeviceType::CUDA | DLDeviceType::CUDA_MANAGED => {}
            _ => {
                return Err(CudaError::UnsupportedDevice {
                    device: view.device(),
                    expected: "a CUDA tensor (cuda:n or cuda_managed)",
                }
                .into());
            }
        }
        if view.dtype() != T::DATA_TYPE {
            return Err(TensorError::DataTypeMismatch {
                dtype: view.dtype(),
                type_name: core::any::type_name::<T>(),
                requested: T::DATA_TYPE,
            }
            .into());
        }
        check_address(&view)?;
        if !view.is_empty() {
            // `byte_offset <= isize::MAX` (validated with the view).
            let first = view
                .data_ptr()
                .addr()
                .wrapping_add(view.byte_offset() as usize);
            if first % align_of::<T>() != 0 {
                return Err(TensorError::Misaligned {
                    address: first,
                    align: align_of::<T>(),
                    type_name: core::any::type_name::<T>(),
                }
                .into());
            }
        }
        Ok(Self {
            view,
            _element: PhantomData,
        })
    }

    /// The device: `cuda:n`, or `cuda_managed`.
    pub fn device(&self) -> Device {
        self.view.device()
    }

    /// The extents, one per dimension.
    pub fn shape(&self) -> &[i64] {
        self.view.shape()
    }

    /// The strides in elements, one per dimension.
    pub fn strides(&self) -> &[i64] {
        self.view.strides()
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.view.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.view.is_empty()
    }

    /// Whether the strides are compact row-major.
    pub fn is_contiguous(&self) -> bool {
        self.view.is_contiguous()
    }

    /// Whether the producer flagged the tensor `READ_ONLY`: kernels must not write it.
    pub fn is_read_only(&self) -> bool {
        self.view.flags().contains(Flags::READ_ONLY)
    }

    /// The device address of the first element (`data + byte_offset`), for kernels and
    /// driver calls; 0 for an empty tensor with null data. Elements lie at this address plus
    /// `Σ index[k] * strides[k] * size_of::<T>()`.
    pub fn device_ptr(&self) -> CUdeviceptr {
        let address = self.view.data_ptr().addr();
        if address == 0 {
            return 0;
        }
        address.wrapping_add(self.view.byte_offset() as usize) as CUdeviceptr
    }

    /// The device address of the first element, for kernels that write it: refused for a
    /// `READ_ONLY` tensor.
    pub fn device_ptr_mut(&mut self) -> Result<CUdeviceptr, Error> {
        if self.is_read_only() {
            return Err(TensorError::ReadOnly.into());
        }
        Ok(self.device_ptr())
    }

    /// The underlying view.
    pub fn as_view(&self) -> &TensorView<'a> {
        &self.view
    }
}

/// Refuses a non-empty tensor whose data pointer is null or whose elements' byte range leaves
/// the address space: what can be checked of a device pointer without dereferencing it.
pub(crate) fn check_address(view: &TensorView<'_>) -> Result<(), Error> {
    if view.is_empty() {
        return Ok(());
    }
    let address = view.data_ptr().addr();
    if address == 0 {
        return Err(TensorError::NullData {
            elements: view.len(),
        }
        .into());
    }
    let range = view.byte_range();
    let inside = address.checked_add_signed(range.start).is_some()
        && address.checked_add_signed(range.end).is_some();
    if !inside {
        return Err(TensorError::AddressOverflow {
            address,
            byte_offset: view.byte_offset(),
        }
        .into());
    }
    Ok(())
}
