//! [`DataType`]'s dispatch: every data type whose Rust type implements [`Element`] here, one
//! `match` on the data type as an integer, as a derived import is.
//!
//! Each element type is bound as each variant of a derived enum is ([`Slot`], named by a type
//! of its constant's name), so a kernel that cannot take `int8` is told `DataType::I8`.

use crate::__private::data_type_key;
use crate::DataType;
use crate::element::Element;

use super::natural;
use super::{Dispatch, Missed, NoElement, Runs, Slot};

/// Types named as `DataType`'s constants, which name the element type a kernel cannot take.
#[allow(clippy::upper_case_acronyms)]
mod names {
    pub(crate) enum BOOL {}
    pub(crate) enum I8 {}
    pub(crate) enum I16 {}
    pub(crate) enum I32 {}
    pub(crate) enum I64 {}
    pub(crate) enum U8 {}
    pub(crate) enum U16 {}
    pub(crate) enum U32 {}
    pub(crate) enum U64 {}
    pub(crate) enum F16 {}
    pub(crate) enum BF16 {}
    pub(crate) enum F32 {}
    pub(crate) enum F64 {}
    pub(crate) enum C64 {}
    pub(crate) enum C128 {}
}

macro_rules! data_type_dispatch {
    ($( $(#[cfg(feature = $feature:literal)])? $ty:ty => $name:ident; )*) => {
        /// Every kernel that takes each element type `DataType` reaches.
        ///
        /// ```
        /// use dlpack_core::dispatch::{Dispatch, Kernel, Of};
        /// use dlpack_core::{DataType, Element};
        ///
        /// struct Align;
        /// impl<T: Element> Kernel<Of<T>> for Align {
        ///     type Output = usize;
        ///     fn run(self, _: Of<T>) -> usize { align_of::<T>() }
        /// }
        /// assert_eq!(DataType::U64.dispatch(Align)?, align_of::<u64>());
        /// # Ok::<(), dlpack_core::Error>(())
        /// ```
        impl<K, P, R> Runs<K, P, R> for DataType
        where
            $( $ty: Slot<K, P, R, names::$name, DataType>, )*
        {
            #[inline]
            #[allow(non_upper_case_globals)]
            fn __run(&self, kernel: K, input: P) -> Result<R, Missed> {
                // Never read: every type here is an element type where its arm is compiled.
                const NONE: &NoElement = &NoElement { variant: "", data_type: DataType::U8 };
                $(
                    $(#[cfg(feature = $feature)])?
                    const $name: u32 = data_type_key(DataType::$name);
                )*
                match data_type_key(*self) {
                    $(
                        $(#[cfg(feature = $feature)])?
                        $name => <$ty as Slot<K, P, R, names::$name, DataType>>::__go(kernel, input, NONE),
                    )*
                    _ => Err(Missed::Unlisted(*self)),
                }
            }
        }

        /// The data types of every Rust element type: `bool`, the integers and floats of 8 to
        /// 64 bits, and with features `half` and `num-complex` theirs.
        ///
        /// ```
        /// use dlpack_core::dispatch::{Dispatch, Kernel, Of};
        /// use dlpack_core::DataType;
        ///
        /// struct Unit;
        /// impl<T> Kernel<Of<T>> for Unit {
        ///     type Output = ();
        ///     fn run(self, _: Of<T>) {}
        /// }
        /// assert!(DataType::I8.dispatch(Unit).is_ok());
        /// assert!(DataType::F32.with_lanes(4).dispatch(Unit).is_err()); // lanes have no Rust type
        /// ```
        impl Dispatch for DataType {
            const __ELEMENTS: &'static [Option<DataType>] = &[
                $( $(#[cfg(feature = $feature)])? Some(<$ty as Element>::DATA_TYPE), )*
            ];
        }
    };
}

data_type_dispatch! {
    bool => BOOL;
    i8 => I8;
    i16 => I16;
    i32 => I32;
    i64 => I64;
    u8 => U8;
    u16 => U16;
    u32 => U32;
    u64 => U64;
    #[cfg(feature = "half")]
    natural::F16 => F16;
    #[cfg(feature = "half")]
    natural::BF16 => BF16;
    f32 => F32;
    f64 => F64;
    #[cfg(feature = "num-complex")]
    natural::C64 => C64;
    #[cfg(feature = "num-complex")]
    natural::C128 => C128;
}
