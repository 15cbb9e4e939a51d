//! The small token helpers every part of the expansion uses: an item's path and patterns, its
//! `#[cfg]`s, bindings, bounds, and `const` assertions spanned on the user's tokens.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Ident, Type, WherePredicate};

use crate::check;
use crate::parse::ast::{Field, Input, Variant};

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
