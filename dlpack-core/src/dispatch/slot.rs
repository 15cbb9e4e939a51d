//! What a variant's type is in a dispatch: an [`Element`], which runs the kernel, or
//! [`NoRustType`], which reports; and the Rust type of each named data type behind a feature.

use crate::DataType;
use crate::element::Element;

use super::input::Input;
use super::kernel::{Missed, NoElement};

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

// Not recommended: rustc would point a coverage error at this impl, which no kernel meets.
#[diagnostic::do_not_recommend]
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
