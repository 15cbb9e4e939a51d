//! `#[derive(DlpackDataType)]` and `#[derive(DlpackDevice)]`: compile-time checked DLPack
//! conversions for your own dtype and device types.
//!
//! Use them through [`dlpack-core`](https://docs.rs/dlpack-core), which re-exports both under
//! its default feature `derive` (`use dlpack_core::{DlpackDataType, DlpackDevice};`) and
//! documents every attribute on the re-exports. This crate holds the macros only.
//!
//! ```
//! use dlpack_core::{DataType, Device, DlpackDataType, DlpackDevice};
//!
//! #[derive(Debug, PartialEq, DlpackDataType)]
//! enum DType {
//!     #[dlpack("float32")] F32,
//!     #[dlpack(code = bfloat, bits = 16)] BF16,
//!     #[dlpack(element = u8)] U8,
//!     #[dlpack("float32", export_only)] Flex32,
//!     #[dlpack(skip)] QInt8,
//! }
//!
//! #[derive(Debug, PartialEq, DlpackDevice)]
//! enum Place {
//!     #[dlpack(cpu)] Cpu,
//!     #[dlpack(cuda)] Cuda(usize),
//! }
//!
//! assert_eq!(DType::BF16.dlpack_data_type()?, DataType::BF16);
//! assert_eq!(DType::from_dlpack_data_type(DataType::F32)?, DType::F32);
//! assert_eq!(Place::Cuda(1).dlpack_device()?, Device::cuda(1));
//! # Ok::<(), dlpack_core::Error>(())
//! ```
//!
//! # How it works
//!
//! Each derive runs three steps, one module each: `ast` builds a typed view of the input
//! that borrows the syn tree and parses the `#[dlpack(...)]` attributes (`attr`); `check`
//! validates it and resolves every variant's mapping, collecting every mistake so one build
//! shows them all; `expand` writes the impls. When the input is invalid, `fallback` still
//! emits the trait impl (with the errors), so one mistake is reported once instead of
//! cascading into "trait not implemented" errors wherever the type is used.
//!
//! Names of data types and devices are checked against `dlpack-grammar`, the table that
//! `DataType`'s and `Device`'s `FromStr` and `Display` use, so an annotation is accepted
//! exactly when the same string parses at run time. Checks that need types (an `element`'s
//! data type, the range of an id field's integer type, the sets of a delegate's inner type)
//! are emitted as `const` assertions spanned on the annotation, so they also fail at compile
//! time and point at the user's tokens.

mod ast;
mod attr;
mod check;
mod ctxt;
mod expand;
mod fallback;
#[cfg(test)]
mod golden;
mod kind;
mod names;
mod symbol;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

#[doc = include_str!("../docs/data_type.md")]
#[proc_macro_derive(DlpackDataType, attributes(dlpack))]
pub fn derive_data_type(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, kind::Kind::DataType).into()
}

#[doc = include_str!("../docs/device.md")]
#[proc_macro_derive(DlpackDevice, attributes(dlpack))]
pub fn derive_device(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, kind::Kind::Device).into()
}
