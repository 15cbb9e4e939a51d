//! Runtime dtype dispatch: a kernel written once, generic over the element type, run with the
//! Rust element type of a runtime [`DataType`](crate::DataType) or of a value of your own dtype
//! enum, without a hand-written `match`, and with the compiler proving that the kernel takes
//! every element type the enum can hold.
//!
//! Three names are all a kernel author writes:
//!
//! - [`Kernel<In>`](Kernel): implemented by a value of your own type for the inputs it takes,
//!   usually as one blanket `impl` over the types it can take, bounded by what it needs of them;
//! - [`Of<T>`]: the input of a kernel that needs the element type alone;
//! - [`Dispatch`]: the methods that run a kernel, `dispatch` on a dtype value and
//!   `dispatch_slice`, `dispatch_iter` (and their `_mut` forms) on a view, implemented by the
//!   derive on your enum and by [`DataType`](crate::DataType). A typed Python argument has the
//!   same four view methods (`TensorArg::dispatch_slice`, …).
//!
//! A view hands the kernel `&[T]` or `&mut [T]` (a compact view's elements), or
//! [`Iter<'_, T>`](crate::tensor::Iter) or [`IterMut<'_, T>`](crate::tensor::IterMut) (a view's
//! elements in any strides): the table is on [`Kernel`].
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
//! # Numbers
//!
//! A kernel that reduces every element type in one arithmetic (a mean, a norm) bounds it by
//! [`ToF64`], this crate's own trait, implemented for `bool`, every integer, the floats and
//! `half`'s types: `Into<f64>` leaves out `i64`, `u64`, `f16` and `bf16`, and num-traits'
//! `ToPrimitive` is no dependency of this crate (nor worth one for a single method). Complex
//! types are left out on purpose: no `f64` keeps a complex value.
//!
//! # Cost
//!
//! A derived enum's dispatch is one `match` on the value, each arm a direct call of the
//! kernel's `run` for that type; `DataType`'s is one `match` on the data type as an integer,
//! as a derived import is. Nothing is allocated on either path, nor on the error path of a
//! value without an element type (its [`Error::NoElement`](crate::Error::NoElement) holds `'static` data). The
//! benchmarks time it against a hand-written `match` (`benches/`, "dispatch").
//!
//! # Bounds of generic code
//!
//! A function generic over the dtype or the kernel names what a dispatch requires:
//! [`Runs<K, In, R>`](Runs), that the element type of every variant takes kernel `K` with
//! input `In` and output `R`, where `In` is one of the [`Input`]s ([`TypeOnly`] for
//! `dispatch`; [`Slice`], [`Iterated`], [`SliceMut`], [`IteratedMut`] for the views); and
//! [`ToF64`], for a kernel that reduces in `f64`. Nothing else of this module is named outside
//! generated code.

pub(crate) mod data_type;
mod entry;
mod input;
pub(crate) mod kernel;
mod number;
pub(crate) mod slot;

pub use entry::Dispatch;
pub use input::{Input, Iterated, IteratedMut, Slice, SliceMut, TypeOnly};
pub use kernel::{Kernel, Of, Runs};
pub use number::ToF64;

#[cfg(test)]
mod tests;
