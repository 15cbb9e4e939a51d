//! Tokens for a raw data type struct: `code`, `bits` and optional `lanes` fields.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Path;

use super::{Impl, bound_if_generic, wrap};
use crate::ast::Input;
use crate::check::data_type::Raw;

/// A struct with `code`/`bits`/`lanes` fields: a raw data type.
pub(super) fn expand(input: &Input, krate: &Path, raw: &Raw) -> TokenStream {
    let mut bounds = Vec::new();
    let roles = [Some(raw.code), Some(raw.bits), raw.lanes];
    for f in &raw.v.fields {
        if !roles.iter().flatten().any(|r| r.member == f.member) {
            bound_if_generic(input, f.ty, quote!(::core::default::Default), &mut bounds);
        }
    }
    let imp = Impl::new(input, bounds);
    let Impl {
        ident,
        impl_generics,
        ty_generics,
        where_clause,
    } = &imp;
    let (code_m, code_ty) = (&raw.code.member, raw.code.ty);
    let (bits_m, bits_ty) = (&raw.bits.member, raw.bits.ty);
    // The data type of `recv` (`self` in the trait, `value` in `From`).
    let getter = |recv: TokenStream| {
        let code = quote_spanned!(raw.code.span=> <#code_ty as #krate::__private::CodeField>::to_code(#recv.#code_m));
        let bits = quote_spanned!(raw.bits.span=> <#bits_ty as #krate::__private::BitsField>::get(#recv.#bits_m));
        let lanes = match raw.lanes {
            Some(l) => {
                let (m, ty) = (&l.member, l.ty);
                quote_spanned!(l.span=> <#ty as #krate::__private::LanesField>::get(#recv.#m))
            }
            None => quote!(1u16),
        };
        quote!(#krate::DataType::new(#code, #bits, #lanes))
    };
    let get_self = getter(quote!(self));
    let get_value = getter(quote!(value));
    let code_set = quote_spanned!(raw.code.span=> <#code_ty as #krate::__private::CodeField>::from_code(data_type.code));
    let bits_set = quote_spanned!(raw.bits.span=> <#bits_ty as #krate::__private::BitsField>::from_bits(data_type.bits));
    let (lanes_check, accepts) = match raw.lanes {
        Some(_) => (quote!(), quote!(#krate::set::DataTypeSet::ALL)),
        None => (
            quote! {
                if data_type.lanes != 1 {
                    return ::core::result::Result::Err(#krate::__private::scalar_only::<Self>(data_type));
                }
            },
            quote!(#krate::set::DataTypeSet::EMPTY),
        ),
    };
    let inits = raw.v.fields.iter().map(|f| {
        let member = &f.member;
        let ty = f.ty;
        if f.member == *code_m {
            quote!(#member: #code_set)
        } else if f.member == *bits_m {
            quote!(#member: #bits_set)
        } else if raw.lanes.is_some_and(|l| l.member == f.member) {
            quote_spanned!(f.span=> #member: <#ty as #krate::__private::LanesField>::from_lanes(data_type.lanes))
        } else {
            quote_spanned!(f.span=> #member: <#ty as ::core::default::Default>::default())
        }
    });
    wrap(quote! {
        #[automatically_derived]
        impl #impl_generics #krate::DlpackDataType for #ident #ty_generics #where_clause {
            const PRODUCES: #krate::set::DataTypeSet = #krate::set::DataTypeSet::ALL;
            const ACCEPTS: #krate::set::DataTypeSet = #accepts;

            #[inline]
            fn dlpack_data_type(&self) -> ::core::result::Result<#krate::DataType, #krate::Error> {
                ::core::result::Result::Ok(#get_self)
            }

            #[inline]
            fn from_dlpack_data_type(data_type: #krate::DataType) -> ::core::result::Result<Self, #krate::Error> {
                #lanes_check
                ::core::result::Result::Ok(Self { #(#inits),* })
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::convert::TryFrom<#krate::DataType> for #ident #ty_generics #where_clause {
            type Error = #krate::Error;

            #[inline]
            fn try_from(data_type: #krate::DataType) -> ::core::result::Result<Self, #krate::Error> {
                <Self as #krate::DlpackDataType>::from_dlpack_data_type(data_type)
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::convert::From<#ident #ty_generics> for #krate::DataType #where_clause {
            #[inline]
            fn from(value: #ident #ty_generics) -> Self {
                #get_value
            }
        }
    })
}
