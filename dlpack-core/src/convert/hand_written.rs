//! [`impl_from_dlpack!`](crate::impl_from_dlpack): how a type that implements
//! [`DlpackDataType`](crate::DlpackDataType) or [`DlpackDevice`](crate::DlpackDevice) by hand
//! takes part in [`from_dlpack`](crate::from_dlpack) and
//! [`assert_convertible!`](crate::assert_convertible). The macro alone: it writes the tags of
//! `kind.rs`, as the derives do.

/// Lets a type with a hand-written [`DlpackDataType`](crate::DlpackDataType) or
/// [`DlpackDevice`](crate::DlpackDevice) impl take part in [`from_dlpack`](crate::from_dlpack)
/// (as a source and as a target) and [`assert_convertible!`](crate::assert_convertible).
///
/// `from_dlpack::<T>(&src)` has only the target type to infer from, so it tells data types,
/// devices and tensors apart by a tag each type carries (Rust cannot prove
/// `T: DlpackDataType` and `T: DlpackDevice` disjoint, so blanket impls cannot give it). The
/// derives write the tag; a hand-written impl states it with this macro, next to the impl:
///
/// ```
/// use dlpack_core::{DataType, DlpackDataType, Error, from_dlpack, impl_from_dlpack};
/// use dlpack_core::set::DataTypeSet;
///
/// #[derive(Debug, PartialEq)]
/// struct Byte;
///
/// impl DlpackDataType for Byte {
///     const PRODUCES: DataTypeSet = DataTypeSet::EMPTY.with(DataType::U8);
///     const ACCEPTS: DataTypeSet = DataTypeSet::EMPTY.with(DataType::U8);
///
///     fn dlpack_data_type(&self) -> Result<DataType, Error> {
///         Ok(DataType::U8)
///     }
///
///     fn from_dlpack_data_type(data_type: DataType) -> Result<Self, Error> {
///         if data_type == DataType::U8 {
///             Ok(Byte)
///         } else {
///             Err(Error::msg(format_args!("`Byte` is uint8 only, not {data_type}")))
///         }
///     }
/// }
///
/// impl_from_dlpack!(DlpackDataType for Byte);
///
/// assert_eq!(from_dlpack::<Byte>(&DataType::U8)?, Byte);
/// assert_eq!(from_dlpack::<DataType>(&Byte)?, DataType::U8);
/// dlpack_core::assert_convertible!(Byte => DataType);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
///
/// A generic type lists its parameters and bounds after `impl`, as an impl does:
///
/// ```
/// use dlpack_core::{Device, DlpackDevice, Error, from_dlpack, impl_from_dlpack};
///
/// struct OnCuda<T>(T);
///
/// impl<T: Default> DlpackDevice for OnCuda<T> {
///     fn dlpack_device(&self) -> Result<Device, Error> {
///         Ok(Device::cuda(0))
///     }
///
///     fn from_dlpack_device(device: Device) -> Result<Self, Error> {
///         Ok(OnCuda(T::default()))
///     }
/// }
///
/// impl_from_dlpack!(impl<T: Default> DlpackDevice for OnCuda<T>);
///
/// assert_eq!(from_dlpack::<Device>(&OnCuda(1_u8))?, Device::cuda(0));
/// # Ok::<(), dlpack_core::Error>(())
/// ```
///
/// The macro names the trait the impl implements; a type that does not implement it fails to
/// compile there. A type of another crate cannot take the tag in your crate (the orphan rule):
/// derive its mirror instead, with `#[dlpack(remote = "…")]` (see
/// [`DlpackDataType`](macro@crate::DlpackDataType)'s derive).
#[macro_export]
macro_rules! impl_from_dlpack {
    (DlpackDataType for $ty:ty) => {
        $crate::impl_from_dlpack!(@tags [] DlpackDataType DataTypeKind $ty);
    };
    (DlpackDevice for $ty:ty) => {
        $crate::impl_from_dlpack!(@tags [] DlpackDevice DeviceKind $ty);
    };
    (impl<$($param:ident $(: $bound:path)?),+ $(,)?> DlpackDataType for $ty:ty) => {
        $crate::impl_from_dlpack!(@tags [$($param $(: $bound)?),+] DlpackDataType DataTypeKind $ty);
    };
    (impl<$($param:ident $(: $bound:path)?),+ $(,)?> DlpackDevice for $ty:ty) => {
        $crate::impl_from_dlpack!(@tags [$($param $(: $bound)?),+] DlpackDevice DeviceKind $ty);
    };
    (@tags [$($generics:tt)*] $trait:ident $tag:ident $ty:ty) => {
        const _: () = {
            // Fails to compile, at the macro call, when a concrete `$ty` lacks the trait.
            #[allow(dead_code)]
            fn implements<$($generics)*>()
            where
                $ty: $crate::$trait,
            {
            }

            impl<$($generics)*> $crate::__private::SourceKind for $ty {
                type Kind = $crate::__private::$tag;
            }

            impl<$($generics)*> $crate::__private::TargetKind for $ty {
                type Kind = $crate::__private::$tag;
            }
        };
    };
}
