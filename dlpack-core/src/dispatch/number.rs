//! [`ToF64`]: the value of a real element as an `f64`, for kernels over every data type.

use crate::element::Element;

/// The value of a real element as an `f64`: what a kernel over every [`DataType`](crate::DataType)
/// (`mean`, `norm`, a histogram) reduces in, where `Into<f64>` leaves out `i64`, `u64` and
/// `half`'s types. Implemented for `bool` (0 or 1), every integer (`i64` and `u64` above
/// 2⁵³ rounded to the nearest `f64`, as `as` rounds), `f32`, `f64`, and `half::f16` and
/// `half::bf16` (exact) with feature `half`. Not for `num_complex::Complex`: a complex value
/// has no `f64` that keeps it, so a kernel over every data type with feature `num-complex`
/// takes the complex types in an impl of its own, or runs through an enum of the real ones.
///
/// ```
/// use dlpack_core::dispatch::{Kernel, ToF64};
/// use dlpack_core::tensor::Iter;
/// use dlpack_core::{DataType, Element, ManagedTensor};
///
/// /// The mean of a view's elements, in any strides, for every real element type.
/// struct Mean;
/// impl<T: Element + ToF64> Kernel<Iter<'_, T>> for Mean {
///     type Output = f64;
///     fn run(self, x: Iter<'_, T>) -> f64 {
///         let n = x.len() as f64;
///         x.map(ToF64::to_f64).sum::<f64>() / n
///     }
/// }
///
/// let ints = ManagedTensor::from_vec(vec![1_i64, 2, 6], &[3])?;
/// let bytes = ManagedTensor::from_vec(vec![0_u8, 255], &[2])?;
/// # #[cfg(not(feature = "num-complex"))]
/// # {
/// use dlpack_core::dispatch::Dispatch;
/// // Every data type `DataType` dispatches to (with feature `num-complex`, the complex ones
/// // too, which need an impl of their own).
/// assert_eq!(DataType::dispatch_iter(&ints.view()?, Mean)?, 3.0);
/// assert_eq!(DataType::dispatch_iter(&bytes.view()?, Mean)?, 127.5);
/// # }
/// assert_eq!(u64::MAX.to_f64(), 18446744073709551615.0);
/// assert_eq!(true.to_f64(), 1.0);
/// # let _ = (ints, bytes);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub trait ToF64: Element {
    /// The value as an `f64`: exact for `bool`, the integers up to 2⁵³ in magnitude, and
    /// every float but `f64` itself (which is returned as is); rounded to nearest beyond.
    ///
    /// ```
    /// use dlpack_core::dispatch::ToF64;
    /// assert_eq!((-3_i8).to_f64(), -3.0);
    /// assert_eq!((1_u64 << 53).to_f64(), 9007199254740992.0);
    /// ```
    fn to_f64(self) -> f64;
}

macro_rules! to_f64_as {
    ($($ty:ty),*) => {
        $(
            #[doc = concat!("`", stringify!($ty), "` by `as`, which rounds to nearest.")]
            ///
            /// ```
            /// use dlpack_core::dispatch::ToF64;
            #[doc = concat!("assert_eq!(<", stringify!($ty), " as ToF64>::to_f64(7 as ", stringify!($ty), "), 7.0);")]
            /// ```
            impl ToF64 for $ty {
                #[inline(always)]
                fn to_f64(self) -> f64 {
                    self as f64
                }
            }
        )*
    };
}

to_f64_as!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

/// `false` is 0, `true` 1.
///
/// ```
/// use dlpack_core::dispatch::ToF64;
/// assert_eq!((false.to_f64(), true.to_f64()), (0.0, 1.0));
/// ```
impl ToF64 for bool {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
}

/// Exactly.
///
/// ```
/// use dlpack_core::dispatch::ToF64;
/// assert_eq!(half::f16::from_f32(0.5).to_f64(), 0.5);
/// ```
#[cfg(feature = "half")]
impl ToF64 for half::f16 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        half::f16::to_f64(self)
    }
}

/// Exactly.
///
/// ```
/// use dlpack_core::dispatch::ToF64;
/// assert_eq!(half::bf16::from_f32(-2.0).to_f64(), -2.0);
/// ```
#[cfg(feature = "half")]
impl ToF64 for half::bf16 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        half::bf16::to_f64(self)
    }
}
