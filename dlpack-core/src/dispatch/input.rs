//! [`Input`]: what a dispatch hands the kernel once the element type is known, and the five
//! inputs there are: the type alone, and a view's elements as a slice or in any strides,
//! to read or to write.

use crate::element::Element;
use crate::error::Error;
use crate::tensor::{Iter, IterMut, TensorView, TensorViewMut};

use super::kernel::{Kernel, Of};

/// Where a dispatch takes a kernel's input from, for the element type `T`: the second parameter
/// of [`Runs`](super::Runs). Implemented by [`TypeOnly`], [`Slice`], [`SliceMut`], [`Iterated`]
/// and [`IteratedMut`], each for the kernels over its input; you name it only in generic code.
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
    /// What the kernel returns.
    ///
    /// ```
    /// use dlpack_core::dispatch::{Input, Kernel, Of, TypeOnly};
    /// struct One;
    /// impl<T> Kernel<Of<T>> for One {
    ///     type Output = u8;
    ///     fn run(self, _: Of<T>) -> u8 { 1 }
    /// }
    /// let one: <TypeOnly as Input<f64, One>>::Output = <TypeOnly as Input<f64, One>>::give(TypeOnly, One)?;
    /// assert_eq!(one, 1);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
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
    /// assert_eq!(<TypeOnly as Input<f32, Name>>::give(TypeOnly, Name)?, "f32");
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

/// The input of [`Dispatch::dispatch`](super::Dispatch::dispatch): the kernel gets [`Of<T>`],
/// the element type alone.
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Kernel, Of, Runs, TypeOnly};
/// use dlpack_core::DataType;
///
/// fn bits<K>(dtype: DataType, kernel: K) -> u32 where DataType: Runs<K, TypeOnly, u32> {
///     dtype.dispatch_or(kernel, |_| 0)
/// }
/// struct Bits;
/// impl<T: dlpack_core::Element> Kernel<Of<T>> for Bits {
///     type Output = u32;
///     fn run(self, _: Of<T>) -> u32 { T::DATA_TYPE.bits.into() }
/// }
/// assert_eq!(bits(DataType::I64, Bits), 64);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct TypeOnly;

/// The kernel gets `Of<T>`.
///
/// ```
/// use dlpack_core::dispatch::{Input, Kernel, Of, TypeOnly};
/// struct Size;
/// impl<T> Kernel<Of<T>> for Size {
///     type Output = usize;
///     fn run(self, _: Of<T>) -> usize { size_of::<T>() }
/// }
/// assert_eq!(<TypeOnly as Input<u32, Size>>::give(TypeOnly, Size)?, 4);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<T: Element, K: Kernel<Of<T>>> Input<T, K> for TypeOnly {
    type Output = K::Output;

    #[inline(always)]
    fn give(self, kernel: K) -> Result<K::Output, Error> {
        Ok(kernel.run(Of::new()))
    }
}

/// The input of [`Dispatch::dispatch_slice`](super::Dispatch::dispatch_slice): the kernel gets
/// `&'a [T]`, the elements of a compact view (others are refused, as
/// [`as_slice`](TensorView::as_slice) refuses them).
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Kernel, Runs, Slice};
/// use dlpack_core::{DlpackDataType, ManagedTensor, TensorView};
///
/// #[derive(Clone, Copy, DlpackDataType)]
/// enum Real { #[dlpack("float32")] F32, #[dlpack("float64")] F64, #[dlpack("uint8")] U8 }
///
/// fn total<'a, K>(view: &TensorView<'a>, kernel: K) -> f64
/// where
///     Real: for<'v> Runs<K, Slice<'v, 'a>, f64>,
/// {
///     Real::dispatch_slice(view, kernel).unwrap_or(f64::NAN)
/// }
/// struct Sum;
/// impl<T: Copy + Into<f64>> Kernel<&[T]> for Sum {
///     type Output = f64;
///     fn run(self, x: &[T]) -> f64 { x.iter().map(|&v| v.into()).sum() }
/// }
/// let tensor = ManagedTensor::from_vec(vec![1_u8, 2, 3], &[3])?;
/// assert_eq!(total(&tensor.view()?, Sum), 6.0);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Slice<'v, 'a>(pub(crate) &'v TensorView<'a>);

/// The kernel gets the view's `&'a [T]`, as [`TensorView::as_slice`] gives it.
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Kernel};
/// use dlpack_core::{DataType, ManagedTensor};
/// struct Len;
/// impl<T> Kernel<&[T]> for Len {
///     type Output = usize;
///     fn run(self, x: &[T]) -> usize { x.len() }
/// }
/// let tensor = ManagedTensor::from_vec(vec![0_u16; 3], &[3])?;
/// assert_eq!(DataType::dispatch_slice(&tensor.view()?, Len)?, 3);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<'a, T: Element, K: Kernel<&'a [T]>> Input<T, K> for Slice<'_, 'a> {
    type Output = K::Output;

    #[inline(always)]
    fn give(self, kernel: K) -> Result<K::Output, Error> {
        Ok(kernel.run(self.0.as_slice::<T>()?))
    }
}

/// The input of [`Dispatch::dispatch_iter`](super::Dispatch::dispatch_iter): the kernel
/// gets [`Iter<'a, T>`](Iter), the elements in row-major order, in any strides.
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Kernel, Runs, Iterated};
/// use dlpack_core::{DlpackDataType, ManagedTensor, TensorView, tensor::Iter};
///
/// #[derive(Clone, Copy, DlpackDataType)]
/// enum Int { #[dlpack("int16")] I16, #[dlpack("int32")] I32 }
///
/// struct Count;
/// impl<T: dlpack_core::Element> Kernel<Iter<'_, T>> for Count {
///     type Output = usize;
///     fn run(self, x: Iter<'_, T>) -> usize { x.len() }
/// }
/// fn count<'a, K>(view: &TensorView<'a>, kernel: K) -> usize
/// where
///     Int: for<'v> Runs<K, Iterated<'v, 'a>, usize>,
/// {
///     Int::dispatch_iter(view, kernel).unwrap_or(0)
/// }
/// let tensor = ManagedTensor::from_vec(vec![1_i16, 2, 3, 4], &[2, 2])?;
/// assert_eq!(count(&tensor.view()?, Count), 4);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Iterated<'v, 'a>(pub(crate) &'v TensorView<'a>);

/// The kernel gets the view's [`Iter<'a, T>`](Iter), as [`TensorView::iter`] gives it.
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Kernel};
/// use dlpack_core::{DataType, Element, ManagedTensor, tensor::Iter};
/// struct Len;
/// impl<T: Element> Kernel<Iter<'_, T>> for Len {
///     type Output = usize;
///     fn run(self, x: Iter<'_, T>) -> usize { x.len() }
/// }
/// let tensor = ManagedTensor::from_vec(vec![0_i8; 4], &[2, 2])?;
/// assert_eq!(DataType::dispatch_iter(&tensor.view()?, Len)?, 4);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<'a, T: Element, K: Kernel<Iter<'a, T>>> Input<T, K> for Iterated<'_, 'a> {
    type Output = K::Output;

    #[inline(always)]
    fn give(self, kernel: K) -> Result<K::Output, Error> {
        Ok(kernel.run(self.0.iter::<T>()?))
    }
}

/// The input of [`Dispatch::dispatch_slice_mut`](super::Dispatch::dispatch_slice_mut): the kernel gets
/// `&'v mut [T]`, the elements of a compact view, to write.
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Kernel, Runs, SliceMut};
/// use dlpack_core::{DataType, ManagedTensor, TensorViewMut};
///
/// struct Reverse;
/// impl<T> Kernel<&mut [T]> for Reverse {
///     type Output = ();
///     fn run(self, x: &mut [T]) { x.reverse() }
/// }
/// fn reverse<K>(view: &mut TensorViewMut<'_>, kernel: K)
/// where
///     DataType: for<'v, 'a> Runs<K, SliceMut<'v, 'a>, ()>,
/// {
///     DataType::dispatch_slice_mut(view, kernel).unwrap();
/// }
/// let mut tensor = ManagedTensor::from_vec(vec![1_u32, 2, 3], &[3])?;
/// reverse(&mut tensor.view_mut()?, Reverse);
/// assert_eq!(tensor.view()?.as_slice::<u32>()?, [3, 2, 1]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[derive(Debug)]
pub struct SliceMut<'v, 'a>(pub(crate) &'v mut TensorViewMut<'a>);

/// The kernel gets the view's `&'v mut [T]`, as [`TensorViewMut::as_slice_mut`] gives it.
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Kernel};
/// use dlpack_core::{DataType, ManagedTensor};
/// struct Zero;
/// impl<T: Default> Kernel<&mut [T]> for Zero {
///     type Output = ();
///     fn run(self, x: &mut [T]) { x.fill_with(T::default) }
/// }
/// let mut tensor = ManagedTensor::from_vec(vec![5_u8; 2], &[2])?;
/// DataType::dispatch_slice_mut(&mut tensor.view_mut()?, Zero)?;
/// assert_eq!(tensor.view()?.as_slice::<u8>()?, [0, 0]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<'v, T: Element, K: Kernel<&'v mut [T]>> Input<T, K> for SliceMut<'v, '_> {
    type Output = K::Output;

    #[inline(always)]
    fn give(self, kernel: K) -> Result<K::Output, Error> {
        Ok(kernel.run(self.0.as_slice_mut::<T>()?))
    }
}

/// The input of [`Dispatch::dispatch_iter_mut`](super::Dispatch::dispatch_iter_mut): the
/// kernel gets [`IterMut<'v, T>`](IterMut), the elements in any strides that reach each one
/// once, to write.
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Kernel, Runs, IteratedMut};
/// use dlpack_core::{DataType, ManagedTensor};
/// use dlpack_core::tensor::IterMut;
///
/// struct Fill;
/// impl<T: dlpack_core::Element + Default> Kernel<IterMut<'_, T>> for Fill {
///     type Output = ();
///     fn run(self, x: IterMut<'_, T>) { x.for_each(|v| *v = T::default()) }
/// }
/// let mut tensor = ManagedTensor::from_vec(vec![1_i8, 2], &[2])?;
/// DataType::dispatch_iter_mut(&mut tensor.view_mut()?, Fill)?;
/// assert_eq!(tensor.view()?.as_slice::<i8>()?, [0, 0]);
/// fn takes<K>(_: K) where DataType: for<'v, 'a> Runs<K, IteratedMut<'v, 'a>, ()> {}
/// takes(Fill);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[derive(Debug)]
pub struct IteratedMut<'v, 'a>(pub(crate) &'v mut TensorViewMut<'a>);

/// The kernel gets the view's [`IterMut<'v, T>`](IterMut), as [`TensorViewMut::iter_mut`]
/// gives it.
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Kernel};
/// use dlpack_core::{DataType, Element, ManagedTensor, tensor::IterMut};
/// struct Reset;
/// impl<T: Element + Default> Kernel<IterMut<'_, T>> for Reset {
///     type Output = ();
///     fn run(self, x: IterMut<'_, T>) { x.for_each(|v| *v = T::default()) }
/// }
/// let mut tensor = ManagedTensor::from_vec(vec![7_u32; 2], &[2])?;
/// DataType::dispatch_iter_mut(&mut tensor.view_mut()?, Reset)?;
/// assert_eq!(tensor.view()?.as_slice::<u32>()?, [0, 0]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<'v, T: Element, K: Kernel<IterMut<'v, T>>> Input<T, K> for IteratedMut<'v, '_> {
    type Output = K::Output;

    #[inline(always)]
    fn give(self, kernel: K) -> Result<K::Output, Error> {
        Ok(kernel.run(self.0.iter_mut::<T>()?))
    }
}
