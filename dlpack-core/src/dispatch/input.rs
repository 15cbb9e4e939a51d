//! [`Input`]: what a dispatch hands the kernel once the element type is known, and the five
//! inputs there are: the type alone, and a view's elements as a slice or in any strides,
//! to read or to write.

use crate::element::Element;
use crate::error::Error;
use crate::tensor::{Iter, IterMut, TensorView, TensorViewMut};

use super::kernel::{Kernel, Of};

/// Where a dispatch takes a kernel's input from, for the element type `T`: the second parameter
/// of [`Runs`](super::Runs). Each method picks one; you name it only in the bound of a function
/// that hands a kernel on (`DataType: Runs<K, TypeOnly, R>`), or in code generic over all five.
///
/// | input | handed by | the kernel gets |
/// |---|---|---|
/// | [`TypeOnly`] | `dispatch`, `dispatch_or`, `dispatch_from` | [`Of<T>`] |
/// | [`Slice`] | `dispatch_slice`; `TensorArg::dispatch_slice` | `&[T]` of a compact view |
/// | [`Iterated`] | `dispatch_iter`; `TensorArg::dispatch_iter` | [`Iter<'_, T>`](Iter) |
/// | [`SliceMut`] | `dispatch_slice_mut`; `TensorArg::dispatch_slice_mut` | `&mut [T]` of a compact view |
/// | [`IteratedMut`] | `dispatch_iter_mut`; `TensorArg::dispatch_iter_mut` | [`IterMut<'_, T>`](IterMut) |
///
/// The methods are [`Dispatch`](super::Dispatch)'s, and `python::TensorArg`'s (feature `pyo3`).
///
/// ```
/// use dlpack_core::dispatch::{Input, Kernel, Of, TypeOnly};
///
/// struct Size;
/// impl<T> Kernel<Of<T>> for Size {
///     type Output = usize;
///     fn run(self, _: Of<T>) -> usize { size_of::<T>() }
/// }
/// fn size<T: dlpack_core::Element, P: Input<T, Size, Output = usize>>(input: P) -> usize {
///     input.give(Size).unwrap()
/// }
/// assert_eq!(size::<u16, _>(TypeOnly), 2);
/// ```
pub trait Input<T, K>: Sized {
    /// What the kernel returns: its `Output`, whichever the input.
    type Output;

    /// Runs `kernel` on the input for `T`; refuses an input that cannot be made (a slice of
    /// a view that is not compact, say).
    ///
    /// ```
    /// use dlpack_core::dispatch::{Input, Kernel, Of, TypeOnly};
    /// struct Name;
    /// impl<T> Kernel<Of<T>> for Name {
    ///     type Output = &'static str;
    ///     fn run(self, _: Of<T>) -> &'static str { core::any::type_name::<T>() }
    /// }
    /// // `TypeOnly` is an input for every `T`: the caller names the one it means.
    /// assert_eq!(Input::<f32, _>::give(TypeOnly, Name)?, "f32");
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn give(self, kernel: K) -> Result<Self::Output, Error>;

    /// [`give`](Self::give), for generated code.
    #[doc(hidden)]
    #[inline(always)]
    fn __give(self, kernel: K) -> Result<Self::Output, Error> {
        self.give(kernel)
    }
}

/// The element type alone: the kernel gets [`Of<T>`]. Handed by
/// [`Dispatch::dispatch`](super::Dispatch::dispatch), [`dispatch_or`](super::Dispatch::dispatch_or)
/// and [`dispatch_from`](super::Dispatch::dispatch_from); you write it in the bound of a
/// function that hands a kernel on:
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Runs, TypeOnly};
/// use dlpack_core::{DataType, Error};
///
/// fn bits<K>(dtype: DataType, kernel: K) -> Result<u32, Error>
/// where
///     DataType: Runs<K, TypeOnly, u32>,
/// {
///     dtype.dispatch(kernel)
/// }
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct TypeOnly;

/// The kernel gets `Of<T>`.
impl<T: Element, K: Kernel<Of<T>>> Input<T, K> for TypeOnly {
    type Output = K::Output;

    #[inline(always)]
    fn give(self, kernel: K) -> Result<K::Output, Error> {
        Ok(kernel.run(Of::new()))
    }
}

/// A compact view's elements: the kernel gets `&'a [T]` (other views are refused, as
/// [`as_slice`](TensorView::as_slice) refuses them). Handed by
/// [`Dispatch::dispatch_slice`](super::Dispatch::dispatch_slice) and `python::TensorArg::dispatch_slice`;
/// a function that hands a kernel on bounds it for every borrow of the view:
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Runs, Slice};
/// use dlpack_core::{DataType, Error, TensorView};
///
/// fn total<'a, K>(view: &TensorView<'a>, kernel: K) -> Result<f64, Error>
/// where
///     DataType: for<'v> Runs<K, Slice<'v, 'a>, f64>,
/// {
///     DataType::dispatch_slice(view, kernel)
/// }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Slice<'v, 'a>(pub(crate) &'v TensorView<'a>);

/// The kernel gets the view's `&'a [T]`, as [`TensorView::as_slice`] gives it.
impl<'a, T: Element, K: Kernel<&'a [T]>> Input<T, K> for Slice<'_, 'a> {
    type Output = K::Output;

    #[inline(always)]
    fn give(self, kernel: K) -> Result<K::Output, Error> {
        Ok(kernel.run(self.0.as_slice::<T>()?))
    }
}

/// A view's elements in row-major order, in any strides: the kernel gets
/// [`Iter<'a, T>`](Iter). Handed by [`Dispatch::dispatch_iter`](super::Dispatch::dispatch_iter)
/// and `python::TensorArg::dispatch_iter`:
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Runs, Iterated};
/// use dlpack_core::{DataType, Error, TensorView};
///
/// fn count<'a, K>(view: &TensorView<'a>, kernel: K) -> Result<usize, Error>
/// where
///     DataType: for<'v> Runs<K, Iterated<'v, 'a>, usize>,
/// {
///     DataType::dispatch_iter(view, kernel)
/// }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Iterated<'v, 'a>(pub(crate) &'v TensorView<'a>);

/// The kernel gets the view's [`Iter<'a, T>`](Iter), as [`TensorView::iter`] gives it.
impl<'a, T: Element, K: Kernel<Iter<'a, T>>> Input<T, K> for Iterated<'_, 'a> {
    type Output = K::Output;

    #[inline(always)]
    fn give(self, kernel: K) -> Result<K::Output, Error> {
        Ok(kernel.run(self.0.iter::<T>()?))
    }
}

/// A compact view's elements, to write: the kernel gets `&'v mut [T]`. Handed by
/// [`Dispatch::dispatch_slice_mut`](super::Dispatch::dispatch_slice_mut) and
/// `python::TensorArg::dispatch_slice_mut`:
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Runs, SliceMut};
/// use dlpack_core::{DataType, Error, TensorViewMut};
///
/// fn in_place<K>(view: &mut TensorViewMut<'_>, kernel: K) -> Result<(), Error>
/// where
///     DataType: for<'v, 'a> Runs<K, SliceMut<'v, 'a>, ()>,
/// {
///     DataType::dispatch_slice_mut(view, kernel)
/// }
/// ```
#[derive(Debug)]
pub struct SliceMut<'v, 'a>(pub(crate) &'v mut TensorViewMut<'a>);

/// The kernel gets the view's `&'v mut [T]`, as [`TensorViewMut::as_slice_mut`] gives it.
impl<'v, T: Element, K: Kernel<&'v mut [T]>> Input<T, K> for SliceMut<'v, '_> {
    type Output = K::Output;

    #[inline(always)]
    fn give(self, kernel: K) -> Result<K::Output, Error> {
        Ok(kernel.run(self.0.as_slice_mut::<T>()?))
    }
}

/// A view's elements in any strides that reach each one once, to write: the kernel gets
/// [`IterMut<'v, T>`](IterMut). Handed by
/// [`Dispatch::dispatch_iter_mut`](super::Dispatch::dispatch_iter_mut) and
/// `python::TensorArg::dispatch_iter_mut`:
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Runs, IteratedMut};
/// use dlpack_core::{DataType, Error, TensorViewMut};
///
/// fn in_place<K>(view: &mut TensorViewMut<'_>, kernel: K) -> Result<(), Error>
/// where
///     DataType: for<'v, 'a> Runs<K, IteratedMut<'v, 'a>, ()>,
/// {
///     DataType::dispatch_iter_mut(view, kernel)
/// }
/// ```
#[derive(Debug)]
pub struct IteratedMut<'v, 'a>(pub(crate) &'v mut TensorViewMut<'a>);

/// The kernel gets the view's [`IterMut<'v, T>`](IterMut), as [`TensorViewMut::iter_mut`]
/// gives it.
impl<'v, T: Element, K: Kernel<IterMut<'v, T>>> Input<T, K> for IteratedMut<'v, '_> {
    type Output = K::Output;

    #[inline(always)]
    fn give(self, kernel: K) -> Result<K::Output, Error> {
        Ok(kernel.run(self.0.iter_mut::<T>()?))
    }
}
