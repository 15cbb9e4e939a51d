//! The tensor side of [`from_dlpack`](crate::from_dlpack): [`ToDlpackTensor`] (a source, by
//! reference) and [`FromDlpackTensor`] (a target), and the views a borrowed source lends.

use alloc::sync::Arc;
use alloc::{boxed::Box, vec::Vec};

use crate::DataType;
use crate::Device;
use crate::element::Element;
use crate::error::Error;
use crate::ffi::{DLManagedTensor, DLPackVersion, DLTensor};
use crate::tensor::Flags;
use crate::tensor::TensorError;
use crate::tensor::export::allocation;
use crate::tensor::export::describe::Shaped;
use crate::tensor::import::abi::Abi;
use crate::tensor::import::view::TensorView;
use crate::tensor::import::view_mut::TensorViewMut;
use crate::tensor::managed::{ManagedTensor, compact_copy};

/// A tensor source for [`from_dlpack`](crate::from_dlpack): anything that can produce a
/// [`ManagedTensor`] from a shared reference.
///
/// A shared reference cannot give away what it does not own, so each source does what keeps
/// the source intact:
///
/// | source                                   | the tensor                                     |
/// |------------------------------------------|------------------------------------------------|
/// | `Arc<[T]>`, `ndarray::ArcArray`          | shares the data (a clone of the `Arc`), `READ_ONLY` |
/// | `[T]`, `Vec<T>`, `Box<[T]>`, `ndarray::Array`, `ArrayView` | a copy, flagged `IS_COPIED` (writable, owned alone) |
/// | `ManagedTensor`, `LegacyManagedTensor`, views | a compact host copy, flagged `IS_COPIED`; an error for data the CPU cannot read |
///
/// To move an owned value without a copy, use [`ManagedTensor::from_vec`] and friends.
///
/// ```
/// use std::sync::Arc;
/// use dlpack_core::{ManagedTensor, from_dlpack, tensor::Flags};
///
/// let copied: ManagedTensor = from_dlpack(&vec![1_u16, 2, 3])?;
/// assert_eq!(copied.flags(), Flags::IS_COPIED);
/// let shared: ManagedTensor = from_dlpack(&Arc::<[u16]>::from(vec![1, 2, 3]))?;
/// assert_eq!(shared.flags(), Flags::READ_ONLY);
/// let back: Vec<u16> = from_dlpack(&shared)?;
/// assert_eq!(back, [1, 2, 3]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
///
/// A data type is not a tensor, so this does not compile:
///
/// ```compile_fail
/// use dlpack_core::{DataType, ManagedTensor, from_dlpack};
/// let t: ManagedTensor = from_dlpack(&DataType::F32)?;
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub trait ToDlpackTensor {
    /// A tensor holding this value's elements; see the trait docs for shared versus copied.
    ///
    /// ```
    /// use dlpack_core::tensor::ToDlpackTensor;
    ///
    /// let data = vec![1_u8, 2, 3];
    /// let tensor = data.to_dlpack_tensor()?;
    /// assert_eq!(tensor.view()?.as_slice::<u8>()?, data); // a copy: `data` is still ours
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error>;

    /// Lends `read` a validated view of this tensor's elements: the source's own memory where
    /// it can lend it for the call, else a [`to_dlpack_tensor`](Self::to_dlpack_tensor) export
    /// (the default). The form a source implements; callers that want `read`'s value call
    /// [`with_tensor_view`] instead. A target that copies the elements anyway (a `Vec`, a candle
    /// tensor) reads through it, so that a borrowed source is copied once, not first into an
    /// export and then again.
    ///
    /// The view lives for the call only. Sources that lend their own memory: `[T]`, `Vec<T>`,
    /// `Box<[T]>`, `Arc<[T]>`, `ManagedTensor`, views, `ndarray` arrays, and a candle tensor
    /// (under candle's lock, so nothing writes it meanwhile; `read` must not write that
    /// tensor, or it waits for itself).
    ///
    /// ```
    /// use dlpack_core::tensor::ToDlpackTensor;
    ///
    /// let data = vec![1_u16, 2, 3];
    /// let mut sum = 0;
    /// data.lend_view(&mut |view| {
    ///     assert_eq!(view.data_ptr(), data.as_ptr().cast()); // lent, not copied
    ///     sum = view.as_slice::<u16>()?.iter().sum();
    ///     Ok(())
    /// })?;
    /// assert_eq!(sum, 6);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn lend_view(
        &self,
        read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let tensor = self.to_dlpack_tensor()?;
        read(&tensor.view()?)
    }
}

/// Calls `read` with a validated view of `source`'s elements, lent for the call
/// ([`ToDlpackTensor::lend_view`]: the source's own memory where it can lend it, else an
/// export), and returns what `read` returns. The form to call; `lend_view` is the form to
/// implement (it takes a `dyn FnMut`, so that `dyn ToDlpackTensor` has it).
/// `python::with_tensor_view` is the same for a Python object.
///
/// ```
/// use dlpack_core::tensor::with_tensor_view;
///
/// let data = vec![1_u16, 2, 3];
/// let sum: u16 = with_tensor_view(&data, |view| {
///     assert_eq!(view.data_ptr(), data.as_ptr().cast()); // lent, not copied
///     Ok(view.as_slice::<u16>()?.iter().sum())
/// })?;
/// assert_eq!(sum, 6);
/// let first = with_tensor_view(&data[..], |view| Ok(view.iter::<u16>()?.next()))?;
/// assert_eq!(first, Some(1));
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub fn with_tensor_view<S, R>(
    source: &S,
    read: impl FnOnce(&TensorView<'_>) -> Result<R, Error>,
) -> Result<R, Error>
where
    S: ?Sized + ToDlpackTensor,
{
    let mut read = Some(read);
    let mut value = None;
    source.lend_view(&mut |view| {
        // A source calls `read` once; a second call finds nothing left to run.
        if let Some(read) = read.take() {
            value = Some(read(view)?);
        }
        Ok(())
    })?;
    value.ok_or_else(|| Error::msg("a `ToDlpackTensor` source lent no view to read"))
}

/// Lends `read` a view of host memory: `data`, with `shape` and `strides` in elements of
/// `dtype`, flagged `READ_ONLY` (the view is borrowed, and only read).
///
/// # Safety
///
/// For the call, every element the shape and strides reach from `data` (plus `byte_offset`)
/// is readable, initialised host memory that nothing writes.
pub(crate) unsafe fn lend_host(
    data: *const core::ffi::c_void,
    dtype: DataType,
    shape: &[i64],
    strides: &[i64],
    byte_offset: u64,
    read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    debug_assert_eq!(shape.len(), strides.len());
    let ndim = i32::try_from(shape.len()).map_err(|_| TensorError::Ndim {
        ndim: shape.len() as i64,
    })?;
    let raw = DLTensor {
        data: data.cast_mut(),
        device: Device::CPU,
        ndim,
        dtype,
        // Only read: a view never writes its shape or strides.
        shape: shape.as_ptr().cast_mut(),
        strides: strides.as_ptr().cast_mut(),
        byte_offset,
    };
    // SAFETY: `raw`'s shape and strides are the caller's slices, alive and unchanged for the
    // call; the caller promises the elements are readable and unwritten for it too.
    let view =
        unsafe { TensorView::from_dl_tensor(&raw, Flags::READ_ONLY, DLPackVersion::CURRENT)? };
    read(&view)
}

/// Lends `read` a compact one-dimensional view of `data`.
fn lend_slice<T: Element>(
    data: &[T],
    read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    // A slice holds at most isize::MAX bytes, so its length fits i64.
    let shape = [data.len() as i64];
    // SAFETY: a shared borrow of `data` for the call: readable, initialised, and unwritten
    // (`T: Element` is `Copy`, so it holds no interior mutability).
    unsafe { lend_host(data.as_ptr().cast(), T::DATA_TYPE, &shape, &[1], 0, read) }
}

/// A tensor target for [`from_dlpack`](crate::from_dlpack): a type that can be built from an
/// imported [`ManagedTensor`], consuming it.
///
/// Implemented for `ManagedTensor` (itself), `LegacyManagedTensor` (see
/// [`ManagedTensor::into_legacy`]), `Vec<T>` (a row-major copy of host-readable data) and,
/// with feature `ndarray`, `ArrayD<T>`. Implement it for your framework's tensor type and
/// [`from_dlpack`](crate::from_dlpack) makes one from any [`ToDlpackTensor`] source.
///
/// ```
/// use dlpack_core::{Error, ManagedTensor, from_dlpack, tensor::FromDlpackTensor};
///
/// /// A framework's matrix of `f32`.
/// #[derive(Debug, PartialEq)]
/// struct Matrix {
///     rows: usize,
///     data: Vec<f32>,
/// }
///
/// impl FromDlpackTensor for Matrix {
///     fn from_dlpack_tensor(tensor: ManagedTensor) -> Result<Self, Error> {
///         let view = tensor.view()?;
///         let &[rows, _] = view.shape() else {
///             return Err(Error::msg(format!("a matrix has 2 dimensions, not {}", view.ndim())));
///         };
///         Ok(Matrix { rows: rows as usize, data: view.to_vec()? })
///     }
/// }
///
/// let tensor = ManagedTensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// let matrix: Matrix = from_dlpack(&tensor)?;
/// assert_eq!(matrix, Matrix { rows: 2, data: vec![1.0, 2.0, 3.0, 4.0] });
/// assert!(from_dlpack::<Matrix>(&vec![1.0_f32]).is_err()); // one dimension
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub trait FromDlpackTensor: Sized {
    /// Builds the value from `tensor`.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, tensor::FromDlpackTensor};
    ///
    /// let tensor = ManagedTensor::from_vec(vec![1_i16, 2, 3], &[3])?;
    /// assert_eq!(Vec::<i16>::from_dlpack_tensor(tensor)?, [1, 2, 3]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn from_dlpack_tensor(tensor: ManagedTensor) -> Result<Self, Error>;

    /// Builds the value from a borrowed `source`: what [`from_dlpack`](crate::from_dlpack)
    /// calls. The default takes the tensor the source exports
    /// ([`to_dlpack_tensor`](ToDlpackTensor::to_dlpack_tensor), shared or copied as the source
    /// decides) and passes it to [`from_dlpack_tensor`](Self::from_dlpack_tensor). A target
    /// that copies the elements anyway overrides it to read
    /// [`lend_view`](ToDlpackTensor::lend_view) instead, so that it copies once.
    ///
    /// ```
    /// use dlpack_core::{Error, ManagedTensor, tensor::{FromDlpackTensor, ToDlpackTensor}};
    ///
    /// /// A framework's vector, which always owns a copy.
    /// struct Column(Vec<f32>);
    ///
    /// impl FromDlpackTensor for Column {
    ///     fn from_dlpack_tensor(tensor: ManagedTensor) -> Result<Self, Error> {
    ///         Ok(Column(tensor.view()?.to_vec()?))
    ///     }
    ///     fn from_dlpack_source<S: ?Sized + ToDlpackTensor>(source: &S) -> Result<Self, Error> {
    ///         let mut column = None;
    ///         source.lend_view(&mut |view| {
    ///             column = Some(Column(view.to_vec()?)); // the one copy
    ///             Ok(())
    ///         })?;
    ///         column.ok_or_else(|| Error::msg("no view was lent"))
    ///     }
    /// }
    ///
    /// let tensor = ManagedTensor::from_vec(vec![1.0_f32, 2.0], &[2])?;
    /// let column: Column = dlpack_core::from_dlpack(&tensor)?;
    /// assert_eq!(column.0, [1.0, 2.0]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn from_dlpack_source<S: ?Sized + ToDlpackTensor>(source: &S) -> Result<Self, Error> {
        Self::from_dlpack_tensor(source.to_dlpack_tensor()?)
    }
}

/// A one-dimensional copy of `data`, flagged `IS_COPIED`.
fn copy_slice<T: Element>(data: &[T]) -> Result<ManagedTensor, Error> {
    let shape = [data.len()];
    let how = Shaped::new(&shape, data.len())?.with_flags(Flags::IS_COPIED);
    Ok(ManagedTensor::from_owned(allocation::export(
        data.to_vec(),
        &how,
    )?))
}

impl<T: Element> ToDlpackTensor for [T] {
    /// A one-dimensional copy, flagged `IS_COPIED`.
    ///
    /// ```
    /// use dlpack_core::tensor::{Flags, ToDlpackTensor};
    ///
    /// let data = [1.0_f64, 2.0, 3.0, 4.0];
    /// let tensor = data[1..3].to_dlpack_tensor()?;
    /// assert_eq!((tensor.view()?.shape(), tensor.flags()), (&[2][..], Flags::IS_COPIED));
    /// assert_eq!(tensor.view()?.as_slice::<f64>()?, [2.0, 3.0]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
        copy_slice(self)
    }

    /// Lends the slice itself.
    fn lend_view(
        &self,
        read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        lend_slice(self, read)
    }
}

impl<T: Element> ToDlpackTensor for Vec<T> {
    /// A one-dimensional copy, flagged `IS_COPIED`.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, from_dlpack, tensor::Flags};
    ///
    /// let data = vec![1_u32, 2, 3];
    /// let tensor: ManagedTensor = from_dlpack(&data)?;
    /// assert_eq!(tensor.flags(), Flags::IS_COPIED);
    /// assert_ne!(tensor.view()?.data_ptr(), data.as_ptr().cast()); // other memory
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
        copy_slice(self)
    }

    /// Lends the slice itself.
    fn lend_view(
        &self,
        read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        lend_slice(self, read)
    }
}

impl<T: Element> ToDlpackTensor for Box<[T]> {
    /// A one-dimensional copy, flagged `IS_COPIED`.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, from_dlpack, tensor::Flags};
    ///
    /// let data: Box<[i8]> = Box::new([-1, 0, 1]);
    /// let tensor: ManagedTensor = from_dlpack(&data)?;
    /// assert_eq!(tensor.flags(), Flags::IS_COPIED);
    /// assert_eq!(tensor.view()?.as_slice::<i8>()?, [-1, 0, 1]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
        copy_slice(self)
    }

    /// Lends the slice itself.
    fn lend_view(
        &self,
        read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        lend_slice(self, read)
    }
}

impl<T: Element> ToDlpackTensor for Arc<[T]> {
    /// A one-dimensional tensor sharing the data, flagged `READ_ONLY`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dlpack_core::{ManagedTensor, from_dlpack, tensor::Flags};
    ///
    /// let data: Arc<[u8]> = Arc::from(vec![1, 2, 3]);
    /// let tensor: ManagedTensor = from_dlpack(&data)?;
    /// assert_eq!(tensor.flags(), Flags::READ_ONLY);
    /// assert_eq!(tensor.view()?.data_ptr(), data.as_ptr().cast()); // the same memory
    /// assert_eq!(Arc::strong_count(&data), 2);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
        ManagedTensor::from_arc(Arc::clone(self), &[self.len()])
    }

    /// Lends the shared slice itself.
    fn lend_view(
        &self,
        read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        lend_slice(self, read)
    }
}

impl<M: Abi> ToDlpackTensor for ManagedTensor<M> {
    /// A compact host copy, flagged `IS_COPIED`, of a tensor of either ABI.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, from_dlpack, tensor::Flags};
    ///
    /// let original = ManagedTensor::from_vec(vec![1_u8, 2], &[2])?;
    /// let copy: ManagedTensor = from_dlpack(&original)?;
    /// assert_eq!(copy.flags(), Flags::IS_COPIED);
    /// drop(original); // the copy does not depend on it
    /// assert_eq!(copy.view()?.as_slice::<u8>()?, [1, 2]);
    ///
    /// let legacy = ManagedTensor::from_vec(vec![3_u8, 4], &[2])?.into_legacy()?;
    /// let copy: ManagedTensor = from_dlpack(&legacy)?; // versioned, whatever the source
    /// assert_eq!(copy.view()?.as_slice::<u8>()?, [3, 4]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
        Ok(compact_copy(&*self.view()?)?)
    }

    /// Lends its own view: no copy.
    fn lend_view(
        &self,
        read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        read(&self.view()?)
    }
}

impl ToDlpackTensor for TensorView<'_> {
    /// A compact host copy, flagged `IS_COPIED`.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// use dlpack_core::tensor::{Flags, TensorOwner, TensorParts, ToDlpackTensor};
    ///
    /// /// A 2 × 2 matrix stored column-major.
    /// struct ColumnMajor(Vec<u8>);
    /// // SAFETY: the Vec holds the 4 elements the shape and strides reach, owned by us alone.
    /// unsafe impl TensorOwner for ColumnMajor {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(self.0.as_mut_ptr(), &[2_usize, 2]).with_strides(&[1_i64, 2])
    ///     }
    /// }
    /// let tensor = ManagedTensor::from_owner(ColumnMajor(vec![1, 3, 2, 4]))?;
    /// let copy = tensor.view()?.to_dlpack_tensor()?;
    /// assert_eq!(copy.view()?.strides(), [2, 1]); // compact row-major
    /// assert_eq!(copy.view()?.as_slice::<u8>()?, [1, 2, 3, 4]);
    /// assert_eq!(copy.flags(), Flags::IS_COPIED);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
        Ok(compact_copy(self)?)
    }

    /// Lends its own view: no copy.
    fn lend_view(
        &self,
        read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        read(self)
    }
}

impl ToDlpackTensor for TensorViewMut<'_> {
    /// A compact host copy, flagged `IS_COPIED`.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, tensor::ToDlpackTensor};
    ///
    /// let mut tensor = ManagedTensor::from_vec(vec![0_u8; 2], &[2])?;
    /// let mut view = tensor.view_mut()?;
    /// view.as_slice_mut::<u8>()?[0] = 1;
    /// let snapshot = view.to_dlpack_tensor()?;
    /// view.as_slice_mut::<u8>()?[0] = 2; // later writes do not reach the copy
    /// assert_eq!(snapshot.view()?.as_slice::<u8>()?, [1, 0]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
        Ok(compact_copy(&self.view())?)
    }

    /// Lends its own view: no copy.
    fn lend_view(
        &self,
        read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        read(&self.view())
    }
}

impl FromDlpackTensor for ManagedTensor {
    /// The tensor as the source made it: no copy, no further check.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, from_dlpack};
    ///
    /// // A ManagedTensor target takes what the source gives: here a copy of a slice.
    /// let tensor: ManagedTensor = from_dlpack(&[1_u8, 2, 3][..])?;
    /// assert_eq!(tensor.view()?.as_slice::<u8>()?, [1, 2, 3]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn from_dlpack_tensor(tensor: ManagedTensor) -> Result<Self, Error> {
        Ok(tensor)
    }
}

impl FromDlpackTensor for ManagedTensor<DLManagedTensor> {
    /// Wraps the tensor without copying; see [`ManagedTensor::into_legacy`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dlpack_core::{LegacyManagedTensor, from_dlpack};
    ///
    /// let legacy: LegacyManagedTensor = from_dlpack(&vec![1_u8, 2])?;
    /// assert_eq!(legacy.view()?.as_slice::<u8>()?, [1, 2]);
    /// // A shared source is READ_ONLY, which a legacy tensor cannot say.
    /// assert!(from_dlpack::<LegacyManagedTensor>(&Arc::<[u8]>::from(vec![1])).is_err());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn from_dlpack_tensor(tensor: ManagedTensor) -> Result<Self, Error> {
        tensor.into_legacy()
    }
}

impl<T: Element> FromDlpackTensor for Vec<T> {
    /// The elements in row-major index order, copied from host-readable memory.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, from_dlpack};
    ///
    /// let tensor = ManagedTensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let flat: Vec<f32> = from_dlpack(&tensor)?;
    /// assert_eq!(flat, [1.0, 2.0, 3.0, 4.0]);
    /// assert!(from_dlpack::<Vec<f64>>(&tensor).is_err()); // float32 is not f64
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn from_dlpack_tensor(tensor: ManagedTensor) -> Result<Self, Error> {
        tensor.view()?.to_vec()
    }

    /// Copies the source's elements once, from the view it lends.
    fn from_dlpack_source<S: ?Sized + ToDlpackTensor>(source: &S) -> Result<Self, Error> {
        with_tensor_view(source, |view| view.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::DLDataTypeCode;
    use crate::tensor::{TensorOwner, TensorParts};

    /// Bytes described as `dtype` with `shape`, `strides` and `flags`.
    struct Described {
        bytes: Vec<u8>,
        dtype: DataType,
        shape: Vec<usize>,
        strides: Vec<i64>,
        flags: Flags,
    }

    // SAFETY: the Vec holds every byte the shapes and strides of the tests reach, owned alone.
    unsafe impl TensorOwner for Described {
        fn describe(&mut self) -> TensorParts<'_> {
            TensorParts::new(
                self.bytes.as_mut_ptr().cast(),
                Device::CPU,
                self.dtype,
                &self.shape[..],
            )
            .with_strides(&self.strides)
            .with_flags(self.flags)
        }
    }

    /// The copy `to_dlpack_tensor` makes follows the one flag rule of the host copy: padded
    /// sub-byte elements stay padded (and flagged), byte-wide ones drop the flag.
    #[test]
    fn a_copy_keeps_the_padding_its_bytes_still_have() {
        let int4 = DataType::new(DLDataTypeCode::INT, 4, 1);
        let padded = Described {
            bytes: vec![1, 9, 2, 9, 3, 9],
            dtype: int4,
            shape: vec![3],
            strides: vec![2],
            flags: Flags::IS_SUBBYTE_TYPE_PADDED | Flags::READ_ONLY,
        };
        let tensor = ManagedTensor::from_owner(padded).unwrap();
        let copy = tensor.to_dlpack_tensor().unwrap();
        assert_eq!(
            copy.flags(),
            Flags::IS_COPIED | Flags::IS_SUBBYTE_TYPE_PADDED
        );
        assert_eq!(copy.view().unwrap().as_bytes().unwrap(), [1, 2, 3]);
        let bytes = Described {
            bytes: vec![1, 9, 2, 9],
            dtype: DataType::I8,
            shape: vec![2],
            strides: vec![2],
            flags: Flags::IS_SUBBYTE_TYPE_PADDED,
        };
        let tensor = ManagedTensor::from_owner(bytes).unwrap();
        let copy = tensor.to_dlpack_tensor().unwrap();
        assert_eq!(copy.flags(), Flags::IS_COPIED);
        assert_eq!(copy.view().unwrap().as_slice::<i8>().unwrap(), [1, 2]);
        // So the copy of a byte-wide tensor goes to a legacy consumer, which cannot say padding.
        assert!(copy.into_legacy().is_ok());
    }
}
