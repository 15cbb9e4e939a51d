//! `remote = "…"`: the input is a mirror of another crate's type. What can be checked before
//! the compiler sees the foreign type is checked here: the options that go with `remote`, and
//! the mirrors that cannot be. Whether the mirror matches the foreign type (every variant, its
//! name and its fields) is proven by the conversions `expand` writes, spanned on the mirror.

use super::model::Remote;
use crate::parse::ast::{Body, Input};
use crate::parse::ctxt::Ctxt;
use crate::parse::symbol::Sym;

pub(super) fn check<'a>(cx: &Ctxt, input: &'a Input<'a>) -> Option<Remote<'a>> {
    let attrs = &input.attrs;
    let Some(path) = attrs.path(Sym::Remote) else {
        for sym in [Sym::NonExhaustive, Sym::ImplRemote] {
            if let Some(span) = attrs.span(sym) {
                cx.error(
                    span,
                    format_args!(
                        "`{sym}` goes with `remote = \"…\"`, on the mirror of another crate's type"
                    ),
                );
            }
        }
        return None;
    };
    if input.generics.params.iter().next().is_some() {
        cx.error_spanned(
            input.generics,
            "a `remote` mirror cannot be generic: mirror one instance of the foreign type, as in `remote = \"their_crate::Wrapper::<u8>\"`",
        );
    }
    let non_exhaustive = attrs.span(Sym::NonExhaustive);
    if let (Some(span), Body::Struct(_)) = (non_exhaustive, &input.body) {
        cx.error(
            span,
            "`non_exhaustive` is for the mirror of an enum; a `#[non_exhaustive]` struct cannot be built outside its crate, so it has no mirror",
        );
    }
    Some(Remote {
        path,
        non_exhaustive,
        impl_remote: attrs.span(Sym::ImplRemote).is_some(),
    })
}
