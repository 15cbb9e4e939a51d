//! The protocol traits, [`from_dlpack`] and [`assert_convertible!`](crate::assert_convertible).

use crate::data_type::DataType;
use crate::device::Device;
use crate::error::Error;
use crate::set::{DataTypeSet, DeviceSet};
use crate::tensor::{FromDlpackTensor, ToDlpackTensor};

/// A type that describes element types and converts to and from DLPack's `DLDataType`: what the
/// RFC's `__dlpack_data_type__()` returns.
///
/// Derive it with [`#[derive(DlpackDataType)]`](macro@crate::DlpackDataType) on your own dtype
/// enum; [`DataType`] implements it as the identity.
///
/// ```
/// use dlpack_core::{DataType, DlpackDataType};
///
/// assert_eq!(DataType::F32.dlpack_data_type()?, DataType::F32);
/// assert_eq!(DataType::from_dlpack_data_type(DataType::BF16)?, DataType::BF16);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a DLPack data type",
    label = "`{Self}` does not implement `DlpackDataType`",
    note = "derive it: `#[derive(dlpack_core::DlpackDataType)]` with a `#[dlpack(\"float32\")]`-style annotation on each variant"
)]
pub trait DlpackDataType: Sized {
    /// Every data type [`dlpack_data_type`](Self::dlpack_data_type) can return. Defaults to
    /// [`DataTypeSet::ALL`] (unknown, so anything).
    const PRODUCES: DataTypeSet = DataTypeSet::ALL;
    /// Every data type [`from_dlpack_data_type`](Self::from_dlpack_data_type) accepts. Defaults
    /// to [`DataTypeSet::EMPTY`] (nothing is proven accepted).
    const ACCEPTS: DataTypeSet = DataTypeSet::EMPTY;

    /// What `__dlpack_data_type__` returns for this value: an error for a value with no DLPack
    /// equivalent.
    fn dlpack_data_type(&self) -> Result<DataType, Error>;

    /// The value for a DLPack data type: an error naming the type, the data type and what the
    /// type supports when it has none.
    fn from_dlpack_data_type(data_type: DataType) -> Result<Self, Error>;
}

/// A type that describes devices and converts to and from DLPack's `DLDevice`: what
/// `__dlpack_device__()` returns.
///
/// Derive it with [`#[derive(DlpackDevice)]`](macro@crate::DlpackDevice) on your own device
/// type; [`Device`] implements it as the identity.
///
/// ```
/// use dlpack_core::{Device, DlpackDevice};
///
/// assert_eq!(Device::cuda(1).dlpack_device()?, Device::cuda(1));
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a DLPack device",
    label = "`{Self}` does not implement `DlpackDevice`",
    note = "derive it: `#[derive(dlpack_core::DlpackDevice)]` with `#[dlpack(cpu)]`, `#[dlpack(cuda)]`, … on each variant"
)]
pub trait DlpackDevice: Sized {
    /// Every device [`dlpack_device`](Self::dlpack_device) can return. Defaults to
    /// [`DeviceSet::ALL`] (unknown, so anything).
    const PRODUCES: DeviceSet = DeviceSet::ALL;
    /// Every device [`from_dlpack_device`](Self::from_dlpack_device) accepts. Defaults to
    /// [`DeviceSet::EMPTY`] (nothing is proven accepted).
    const ACCEPTS: DeviceSet = DeviceSet::EMPTY;

    /// What `__dlpack_device__` returns for this value: an error for a value with no DLPack
    /// equivalent.
    fn dlpack_device(&self) -> Result<Device, Error>;

    /// The value for a DLPack device: an error naming the type, the device and what the type
    /// supports when it has none, or when the id does not fit.
    fn from_dlpack_device(device: Device) -> Result<Self, Error>;
}

impl DlpackDataType for DataType {
    const PRODUCES: DataTypeSet = DataTypeSet::ALL;
    const ACCEPTS: DataTypeSet = DataTypeSet::ALL;

    #[inline]
    fn dlpack_data_type(&self) -> Result<DataType, Error> {
        Ok(*self)
    }

    #[inline]
    fn from_dlpack_data_type(data_type: DataType) -> Result<Self, Error> {
        Ok(data_type)
    }
}

impl DlpackDevice for Device {
    const PRODUCES: DeviceSet = DeviceSet::ALL;
    const ACCEPTS: DeviceSet = DeviceSet::ALL;

    #[inline]
    fn dlpack_device(&self) -> Result<Device, Error> {
        Ok(*self)
    }

    #[inline]
    fn from_dlpack_device(device: Device) -> Result<Self, Error> {
        Ok(device)
    }
}

/// Markers that tell [`from_dlpack`] which protocol a conversion goes through. They are
/// inferred; you never name them.
pub mod kind {
    /// Through `__dlpack_data_type__`: [`DlpackDataType`](crate::DlpackDataType) on both sides.
    #[derive(Debug)]
    pub enum DataTypeKind {}
    /// Through `__dlpack_device__`: [`DlpackDevice`](crate::DlpackDevice) on both sides.
    #[derive(Debug)]
    pub enum DeviceKind {}
    /// Through `__dlpack__`: a [`ToDlpackTensor`](crate::tensor::ToDlpackTensor) source and a
    /// [`FromDlpackTensor`](crate::tensor::FromDlpackTensor) target.
    #[derive(Debug)]
    pub enum TensorKind {}
}

/// A conversion [`from_dlpack`] can make from `Src`. Implemented for every pair of data types
/// and every pair of devices; `K` is inferred.
#[diagnostic::on_unimplemented(
    message = "`from_dlpack` cannot make a `{Self}` from a `{Src}`",
    label = "`{Src}` is not the same kind of DLPack value as `{Self}`",
    note = "`from_dlpack` converts a data type into a data type (`DlpackDataType`), a device into a device (`DlpackDevice`), and a tensor into a tensor (`ToDlpackTensor` into `FromDlpackTensor`); it never crosses kinds",
    note = "to get the data type or device of a tensor, read `view.dtype()` or `view.device()` first"
)]
pub trait FromDlpack<Src: ?Sized, K>: Sized {
    /// Converts `src`.
    fn from_dlpack(src: &Src) -> Result<Self, Error>;
}

impl<T: DlpackDataType, S: DlpackDataType> FromDlpack<S, kind::DataTypeKind> for T {
    #[inline]
    fn from_dlpack(src: &S) -> Result<Self, Error> {
        T::from_dlpack_data_type(src.dlpack_data_type()?)
    }
}

impl<T: DlpackDevice, S: DlpackDevice> FromDlpack<S, kind::DeviceKind> for T {
    #[inline]
    fn from_dlpack(src: &S) -> Result<Self, Error> {
        T::from_dlpack_device(src.dlpack_device()?)
    }
}

impl<T: FromDlpackTensor, S: ToDlpackTensor + ?Sized> FromDlpack<S, kind::TensorKind> for T {
    #[inline]
    fn from_dlpack(src: &S) -> Result<Self, Error> {
        T::from_dlpack_tensor(src.to_dlpack_tensor()?)
    }
}

/// The RFC's `from_dlpack`, resolved at compile time: a data type from any data type, a device
/// from any device, a tensor from any tensor. Asking for a data type from a device is a compile
/// error.
///
/// The source is taken by reference, so a tensor source either shares its data (`Arc<[T]>`,
/// `ArcArray`: the tensor is `READ_ONLY`) or is copied (`Vec<T>`, slices, `Array`, another
/// `ManagedTensor`: the tensor is flagged `IS_COPIED`); see
/// [`ToDlpackTensor`](crate::tensor::ToDlpackTensor). To hand over owned data without a copy,
/// use [`ManagedTensor::from_vec`](crate::ManagedTensor::from_vec) and friends.
///
/// ```
/// use dlpack_core::{DataType, Device, ManagedTensor, from_dlpack};
///
/// let dt: DataType = from_dlpack(&DataType::F16)?;
/// let dev: Device = from_dlpack(&Device::cuda(0))?;
/// assert_eq!((dt, dev), (DataType::F16, Device::cuda(0)));
///
/// let tensor: ManagedTensor = from_dlpack(&vec![1.0_f32, 2.0])?;
/// let view = tensor.view()?;
/// // A dtype or device is read off a view, then converted like any other.
/// let dt: DataType = from_dlpack(&view.dtype())?;
/// assert_eq!(dt, DataType::F32);
/// let back: Vec<f32> = from_dlpack(&tensor)?;
/// assert_eq!(back, [1.0, 2.0]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
///
/// ```compile_fail
/// use dlpack_core::{DataType, Device, from_dlpack};
/// let dt: DataType = from_dlpack(&Device::CPU)?; // a device is not a data type
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[inline]
pub fn from_dlpack<T, Src, K>(src: &Src) -> Result<T, Error>
where
    Src: ?Sized,
    T: FromDlpack<Src, K>,
{
    T::from_dlpack(src)
}

/// Whether two values of any two device types denote the same DLPack device (a candle device
/// against a burn device). A value with no DLPack device is the same as nothing, not even
/// itself.
///
/// ```
/// use dlpack_core::{Device, same_device};
/// assert!(same_device(&Device::cuda(0), &Device::cuda(0)));
/// assert!(!same_device(&Device::cuda(0), &Device::CPU));
/// ```
pub fn same_device<A: DlpackDevice, B: DlpackDevice>(a: &A, b: &B) -> bool {
    match (a.dlpack_device(), b.dlpack_device()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Whether code on device `a` may read memory on device `b` without a copy, for values of any
/// two device types; see [`Device::can_access`] for the table. A value with no DLPack device
/// can access nothing and be accessed by nothing.
///
/// ```
/// use dlpack_core::{Device, can_access};
/// assert!(can_access(&Device::CPU, &Device::CUDA_HOST));
/// ```
pub fn can_access<A: DlpackDevice, B: DlpackDevice>(a: &A, b: &B) -> bool {
    match (a.dlpack_device(), b.dlpack_device()) {
        (Ok(a), Ok(b)) => a.can_access(b),
        _ => false,
    }
}

/// Proves at compile time that every value of `A`'s DLPack image is accepted by `B`: every
/// data type `A` can produce is one `B` can be built from (for two `DlpackDataType`s), or every
/// device `A` can be on is one `B` can name (for two `DlpackDevice`s). The kind is inferred as
/// [`from_dlpack`] infers it.
///
/// The check compares the associated constants `A::PRODUCES` and `B::ACCEPTS`, which the
/// derives compute from the annotations. It fails the build with a message naming the first
/// value that does not convert, so a conversion between two frameworks is known total before
/// the program runs.
///
/// ```
/// use dlpack_core::{DataType, DlpackDataType, assert_convertible};
///
/// #[derive(DlpackDataType)]
/// enum Small { #[dlpack("float32")] F32, #[dlpack("bfloat16")] BF16 }
///
/// #[derive(DlpackDataType)]
/// enum Large {
///     #[dlpack("float32")] F32,
///     #[dlpack("bfloat16")] BF16,
///     #[dlpack("float16")] F16,
/// }
///
/// assert_convertible!(Small => Large);    // every Small converts into Large
/// assert_convertible!(Large => DataType); // DataType accepts everything
/// ```
///
/// ```compile_fail
/// # use dlpack_core::{DlpackDataType, assert_convertible};
/// # #[derive(DlpackDataType)]
/// # enum Small { #[dlpack("float32")] F32, #[dlpack("bfloat16")] BF16 }
/// # #[derive(DlpackDataType)]
/// # enum Large { #[dlpack("float32")] F32, #[dlpack("bfloat16")] BF16, #[dlpack("float16")] F16 }
/// // error: `Large` can produce the data type float16, which `Small` does not accept
/// assert_convertible!(Large => Small);
/// ```
///
/// A type whose `PRODUCES` is unknown (`DataType` itself, or a hand-written implementation
/// that keeps the default [`DataTypeSet::ALL`](crate::set::DataTypeSet::ALL)) converts only
/// into a type that accepts everything.
#[macro_export]
macro_rules! assert_convertible {
    ($from:ty => $to:ty $(,)?) => {
        const _: () = $crate::__private::assert_convertible(
            $crate::__private::report::<$from, $to, _>(),
            ::core::stringify!($from),
            ::core::stringify!($to),
        );
    };
}
