//! Token generation, after `check` has resolved every mapping.
//!
//! - [`items`] and [`import`]: each item's part of every generated function, by where its
//!   value comes from and how it comes back (and [`value`], the few tokens that differ by kind:
//!   constants, set entries, match keys).
//! - [`builder`]: the impls around those parts, for a valid input and for the fallback.
//! - [`assertions`]: `const` checks of what only the compiler knows.
//!
//! Everything is emitted inside `const _: () = { … };` and names only absolute paths (the
//! dlpack-core path, `::core`), so it works under `#![no_implicit_prelude]` and next to any
//! user item names. Generated items carry `#[automatically_derived]` and allow `deprecated`
//! (a `#[deprecated]` variant is still converted without warnings). The shapes that matter for
//! speed are pinned by the golden tests (`src/golden.rs`), and why they are what they are is
//! in the benchmarks' documentation (`benches/src/lib.rs`).

mod assertions;
pub(crate) mod builder;
mod import;
mod items;
mod value;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{DeriveInput, Ident, Type, WherePredicate};

use crate::ast::{Field, Input, Variant};
use crate::check;
use crate::ctxt::Ctxt;
use crate::fallback;
use crate::kind::Kind;

/// The whole derive: parse, check, expand; on any error the errors plus a fallback impl.
pub(crate) fn derive(input: &DeriveInput, kind: Kind) -> TokenStream {
    let cx = Ctxt::default();
    let ast = Input::from_syn(&cx, kind, input);
    let expanded = check::check(&cx, &ast).map(|model| items::expand(&ast, &model));
    match (cx.finish(), expanded) {
        (Ok(()), Some(tokens)) => tokens,
        (result, _) => {
            let errors = result.err().map(|e| e.to_compile_error());
            let fallback = fallback::expand(&ast);
            quote!(#fallback #errors)
        }
    }
}

/// The path of an item in patterns and constructors: `Self::Variant`, or `Self` for a struct.
pub(crate) fn path(v: &Variant) -> TokenStream {
    match v.ident {
        Some(ident) => quote!(Self::#ident),
        None => quote!(Self),
    }
}

/// The same path from outside the impl (`Enum::Variant`), for `From<Enum> for DataType`.
pub(crate) fn outer_path(ident: &Ident, v: &Variant) -> TokenStream {
    match v.ident {
        Some(variant) => quote!(#ident::#variant),
        None => quote!(#ident),
    }
}

/// A pattern matching the item and binding `field` (if any) to `binding`.
pub(crate) fn pattern(path: &TokenStream, field: Option<(&Field, &Ident)>) -> TokenStream {
    match field {
        Some((field, binding)) => {
            let member = &field.member;
            quote!(#path { #member: #binding, .. })
        }
        None => quote!(#path { .. }),
    }
}

/// The item's `#[cfg]` attributes, repeated on what is generated for it.
pub(crate) fn cfgs(v: &Variant) -> TokenStream {
    let cfgs = &v.cfgs;
    quote!(#(#cfgs)*)
}

/// The variant's name as a string, for errors (the type's name for a struct).
pub(crate) fn value_name(input: &Input, v: &Variant) -> String {
    v.ident.unwrap_or(input.ident).to_string()
}

/// The binding for a field in generated patterns.
pub(crate) fn binding(name: &str) -> Ident {
    format_ident!("__dlpack_{}", name)
}

/// A where predicate `ty: bound` when `ty` mentions a type parameter of the input.
pub(crate) fn bound_if_generic(
    input: &Input,
    ty: &Type,
    bound: TokenStream,
    out: &mut Vec<WherePredicate>,
) {
    if check::mentions_type_param(input, ty) {
        out.push(syn::parse_quote!(#ty: #bound));
    }
}

/// A `const` assertion, spanned on the user's tokens so the error points at them: every
/// token is respanned, since rustc reports a failed evaluation at the `panic!` inside.
/// (A proc macro's `call_site` and the user's spans resolve names alike, so this changes
/// nothing but where the error points.)
pub(crate) fn const_check(span: Span, body: TokenStream) -> TokenStream {
    respan(quote!(const _: () = #body;), span)
}

fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = proc_macro2::TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}
