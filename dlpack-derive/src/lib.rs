//! `#[derive(DlpackDataType)]` and `#[derive(DlpackDevice)]`: compile-time checked DLPack
//! conversions for your own dtype and device types; and, with PyO3, `#[pymethods]` (the
//! Python protocol of a dtype, device or tensor class) and `#[tensor_args]` (typed tensor
//! arguments that name the function and the argument in their errors).
//!
//! Use them through [`dlpack-core`](https://docs.rs/dlpack-core), which re-exports the derives
//! under its default feature `derive` (`use dlpack_core::{DlpackDataType, DlpackDevice};`) and
//! the attributes as `dlpack_core::python::{pymethods, tensor_args}`, and documents every
//! attribute on the re-exports. This crate holds the macros only.
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
//! # What is checked, and where errors point
//!
//! Names of data types and devices are read with `dlpack-grammar`, the table that
//! `DataType`'s and `Device`'s `FromStr` and `Display` use, so an annotation is accepted
//! exactly when the same string parses at run time. What needs types (an `element`'s data
//! type, the range of an id field's integer type, the sets of a delegate's inner type) is
//! checked by `const` assertions spanned on the annotation, so it fails at compile time too and
//! points at your tokens. One build reports every mistake of an input, each once: an invalid
//! input still gets its impls (with bodies that never run), so a mistake does not cascade into
//! "trait not implemented" errors wherever the type is used.
//!
//! # Decisions
//!
//! - **No silent `Default`.** A field that import cannot set from the DLPack value (neither
//!   the device id, a delegate, a raw data type field nor `PhantomData`) needs
//!   `import_with`, `default` or `export_only` on its item: a handle or quantisation
//!   parameters rebuilt from `Default` would import a value nobody wrote. `PhantomData` holds
//!   nothing, so it needs no policy.
//! - **`default` on a struct is `Self::default()`**, with the fields import sets written
//!   over it, so the struct's own `Default` impl decides; on a variant, which has no
//!   `Default` of its own, each field's.
//! - **`import_with` receives every value its item exports**: a handle variant's function
//!   sees every device of its type and may refuse some with an error.
//! - **`device_with` beside a device name** says which type of device the handle is: the
//!   derive cannot see what the function returns, and a broad return type (candle's
//!   `DeviceLocation` holds CPU, CUDA and Metal devices) would otherwise make the variant
//!   claim all of them.
//! - **`data_type_with` returns a `DlpackDataType`, not a `Result`**, as `device_with` returns
//!   a `DlpackDevice`: a value with no DLPack data type returns a dtype enum's `skip` variant,
//!   whose export is the error that names it. Nothing beside it names part of the data type.
//! - **`Box`, `Arc` and `Rc` are recognised by name** (the path's last segment, with one type
//!   argument), as serde recognises `PhantomData`: a delegate reads through the pointer and
//!   import wraps with `From`. Another type of that name that is not a pointer fails to
//!   compile at the field, not silently.
//! - **`remote` proves the mirror with the conversions themselves**: `From<Mirror> for
//!   Foreign` and `From<&Foreign> for Mirror` are exhaustive matches spanned on the mirror,
//!   so rustc names a missing, extra or renamed variant or field. The derive cannot see the
//!   foreign type, so nothing else could check it. A `#[non_exhaustive]` foreign enum needs
//!   `non_exhaustive = "error"`, the one decision: a catch-all mirror variant could never
//!   convert back, and its DLPack meaning would be the error anyway. The foreign type gets
//!   no impls of its own: outside dlpack-core and the foreign crate that is E0117, so every
//!   conversion goes through the mirror.
//! - **Other frameworks' names are never accepted**, only explained: accepting `"half"` or
//!   `mps` would make the derive's grammar differ from `FromStr`'s, and `"e4m3"` would have
//!   to guess between DLPack codes 8 and 10.

mod check;
mod expand;
#[cfg(test)]
mod golden;
mod parse;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

#[doc = include_str!("../docs/data_type.md")]
#[proc_macro_derive(DlpackDataType, attributes(dlpack))]
pub fn derive_data_type(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, parse::kind::Kind::DataType).into()
}

// Its examples run as doctests of the `tests` package (`tests/src/lib.rs`), which links PyO3
// as a target crate: as a dev-dependency of this proc-macro crate PyO3 would be built for the
// host with other features than the target's (PyO3's `experimental-inspect`, through
// dlpack-core's `inspect`), and the one `pyo3-macros` both share would disagree with one.
#[cfg_attr(not(doctest), doc = include_str!("../docs/pymethods.md"))]
#[proc_macro_attribute]
pub fn pymethods(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::python::pymethods(args.into(), input.into()).into()
}

// Its example runs in the `tests` package, as `pymethods`'s do.
#[cfg_attr(not(doctest), doc = include_str!("../docs/tensor_args.md"))]
#[proc_macro_attribute]
pub fn tensor_args(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::args::tensor_args(args.into(), input.into()).into()
}

#[doc = include_str!("../docs/device.md")]
#[proc_macro_derive(DlpackDevice, attributes(dlpack))]
pub fn derive_device(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, parse::kind::Kind::Device).into()
}
