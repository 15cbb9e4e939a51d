//! The tensor comparison: exporting a `Vec<f32>` as a versioned DLPack tensor and dropping it,
//! and importing a tensor, validating it and taking a typed slice, ours against dlpark 0.10.
//!
//! Both sides start from the same owned `Vec<f32>` (made outside the timed region) and end with
//! the tensor dropped, so the timed work is: allocate and fill the header, shape and strides,
//! hand over the vector, run the deleter, free the metadata and the vector.
//!
//! dlpark takes the owner as a `Box<T: Send>` (its `OpaqueContext` must fit in one pointer),
//! so a `Vec` costs it a second allocation; that is how dlpark exports a `Vec`, and it is part
//! of what is measured.

use core::ffi::c_void;

use dlpack_core::ManagedTensor;
use dlpack_core::ffi::DLManagedTensorVersioned;
use dlpark::ffi::{
    DLDataType as ParkDataType, DLDevice as ParkDevice, DLManagedTensorVersioned as ParkManaged,
};
use dlpark::metadata::Dynamic;

/// The ranks the tensor benchmarks run at.
pub const RANKS: [usize; 5] = [1, 2, 4, 8, 64];

/// Elements in every benchmark tensor.
pub const ELEMENTS: usize = 64;

/// A shape of `rank` dimensions whose product is [`ELEMENTS`]: the six factors of two dealt
/// round the dimensions, so `[64]`, `[8, 8]`, `[4, 4, 2, 2]`, …, then ones.
///
/// ```
/// assert_eq!(dlpack_benches::tensor::shape(4), [4, 4, 2, 2]);
/// assert_eq!(dlpack_benches::tensor::shape(64).iter().product::<usize>(), 64);
/// ```
pub fn shape(rank: usize) -> Vec<usize> {
    let mut dims = vec![1; rank.max(1)];
    for k in 0..ELEMENTS.trailing_zeros() as usize {
        dims[k % rank.max(1)] *= 2;
    }
    dims.truncate(rank);
    dims
}

/// The data every benchmark tensor holds.
pub fn data() -> Vec<f32> {
    (0..ELEMENTS).map(|i| i as f32).collect()
}

/// Exports `data` with `shape` (row-major, explicit strides): `ManagedTensor::from_vec`.
///
/// # Errors
///
/// When the shape does not hold `data.len()` elements.
#[inline]
pub fn export_ours(data: Vec<f32>, shape: &[usize]) -> Result<ManagedTensor, dlpack_core::Error> {
    ManagedTensor::from_vec(data, shape)
}

/// Imports the tensor at `raw`, validates it, takes its `f32` slice and hands the tensor back:
/// returns a checksum of the slice (its length and first element) and the pointer.
///
/// # Errors
///
/// Why the tensor is refused.
///
/// # Safety
///
/// `raw` must point to a live versioned managed tensor owned by the caller, whose data is
/// `f32` elements readable while it lives.
pub unsafe fn import_ours(
    raw: *mut DLManagedTensorVersioned,
) -> Result<(usize, *mut DLManagedTensorVersioned), dlpack_core::Error> {
    // SAFETY: the caller hands over a live tensor; we give ownership back below.
    let tensor = unsafe { ManagedTensor::from_raw(raw) }?;
    let sum = {
        let view = tensor.view()?;
        let slice = view.as_slice::<f32>()?;
        slice.len() + slice.first().map_or(0, |x| *x as usize)
    };
    Ok((sum, tensor.into_raw()))
}

/// dlpark's owned-tensor handle.
pub type ParkTensor = dlpark::versioned::Dlpack;

/// Exports `data` with `shape` (row-major, explicit strides) through dlpark, as its `ndarray`
/// producer does: compact metadata copied into dlpark's managed allocation, the boxed vector as
/// the manager context.
///
/// # Errors
///
/// dlpark's error when the shape does not fit DLPack.
pub fn export_dlpark(
    data: Vec<f32>,
    shape: &[usize],
) -> Result<ParkTensor, dlpark::metadata::Error> {
    let ptr = data.as_ptr().cast_mut().cast::<c_void>();
    let mut initialized = Dynamic::compact(shape).initialize(Box::new(data))?;
    initialized
        .set_data(ptr)
        .set_dtype(ParkDataType::F32)
        .set_device(ParkDevice::CPU);
    // SAFETY: `ptr` points into the vector's heap buffer, which the boxed vector (the manager
    // context) keeps alive and unmoved until the deleter runs; dlpark wrote the shape and
    // explicit compact strides; the tensor is not read-only-flagged and nothing else aliases it.
    Ok(unsafe { initialized.finish() })
}

/// Imports the tensor at `raw` with dlpark, validates it, takes its `f32` slice and hands the
/// tensor back: returns a checksum of the slice (its length and first element) and the pointer.
///
/// # Errors
///
/// dlpark's message when the tensor is refused.
///
/// # Safety
///
/// `raw` must point to a live versioned managed tensor owned by the caller.
pub unsafe fn import_dlpark(raw: *mut ParkManaged) -> Result<(usize, *mut ParkManaged), String> {
    // SAFETY: the caller owns `raw`, a live managed tensor; we give ownership back below.
    let managed = unsafe { dlpark::Managed::from_raw(raw) }.map_err(|e| e.to_string())?;
    let sum = {
        let view = managed.validate().map_err(|e| e.to_string())?;
        // SAFETY: the tensor was produced from a live `Vec<f32>` whose elements fill the
        // validated shape; it is alive as long as `managed`.
        let slice = unsafe { view.cpu_slice::<f32>() }.map_err(|e| e.to_string())?;
        slice.len() + slice.first().map_or(0, |x| *x as usize)
    };
    Ok((sum, managed.into_raw()))
}
