//! `ndarray` interop (feature `ndarray`): zero-copy `ArrayViewD`/`ArrayViewMutD` of imported
//! tensors, whatever their strides, and zero-copy export of `Array` and `ArcArray`.
//!
//! ```
//! use dlpack_core::ManagedTensor;
//! use ndarray::{ArcArray, Array2, s};
//!
//! // Export an array: zero-copy, strides included (here a transposed view's).
//! let a = Array2::from_shape_vec((2, 3), vec![1_i32, 2, 3, 4, 5, 6]).unwrap();
//! let tensor = ManagedTensor::from_owner(a.reversed_axes())?;
//! let view = tensor.view()?;
//! assert_eq!((view.shape(), view.strides()), (&[3, 2][..], &[1, 3][..]));
//!
//! // Import: an ndarray view of any strides, negative ones included.
//! let array = view.as_array::<i32>()?;
//! assert_eq!(array.slice(s![.., 0]).to_vec(), [1, 2, 3]);
//!
//! // A shared ArcArray is exported READ_ONLY.
//! let shared = ArcArray::from_vec(vec![1.0_f32, 2.0]);
//! let mut tensor = ManagedTensor::from_owner(shared.clone())?;
//! assert!(tensor.view_mut().is_err());
//! # Ok::<(), dlpack_core::Error>(())
//! ```
//!
//! What is checked before an array is made over a tensor's memory: the element type against
//! the tensor's data type, the first element's alignment, every `bool` byte (0 or 1), the
//! layout's extent (validated when the tensor was made), and, for a mutable view, that no two
//! indices reach one element. Any tensor that fails one is an `Err`, never a panic: zero-size
//! and 0-d shapes, zero and negative strides included. An exported `Array` is described by
//! ndarray's own shape and strides over its own buffer.

use alloc::vec::Vec;
use ndarray::{
    ArcArray, Array, ArrayBase, ArrayD, ArrayView, ArrayViewD, ArrayViewMutD, Axis, Data,
    Dimension, IxDyn, ShapeBuilder,
};

use crate::element::Element;
use crate::error::Error;
use crate::tensor::Flags;
use crate::tensor::TensorError;
use crate::tensor::convert::{FromDlpackTensor, ToDlpackTensor, lend_host, with_tensor_view};
use crate::tensor::export::{owner::TensorOwner, parts::TensorParts};
use crate::tensor::import::host::{Walk, check_align, check_bools, check_nested};
use crate::tensor::import::meta::TensorMeta;
use crate::tensor::import::view::TensorView;
use crate::tensor::import::view_mut::TensorViewMut;
use crate::tensor::managed::ManagedTensor;

/// What an `ndarray` view needs: the lowest-addressed element, the shape, the absolute
/// strides, and the axes to invert afterwards (`from_shape_ptr` takes non-negative strides
/// only).
struct Raw {
    low: *mut u8,
    shape: Vec<usize>,
    strides: Vec<usize>,
    inverted: Vec<usize>,
}

/// The checks of typed access (no contiguity needed) and the view's raw parts, or `None` for an
/// empty tensor (see [`empty_shape`]).
fn raw_parts<T: Element>(view: &TensorMeta<'_>) -> Result<Option<Raw>, TensorError> {
    view.check_type::<T>()?;
    let layout = view.layout();
    let Some(first) = view.host_first()? else {
        return Ok(None);
    };
    let shape: Vec<usize> = layout.shape.iter().map(|&d| d as usize).collect();
    check_align::<T>(first)?;
    // SAFETY: the elements' bytes are readable (validated extent, constructor's contract).
    unsafe { check_bools::<T>(first, || Walk::Strided(view.offsets()))? };
    let size = size_of::<T>() as isize;
    let mut low = first;
    let mut strides = Vec::with_capacity(shape.len());
    let mut inverted = Vec::new();
    for (axis, (&d, &s)) in layout.shape.iter().zip(layout.strides.iter()).enumerate() {
        if d <= 1 {
            // The stride of an axis of extent 1 is never followed; it may be anything.
            strides.push(0);
            continue;
        }
        // Validated: |s| * (d - 1) * size <= isize::MAX, so these fit.
        strides.push(s.unsigned_abs() as usize);
        if s < 0 {
            low = low.wrapping_offset(s as isize * (d as isize - 1) * size);
            inverted.push(axis);
        }
    }
    Ok(Some(Raw {
        low,
        shape,
        strides,
        inverted,
    }))
}

/// The shape of an empty tensor, for `ndarray`'s safe constructors over an empty slice, which
/// check nothing an empty array could fail. From a pointer, an empty array would need strides
/// that pass two of `ndarray`'s debug assertions at once: a bound on the offset the strides
/// reach along every axis, empty or not (compact strides for shape `[2^62, 0]` overflow it),
/// and, for a mutable view, a test of overlap that stops at the first axis of extent 0 in
/// stride order (zero strides for shape `[2, 0]` fail it).
fn empty_shape(view: &TensorMeta<'_>) -> IxDyn {
    let shape: Vec<usize> = view.shape().iter().map(|&d| d as usize).collect();
    IxDyn(&shape)
}

/// What `ndarray`'s constructor over an empty slice can refuse: an element count past
/// `isize::MAX`, which validation has refused before.
fn empty_refused(view: &TensorMeta<'_>) -> TensorError {
    TensorError::TooManyElements {
        shape: view.shape().into(),
    }
}

impl<'a> TensorView<'a> {
    /// An `ndarray` view of the elements, zero-copy, for any strides (negative and zero ones
    /// included), with the checks of [`as_slice`](Self::as_slice) apart from contiguity.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// use ndarray::{Array2, array};
    ///
    /// // A transposed array exports its strides; the view reads them back.
    /// let a = Array2::from_shape_vec((2, 3), vec![1_u8, 2, 3, 4, 5, 6]).unwrap();
    /// let tensor = ManagedTensor::from_owner(a.reversed_axes())?;
    /// let array = tensor.view()?.as_array::<u8>()?;
    /// assert_eq!(array, array![[1, 4], [2, 5], [3, 6]].into_dyn());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn as_array<T: Element>(&self) -> Result<ArrayViewD<'a, T>, Error> {
        let Some(raw) = raw_parts::<T>(self)? else {
            let empty = ArrayViewD::from_shape(empty_shape(self), &[]);
            return Ok(empty.map_err(|_| empty_refused(self))?);
        };
        // SAFETY: `low` is the lowest element; with the absolute strides every index reaches
        // an element inside the validated extent (at most isize::MAX bytes, a product of
        // non-zero dimensions at most isize::MAX), aligned, readable and unwritten for 'a.
        let mut array = unsafe {
            ArrayViewD::from_shape_ptr(
                IxDyn(&raw.shape).strides(IxDyn(&raw.strides)),
                raw.low.cast::<T>().cast_const(),
            )
        };
        for axis in raw.inverted {
            array.invert_axis(Axis(axis));
        }
        Ok(array)
    }
}

impl<'a> TensorViewMut<'a> {
    /// A mutable `ndarray` view of the elements for as long as this view is borrowed, for any
    /// strides that nest (negative ones included), as `ndarray` requires of mutable views:
    /// sorted by size, each stride steps past everything the smaller ones reach. A disjoint
    /// layout that does not nest is refused with [`TensorError::NotNested`], and
    /// [`iter_mut`](TensorViewMut::iter_mut) takes it.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    /// use ndarray::Axis;
    ///
    /// let mut tensor = ManagedTensor::from_vec(vec![0_u8; 6], &[2, 3])?;
    /// tensor.view_mut()?.as_array_mut::<u8>()?.index_axis_mut(Axis(0), 1).fill(7);
    /// assert_eq!(tensor.view()?.as_slice::<u8>()?, [0, 0, 0, 7, 7, 7]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn as_array_mut<T: Element>(&mut self) -> Result<ArrayViewMutD<'_, T>, Error> {
        // SAFETY: the memory is exclusively ours for 'a (constructor's contract) and lent out
        // for the borrow of `self`.
        unsafe { array_mut(self) }
    }

    /// A mutable `ndarray` view for the whole lifetime.
    ///
    /// ```
    /// use dlpack_core::ManagedTensor;
    ///
    /// let mut tensor = ManagedTensor::from_vec(vec![1_i32, 2, 3, 4], &[2, 2])?;
    /// // The view is a temporary; the array outlives it.
    /// let mut array = tensor.view_mut()?.into_array_mut::<i32>()?;
    /// array.swap([0, 0], [1, 1]);
    /// assert_eq!(tensor.view()?.as_slice::<i32>()?, [4, 2, 3, 1]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn into_array_mut<T: Element>(self) -> Result<ArrayViewMutD<'a, T>, Error> {
        // SAFETY: as `as_array_mut`, for 'a: `self` is consumed.
        unsafe { array_mut(&self) }
    }
}

/// A mutable `ndarray` view of `view`'s elements.
///
/// # Safety
///
/// The memory is writable and accessed by nobody else for `'b`.
unsafe fn array_mut<'b, T: Element>(view: &TensorMeta<'_>) -> Result<ArrayViewMutD<'b, T>, Error> {
    let layout = view.layout();
    check_nested(layout.shape, &layout.strides)?;
    let Some(raw) = raw_parts::<T>(view)? else {
        let empty = ArrayViewMutD::from_shape(empty_shape(view), &mut []);
        return Ok(empty.map_err(|_| empty_refused(view))?);
    };
    // SAFETY: as in `as_array`, and every index reaches a distinct element (no overlap),
    // writable and exclusively ours for 'b (the caller's contract).
    let mut array = unsafe {
        ArrayViewMutD::from_shape_ptr(
            IxDyn(&raw.shape).strides(IxDyn(&raw.strides)),
            raw.low.cast::<T>(),
        )
    };
    for axis in raw.inverted {
        array.invert_axis(Axis(axis));
    }
    Ok(array)
}

/// Export without a copy, strides included; the consumer may write (the array is ours alone).
///
/// ```
/// use dlpack_core::{ManagedTensor, tensor::Flags};
/// use ndarray::Array;
///
/// let array = Array::from_shape_vec((2, 2), vec![1.0_f32, 2.0, 3.0, 4.0]).unwrap();
/// let address = array.as_ptr();
/// let tensor = ManagedTensor::from_owner(array)?;
/// assert_eq!(tensor.view()?.data_ptr(), address.cast()); // the same memory
/// assert_eq!(tensor.flags(), Flags::EMPTY);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
// SAFETY: an owned array's buffer holds every element its shape and strides reach from
// `as_mut_ptr` (the first element), does not move when the array does, and is freed only when
// the array is dropped; the array is ours alone, so the consumer may write.
unsafe impl<A: Element, D: Dimension + 'static> TensorOwner for Array<A, D> {
    fn describe(&mut self) -> TensorParts<'_> {
        let ptr = self.as_mut_ptr();
        let this = &*self;
        TensorParts::host(ptr, this.shape()).with_strides(this.strides())
    }
}

/// Export without a copy, flagged `READ_ONLY`: other clones may read the data.
///
/// ```
/// use dlpack_core::{ManagedTensor, tensor::Flags};
/// use ndarray::ArcArray;
///
/// let shared = ArcArray::from_vec(vec![1_u8, 2, 3]);
/// let tensor = ManagedTensor::from_owner(shared.clone())?;
/// assert_eq!(tensor.flags(), Flags::READ_ONLY);
/// assert_eq!(tensor.view()?.data_ptr(), shared.as_ptr().cast()); // the same memory
/// # Ok::<(), dlpack_core::Error>(())
/// ```
// SAFETY: as for `Array`, except that other clones may read the data, so the export is
// READ_ONLY and the pointer is taken with `as_ptr`, which does not unshare; no clone can write
// while this one lives (ndarray copies on write when the data is shared).
unsafe impl<A: Element, D: Dimension + 'static> TensorOwner for ArcArray<A, D> {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::host(self.as_ptr().cast_mut(), self.shape())
            .with_strides(self.strides())
            .with_flags(Flags::READ_ONLY)
    }
}

impl<A: Element, D: Dimension + 'static> ToDlpackTensor for Array<A, D> {
    /// A copy, flagged `IS_COPIED`.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, from_dlpack, tensor::Flags};
    /// use ndarray::array;
    ///
    /// let array = array![[1_u8, 2], [3, 4]];
    /// let tensor: ManagedTensor = from_dlpack(&array)?;
    /// assert_eq!(tensor.flags(), Flags::IS_COPIED);
    /// assert_eq!(tensor.view()?.shape(), [2, 2]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
        Ok(ManagedTensor::from_owner_flagged(
            self.to_owned(),
            Flags::IS_COPIED,
        )?)
    }

    /// Lends the array's own elements, with its strides.
    fn lend_view(
        &self,
        read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        lend_array(self, read)
    }
}

impl<A: Element, D: Dimension + 'static> ToDlpackTensor for ArrayView<'_, A, D> {
    /// A copy, flagged `IS_COPIED`.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, from_dlpack};
    /// use ndarray::{array, s};
    ///
    /// let array = array![[1_u8, 2, 3], [4, 5, 6]];
    /// let column: ManagedTensor = from_dlpack(&array.slice(s![.., 1]))?;
    /// assert_eq!(column.view()?.as_slice::<u8>()?, [2, 5]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
        Ok(ManagedTensor::from_owner_flagged(
            self.to_owned(),
            Flags::IS_COPIED,
        )?)
    }

    /// Lends the array's own elements, with its strides.
    fn lend_view(
        &self,
        read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        lend_array(self, read)
    }
}

impl<A: Element, D: Dimension + 'static> ToDlpackTensor for ArcArray<A, D> {
    /// Shares the data (a clone of the `ArcArray`), flagged `READ_ONLY`.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, from_dlpack, tensor::Flags};
    /// use ndarray::ArcArray;
    ///
    /// let shared = ArcArray::from_vec(vec![1_u8, 2, 3]);
    /// let tensor: ManagedTensor = from_dlpack(&shared)?;
    /// assert_eq!(tensor.flags(), Flags::READ_ONLY);
    /// assert_eq!(tensor.view()?.data_ptr(), shared.as_ptr().cast()); // the same memory
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
        ManagedTensor::from_owner(self.clone())
    }

    /// Lends the array's own elements, with its strides.
    fn lend_view(
        &self,
        read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        lend_array(self, read)
    }
}

impl<T: Element> FromDlpackTensor for ArrayD<T> {
    /// The elements copied into an owned array of the same shape.
    ///
    /// ```
    /// use dlpack_core::{ManagedTensor, from_dlpack};
    /// use ndarray::{ArrayD, array};
    ///
    /// let tensor = ManagedTensor::from_vec(vec![1_i64, 2, 3, 4, 5, 6], &[2, 3])?;
    /// let array: ArrayD<i64> = from_dlpack(&tensor)?;
    /// drop(tensor);
    /// assert_eq!(array, array![[1, 2, 3], [4, 5, 6]].into_dyn());
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn from_dlpack_tensor(tensor: ManagedTensor) -> Result<Self, Error> {
        Ok(tensor.view()?.as_array::<T>()?.to_owned())
    }

    /// Copies the source's elements once, from the view it lends.
    fn from_dlpack_source<S: ?Sized + ToDlpackTensor>(source: &S) -> Result<Self, Error> {
        with_tensor_view(source, |view| Ok(view.as_array::<T>()?.to_owned()))
    }
}

/// Lends `read` a view of `array`'s elements where they lie, with its strides.
fn lend_array<S, A, D>(
    array: &ArrayBase<S, D>,
    read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
) -> Result<(), Error>
where
    S: Data<Elem = A>,
    A: Element,
    D: Dimension,
{
    // An array's extent fits isize, so its dimensions and strides fit i64.
    let shape: Vec<i64> = array.shape().iter().map(|&dim| dim as i64).collect();
    let strides: Vec<i64> = array
        .strides()
        .iter()
        .map(|&stride| stride as i64)
        .collect();
    // SAFETY: a shared borrow of the array for the call: its elements, reached from `as_ptr`
    // by its shape and strides, are initialised and unwritten meanwhile (`A: Element` is `Copy`,
    // so it holds no interior mutability, and an `ArcArray` clone elsewhere copies before it
    // writes while this one is shared).
    unsafe {
        lend_host(
            array.as_ptr().cast(),
            A::DATA_TYPE,
            &shape,
            &strides,
            0,
            read,
        )
    }
}
