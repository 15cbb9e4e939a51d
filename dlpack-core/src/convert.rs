//! The protocol traits and [`from_dlpack`].

use crate::error::Error;
use crate::set::{DataTypeSet, DeviceSet};
use crate::tensor::{FromDlpackTensor, ToDlpackTensor};
use crate::{DataType, Device};

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
    ///
    /// ```
    /// use dlpack_core::{DataType, DlpackDataType};
    /// assert!(<DataType as DlpackDataType>::PRODUCES.contains(DataType::F32));
    /// ```
    const PRODUCES: DataTypeSet = DataTypeSet::ALL;
    /// Every data type [`from_dlpack_data_type`](Self::from_dlpack_data_type) accepts. Defaults
    /// to [`DataTypeSet::EMPTY`] (nothing is proven accepted).
    ///
    /// ```
    /// use dlpack_core::{DataType, DlpackDataType};
    /// assert!(<DataType as DlpackDataType>::ACCEPTS.contains(DataType::BF16));
    /// ```
    const ACCEPTS: DataTypeSet = DataTypeSet::EMPTY;

    /// What `__dlpack_data_type__` returns for this value: an error for a value with no DLPack
    /// equivalent.
    ///
    /// ```
    /// use dlpack_core::{DataType, DlpackDataType};
    /// assert_eq!(DataType::I64.dlpack_data_type()?, DataType::I64);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn dlpack_data_type(&self) -> Result<DataType, Error>;

    /// The value for a DLPack data type: an error naming the type, the data type and what the
    /// type supports when it has none.
    ///
    /// ```
    /// use dlpack_core::{DataType, DlpackDataType};
    /// assert_eq!(DataType::from_dlpack_data_type(DataType::U8)?, DataType::U8);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
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
    ///
    /// ```
    /// use dlpack_core::{Device, DlpackDevice};
    /// assert!(<Device as DlpackDevice>::PRODUCES.contains(Device::cuda(0)));
    /// ```
    const PRODUCES: DeviceSet = DeviceSet::ALL;
    /// Every device [`from_dlpack_device`](Self::from_dlpack_device) accepts. Defaults to
    /// [`DeviceSet::EMPTY`] (nothing is proven accepted).
    ///
    /// ```
    /// use dlpack_core::{Device, DlpackDevice};
    /// assert!(<Device as DlpackDevice>::ACCEPTS.contains(Device::metal(0)));
    /// ```
    const ACCEPTS: DeviceSet = DeviceSet::EMPTY;

    /// What `__dlpack_device__` returns for this value: an error for a value with no DLPack
    /// equivalent.
    ///
    /// ```
    /// use dlpack_core::{Device, DlpackDevice};
    /// assert_eq!(Device::CPU.dlpack_device()?, Device::CPU);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn dlpack_device(&self) -> Result<Device, Error>;

    /// The value for a DLPack device: an error naming the type, the device and what the type
    /// supports when it has none, or when the id does not fit.
    ///
    /// ```
    /// use dlpack_core::{Device, DlpackDevice};
    /// assert_eq!(Device::from_dlpack_device(Device::trn(1))?, Device::trn(1));
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn from_dlpack_device(device: Device) -> Result<Self, Error>;
}

/// The identity: a [`DataType`] is its own DLPack data type, and accepts every one.
///
/// ```
/// use dlpack_core::{DataType, DlpackDataType};
/// assert_eq!(DataType::BF16.dlpack_data_type()?, DataType::BF16);
/// assert!(<DataType as DlpackDataType>::ACCEPTS.is_all());
/// # Ok::<(), dlpack_core::Error>(())
/// ```
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

/// The identity: a [`Device`] is its own DLPack device, and accepts every one.
///
/// ```
/// use dlpack_core::{Device, DlpackDevice};
/// assert_eq!(Device::from_dlpack_device(Device::rocm(2))?, Device::rocm(2));
/// assert!(<Device as DlpackDevice>::PRODUCES.is_all());
/// # Ok::<(), dlpack_core::Error>(())
/// ```
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
/// inferred; you never need to name them, though you may.
///
/// ```
/// use dlpack_core::{DataType, from_dlpack, kind::DataTypeKind};
///
/// let inferred: DataType = from_dlpack(&DataType::F16)?;
/// let spelled = from_dlpack::<DataType, _, DataTypeKind>(&DataType::F16)?;
/// assert_eq!(inferred, spelled);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub mod kind {
    /// Through `__dlpack_data_type__`: [`DlpackDataType`](crate::DlpackDataType) on both sides.
    /// Uninhabited: it exists only as a type parameter.
    ///
    /// ```
    /// use dlpack_core::{DataType, FromDlpack, kind::DataTypeKind};
    /// let dt = <DataType as FromDlpack<DataType, DataTypeKind>>::from_dlpack(&DataType::I8)?;
    /// assert_eq!(dt, DataType::I8);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[derive(Debug)]
    pub enum DataTypeKind {}
    /// Through `__dlpack_device__`: [`DlpackDevice`](crate::DlpackDevice) on both sides.
    /// Uninhabited: it exists only as a type parameter.
    ///
    /// ```
    /// use dlpack_core::{Device, FromDlpack, kind::DeviceKind};
    /// let dev = <Device as FromDlpack<Device, DeviceKind>>::from_dlpack(&Device::CPU)?;
    /// assert_eq!(dev, Device::CPU);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[derive(Debug)]
    pub enum DeviceKind {}
    /// Through `__dlpack__`: a [`ToDlpackTensor`](crate::tensor::ToDlpackTensor) source and a
    /// [`FromDlpackTensor`](crate::tensor::FromDlpackTensor) target.
    /// Uninhabited: it exists only as a type parameter.
    ///
    /// ```
    /// use dlpack_core::{FromDlpack, kind::TensorKind};
    /// let v = <Vec<u8> as FromDlpack<[u8], TensorKind>>::from_dlpack(&[1_u8, 2][..])?;
    /// assert_eq!(v, [1, 2]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    #[derive(Debug)]
    pub enum TensorKind {}
}

/// A conversion [`from_dlpack`] can make from `Src`. Implemented for every pair of data types
/// and every pair of devices; `K` is inferred.
///
/// Use it as a bound to accept "anything `from_dlpack` can turn into a `T`":
///
/// ```
/// use dlpack_core::{DataType, Device, Error, FromDlpack};
///
/// fn describe<Src, K>(src: &Src) -> Result<String, Error>
/// where
///     DataType: FromDlpack<Src, K>,
/// {
///     Ok(DataType::from_dlpack(src)?.to_string())
/// }
/// assert_eq!(describe(&DataType::F32)?, "float32");
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`from_dlpack` cannot make a `{Self}` from a `{Src}`",
    label = "`{Src}` is not the same kind of DLPack value as `{Self}`",
    note = "`from_dlpack` converts a data type into a data type (`DlpackDataType`), a device into a device (`DlpackDevice`), and a tensor into a tensor (`ToDlpackTensor` into `FromDlpackTensor`); it never crosses kinds",
    note = "to get the data type or device of a tensor, read `view.dtype()` or `view.device()` first"
)]
pub trait FromDlpack<Src: ?Sized, K>: Sized {
    /// Converts `src`.
    ///
    /// ```
    /// use dlpack_core::{Device, FromDlpack};
    /// assert_eq!(Device::from_dlpack(&Device::ROCM_HOST)?, Device::ROCM_HOST);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    fn from_dlpack(src: &Src) -> Result<Self, Error>;
}

/// A data type from any data type, through [`DataType`].
///
/// ```
/// use dlpack_core::{DataType, FromDlpack};
/// assert_eq!(DataType::from_dlpack(&DataType::U16)?, DataType::U16);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<T: DlpackDataType, S: DlpackDataType> FromDlpack<S, kind::DataTypeKind> for T {
    #[inline]
    fn from_dlpack(src: &S) -> Result<Self, Error> {
        T::from_dlpack_data_type(src.dlpack_data_type()?)
    }
}

/// A device from any device, through [`Device`].
///
/// ```
/// use dlpack_core::{Device, FromDlpack};
/// assert_eq!(Device::from_dlpack(&Device::cuda(2))?, Device::cuda(2));
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<T: DlpackDevice, S: DlpackDevice> FromDlpack<S, kind::DeviceKind> for T {
    #[inline]
    fn from_dlpack(src: &S) -> Result<Self, Error> {
        T::from_dlpack_device(src.dlpack_device()?)
    }
}

/// A tensor from any tensor, through [`ManagedTensor`](crate::ManagedTensor): the source
/// exports one ([`ToDlpackTensor`]), the target takes it ([`FromDlpackTensor`]).
///
/// ```
/// use dlpack_core::{FromDlpack, ManagedTensor};
/// let tensor = ManagedTensor::from_vec(vec![1_u16, 2, 3, 4], &[2, 2])?;
/// assert_eq!(Vec::<u16>::from_dlpack(&tensor)?, [1, 2, 3, 4]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
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
