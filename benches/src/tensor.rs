//! The tensor comparison: exporting a tensor as a versioned DLPack tensor and dropping it, and
//! importing a tensor, validating it and taking a typed slice, ours against dlpark 0.10.
//!
//! The export is timed from two owners, each made outside the timed region:
//!
//! - **Shared storage** (`Arc<[f32]>`, [`export_ours_shared`]/[`export_dlpark_shared`]): a
//!   clone of the storage a framework's tensor holds, as a `__dlpack__` hands out. Dropping the
//!   export frees only what the export allocated and releases the clone, so the timed work is
//!   the export's own: allocate and fill the header, shape and strides, run the deleter, free
//!   the metadata. The report's export target is judged here.
//! - **An owned vector** (`Vec<f32>`, [`export_ours`]/[`export_dlpark`]): the vector moves into
//!   the export and dropping the export frees it. Freeing the vector is the same call on both
//!   sides, but criterion's batched setup allocates thousands of vectors side by side and the
//!   timed loop frees them in order, so glibc merges each with the freed one before it: 25–30
//!   ns a vector, as much as the rest of our export and drop (the same frees take about 10 ns
//!   when a live allocation separates the vectors). The report prints these lines for
//!   information, with the export's floors beside them.
//!
//! dlpark takes the owner as its manager context, which must fit in one pointer, so a `Vec` or
//! an `Arc<[f32]>` (two pointers wide) costs it a `Box`, a second allocation; that is how dlpark
//! exports such an owner, and it is part of what is measured. Ours keeps the owner inside its
//! one allocation.

use core::ffi::c_void;
use core::ptr::NonNull;
use std::sync::Arc;

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
    park_export(data, shape, dlpark::DlpackFlags::empty())
}

/// dlpark's export of `owner`'s elements, the one body of [`export_dlpark`] and
/// [`export_dlpark_shared`]: compact metadata in dlpark's managed allocation, the boxed owner
/// as the manager context (dlpark's context must be one pointer; these owners are two), and
/// `flags`, which are empty or `READ_ONLY`.
#[inline(always)]
fn park_export<O: AsRef<[f32]> + Send>(
    owner: O,
    shape: &[usize],
    flags: dlpark::DlpackFlags,
) -> Result<ParkTensor, dlpark::metadata::Error> {
    let owner = Box::new(owner);
    let ptr = (*owner).as_ref().as_ptr().cast_mut().cast::<c_void>();
    let mut initialized = Dynamic::compact(shape).initialize(owner)?;
    initialized
        .set_data(ptr)
        .set_dtype(ParkDataType::F32)
        .set_device(ParkDevice::CPU);
    // SAFETY: empty or READ_ONLY flags claim nothing about ownership or copying (dlpark's own
    // producers set them the same way).
    unsafe { initialized.set_flags_unchecked(flags) };
    // SAFETY: `ptr` points to the owner's elements, inside the box (the manager context) or
    // the heap buffer it owns, which stay alive and unmoved until the deleter runs; dlpark
    // wrote the shape and explicit compact strides; an owner that others share (an `Arc`) is
    // exported read-only, so no consumer writes through it while other clones read.
    Ok(unsafe { initialized.finish() })
}

/// The data every benchmark tensor holds, as shared storage: the `Arc` a framework's tensor
/// holds, of which each export takes a clone.
pub fn shared_data() -> Arc<[f32]> {
    data().into()
}

/// Exports a clone of shared storage with `shape` (row-major, explicit strides), flagged
/// `READ_ONLY` since other clones may read it: `ManagedTensor::from_arc`.
///
/// ```
/// let storage = dlpack_benches::tensor::shared_data();
/// let tensor = dlpack_benches::tensor::export_ours_shared(storage.clone(), &[8, 8])?;
/// assert_eq!(std::sync::Arc::strong_count(&storage), 2);
/// drop(tensor);
/// assert_eq!(std::sync::Arc::strong_count(&storage), 1);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
///
/// # Errors
///
/// When the shape does not hold `data.len()` elements.
#[inline]
pub fn export_ours_shared(
    data: Arc<[f32]>,
    shape: &[usize],
) -> Result<ManagedTensor, dlpack_core::Error> {
    ManagedTensor::from_arc(data, shape)
}

/// Exports a clone of shared storage with `shape` through dlpark, as [`export_dlpark`] exports
/// a vector: compact metadata in dlpark's managed allocation, the boxed clone as the manager
/// context (an `Arc<[f32]>` is two pointers wide), flagged `READ_ONLY` as ours is.
///
/// # Errors
///
/// dlpark's error when the shape does not fit DLPack.
pub fn export_dlpark_shared(
    data: Arc<[f32]>,
    shape: &[usize],
) -> Result<ParkTensor, dlpark::metadata::Error> {
    park_export(data, shape, dlpark::DlpackFlags::READ_ONLY)
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

/// The floor of an export, to show where the time of [`export_ours`] goes: the same single
/// allocation (header, owner, shape and strides) and the same deleter, with nothing checked
/// but the rank, and the pointer handed back bare. It is not an export anyone should use: a
/// shape that does not hold the vector's elements, or a dimension past `int64_t`, gives a
/// tensor that lies about its data (never undefined behaviour here, since nothing reads the
/// data through it, but a consumer would). The report times it next to ours and dlpark's.
///
/// ```
/// let data = dlpack_benches::tensor::data();
/// let floor = dlpack_benches::tensor::export_floor(data, &[8, 8]);
/// // SAFETY: a live tensor handed over once; `from_raw` validates it as any import.
/// let tensor = unsafe { dlpack_core::ManagedTensor::from_raw(floor.into_raw()) }?;
/// assert_eq!(tensor.view()?.as_slice::<f32>()?[63], 63.0);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
///
/// # Panics
///
/// When `shape` has more than [`dlpack_core::tensor::MAX_NDIM`] dimensions.
#[inline(never)]
pub fn export_floor(data: Vec<f32>, shape: &[usize]) -> FloorTensor {
    floor(data, shape)
}

/// [`export_floor`]'s body, inlined into both floors.
#[inline(always)]
fn floor(data: Vec<f32>, shape: &[usize]) -> FloorTensor {
    let ndim = shape.len();
    assert!(ndim <= dlpack_core::tensor::MAX_NDIM, "rank {ndim}");
    let layout = floor_layout(ndim);
    // SAFETY: the layout has a non-zero size (it holds the header).
    let header = unsafe { std::alloc::alloc(layout) }.cast::<FloorHeader>();
    if header.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    // SAFETY: fresh memory aligned for the header, followed by 2 * ndim i64 (`floor_layout`);
    // every field and dim is written once, before the pointer is handed out.
    unsafe {
        let dims = header.add(1).cast::<i64>();
        let mut step = 1_i64;
        for axis in (0..ndim).rev() {
            let d = shape[axis] as i64;
            dims.add(axis).write(d);
            dims.add(ndim + axis).write(step);
            step = step.wrapping_mul(d.max(1));
        }
        let data_ptr = data.as_ptr().cast_mut().cast::<c_void>();
        (&raw mut (*header).owner).write(data);
        (&raw mut (*header).managed).write(DLManagedTensorVersioned {
            version: dlpack_core::ffi::DLPackVersion::CURRENT,
            manager_ctx: header.cast(),
            deleter: Some(floor_delete),
            flags: 0,
            dl_tensor: dlpack_core::ffi::DLTensor {
                data: data_ptr,
                device: dlpack_core::Device::CPU,
                ndim: ndim as i32,
                dtype: dlpack_core::DataType::F32,
                shape: dims,
                strides: dims.add(ndim),
                byte_offset: 0,
            },
        });
        FloorTensor(NonNull::new_unchecked(header.cast()))
    }
}

/// [`export_floor`] with the one check `from_vec` cannot do without (the shape holds the
/// vector's elements) and handed back the way `from_vec` hands its export back, as a
/// `Result<_, dlpack_core::Error>`: what it adds to [`export_floor`] is the check and
/// returning through that error type (in instructions; in time, placement moves these floors
/// by as much, see the README's Performance section).
///
/// ```
/// use dlpack_benches::tensor::{data, export_floor_result};
/// assert!(export_floor_result(data(), &[8, 8]).is_ok());
/// assert!(export_floor_result(data(), &[8, 9]).is_err());
/// ```
///
/// # Errors
///
/// When the shape does not hold `data.len()` elements (`from_vec`'s error).
#[inline(never)]
pub fn export_floor_result(
    data: Vec<f32>,
    shape: &[usize],
) -> Result<FloorTensor, dlpack_core::Error> {
    if !floor_accepts(data.len(), shape) {
        return Err(refusal(data, shape));
    }
    Ok(floor(data, shape))
}

/// [`export_floor_result`] with the error boxed: a `Result` of two pointers, which comes back
/// in registers rather than through memory, where `Result<_, dlpack_core::Error>` (80 bytes)
/// does not. Its difference from [`export_floor_result`] is a few instructions; in time it
/// measured from nothing to 4 ns, depending on the build (the README's Performance section).
///
/// ```
/// use dlpack_benches::tensor::{data, export_floor_boxed};
/// assert!(export_floor_boxed(data(), &[8, 8]).is_ok());
/// assert!(export_floor_boxed(data(), &[8, 9]).is_err());
/// ```
///
/// # Errors
///
/// As [`export_floor_result`].
#[inline(never)]
pub fn export_floor_boxed(
    data: Vec<f32>,
    shape: &[usize],
) -> Result<FloorTensor, Box<dlpack_core::Error>> {
    if !floor_accepts(data.len(), shape) {
        return Err(Box::new(refusal(data, shape)));
    }
    Ok(floor(data, shape))
}

/// Whether `from_vec` accepts `shape` for `len` elements, as far as the floors check it: the
/// element count and the rank.
#[inline(always)]
fn floor_accepts(len: usize, shape: &[usize]) -> bool {
    let count = shape.iter().try_fold(1_usize, |n, &d| n.checked_mul(d));
    count == Some(len) && shape.len() <= dlpack_core::tensor::MAX_NDIM
}

/// `from_vec`'s error for what the floors refuse.
#[cold]
fn refusal(data: Vec<f32>, shape: &[usize]) -> dlpack_core::Error {
    ManagedTensor::from_vec(data, shape).expect_err("from_vec refuses what the floors refuse")
}

/// An export made by [`export_floor`]: dropping it runs its deleter.
#[derive(Debug)]
pub struct FloorTensor(NonNull<DLManagedTensorVersioned>);

impl FloorTensor {
    /// Hands the tensor over, for a consumer to release.
    pub fn into_raw(self) -> *mut DLManagedTensorVersioned {
        let raw = self.0.as_ptr();
        core::mem::forget(self);
        raw
    }
}

impl Drop for FloorTensor {
    fn drop(&mut self) {
        // SAFETY: we own the tensor `export_floor` made, whose deleter is `floor_delete`; it
        // runs once, here.
        unsafe { floor_delete(self.0.as_ptr()) }
    }
}

/// The allocation of [`export_floor`]: the header and the owner, then the shape and strides.
#[repr(C)]
struct FloorHeader {
    managed: DLManagedTensorVersioned,
    owner: Vec<f32>,
}

fn floor_layout(ndim: usize) -> std::alloc::Layout {
    std::alloc::Layout::new::<FloorHeader>()
        .extend(std::alloc::Layout::array::<i64>(2 * ndim).expect("at most 128 i64"))
        .expect("a header and 1 KiB of dims fit in isize")
        .0
        .pad_to_align()
}

/// The deleter of [`export_floor`]'s tensors.
unsafe extern "C" fn floor_delete(managed: *mut DLManagedTensorVersioned) {
    if managed.is_null() {
        return;
    }
    let header = managed.cast::<FloorHeader>();
    // SAFETY: `managed` is the start of a live allocation of `export_floor`, with the layout
    // its `ndim` gives, released once (the DLPack contract).
    unsafe {
        let layout = floor_layout((*header).managed.dl_tensor.ndim as usize);
        core::ptr::drop_in_place(&raw mut (*header).owner);
        std::alloc::dealloc(header.cast(), layout);
    }
}
