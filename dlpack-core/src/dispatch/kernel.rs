//! What a kernel is ([`Kernel`], its input [`Of`]), the bound of every dispatch ([`Runs`]), and
//! what a dispatch that did not run reports ([`Missed`]).

use core::fmt;
use core::marker::PhantomData;

use crate::DataType;
use crate::error::Error;

/// A kernel: what runs once the element type is known, for each input `In` it takes.
///
/// Write one blanket `impl` over the element types a kernel takes, bounded by what it needs of
/// them (`impl<T: Element + Into<f64>> Kernel<&[T]> for Sum`); a dispatch then calls it with
/// the element type of a runtime value. The input says what the kernel receives:
///
/// | `In` | from | the kernel receives |
/// |---|---|---|
/// | [`Of<T>`] | [`Dispatch::dispatch`](super::Dispatch::dispatch) on a dtype value | the type alone |
/// | `&[T]` | [`Dispatch::dispatch_slice`](super::Dispatch::dispatch_slice) | the elements of a compact view |
/// | [`Iter<'_, T>`](crate::tensor::Iter) | [`Dispatch::dispatch_iter`](super::Dispatch::dispatch_iter) | the elements in any strides |
/// | `&mut [T]` | [`Dispatch::dispatch_slice_mut`](super::Dispatch::dispatch_slice_mut) | the elements of a compact view, to write |
/// | [`IterMut<'_, T>`](crate::tensor::IterMut) | [`Dispatch::dispatch_iter_mut`](super::Dispatch::dispatch_iter_mut) | the elements in any strides, to write |
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
    ///
    /// ```
    /// use dlpack_core::dispatch::{Kernel, Of};
    /// struct Name;
    /// impl<T> Kernel<Of<T>> for Name {
    ///     type Output = &'static str; // the same for every `T`
    ///     fn run(self, _: Of<T>) -> &'static str { core::any::type_name::<T>() }
    /// }
    /// let name: <Name as Kernel<Of<u8>>>::Output = Name.run(Of::<u8>::new());
    /// assert_eq!(name, "u8");
    /// ```
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

/// The input of a kernel that needs the element type alone: what [`Dispatch::dispatch`](super::Dispatch::dispatch) gives.
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

/// The zero-sized value, as [`Of::new`].
///
/// ```
/// let of: dlpack_core::dispatch::Of<i8> = Default::default();
/// assert_eq!(format!("{of:?}"), "Of<i8>");
/// ```
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
