//! [`from_dlpack`] and [`FromDlpack`]: the RFC's dispatcher, resolved at compile time from
//! the tags of `kind.rs`.

use super::kind::{Convert, SourceKind, TargetKind};
use crate::error::Error;

/// A conversion [`from_dlpack`] makes from `Src`: implemented for every pair of data types,
/// every pair of devices and every tensor source and target, and for nothing else.
///
/// Use it as a bound to accept "anything `from_dlpack` can turn into a `T`", or call it as a
/// method, `T::from_dlpack(&src)`:
///
/// ```
/// use dlpack_core::{DataType, Error, FromDlpack};
///
/// fn describe<Src>(src: &Src) -> Result<String, Error>
/// where
///     DataType: FromDlpack<Src>,
/// {
///     Ok(DataType::from_dlpack(src)?.to_string())
/// }
/// assert_eq!(describe(&DataType::F32)?, "float32");
/// # Ok::<(), dlpack_core::Error>(())
/// ```
///
/// Implement [`DlpackDataType`](crate::DlpackDataType) (derive it),
/// [`DlpackDevice`](crate::DlpackDevice) (derive it),
/// [`ToDlpackTensor`](crate::tensor::ToDlpackTensor) or
/// [`FromDlpackTensor`](crate::tensor::FromDlpackTensor) rather than this trait: its one impl
/// covers every type that does. A type that implements `DlpackDataType` or `DlpackDevice` by
/// hand, without the derive, joins with
/// [`impl_from_dlpack!`](crate::impl_from_dlpack) beside its impl.
pub trait FromDlpack<Src: ?Sized>: Sized {
    /// Converts `src`.
    ///
    /// ```
    /// use dlpack_core::{Device, FromDlpack};
    /// assert_eq!(Device::from_dlpack(&Device::ROCM_HOST)?, Device::ROCM_HOST);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn from_dlpack(src: &Src) -> Result<Self, Error>;
}

/// The one impl: a data type from any data type (through [`DataType`](crate::DataType)), a
/// device from any device (through [`Device`](crate::Device)), a tensor from any tensor
/// (through [`ManagedTensor`](crate::ManagedTensor): the source exports one, the target takes
/// it).
///
/// ```
/// use dlpack_core::{DataType, Device, FromDlpack, ManagedTensor};
///
/// assert_eq!(DataType::from_dlpack(&DataType::U16)?, DataType::U16);
/// assert_eq!(Device::from_dlpack(&Device::cuda(2))?, Device::cuda(2));
/// let tensor = ManagedTensor::from_vec(vec![1_u16, 2, 3, 4], &[2, 2])?;
/// assert_eq!(Vec::<u16>::from_dlpack(&tensor)?, [1, 2, 3, 4]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<T, Src> FromDlpack<Src> for T
where
    Src: ?Sized + SourceKind,
    T: TargetKind + Convert<Src, Src::Kind, T::Kind>,
{
    #[inline]
    fn from_dlpack(src: &Src) -> Result<Self, Error> {
        <T as Convert<Src, Src::Kind, T::Kind>>::convert(src)
    }
}

/// The bound of [`from_dlpack`]'s argument: a `Src` that `T` can be made from. Implemented
/// through [`FromDlpack`] and never named by callers: as the type of an `impl Trait`
/// argument, it leaves `T` the function's only type parameter, so that
/// `from_dlpack::<T>(&src)` names the target alone.
#[doc(hidden)]
pub trait Source<T> {
    /// `T::from_dlpack(self)`.
    fn convert(&self) -> Result<T, Error>;
}

impl<Src: ?Sized, T: FromDlpack<Src>> Source<T> for Src {
    #[inline]
    fn convert(&self) -> Result<T, Error> {
        T::from_dlpack(self)
    }
}

/// The RFC's `from_dlpack`, resolved at compile time: a data type from any data type, a device
/// from any device, a tensor from any tensor. Name the target type, or let it be inferred;
/// asking for a data type from a device is a compile error.
///
/// `src` is any value with `T: FromDlpack<_>`. It is taken by reference, so a tensor source
/// either shares its data (`Arc<[T]>`, `ArcArray`: the tensor is `READ_ONLY`) or is copied
/// (`Vec<T>`, slices, `Array`, another `ManagedTensor`: the tensor is flagged `IS_COPIED`);
/// see [`ToDlpackTensor`](crate::tensor::ToDlpackTensor). To hand over owned data without a
/// copy, use [`ManagedTensor::from_vec`](crate::ManagedTensor::from_vec) and friends.
///
/// ```
/// use dlpack_core::{DataType, Device, DlpackDataType, ManagedTensor, from_dlpack};
///
/// #[derive(Debug, PartialEq, DlpackDataType)]
/// enum DType {
///     #[dlpack("float16")] F16,
///     #[dlpack("float32")] F32,
/// }
///
/// assert_eq!(from_dlpack::<DType>(&DataType::F16)?, DType::F16);
/// let dev: Device = from_dlpack(&Device::cuda(0))?;
/// assert_eq!(dev, Device::cuda(0));
///
/// let tensor: ManagedTensor = from_dlpack(&vec![1.0_f32, 2.0])?;
/// let view = tensor.view()?;
/// // A dtype or device is read off a view, then converted like any other.
/// assert_eq!(from_dlpack::<DType>(&view.dtype())?, DType::F32);
/// assert_eq!(from_dlpack::<Vec<f32>>(&tensor)?, [1.0, 2.0]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
///
/// ```compile_fail
/// use dlpack_core::{DataType, Device, from_dlpack};
/// let dt = from_dlpack::<DataType>(&Device::CPU)?; // a device is not a data type
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[inline]
pub fn from_dlpack<T>(src: &(impl ?Sized + Source<T>)) -> Result<T, Error> {
    src.convert()
}
