//! [`TensorOwner`]: what an exported tensor keeps alive, and how it describes its data.

use super::parts::TensorParts;

/// A value that owns tensor data and can be exported as a DLPack tensor without a copy:
/// [`ManagedTensor::from_owner`](crate::ManagedTensor::from_owner) moves it into the export's
/// single heap allocation (with the managed struct and the shape and strides), and the deleter
/// drops it.
///
/// Implemented behind feature `ndarray` for `Array` and `ArcArray` (read-only, since other
/// clones may read the data); `Vec<T>`, `Box<[T]>` and `Arc<[T]>` carry no shape, so they are
/// exported through [`ManagedTensor::from_vec`](crate::ManagedTensor::from_vec),
/// [`from_boxed`](crate::ManagedTensor::from_boxed) and
/// [`from_arc`](crate::ManagedTensor::from_arc), which take one. Implement it for your own
/// buffers: a CUDA allocation, a memory map, a framework's tensor handle. The description is
/// free to name any device, an opaque data pointer, explicit strides and a byte offset.
///
/// ```
/// use dlpack_core::{DataType, Device, ManagedTensor};
/// use dlpack_core::tensor::{TensorOwner, TensorParts};
///
/// /// A 2 × 3 matrix stored column-major.
/// struct ColumnMajor(Vec<f32>);
///
/// // SAFETY: the Vec's buffer holds the 6 elements the shape and strides address, stays put
/// // while the owner lives, and nothing else touches it.
/// unsafe impl TensorOwner for ColumnMajor {
///     fn describe(&mut self) -> TensorParts<'_> {
///         TensorParts::host(self.0.as_mut_ptr(), &[2_usize, 3]).with_strides(&[1_i64, 2])
///     }
/// }
///
/// let tensor = ManagedTensor::from_owner(ColumnMajor(vec![1., 2., 3., 4., 5., 6.]))?;
/// let view = tensor.view()?;
/// assert_eq!((view.shape(), view.strides()), (&[2, 3][..], &[1, 2][..]));
/// assert_eq!(view.to_vec::<f32>()?, [1., 3., 5., 2., 4., 6.]); // row-major order
/// # Ok::<(), dlpack_core::Error>(())
/// ```
///
/// # Safety
///
/// The export trusts the description; a consumer on the other side of the C ABI reads (and,
/// unless `READ_ONLY` is set, writes) the memory it names. An implementation must ensure:
///
/// - **Same answer.** `describe` may be called more than once: before the owner is moved into
///   the export's allocation (to size it) and after (the call whose answer is exported). Each
///   call must give the same rank, shape, strides, data type, device, byte offset and flags.
///   Only the data pointer may differ, for an owner that stores its data inline.
/// - **Valid memory.** From the last call until the owner is dropped, `data + byte_offset`
///   plus every offset the shape and strides reach (in elements of `dtype`) is memory on
///   `device` that holds an initialised element and is neither freed nor moved.
/// - **Exclusive or read-only.** Without `READ_ONLY`, the consumer may write to that memory at
///   any time until it releases the tensor, so nothing else may read or write it meanwhile.
///   With `READ_ONLY`, nothing may write it meanwhile.
/// - **Any thread.** The owner may be dropped on any thread (hence `Send`), and must not panic
///   when dropped: the drop runs inside an `extern "C"` deleter, where a panic aborts.
pub unsafe trait TensorOwner: Send + 'static {
    /// The tensor this owner holds. See the trait's safety section for what the answer must
    /// satisfy.
    ///
    /// ```
    /// use dlpack_core::{DataType, ManagedTensor};
    /// use dlpack_core::tensor::{TensorOwner, TensorParts};
    ///
    /// /// A rank-0 tensor: one value, no dimensions.
    /// struct Scalar(Box<f64>);
    /// // SAFETY: the box holds the one element, owned by `Scalar` alone.
    /// unsafe impl TensorOwner for Scalar {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(&mut *self.0, &[] as &[usize])
    ///     }
    /// }
    ///
    /// let tensor = ManagedTensor::from_owner(Scalar(Box::new(2.5)))?;
    /// let view = tensor.view()?;
    /// assert_eq!((view.dtype(), view.ndim()), (DataType::F64, 0));
    /// assert_eq!(view.as_slice::<f64>()?, [2.5]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn describe(&mut self) -> TensorParts<'_>;
}
