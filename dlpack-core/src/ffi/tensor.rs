//! The tensor structs of DLPack 1.3 and the flags of the versioned one.

use core::ffi::c_void;
use core::mem::{align_of, offset_of, size_of};

use super::{DLDataType, DLDevice, DLPackVersion};

/// `DLPACK_FLAG_BITMASK_READ_ONLY`: the consumer must not write through the tensor.
///
/// ```
/// use dlpack_core::ffi::{DLPACK_FLAG_BITMASK_IS_COPIED, DLPACK_FLAG_BITMASK_READ_ONLY};
///
/// let flags = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED;
/// assert_eq!(DLPACK_FLAG_BITMASK_READ_ONLY, 1);
/// assert!(flags & DLPACK_FLAG_BITMASK_READ_ONLY != 0); // no mutable view of this one
/// ```
pub const DLPACK_FLAG_BITMASK_READ_ONLY: u64 = 1 << 0;

/// `DLPACK_FLAG_BITMASK_IS_COPIED`: the producer made a copy the consumer owns alone, so the
/// consumer may write to it even if the original was shared.
///
/// ```
/// use dlpack_core::ffi::DLPACK_FLAG_BITMASK_IS_COPIED;
/// assert_eq!(DLPACK_FLAG_BITMASK_IS_COPIED, 2);
/// ```
pub const DLPACK_FLAG_BITMASK_IS_COPIED: u64 = 1 << 1;

/// `DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED`: sub-byte elements are padded to a byte each,
/// rather than packed.
///
/// ```
/// use dlpack_core::{DataType, ffi::DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED};
///
/// let flags = DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
/// let dtype = DataType::FLOAT4_E2M1FN;
/// let bytes_for_8 = if flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED != 0 {
///     8 * dtype.itemsize() // one byte each
/// } else {
///     dtype.packed_size(8).unwrap() // two per byte
/// };
/// assert_eq!(bytes_for_8, 8);
/// assert_eq!(DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED, 4);
/// ```
pub const DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED: u64 = 1 << 2;

/// `DLTensor`: a plain, non-owning tensor descriptor.
///
/// It borrows everything it points to; nothing here frees memory. Reading through its pointers
/// is `unsafe` and the validating views of the tensor module are the safe way to do it.
///
/// ```
/// use dlpack_core::{DataType, Device, ffi::DLTensor};
///
/// let mut data = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
/// let mut shape = [2i64, 3];
/// let mut strides = [3i64, 1]; // in elements, row-major
/// let tensor = DLTensor {
///     data: data.as_mut_ptr().cast(),
///     device: Device::CPU,
///     ndim: 2,
///     dtype: DataType::F32,
///     shape: shape.as_mut_ptr(),
///     strides: strides.as_mut_ptr(),
///     byte_offset: 0,
/// };
/// // SAFETY: `shape` points to `ndim` extents, alive for this read.
/// let extents = unsafe { std::slice::from_raw_parts(tensor.shape, tensor.ndim as usize) };
/// assert_eq!(extents, [2, 3]);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLTensor {
    /// The data pointer (a device pointer or handle on non-CPU devices).
    pub data: *mut c_void,
    /// Where the data lives.
    pub device: DLDevice,
    /// Number of dimensions.
    pub ndim: i32,
    /// Element type.
    pub dtype: DLDataType,
    /// `ndim` extents; may be null when `ndim == 0`.
    pub shape: *mut i64,
    /// `ndim` strides in elements; may be null when `ndim == 0` (and, before 1.2, for compact
    /// row-major data).
    pub strides: *mut i64,
    /// Offset in bytes from `data` to the first element.
    pub byte_offset: u64,
}

/// `DLManagedTensor`: the legacy (pre-1.0, unversioned) managed tensor.
///
/// The producer fills it and sets `deleter`; the consumer calls `deleter` exactly once, with
/// the tensor's own address, when it is done.
///
/// ```
/// use dlpack_core::ffi::{DLManagedTensor, DLTensor};
/// use dlpack_core::{DataType, Device};
///
/// /// What the producer keeps alive for the tensor.
/// struct Owner {
///     data: Vec<f32>,
///     shape: [i64; 1],
/// }
///
/// unsafe extern "C" fn deleter(tensor: *mut DLManagedTensor) {
///     // SAFETY: both boxes were leaked below for this tensor, and the consumer calls the
///     // deleter once.
///     unsafe {
///         let tensor = Box::from_raw(tensor);
///         drop(Box::from_raw(tensor.manager_ctx.cast::<Owner>()));
///     }
/// }
///
/// // Producer.
/// let owner = Box::into_raw(Box::new(Owner { data: vec![1.0, 2.0, 3.0], shape: [3] }));
/// // SAFETY: `owner` is a live allocation no one else uses yet.
/// let (data, shape) = unsafe { ((*owner).data.as_mut_ptr(), (*owner).shape.as_mut_ptr()) };
/// let managed: *mut DLManagedTensor = Box::into_raw(Box::new(DLManagedTensor {
///     dl_tensor: DLTensor {
///         data: data.cast(),
///         device: Device::CPU,
///         ndim: 1,
///         dtype: DataType::F32,
///         shape,
///         strides: std::ptr::null_mut(),
///         byte_offset: 0,
///     },
///     manager_ctx: owner.cast(),
///     deleter: Some(deleter),
/// }));
///
/// // Consumer.
/// // SAFETY: `managed` is live until its deleter runs, which happens once, last.
/// unsafe {
///     assert_eq!(*(*managed).dl_tensor.shape, 3);
///     if let Some(delete) = (*managed).deleter {
///         delete(managed);
///     }
/// }
/// ```
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    /// The tensor.
    pub dl_tensor: DLTensor,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Releases the tensor and `self`; may be null.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// `DLManagedTensorVersioned`: the managed tensor of DLPack ≥ 1.0.
///
/// A consumer reads `version` first: with a major version other than
/// [`DLPACK_MAJOR_VERSION`](super::DLPACK_MAJOR_VERSION), only `version`, `manager_ctx` and
/// `deleter` are where this struct says, and the tensor must be released unread.
///
/// ```
/// use dlpack_core::ffi::{
///     DLManagedTensorVersioned, DLPACK_FLAG_BITMASK_READ_ONLY, DLPACK_MAJOR_VERSION,
///     DLPackVersion, DLTensor,
/// };
/// use dlpack_core::{DataType, Device};
/// use std::ptr;
///
/// let mut data = [7u8; 4];
/// let mut shape = [4i64];
/// let tensor = DLManagedTensorVersioned {
///     version: DLPackVersion::CURRENT,
///     manager_ctx: ptr::null_mut(),
///     deleter: None, // it borrows this stack frame: nothing to release
///     flags: DLPACK_FLAG_BITMASK_READ_ONLY,
///     dl_tensor: DLTensor {
///         data: data.as_mut_ptr().cast(),
///         device: Device::CPU,
///         ndim: 1,
///         dtype: DataType::U8,
///         shape: shape.as_mut_ptr(),
///         strides: ptr::null_mut(),
///         byte_offset: 0,
///     },
/// };
/// assert_eq!(tensor.version.major, DLPACK_MAJOR_VERSION); // only then read on
/// assert!(tensor.flags & DLPACK_FLAG_BITMASK_READ_ONLY != 0);
/// ```
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The ABI version the producer used; check `major` before reading anything past `deleter`.
    pub version: DLPackVersion,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Releases the tensor and `self`; may be null.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    /// `DLPACK_FLAG_BITMASK_*` bits.
    pub flags: u64,
    /// The tensor.
    pub dl_tensor: DLTensor,
}

// On 32-bit targets `int64_t` aligns to 8 on most ABIs (4 on i386 System V): the 32-bit
// figures below are those of the former; the `abi` test checks the host against the C header.
#[cfg(not(all(target_arch = "x86", not(target_os = "windows"))))]
assert_layout!(DLTensor, size 48 / 40, align 8 / 8, {
    data: 0 / 0, device: 8 / 4, ndim: 16 / 12, dtype: 20 / 16,
    shape: 24 / 20, strides: 32 / 24, byte_offset: 40 / 32,
});
#[cfg(not(all(target_arch = "x86", not(target_os = "windows"))))]
assert_layout!(DLManagedTensor, size 64 / 48, align 8 / 8, {
    dl_tensor: 0 / 0, manager_ctx: 48 / 40, deleter: 56 / 44,
});
#[cfg(not(all(target_arch = "x86", not(target_os = "windows"))))]
assert_layout!(DLManagedTensorVersioned, size 80 / 64, align 8 / 8, {
    version: 0 / 0, manager_ctx: 8 / 8, deleter: 16 / 12, flags: 24 / 16, dl_tensor: 32 / 24,
});
