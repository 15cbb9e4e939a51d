//! Import: typed views of `kDLCUDA` and `kDLCUDAManaged` tensors, checked without touching
//! device memory.

use core::marker::PhantomData;
use core::ops::Deref;

use cudarc::driver::sys::CUdeviceptr;

use crate::cuda::error::CudaError;
use crate::element::Element;
use crate::error::Error;
use crate::ffi::DLDeviceType;
use crate::tensor::{Flags, TensorError, TensorView};

/// A validated view of a CUDA tensor (`kDLCUDA` or `kDLCUDAManaged`) of elements `T`: a
/// [`TensorView`] (which it dereferences to, for the shape, strides, device and flags) that is
/// known to hold `T`s at an address kernels can use. The host never dereferences the pointer.
///
/// [`CudaTensorView::new`] checks, beyond the metadata the [`TensorView`] validated already,
/// the device, the data type against `T`, a null data pointer, an address range that wraps,
/// and the first element's alignment for `T` (arithmetic on the address only; no driver is
/// needed). [`device_ptr`](Self::device_ptr) is for kernels and driver calls, and
/// [`to_host_vec`](Self::to_host_vec) copies the elements to the host.
///
/// `kDLCUDAHost` (pinned) tensors are host memory: read them through the [`TensorView`]
/// itself, without a copy.
///
/// ```
/// use dlpack_core::ffi::{DLPackVersion, DLTensor};
/// use dlpack_core::tensor::{Flags, TensorView};
/// use dlpack_core::{DataType, Device, cuda::CudaTensorView};
///
/// // A 2 x 3 float32 tensor on cuda:1, as a C producer hands it over (the address is only
/// // checked, never read, so this runs without a GPU).
/// let (mut shape, mut strides) = ([2_i64, 3], [3_i64, 1]);
/// let raw = DLTensor {
///     data: core::ptr::without_provenance_mut(0x7f3a_0000_0000), // a device address
///     device: Device::cuda(1),
///     ndim: 2,
///     dtype: DataType::F32,
///     shape: shape.as_mut_ptr(),
///     strides: strides.as_mut_ptr(),
///     byte_offset: 256,
/// };
/// // SAFETY: `shape` and `strides` outlive the view and are not written; device memory
/// // needs no promise from the host.
/// let view = unsafe { TensorView::from_dl_tensor(&raw, Flags::EMPTY, DLPackVersion::CURRENT)? };
/// let cuda = CudaTensorView::<f32>::new(view)?;
/// assert_eq!((cuda.device(), cuda.shape()), (Device::cuda(1), &[2, 3][..]));
/// assert_eq!(cuda.device_ptr(), 0x7f3a_0000_0100);
/// assert!(cuda.as_slice::<f32>().is_err()); // the CPU cannot read it
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CudaTensorView<'a, T> {
    view: TensorView<'a>,
    _element: PhantomData<fn() -> T>,
}

impl<'a, T: Element> CudaTensorView<'a, T> {
    /// Checks that `view` is a CUDA tensor of `T` whose elements can be addressed.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, cuda::CudaTensorView};
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

    /// The device address of the first element (`data + byte_offset`), for kernels and
    /// driver calls; 0 for an empty tensor with null data. Element `index` lies at this address
    /// plus `Σ index[k] * strides[k] * size_of::<T>()`.
    ///
    /// ```
    /// # use dlpack_core::ffi::{DLPackVersion, DLTensor};
    /// # use dlpack_core::tensor::{Flags, TensorView};
    /// # use dlpack_core::{DataType, Device, cuda::CudaTensorView};
    /// # let (mut shape, mut strides) = ([4_i64], [1_i64]);
    /// # let raw = DLTensor { data: core::ptr::without_provenance_mut(0x1000), device: Device::cuda(0), ndim: 1,
    /// #     dtype: DataType::I32, shape: shape.as_mut_ptr(), strides: strides.as_mut_ptr(), byte_offset: 8 };
    /// # // SAFETY: metadata outlives the view; device memory is never read.
    /// # let view = unsafe { TensorView::from_dl_tensor(&raw, Flags::EMPTY, DLPackVersion::CURRENT)? };
    /// let cuda = CudaTensorView::<i32>::new(view)?; // data 0x1000, byte_offset 8
    /// assert_eq!(cuda.device_ptr(), 0x1008);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn device_ptr(&self) -> CUdeviceptr {
        let address = self.view.data_ptr().addr();
        if address == 0 {
            return 0;
        }
        address.wrapping_add(self.view.byte_offset() as usize) as CUdeviceptr
    }

    /// The device address of the first element, for kernels that write it: refused for a
    /// tensor flagged `READ_ONLY`.
    ///
    /// ```
    /// # use dlpack_core::ffi::{DLPackVersion, DLTensor};
    /// # use dlpack_core::tensor::{Flags, TensorView};
    /// # use dlpack_core::{DataType, Device, cuda::CudaTensorView};
    /// # let (mut shape, mut strides) = ([4_i64], [1_i64]);
    /// # let raw = DLTensor { data: core::ptr::without_provenance_mut(0x1000), device: Device::cuda(0), ndim: 1,
    /// #     dtype: DataType::I32, shape: shape.as_mut_ptr(), strides: strides.as_mut_ptr(), byte_offset: 0 };
    /// # // SAFETY: metadata outlives the views; device memory is never read.
    /// # let writable = unsafe { TensorView::from_dl_tensor(&raw, Flags::EMPTY, DLPackVersion::CURRENT)? };
    /// # let read_only = unsafe { TensorView::from_dl_tensor(&raw, Flags::READ_ONLY, DLPackVersion::CURRENT)? };
    /// assert_eq!(CudaTensorView::<i32>::new(writable)?.device_ptr_mut()?, 0x1000);
    /// assert!(CudaTensorView::<i32>::new(read_only)?.device_ptr_mut().is_err());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn device_ptr_mut(&mut self) -> Result<CUdeviceptr, Error> {
        if self.view.flags().contains(Flags::READ_ONLY) {
            return Err(TensorError::ReadOnly.into());
        }
        Ok(self.device_ptr())
    }
}

/// The validated [`TensorView`]: shape, strides, device, data type and flags.
///
/// ```
/// # use dlpack_core::ffi::{DLPackVersion, DLTensor};
/// # use dlpack_core::tensor::{Flags, TensorView};
/// # use dlpack_core::{DataType, Device, cuda::CudaTensorView};
/// # let (mut shape, mut strides) = ([3_i64, 2], [1_i64, 3]);
/// # let raw = DLTensor { data: core::ptr::without_provenance_mut(0x1000), device: Device::CUDA_MANAGED, ndim: 2,
/// #     dtype: DataType::U8, shape: shape.as_mut_ptr(), strides: strides.as_mut_ptr(), byte_offset: 0 };
/// # // SAFETY: metadata outlives the view; device memory is never read.
/// # let view = unsafe { TensorView::from_dl_tensor(&raw, Flags::EMPTY, DLPackVersion::CURRENT)? };
/// let cuda = CudaTensorView::<u8>::new(view)?; // a transposed 3 x 2 in managed memory
/// assert_eq!((cuda.shape(), cuda.strides()), (&[3, 2][..], &[1, 3][..]));
/// assert_eq!((cuda.len(), cuda.is_compact()), (6, false));
/// assert_eq!(cuda.device(), Device::CUDA_MANAGED);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<'a, T> Deref for CudaTensorView<'a, T> {
    type Target = TensorView<'a>;

    fn deref(&self) -> &TensorView<'a> {
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
