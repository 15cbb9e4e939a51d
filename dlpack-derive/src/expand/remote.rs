//! `remote = "…"`: the conversions between a mirror and the foreign type it mirrors, which are
//! also the proof that the two match. Each is one `match` (a `let` for a struct) whose arms
//! are spanned on the mirror's own tokens:
//!
//! - mirror → foreign (`From<Mirror> for Foreign`) names every mirror variant and field in the
//!   foreign type, so an extra or renamed variant, or a field the foreign one lacks, is "no
//!   variant named …" / "has no field named …" at that variant or field;
//! - foreign → mirror (`From<&Foreign> for Mirror`) matches every foreign value without a
//!   wildcard, so a foreign variant the mirror leaves out is "pattern `…` not covered"; a
//!   foreign field it leaves out is the first conversion's "missing field". Fields are
//!   cloned: the conversion reads a borrowed foreign value, as `dlpack_data_type(&self)` does.
//!
//! A `#[non_exhaustive]` foreign enum cannot be matched without a wildcard outside its crate,
//! so without a decision the second match fails ("`_` not covered"); `non_exhaustive =
//! "error"` adds the wildcard, and the conversion becomes `TryFrom`, whose error names both
//! types. With the hidden `__impl_remote` the foreign type gets the trait and the
//! `from_dlpack` tags too, through the mirror: only a crate that may implement them
//! (dlpack-core's bridges, or the foreign crate itself) can use that, so no user
//! documentation names it (see `Sym::is_hidden`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, Member};

use super::builder::tag_impls;
use super::tokens::cfgs;
use crate::check::{Model, Remote};
use crate::parse::ast::{Body, Input, Style, Variant};
use crate::parse::kind::Paths;
use crate::parse::symbol::Sym;

pub(super) fn expand(input: &Input, model: &Model, paths: &Paths) -> TokenStream {
    let Some(remote) = &model.remote else {
        return TokenStream::new();
    };
    let (mirror, foreign) = (input.ident, remote.path);
    let (to_foreign, to_mirror) = match &input.body {
        Body::Enum(variants) => {
            let to_foreign = variants.iter().map(|v| {
                let (cfgs, ident) = (cfgs(v), v.ident.expect("an enum variant"));
                let from = shape(&quote!(#mirror::#ident), v, Use::Exact);
                let to = shape(
                    &quote_spanned!(ident.span()=> #foreign::#ident),
                    v,
                    Use::Exact,
                );
                quote!(#cfgs #from => #to,)
            });
            let mut to_mirror: Vec<TokenStream> = variants
                .iter()
                .map(|v| {
                    let (cfgs, ident) = (cfgs(v), v.ident.expect("an enum variant"));
                    let foreign = quote_spanned!(ident.span()=> #foreign::#ident);
                    let from = shape(&foreign, v, Use::ForeignPattern);
                    let to = shape(&quote!(Self::#ident), v, Use::CloneInto);
                    quote!(#cfgs #from => #to,)
                })
                .collect();
            if let Some(span) = remote.non_exhaustive {
                let unknown = unknown(paths, foreign, mirror);
                // Unreachable when the foreign enum is exhaustive after all: then the decision
                // only hides a variant the mirror leaves out, so it is an error at the key.
                to_mirror.push(quote_spanned!(span=>
                    #[deny(unreachable_patterns)]
                    _ => return #unknown,
                ));
            }
            let value = quote_spanned!(foreign_span(foreign)=> value);
            (
                quote!(match value { #(#to_foreign)* }),
                quote!(match #value { #(#to_mirror)* }),
            )
        }
        Body::Struct(v) => {
            let from = shape(&quote!(#mirror), v, Use::Exact);
            let to = shape(&quote_spanned!(v.span=> #foreign), v, Use::Exact);
            let back_from = shape(&quote_spanned!(v.span=> #foreign), v, Use::ForeignPattern);
            let back_to = shape(&quote!(Self), v, Use::CloneInto);
            (
                quote!({ let #from = value; #to }),
                quote!({ let #back_from = value; #back_to }),
            )
        }
        Body::Union(_) => return TokenStream::new(),
    };
    let error = &paths.error;
    let back = match remote.non_exhaustive {
        None => quote! {
            #[automatically_derived]
            impl ::core::convert::From<&#foreign> for #mirror {
                #[inline]
                fn from(value: &#foreign) -> Self {
                    #to_mirror
                }
            }
        },
        Some(_) => quote! {
            #[automatically_derived]
            impl ::core::convert::TryFrom<&#foreign> for #mirror {
                type Error = #error;

                #[inline]
                fn try_from(value: &#foreign) -> ::core::result::Result<Self, #error> {
                    ::core::result::Result::Ok(#to_mirror)
                }
            }
        },
    };
    let impls = remote
        .impl_remote
        .then(|| impl_remote(paths, remote, mirror));
    quote! {
        #[automatically_derived]
        impl ::core::convert::From<#mirror> for #foreign {
            #[inline]
            fn from(value: #mirror) -> Self {
                #to_foreign
            }
        }

        #back
        #impls
    }
}

/// How [`shape`] writes an item.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    /// A pattern of the mirror, or a constructor of the foreign type: every field named.
    Exact,
    /// A pattern of the foreign type: its fields the mirror lists, then `..`. That a field is
    /// missing from the mirror is the constructor's error ("missing field"), at the mirror.
    ForeignPattern,
    /// A constructor of the mirror from a borrowed foreign value: every binding cloned.
    CloneInto,
}

/// What a mirror whose derive failed still gets: its conversions, with bodies that never run
/// (the build fails anyway), so that its uses add no "`From` is not implemented" errors to the
/// one that matters.
pub(super) fn fallback(input: &Input, paths: &Paths) -> TokenStream {
    let Some(foreign) = input.attrs.path(Sym::Remote) else {
        return TokenStream::new();
    };
    let (mirror, error) = (input.ident, &paths.error);
    let unreachable = quote!(::core::unreachable!(
        "the derive failed; see the error above"
    ));
    let back = if input.attrs.span(Sym::NonExhaustive).is_some() {
        quote! {
            impl ::core::convert::TryFrom<&#foreign> for #mirror {
                type Error = #error;

                fn try_from(_: &#foreign) -> ::core::result::Result<Self, #error> {
                    #unreachable
                }
            }
        }
    } else {
        quote! {
            impl ::core::convert::From<&#foreign> for #mirror {
                fn from(_: &#foreign) -> Self {
                    #unreachable
                }
            }
        }
    };
    quote! {
        const _: () = {
            impl ::core::convert::From<#mirror> for #foreign {
                fn from(_: #mirror) -> Self {
                    #unreachable
                }
            }

            #back
        };
    }
}

/// `path` or `path { field: binding, … }`, a pattern or a constructor of the item's shape, a
/// tuple field named by its index, so a field one side lacks is an error at it.
fn shape(path: &TokenStream, v: &Variant, how: Use) -> TokenStream {
    if v.style == Style::Unit {
        return path.clone();
    }
    let fields = v.fields.iter().map(|field| {
        let member = &field.member;
        let binding = binding(member);
        let value = if how == Use::CloneInto {
            quote_spanned!(field.span=> ::core::clone::Clone::clone(#binding))
        } else {
            quote!(#binding)
        };
        quote_spanned!(field.span=> #member: #value)
    });
    let rest = (how == Use::ForeignPattern).then(|| quote!(, ..));
    quote!(#path { #(#fields),* #rest })
}

fn binding(member: &Member) -> Ident {
    match member {
        Member::Named(ident) => format_ident!("__dlpack_field_{}", ident),
        Member::Unnamed(index) => format_ident!("__dlpack_field_{}", index.index),
    }
}

/// Where an error about the foreign type as a whole points: its path in `remote = "…"`.
fn foreign_span(path: &syn::Path) -> proc_macro2::Span {
    syn::spanned::Spanned::span(path)
}

/// The error of a foreign value the mirror does not know.
fn unknown(paths: &Paths, foreign: &syn::Path, mirror: &Ident) -> TokenStream {
    let krate = &paths.krate;
    let name = mirror.to_string();
    quote!(::core::result::Result::Err(
        #krate::__private::unknown_remote_variant::<#foreign>(#name)
    ))
}

/// `__impl_remote`: the trait for the foreign type, through the mirror, and its tags.
fn impl_remote(paths: &Paths, remote: &Remote, mirror: &Ident) -> TokenStream {
    let foreign = remote.path;
    let (trait_, value, set, error) = (&paths.trait_, &paths.value, &paths.set, &paths.error);
    let (export, import, param) = (&paths.export, &paths.import, &paths.param);
    let to_mirror = match remote.non_exhaustive {
        None => quote!(<#mirror as ::core::convert::From<&#foreign>>::from(self)),
        Some(_) => quote!(
            match <#mirror as ::core::convert::TryFrom<&#foreign>>::try_from(self) {
                ::core::result::Result::Ok(mirror) => mirror,
                ::core::result::Result::Err(error) => return ::core::result::Result::Err(error),
            }
        ),
    };
    let tags = tag_impls(paths, &quote!(), &quote!(#foreign), &quote!());
    let krate = &paths.krate;
    // The mirror's errors name the mirror; the caller converts the foreign type.
    // As written, without spaces, and absolute: the path a user names the type by, with the
    // leading `::` that tells it from a `core::any::type_name` (the Python layer names a
    // foreign type by its path, `candle_core.DType`, and a user's own class by its name).
    let name = foreign
        .segments
        .iter()
        .map(|segment| format!("::{}", quote!(#segment).to_string().replace(' ', "")))
        .collect::<String>();
    let rename = quote!(#krate::__private::remote_error::<#mirror>);
    quote! {
        #[automatically_derived]
        impl #trait_ for #foreign {
            const PRODUCES: #set = <#mirror as #trait_>::PRODUCES;
            const ACCEPTS: #set = <#mirror as #trait_>::ACCEPTS;

            #[inline]
            fn #export(&self) -> ::core::result::Result<#value, #error> {
                match <#mirror as #trait_>::#export(&#to_mirror) {
                    ::core::result::Result::Ok(value) => ::core::result::Result::Ok(value),
                    ::core::result::Result::Err(error) => ::core::result::Result::Err(#rename(error, #name)),
                }
            }

            #[inline]
            fn #import(#param: #value) -> ::core::result::Result<Self, #error> {
                match <#mirror as #trait_>::#import(#param) {
                    ::core::result::Result::Ok(mirror) => {
                        ::core::result::Result::Ok(<Self as ::core::convert::From<#mirror>>::from(mirror))
                    }
                    ::core::result::Result::Err(error) => ::core::result::Result::Err(#rename(error, #name)),
                }
            }
        }

        #tags
    }
}
