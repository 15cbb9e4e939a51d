//! Token generation, after `check` has resolved every mapping.
//!
//! Everything is emitted inside `const _: () = { … };` and names only absolute paths (the
//! dlpack-core path, `::core`), so it works under `#![no_implicit_prelude]` and next to any
//! user item names. Generated items carry `#[automatically_derived]` and allow `deprecated`
//! (a `#[deprecated]` variant is still converted without warnings).

mod assertions;
mod data_type;
mod device;
mod raw;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{DeriveInput, Ident, Member, Type, WherePredicate};

use crate::ast::{Field, Input, Style, Variant};
use crate::attr::Which;
use crate::check;
use crate::ctxt::Ctxt;
use crate::fallback;

/// The whole derive: parse, check, expand; on any error the errors plus a fallback impl.
pub(crate) fn derive(input: &DeriveInput, which: Which) -> TokenStream {
    let cx = Ctxt::default();
    let ast = Input::from_syn(&cx, which, input);
    let expanded = match which {
        Which::DataType => check::data_type::check(&cx, &ast).map(|m| data_type::expand(&ast, &m)),
        Which::Device => check::device::check(&cx, &ast).map(|m| device::expand(&ast, &m)),
    };
    // Emitted beside the fallback too, so that a failed derive adds no `from_dlpack` errors.
    let kinds = kinds(&ast, which);
    match (cx.finish(), expanded) {
        (Ok(()), Some(tokens)) => quote!(#tokens #kinds),
        (result, _) => {
            let errors = result.err().map(|e| e.to_compile_error());
            let fallback = fallback::expand(&ast, which);
            quote!(#fallback #kinds #errors)
        }
    }
}

/// The tags that tell `from_dlpack` which protocol the type speaks, as a source and as a
/// target (see `dlpack-core`'s `convert/kind.rs`: a blanket impl cannot tell a data type from
/// a device, so each derived type states its own).
fn kinds(input: &Input, which: Which) -> TokenStream {
    let krate = check::krate(input);
    let Impl {
        ident,
        impl_generics,
        ty_generics,
        where_clause,
    } = Impl::new(input, Vec::new());
    let kind = match which {
        Which::DataType => quote!(DataTypeKind),
        Which::Device => quote!(DeviceKind),
    };
    wrap(quote! {
        #[automatically_derived]
        impl #impl_generics #krate::__private::SourceKind for #ident #ty_generics #where_clause {
            type Kind = #krate::__private::#kind;
        }

        #[automatically_derived]
        impl #impl_generics #krate::__private::TargetKind for #ident #ty_generics #where_clause {
            type Kind = #krate::__private::#kind;
        }
    })
}

/// The pieces every generated impl shares.
pub(crate) struct Impl<'a> {
    pub ident: &'a Ident,
    pub impl_generics: TokenStream,
    pub ty_generics: TokenStream,
    pub where_clause: TokenStream,
}

impl<'a> Impl<'a> {
    /// The generics of `input`, with `bounds` added to its where clause.
    pub(crate) fn new(input: &'a Input<'a>, bounds: Vec<WherePredicate>) -> Self {
        let mut generics = input.generics.clone();
        if !bounds.is_empty() {
            generics.make_where_clause().predicates.extend(bounds);
        }
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
        Impl {
            ident: input.ident,
            impl_generics: quote!(#impl_generics),
            ty_generics: quote!(#ty_generics),
            where_clause: quote!(#where_clause),
        }
    }
}

/// Wraps generated items in `const _: () = { … };`.
pub(crate) fn wrap(items: TokenStream) -> TokenStream {
    quote! {
        #[allow(deprecated, non_local_definitions)]
        const _: () = {
            #items
        };
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
pub(crate) fn pattern(v: &Variant, field: Option<(&Field, &Ident)>) -> TokenStream {
    let path = path(v);
    match field {
        Some((field, binding)) => {
            let member = &field.member;
            quote!(#path { #member: #binding, .. })
        }
        None => quote!(#path { .. }),
    }
}

/// A constructor of the item: `field` (if any) set to `value`, every other field
/// `Default::default()`.
pub(crate) fn construct(v: &Variant, field: Option<(&Field, TokenStream)>) -> TokenStream {
    let path = path(v);
    if v.style == Style::Unit {
        return path;
    }
    let inits = v.fields.iter().map(|f| {
        let member = &f.member;
        match &field {
            Some((chosen, value)) if chosen.member == f.member => quote!(#member: #value),
            _ => {
                let ty = f.ty;
                quote_spanned!(f.span=> #member: <#ty as ::core::default::Default>::default())
            }
        }
    });
    quote!(#path { #(#inits),* })
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

/// The fields filled with `Default` when an importable item is built.
pub(crate) fn default_bounds(
    input: &Input,
    v: &Variant,
    except: Option<&Member>,
    out: &mut Vec<WherePredicate>,
) {
    for f in &v.fields {
        if Some(&f.member) != except {
            bound_if_generic(input, f.ty, quote!(::core::default::Default), out);
        }
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

/// Doc attributes for generated inherent functions.
pub(crate) fn doc(text: &str) -> TokenStream {
    quote!(#[doc = #text])
}
