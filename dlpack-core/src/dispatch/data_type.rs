//! [`DataType`]'s dispatch: every data type whose Rust type implements [`Element`] here, one
//! `match` on the data type as an integer, as a derived import is.
//!
//! Each element type is bound as each variant of a derived enum is, by a trait whose message
//! names it: a kernel that cannot take `i8` is told so.

use crate::DataType;
use crate::element::Element;

use super::entry::Dispatch;
use super::input::Input;
use super::kernel::{Missed, Runs};
use super::slot::{NoRustType, natural};

/// A bound of `DataType`'s dispatch for each element type, whose message names it. Not public
/// API.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{K}` cannot run on `{Self}` elements, which a dispatch over `DataType` reaches",
    label = "no `Kernel` over `{Self}` elements with the output `{R}`",
    note = "a dispatch over `DataType` runs the kernel on every data type with a Rust element type (`bool`, the integers, the floats, `half`'s and `num-complex`'s with those features), with one output type for all",
    note = "a kernel over fewer types runs through an enum of those types (`#[derive(DlpackDataType)]`), with its `dispatch_from`"
)]
pub trait Reaches<K, P, R> {
    /// Runs the kernel.
    fn __reach(kernel: K, input: P) -> Result<R, Missed>;
}

#[diagnostic::do_not_recommend]
impl<T: Element, K, P: Input<T, K, Output = R>, R> Reaches<K, P, R> for T {
    #[inline(always)]
    fn __reach(kernel: K, input: P) -> Result<R, Missed> {
        input.__give(kernel).map_err(Missed::Input)
    }
}

/// Without feature `half` or `num-complex`, their types' bounds hold: the arms are compiled out.
/// Not recommended in messages, as the `Slot` impl of the same type.
#[diagnostic::do_not_recommend]
impl<K, P, R> Reaches<K, P, R> for NoRustType {
    fn __reach(_: K, _: P) -> Result<R, Missed> {
        unreachable!("no element of a type whose feature is off")
    }
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
            $( $ty: Reaches<K, P, R>, )*
        {
            #[inline]
            #[allow(non_upper_case_globals)]
            fn __run(&self, kernel: K, input: P) -> Result<R, Missed> {
                $(
                    $(#[cfg(feature = $feature)])?
                    const $name: u32 = DataType::$name.key();
                )*
                match self.key() {
                    $(
                        $(#[cfg(feature = $feature)])?
                        $name => <$ty as Reaches<K, P, R>>::__reach(kernel, input),
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
