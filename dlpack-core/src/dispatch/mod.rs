//! Runtime dtype dispatch: a kernel written once, generic over the element type, run with the
//! Rust element type of a runtime [`DataType`] or of a value of your own dtype enum, without a
//! hand-written `match`, and with the compiler proving that the kernel takes every element
//! type the enum can hold.
//!
//! A kernel is a value of your own type that implements [`Kernel<In>`](Kernel) for the
//! inputs it takes: [`Of<T>`] (the element type alone), `&[T]` or `&mut [T]` (a compact view's
//! elements), [`Iter<'_, T>`](crate::tensor::Iter) or [`IterMut<'_, T>`](crate::tensor::IterMut)
//! (a view's elements in any strides). Usually it is one blanket `impl` over the types it can
//! take, bounded by whatever it needs of them:
//!
//! ```
//! use dlpack_core::dispatch::{Dispatch, Kernel, Of};
//! use dlpack_core::{DataType, DlpackDataType, Element};
//!
//! #[derive(Clone, Copy, Debug, DlpackDataType)]
//! enum DType {
//!     #[dlpack("float32")] F32,
//!     #[dlpack("float64")] F64,
//!     #[dlpack("uint8")] U8,
//!     #[dlpack("float8_e4m3fn")] F8E4M3, // no Rust element type
//! }
//!
//! /// The kernel: the bytes `n` elements take, for any element type.
//! struct Bytes(usize);
//! impl<T: Element> Kernel<Of<T>> for Bytes {
//!     type Output = usize;
//!     fn run(self, _: Of<T>) -> usize {
//!         self.0 * size_of::<T>()
//!     }
//! }
//!
//! assert_eq!(DType::F64.dispatch(Bytes(3))?, 24);
//! assert_eq!(DType::U8.dispatch(Bytes(3))?, 3);
//! assert_eq!(DataType::F32.dispatch(Bytes(3))?, 12); // `DataType` dispatches too
//! let err = DType::F8E4M3.dispatch(Bytes(3)).unwrap_err().to_string();
//! assert!(err.ends_with(
//!     "DType::F8E4M3 (float8_e4m3fn) has no Rust element type; \
//!      a dispatch over DType runs kernels on float32, float64, uint8"
//! ));
//! assert_eq!(DType::F8E4M3.dispatch_or(Bytes(3), |_| 3), 3); // or a fallback of yours
//! # Ok::<(), dlpack_core::Error>(())
//! ```
//!
//! # What is proven at compile time
//!
//! `dispatch` on a derived enum requires the kernel to take the element type of **every**
//! variant that has one (see [`Dispatch`] for which do), with one output type for all. A kernel
//! that cannot take one is a compile error that names the variant:
//!
//! ```text
//! error[E0277]: `Mean` cannot run on `DType::U8`, whose elements are `u8`
//! ```
//!
//! A kernel over fewer types runs through an enum of those types, whose coverage is proven in
//! turn: [`dispatch_from`](Dispatch::dispatch_from) reads any dtype value as one of them, and a
//! fallback takes the others. Views dispatch the same way, handing the kernel their elements:
//!
//! ```
//! use dlpack_core::dispatch::{Dispatch, Kernel};
//! use dlpack_core::{DlpackDataType, ManagedTensor};
//!
//! #[derive(Clone, Copy, DlpackDataType)]
//! enum DType {
//!     #[dlpack("float32")] F32,
//!     #[dlpack("float64")] F64,
//!     #[dlpack("int32")] I32,
//! }
//!
//! /// The types `Mean` takes.
//! #[derive(Clone, Copy, DlpackDataType)]
//! enum Float {
//!     #[dlpack("float32")] F32,
//!     #[dlpack("float64")] F64,
//! }
//!
//! /// The mean of a view's elements, for float elements.
//! struct Mean;
//! impl<T: Copy + Into<f64>> Kernel<&[T]> for Mean {
//!     type Output = f64;
//!     fn run(self, x: &[T]) -> f64 {
//!         x.iter().map(|&v| v.into()).sum::<f64>() / x.len() as f64
//!     }
//! }
//!
//! let tensor = ManagedTensor::from_vec(vec![1.0_f32, 2.0, 6.0], &[3])?;
//! let view = tensor.view()?;
//! assert_eq!(Float::dispatch_slice(&view, Mean)?, 3.0); // the view's dtype, as a `Float`
//!
//! // `DType::dispatch_slice(&view, Mean)` does not compile: `Mean` cannot run on `DType::I32`.
//! // A kernel by type alone, over the floats of a `DType`, the rest to the fallback:
//! struct Bytes;
//! impl<T> Kernel<dlpack_core::dispatch::Of<T>> for Bytes {
//!     type Output = usize;
//!     fn run(self, _: dlpack_core::dispatch::Of<T>) -> usize { size_of::<T>() }
//! }
//! assert_eq!(Float::dispatch_from(&DType::F64, Bytes, |_| 0), 8);
//! assert_eq!(Float::dispatch_from(&DType::I32, Bytes, |_| 0), 0);
//! # Ok::<(), dlpack_core::Error>(())
//! ```
//!
//! # Cost
//!
//! A derived enum's dispatch is one `match` on the value, each arm a direct call of the
//! kernel's `run` for that type; `DataType`'s is one `match` on the data type as an integer,
//! as a derived import is. Nothing is allocated on either path, nor on the error path of a
//! value without an element type (its [`Error::NoElement`] holds `'static` data). The
//! benchmarks time it against a hand-written `match` (`benches/`, "dispatch").
//!
//! ```text
//! layers (checked by .ci/check-cycles.py: a module uses only modules on lines below its own)
//! data_type
//! input
//! ```

mod data_type;
mod input;

use core::fmt;
use core::marker::PhantomData;

use crate::DataType;
use crate::convert::DlpackDataType;
use crate::element::Element;
use crate::error::Error;
use crate::tensor::{TensorView, TensorViewMut};

pub use input::{Input, Slice, SliceMut, Strided, StridedMut, TypeOnly};

#[doc(hidden)]
pub use data_type::Reaches;

/// A kernel: what runs once the element type is known, for each input `In` it takes.
///
/// Write one blanket `impl` over the element types a kernel takes, bounded by what it needs of
/// them (`impl<T: Element + Into<f64>> Kernel<&[T]> for Sum`); a dispatch then calls it with
/// the element type of a runtime value. The input says what the kernel receives:
///
/// | `In` | from | the kernel receives |
/// |---|---|---|
/// | [`Of<T>`] | [`Dispatch::dispatch`] on a dtype value | the type alone |
/// | `&[T]` | [`Dispatch::dispatch_slice`] | the elements of a compact view |
/// | [`Iter<'_, T>`](crate::tensor::Iter) | [`Dispatch::dispatch_iter`] | the elements in any strides |
/// | `&mut [T]` | [`Dispatch::dispatch_slice_mut`] | the elements of a compact view, to write |
/// | [`IterMut<'_, T>`](crate::tensor::IterMut) | [`Dispatch::dispatch_iter_mut`] | the elements in any strides, to write |
///
/// ```
/// use dlpack_core::dispatch::{Kernel, Of};
/// use dlpack_core::{DataType, Element, dispatch::Dispatch};
///
/// /// Describes an element type.
/// struct Describe;
/// impl<T: Element> Kernel<Of<T>> for Describe {
///     type Output = String;
///     fn run(self, _: Of<T>) -> String {
///         format!("{} ({} bytes)", core::any::type_name::<T>(), size_of::<T>())
///     }
/// }
/// assert_eq!(DataType::I16.dispatch(Describe)?, "i16 (2 bytes)");
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel over `{In}`",
    label = "`{Self}` does not implement `Kernel<{In}>`",
    note = "a kernel implements `Kernel<In>` for the inputs it takes: `Of<T>` (a dtype's element type), `&[T]`, `&mut [T]`, `Iter<'_, T>` or `IterMut<'_, T>` (a view's elements)"
)]
pub trait Kernel<In> {
    /// What the kernel returns; one type for every input a dispatch can give it.
    type Output;

    /// Runs the kernel on its input.
    ///
    /// ```
    /// use dlpack_core::dispatch::{Kernel, Of};
    ///
    /// struct Zero;
    /// impl<T: Default> Kernel<Of<T>> for Zero {
    ///     type Output = T;
    ///     fn run(self, _: Of<T>) -> T {
    ///         T::default()
    ///     }
    /// }
    /// // Called directly, it is an ordinary method.
    /// assert_eq!(Zero.run(dlpack_core::dispatch::Of::<u8>::new()), 0);
    /// ```
    fn run(self, input: In) -> Self::Output;
}

/// The input of a kernel that needs the element type alone: what [`Dispatch::dispatch`] gives.
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Kernel, Of};
/// use dlpack_core::{DataType, Element};
///
/// /// A zeroed buffer of `n` elements of the dispatched type, as bytes.
/// struct Zeros(usize);
/// impl<T: Element> Kernel<Of<T>> for Zeros {
///     type Output = Vec<u8>;
///     fn run(self, _: Of<T>) -> Vec<u8> {
///         vec![0; self.0 * size_of::<T>()]
///     }
/// }
/// assert_eq!(DataType::U32.dispatch(Zeros(2))?.len(), 8);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub struct Of<T: ?Sized>(PhantomData<fn() -> T>);

impl<T: ?Sized> Of<T> {
    /// The (zero-sized) value.
    ///
    /// ```
    /// let of = dlpack_core::dispatch::Of::<f32>::new();
    /// assert_eq!(size_of_val(&of), 0);
    /// ```
    #[inline(always)]
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<T: ?Sized> Clone for Of<T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Of<T> {}

impl<T: ?Sized> Default for Of<T> {
    #[inline(always)]
    fn default() -> Self {
        Self::new()
    }
}

impl<T: ?Sized> fmt::Debug for Of<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Of<{}>", core::any::type_name::<T>())
    }
}

/// A dtype type whose every element type runs the kernel `K`, each given by the input `P`,
/// with the output `R`: the bound of every dispatch. `#[derive(DlpackDataType)]` implements it
/// for an enum and every kernel that takes the element type of each of its variants (the
/// compiler names a variant a kernel cannot take), and this crate for [`DataType`] and the
/// kernels over every element type it reaches.
///
/// Name it in generic code that hands a kernel on:
///
/// ```
/// use dlpack_core::dispatch::{Dispatch, Kernel, Of, Runs, TypeOnly};
/// use dlpack_core::{DataType, Element, Error};
///
/// fn size_of_dtype<K>(dtype: DataType, kernel: K) -> Result<usize, Error>
/// where
///     DataType: Runs<K, TypeOnly, usize>,
/// {
///     dtype.dispatch(kernel)
/// }
/// struct Size;
/// impl<T: Element> Kernel<Of<T>> for Size {
///     type Output = usize;
///     fn run(self, _: Of<T>) -> usize { size_of::<T>() }
/// }
/// assert_eq!(size_of_dtype(DataType::U16, Size)?, 2);
/// # Ok::<(), Error>(())
/// ```
pub trait Runs<K, P, R> {
    /// Runs `kernel` on the element type of `self`, with its input from `input`.
    #[doc(hidden)]
    fn __run(&self, kernel: K, input: P) -> Result<R, Missed>;
}

/// Why a dispatch did not run its kernel. Not public API.
#[doc(hidden)]
#[derive(Debug)]
pub enum Missed {
    /// The value has no Rust element type: it is described here, for the error.
    NoElement(&'static NoElement),
    /// The value has no DLPack data type (a `skip` variant).
    NoDataType(&'static str),
    /// A data type with no element type, of `DataType` itself.
    Unlisted(DataType),
    /// The input refused the element type (a view that is not compact, say).
    Input(Error),
}

/// A variant without a Rust element type, as the error names it. Not public API.
#[doc(hidden)]
#[derive(Debug)]
pub struct NoElement {
    /// The variant.
    pub variant: &'static str,
    /// Its data type.
    pub data_type: DataType,
}

/// A dtype type that dispatches kernels on its values' element types: [`DataType`], and every
/// enum that derives [`DlpackDataType`](macro@crate::DlpackDataType).
///
/// Each variant's element type is its `#[dlpack(element = T)]`, or else the Rust type that
/// implements [`Element`] for its data type: `bool`, `i8`–`i64`, `u8`–`u64`, `f32`, `f64`,
/// with feature `half` `half::f16` (`float16`) and `half::bf16` (`bfloat16`), with feature
/// `num-complex` `Complex<f32>` (`complex64`) and `Complex<f64>` (`complex128`). A variant
/// with none of these — fp8, fp6 and fp4 types, lanes (`float32x4`), `skip` — reaches the
/// fallback of [`dispatch_or`](Self::dispatch_or), or is an [`Error::NoElement`] naming what the
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

    /// Runs `kernel` with the element type of `self` (its input is [`Of<T>`]).
    ///
    /// Refuses, with an [`Error::NoElement`] that lists what it runs on, a value without a Rust
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
        self.__run(kernel, TypeOnly)
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
        match self.__run(kernel, TypeOnly) {
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
        match narrow.map(|narrow| narrow.__run(kernel, TypeOnly)) {
            Some(Ok(out)) => out,
            _ => fallback(value),
        }
    }

    /// Runs `kernel` on a view's elements as `&'a [T]`, `T` the element type of the view's data
    /// type read as a value of `Self` ([`DataType`] for any): typed access without naming the
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
        Self::from_dlpack_data_type(view.dtype())?
            .__run(kernel, Slice(view))
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
        Self: Runs<K, Strided<'v, 'a>, R>,
    {
        Self::from_dlpack_data_type(view.dtype())?
            .__run(kernel, Strided(view))
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
        Self::from_dlpack_data_type(view.dtype())?
            .__run(kernel, SliceMut(view))
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
        Self: Runs<K, StridedMut<'v, 'a>, R>,
    {
        Self::from_dlpack_data_type(view.dtype())?
            .__run(kernel, StridedMut(view))
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

/// What a variant's type in a dispatch is: an [`Element`], which runs the kernel `K` on the
/// input `P` with the output `R`, or [`NoRustType`], which does not. `V` names the variant
/// (a type named as it is) and `E` its dtype type, for the message of a kernel that cannot
/// take the element type. Not public API.
///
/// Every dispatch bound of a variant is this trait, defined here with its message, rather than
/// a trait of the derive's: the derive's code compiles in crates under
/// `#![no_implicit_prelude]`, where `#[diagnostic::…]` attributes cannot be named.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{K}` cannot run on `{E}::{V}`, whose elements are `{Self}`",
    label = "no `Kernel` over `{Self}` elements with the output `{R}`",
    note = "a dispatch over `{E}` runs the kernel on the element type of each of its variants that has one, with one output type for all",
    note = "a kernel over fewer types runs through an enum of those types, with its `dispatch_from`"
)]
pub trait Slot<K, P, R, V, E: ?Sized> {
    /// Runs the kernel, or reports `missed`.
    fn __go(kernel: K, input: P, missed: &'static NoElement) -> Result<R, Missed>;
}

#[diagnostic::do_not_recommend]
impl<T: Element, K, P: Input<T, K, Output = R>, R, V, E: ?Sized> Slot<K, P, R, V, E> for T {
    #[inline(always)]
    fn __go(kernel: K, input: P, _: &'static NoElement) -> Result<R, Missed> {
        input.__give(kernel).map_err(Missed::Input)
    }
}

/// The type of a variant without a Rust element type (fp8, lanes, or a `half`/`num-complex`
/// type with that feature off). Not public API.
#[doc(hidden)]
pub enum NoRustType {}

impl<K, P, R, V, E: ?Sized> Slot<K, P, R, V, E> for NoRustType {
    #[inline(always)]
    fn __go(_: K, _: P, missed: &'static NoElement) -> Result<R, Missed> {
        Err(Missed::NoElement(missed))
    }
}

/// A variant type's data type, when it is an [`Element`], for the list messages give. Not
/// public API.
#[doc(hidden)]
pub trait MaybeElement {
    /// `Some(T::DATA_TYPE)` for an [`Element`].
    const DATA_TYPE: Option<DataType>;
}

impl<T: Element> MaybeElement for T {
    const DATA_TYPE: Option<DataType> = Some(T::DATA_TYPE);
}

impl MaybeElement for NoRustType {
    const DATA_TYPE: Option<DataType> = None;
}

/// The Rust element type of each named data type whose type is behind a feature, for
/// `#[derive(DlpackDataType)]`'s dispatch: the type, or [`NoRustType`] with the feature off.
/// Not public API.
#[doc(hidden)]
pub mod natural {
    /// `float16`.
    #[cfg(feature = "half")]
    pub type F16 = half::f16;
    /// `float16` (feature `half` off).
    #[cfg(not(feature = "half"))]
    pub type F16 = super::NoRustType;
    /// `bfloat16`.
    #[cfg(feature = "half")]
    pub type BF16 = half::bf16;
    /// `bfloat16` (feature `half` off).
    #[cfg(not(feature = "half"))]
    pub type BF16 = super::NoRustType;
    /// `complex64`.
    #[cfg(feature = "num-complex")]
    pub type C64 = num_complex::Complex<f32>;
    /// `complex64` (feature `num-complex` off).
    #[cfg(not(feature = "num-complex"))]
    pub type C64 = super::NoRustType;
    /// `complex128`.
    #[cfg(feature = "num-complex")]
    pub type C128 = num_complex::Complex<f64>;
    /// `complex128` (feature `num-complex` off).
    #[cfg(not(feature = "num-complex"))]
    pub type C128 = super::NoRustType;
}

#[cfg(test)]
mod tests;
