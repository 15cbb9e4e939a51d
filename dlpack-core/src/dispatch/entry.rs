//! [`Dispatch`]: what a user calls, on a dtype value or with a view.

use crate::DataType;
use crate::convert::DlpackDataType;
use crate::error::Error;
use crate::tensor::{TensorView, TensorViewMut};

use super::input::{Iterated, IteratedMut, Slice, SliceMut, TypeOnly};
use super::kernel::{Missed, Runs};

/// A dtype type that dispatches kernels on its values' element types: [`DataType`](crate::DataType), and every
/// enum that derives [`DlpackDataType`](macro@crate::DlpackDataType).
///
/// Each variant's element type is its `#[dlpack(element = T)]`, or else the Rust type that
/// implements [`Element`](crate::Element) for its data type: `bool`, `i8`–`i64`, `u8`–`u64`, `f32`, `f64`,
/// with feature `half` `half::f16` (`float16`) and `half::bf16` (`bfloat16`), with feature
/// `num-complex` `Complex<f32>` (`complex64`) and `Complex<f64>` (`complex128`). A variant
/// with none of these — fp8, fp6 and fp4 types, lanes (`float32x4`), `skip` — reaches the
/// fallback of [`dispatch_or`](Self::dispatch_or), or is an [`Error::NoElement`](crate::Error::NoElement) naming what the
/// dispatch runs on. A variant that delegates (`Bool(#[dlpack(delegate)] BoolStore)`)
/// dispatches through its field's type, which must then implement `Dispatch` too.
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Kernel, Of};
/// use dlpack_core::{DataType, Element};
///
/// struct Name;
/// impl<T: Element> Kernel<Of<T>> for Name {
///     type Output = &'static str;
///     fn run(self, _: Of<T>) -> &'static str { core::any::type_name::<T>() }
/// }
/// assert_eq!(DataType::BOOL.dispatch(Name)?, "bool");
/// assert!(DataType::FLOAT8_E5M2.dispatch(Name).is_err());
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub trait Dispatch: DlpackDataType {
    /// The data types this type's dispatch runs kernels on (for messages). Not public API.
    #[doc(hidden)]
    const __ELEMENTS: &'static [Option<DataType>];

    /// Runs `kernel` with the element type of `self` (its input is [`Of<T>`](super::Of)).
    ///
    /// Refuses, with an [`Error::NoElement`](crate::Error::NoElement) that lists what it runs on, a value without a Rust
    /// element type; allocates nothing.
    ///
    /// ```
    /// use dlpack_core::dispatch::{Dispatch, Kernel, Of};
    /// use dlpack_core::{DataType, Element};
    ///
    /// struct Max;
    /// impl<T: Element> Kernel<Of<T>> for Max {
    ///     type Output = u32;
    ///     fn run(self, _: Of<T>) -> u32 { T::DATA_TYPE.bits.into() }
    /// }
    /// assert_eq!(DataType::U16.dispatch(Max)?, 16);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    fn dispatch<K, R>(&self, kernel: K) -> Result<R, Error>
    where
        Self: Runs<K, TypeOnly, R>,
    {
        <Self as Runs<K, TypeOnly, R>>::__run(self, kernel, TypeOnly)
            .map_err(|missed| missed_error::<Self>(missed))
    }

    /// As [`dispatch`](Self::dispatch), with `fallback` called instead of the error for a
    /// value without a Rust element type.
    ///
    /// ```
    /// use dlpack_core::dispatch::{Dispatch, Kernel, Of};
    /// use dlpack_core::{DataType, Element};
    ///
    /// struct Bits;
    /// impl<T: Element> Kernel<Of<T>> for Bits {
    ///     type Output = usize;
    ///     fn run(self, _: Of<T>) -> usize { 8 * size_of::<T>() }
    /// }
    /// let bits = |dtype: DataType| dtype.dispatch_or(Bits, |other| other.size_in_bits() as usize);
    /// assert_eq!(bits(DataType::F64), 64);
    /// assert_eq!(bits(DataType::FLOAT4_E2M1FN), 4);
    /// ```
    #[inline]
    fn dispatch_or<K, R>(&self, kernel: K, fallback: impl FnOnce(&Self) -> R) -> R
    where
        Self: Runs<K, TypeOnly, R>,
    {
        match <Self as Runs<K, TypeOnly, R>>::__run(self, kernel, TypeOnly) {
            Ok(out) => out,
            Err(_) => fallback(self),
        }
    }

    /// Runs `kernel` with the element type of `value`, a value of any dtype type, read as a
    /// value of `Self`: the way to run a kernel over fewer types than `value`'s type has (an
    /// enum of those it takes). A value `Self` has no value for, or one without an element
    /// type, goes to `fallback`. The kernel must take every element type of `Self`.
    ///
    /// ```
    /// use dlpack_core::dispatch::{Dispatch, Kernel, Of};
    /// use dlpack_core::{DataType, DlpackDataType};
    ///
    /// /// The integer types `IntMax` takes.
    /// #[derive(Clone, Copy, DlpackDataType)]
    /// enum Int {
    ///     #[dlpack("int32")] I32,
    ///     #[dlpack("int64")] I64,
    /// }
    /// /// The largest value of an integer type.
    /// struct IntMax;
    /// impl<T: Bounded> Kernel<Of<T>> for IntMax {
    ///     type Output = i128;
    ///     fn run(self, _: Of<T>) -> i128 { T::MAX }
    /// }
    /// trait Bounded { const MAX: i128; }
    /// impl Bounded for i32 { const MAX: i128 = i32::MAX as i128; }
    /// impl Bounded for i64 { const MAX: i128 = i64::MAX as i128; }
    ///
    /// assert_eq!(Int::dispatch_from(&DataType::I32, IntMax, |_| -1), i128::from(i32::MAX));
    /// assert_eq!(Int::dispatch_from(&DataType::F32, IntMax, |_| -1), -1);
    /// ```
    #[inline]
    fn dispatch_from<V, K, R>(value: &V, kernel: K, fallback: impl FnOnce(&V) -> R) -> R
    where
        V: DlpackDataType,
        Self: Runs<K, TypeOnly, R>,
    {
        let narrow = value
            .dlpack_data_type()
            .ok()
            .and_then(|data_type| Self::from_dlpack_data_type(data_type).ok());
        match narrow.map(|narrow| <Self as Runs<K, TypeOnly, R>>::__run(&narrow, kernel, TypeOnly))
        {
            Some(Ok(out)) => out,
            _ => fallback(value),
        }
    }

    /// Runs `kernel` on a view's elements as `&'a [T]`, `T` the element type of the view's data
    /// type read as a value of `Self` ([`DataType`](crate::DataType) for any): typed access without naming the
    /// type. The kernel must take every element type of `Self`.
    ///
    /// Refuses a data type `Self` has no value for, one without a Rust element type, and what
    /// [`as_slice`](TensorView::as_slice) refuses (strides that are not compact, a device the
    /// CPU cannot read; [`dispatch_iter`](Self::dispatch_iter) takes any strides).
    ///
    /// ```
    /// use dlpack_core::dispatch::{Dispatch, Kernel};
    /// use dlpack_core::{DlpackDataType, ManagedTensor};
    ///
    /// #[derive(Clone, Copy, DlpackDataType)]
    /// enum DType { #[dlpack("float32")] F32, #[dlpack("int64")] I64 }
    ///
    /// /// The largest element, as text: one kernel for every type of `DType`.
    /// struct Max;
    /// impl<T: Copy + PartialOrd + ToString> Kernel<&[T]> for Max {
    ///     type Output = Option<String>;
    ///     fn run(self, x: &[T]) -> Option<String> {
    ///         x.iter().copied().reduce(|a, b| if b > a { b } else { a }).map(|m| m.to_string())
    ///     }
    /// }
    /// let floats = ManagedTensor::from_vec(vec![1.5_f32, 4.5, 2.0], &[3])?;
    /// assert_eq!(DType::dispatch_slice(&floats.view()?, Max)?.as_deref(), Some("4.5"));
    /// let ints = ManagedTensor::from_vec(vec![7_i64, -1], &[2])?;
    /// assert_eq!(DType::dispatch_slice(&ints.view()?, Max)?.as_deref(), Some("7"));
    /// let bytes = ManagedTensor::from_vec(vec![7_u8], &[1])?;
    /// assert!(DType::dispatch_slice(&bytes.view()?, Max).is_err()); // no `DType` is uint8
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    fn dispatch_slice<'v, 'a, K, R>(view: &'v TensorView<'a>, kernel: K) -> Result<R, Error>
    where
        Self: Runs<K, Slice<'v, 'a>, R>,
    {
        let value = Self::from_dlpack_data_type(view.dtype())?;
        <Self as Runs<K, Slice<'v, 'a>, R>>::__run(&value, kernel, Slice(view))
            .map_err(missed_error::<Self>)
    }

    /// Runs `kernel` on a view's elements as an [`Iter<'a, T>`](crate::tensor::Iter), in
    /// row-major order and any strides, `T` as for [`dispatch_slice`](Self::dispatch_slice).
    ///
    /// ```
    /// use dlpack_core::dispatch::{Dispatch, Kernel};
    /// use dlpack_core::tensor::{Iter, TensorOwner, TensorParts};
    /// use dlpack_core::{DataType, ManagedTensor};
    ///
    /// /// A 2 × 2 matrix stored column-major.
    /// struct ColumnMajor(Vec<u16>);
    /// // SAFETY: the Vec holds the 4 elements the shape and strides reach, owned by us alone.
    /// unsafe impl TensorOwner for ColumnMajor {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         TensorParts::host(self.0.as_mut_ptr(), &[2_usize, 2]).with_strides(&[1_i64, 2])
    ///     }
    /// }
    /// /// The elements, in row-major order, as text.
    /// struct Show;
    /// impl<T: dlpack_core::Element + core::fmt::Debug> Kernel<Iter<'_, T>> for Show {
    ///     type Output = String;
    ///     fn run(self, x: Iter<'_, T>) -> String { format!("{:?}", x.collect::<Vec<_>>()) }
    /// }
    /// let tensor = ManagedTensor::from_owner(ColumnMajor(vec![1, 3, 2, 4]))?;
    /// assert_eq!(DataType::dispatch_iter(&tensor.view()?, Show)?, "[1, 2, 3, 4]");
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    fn dispatch_iter<'v, 'a, K, R>(view: &'v TensorView<'a>, kernel: K) -> Result<R, Error>
    where
        Self: Runs<K, Iterated<'v, 'a>, R>,
    {
        let value = Self::from_dlpack_data_type(view.dtype())?;
        <Self as Runs<K, Iterated<'v, 'a>, R>>::__run(&value, kernel, Iterated(view))
            .map_err(missed_error::<Self>)
    }

    /// Runs `kernel` on a view's elements as `&mut [T]`, with the checks of
    /// [`as_slice_mut`](TensorViewMut::as_slice_mut), `T` as for
    /// [`dispatch_slice`](Self::dispatch_slice).
    ///
    /// ```
    /// use dlpack_core::dispatch::{Dispatch, Kernel};
    /// use dlpack_core::{DlpackDataType, ManagedTensor};
    ///
    /// /// Sorts the elements, for every totally ordered element type.
    /// struct Sort;
    /// impl<T: Ord> Kernel<&mut [T]> for Sort {
    ///     type Output = ();
    ///     fn run(self, x: &mut [T]) { x.sort() }
    /// }
    /// #[derive(Clone, Copy, DlpackDataType)]
    /// enum Int { #[dlpack("int32")] I32, #[dlpack("uint8")] U8 }
    ///
    /// let mut tensor = ManagedTensor::from_vec(vec![3_i32, 1, 2], &[3])?;
    /// Int::dispatch_slice_mut(&mut tensor.view_mut()?, Sort)?;
    /// assert_eq!(tensor.view()?.as_slice::<i32>()?, [1, 2, 3]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    fn dispatch_slice_mut<'v, 'a, K, R>(
        view: &'v mut TensorViewMut<'a>,
        kernel: K,
    ) -> Result<R, Error>
    where
        Self: Runs<K, SliceMut<'v, 'a>, R>,
    {
        let value = Self::from_dlpack_data_type(view.dtype())?;
        <Self as Runs<K, SliceMut<'v, 'a>, R>>::__run(&value, kernel, SliceMut(view))
            .map_err(missed_error::<Self>)
    }

    /// Runs `kernel` on a view's elements as an [`IterMut<'_, T>`](crate::tensor::IterMut),
    /// with the checks of [`iter_mut`](TensorViewMut::iter_mut), `T` as for
    /// [`dispatch_slice`](Self::dispatch_slice).
    ///
    /// ```
    /// use dlpack_core::dispatch::{Dispatch, Kernel};
    /// use dlpack_core::tensor::IterMut;
    /// use dlpack_core::{DlpackDataType, ManagedTensor};
    ///
    /// /// Sets every element to its index, for every element type that converts from a `u8`.
    /// struct Iota;
    /// impl<T: dlpack_core::Element + From<u8>> Kernel<IterMut<'_, T>> for Iota {
    ///     type Output = ();
    ///     fn run(self, x: IterMut<'_, T>) {
    ///         x.zip(0..).for_each(|(v, i)| *v = T::from(i))
    ///     }
    /// }
    /// #[derive(Clone, Copy, DlpackDataType)]
    /// enum Wide { #[dlpack("float64")] F64, #[dlpack("int64")] I64 }
    ///
    /// let mut tensor = ManagedTensor::from_vec(vec![0.0_f64; 3], &[3])?;
    /// Wide::dispatch_iter_mut(&mut tensor.view_mut()?, Iota)?;
    /// assert_eq!(tensor.view()?.as_slice::<f64>()?, [0.0, 1.0, 2.0]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[inline]
    fn dispatch_iter_mut<'v, 'a, K, R>(
        view: &'v mut TensorViewMut<'a>,
        kernel: K,
    ) -> Result<R, Error>
    where
        Self: Runs<K, IteratedMut<'v, 'a>, R>,
    {
        let value = Self::from_dlpack_data_type(view.dtype())?;
        <Self as Runs<K, IteratedMut<'v, 'a>, R>>::__run(&value, kernel, IteratedMut(view))
            .map_err(missed_error::<Self>)
    }
}

/// The error for a dispatch of a value of `E` that did not run.
#[cold]
#[inline(never)]
pub(crate) fn missed_error<E: Dispatch>(missed: Missed) -> Error {
    let (variant, data_type) = match missed {
        Missed::Input(err) => return err,
        Missed::NoElement(no) => (Some(no.variant), Some(no.data_type)),
        Missed::NoDataType(variant) => (Some(variant), None),
        Missed::Unlisted(data_type) => (None, Some(data_type)),
    };
    Error::NoElement {
        type_name: core::any::type_name::<E>(),
        variant,
        data_type,
        handled: E::__ELEMENTS,
    }
}
