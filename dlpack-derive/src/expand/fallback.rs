//! What is emitted beside the errors when the input is invalid: the impls a valid input gets,
//! with bodies that never run, because the build fails anyway. Without them, every use of the
//! type as a `DlpackDataType` would add a "trait not implemented" error to the one that
//! matters. `PRODUCES` is empty and `ACCEPTS` is everything, so an `assert_convertible!` that
//! names the type adds no error of its own either.

use proc_macro2::TokenStream;

use super::builder::{self, Parts};
use crate::parse::ast::Input;

pub(crate) fn expand(input: &Input) -> TokenStream {
    let paths = input.kind.paths(&input.krate());
    builder::build(input, &paths, Parts::fallback(input, &paths))
}
