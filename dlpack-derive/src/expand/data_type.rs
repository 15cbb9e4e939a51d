//! Tokens for `#[derive(DlpackDataType)]`.
//!
//! `from_dlpack_data_type` is one `match` on the data type as an integer
//! (`code | bits << 8 | lanes << 16`), with the known mappings as literal patterns and the
//! `element` mappings as local constants, then one `ACCEPTS` test per delegating variant.
//! `dlpack_data_type` is one `match` on `self` whose arms are constants.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Path, WherePredicate};

use super::{
    Impl, binding, bound_if_generic, cfgs, const_check, construct, default_bounds, doc, outer_path,
    pattern, value_name, wrap,
};
use crate::ast::{Input, Style};
use crate::check::data_type::{Item, Map, Model, Raw, Shape, Value};
use crate::check::mentions_type_param;

pub(crate) fn expand(input: &Input, model: &Model) -> TokenStream {
    let krate = &model.krate;
    match &model.shape {
        Shape::Raw(raw) => expand_raw(input, krate, raw),
        Shape::Enum(items) => expand_items(input, krate, items, true),
        Shape::Struct(item) => expand_items(input, krate, std::slice::from_ref(item), false),
    }
}

/// The `DataType` of a mapping, as an expression.
fn value(krate: &Path, value: &Value) -> TokenStream {
    match value {
        Value::Known { code, bits, lanes } => {
            let (code, bits, lanes) = (
                Literal::u8_suffixed(*code),
                Literal::u8_suffixed(*bits),
                Literal::u16_suffixed(*lanes),
            );
            quote!(#krate::DataType::new(#krate::ffi::DLDataTypeCode(#code), #bits, #lanes))
        }
        Value::Element(ty) => {
            quote_spanned!(syn::spanned::Spanned::span(ty)=> <#ty as #krate::Element>::DATA_TYPE)
        }
    }
}

fn key_literal(code: u8, bits: u8, lanes: u16) -> Literal {
    Literal::u32_suffixed(u32::from(code) | u32::from(bits) << 8 | u32::from(lanes) << 16)
}

fn expand_items(input: &Input, krate: &Path, items: &[Item], is_enum: bool) -> TokenStream {
    let mut bounds: Vec<WherePredicate> = Vec::new();
    for item in items {
        match &item.map {
            Map::Delegate { field, .. } => {
                bound_if_generic(input, field.ty, quote!(#krate::DlpackDataType), &mut bounds);
            }
            Map::Fixed {
                value, export_only, ..
            } => {
                if let Value::Element(ty) = value {
                    bound_if_generic(input, ty, quote!(#krate::Element), &mut bounds);
                }
                if !export_only {
                    default_bounds(input, item.v, None, &mut bounds);
                }
            }
            Map::Skip => {}
        }
    }
    let imp = Impl::new(input, bounds);
    let Impl {
        ident,
        impl_generics,
        ty_generics,
        where_clause,
    } = &imp;

    // PRODUCES and ACCEPTS.
    let set =
        |importing: bool| {
            let steps = items.iter().filter(|i| !importing || i.map.imports()).map(|item| {
            let cfgs = cfgs(item.v);
            match &item.map {
                Map::Fixed { value: v, .. } => {
                    let v = value(krate, v);
                    quote!(#cfgs let set = set.with(#v);)
                }
                Map::Delegate { field, .. } => {
                    let ty = field.ty;
                    let which = if importing {
                        quote!(ACCEPTS)
                    } else {
                        quote!(PRODUCES)
                    };
                    quote!(#cfgs let set = set.union(&<#ty as #krate::DlpackDataType>::#which);)
                }
                Map::Skip => quote!(),
            }
        });
            quote!({
                let set = #krate::set::DataTypeSet::EMPTY;
                #(#steps)*
                set
            })
        };
    let produces = set(false);
    let accepts = set(true);

    // dlpack_data_type: one arm per item.
    let inner = binding("inner");
    let export_arms = items.iter().map(|item| {
        let cfgs = cfgs(item.v);
        match &item.map {
            Map::Fixed { value: v, .. } => {
                let pat = pattern(item.v, None);
                let v = value(krate, v);
                quote!(#cfgs #pat => ::core::result::Result::Ok(#v),)
            }
            Map::Delegate { field, .. } => {
                let pat = pattern(item.v, Some((field, &inner)));
                quote!(#cfgs #pat => #krate::DlpackDataType::dlpack_data_type(#inner),)
            }
            Map::Skip => {
                let pat = pattern(item.v, None);
                let name = value_name(input, item.v);
                quote!(#cfgs #pat => ::core::result::Result::Err(
                    #krate::__private::no_data_type::<Self>(#name)
                ),)
            }
        }
    });
    let export = if items.is_empty() {
        quote!(match *self {})
    } else {
        quote!(match self { #(#export_arms)* })
    };

    // from_dlpack_data_type: one match on the key, then the delegates.
    let key = binding("key");
    let mut consts = Vec::new();
    let mut arms = Vec::new();
    let mut unit_arms = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Map::Fixed {
            value: v,
            export_only: false,
            ..
        } = &item.map
        else {
            continue;
        };
        let cfgs = cfgs(item.v);
        let built = construct(item.v, None);
        let pat = match v {
            Value::Known { code, bits, lanes } => {
                let lit = key_literal(*code, *bits, *lanes);
                quote!(#lit)
            }
            Value::Element(ty) if !mentions_type_param(input, ty) => {
                let name = format_ident!("__DLPACK_KEY_{}", i);
                let v = value(krate, v);
                consts.push(quote!(#cfgs const #name: u32 = #krate::__private::data_type_key(#v);));
                quote!(#name)
            }
            Value::Element(_) => {
                let v = value(krate, v);
                quote!(#key if #key == #krate::__private::data_type_key(#v))
            }
        };
        arms.push(quote!(#cfgs #pat => return ::core::result::Result::Ok(#built),));
        if item.v.style == Style::Unit {
            unit_arms.push(quote!(#cfgs #pat => ::core::option::Option::Some(#built),));
        }
    }
    let delegates = items.iter().filter(|i| i.map.imports()).filter_map(|item| {
        let Map::Delegate { field, .. } = &item.map else {
            return None;
        };
        let cfgs = cfgs(item.v);
        let ty = field.ty;
        let built = construct(item.v, Some((field, quote!(#inner))));
        Some(quote! {
            #cfgs
            if <#ty as #krate::DlpackDataType>::ACCEPTS.contains(data_type) {
                return match <#ty as #krate::DlpackDataType>::from_dlpack_data_type(data_type) {
                    ::core::result::Result::Ok(#inner) => ::core::result::Result::Ok(#built),
                    ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
                };
            }
        })
    });
    let import = quote! {
        #(#consts)*
        match #krate::__private::data_type_key(data_type) {
            #(#arms)*
            _ => {}
        }
        #(#delegates)*
        ::core::result::Result::Err(#krate::__private::unsupported_data_type::<Self>(data_type))
    };

    let checks = checks(input, krate, items);

    // From<T> for DataType when every item maps to one data type.
    let total = items.iter().all(|i| matches!(i.map, Map::Fixed { .. }));
    let from = total.then(|| {
        let arms = items.iter().map(|item| {
            let Map::Fixed { value: v, .. } = &item.map else {
                unreachable!("total")
            };
            let cfgs = cfgs(item.v);
            let path = outer_path(ident, item.v);
            let v = value(krate, v);
            quote!(#cfgs #path { .. } => #v,)
        });
        let body = if items.is_empty() {
            quote!(match value {})
        } else {
            quote!(match value { #(#arms)* })
        };
        quote! {
            #[automatically_derived]
            impl #impl_generics ::core::convert::From<#ident #ty_generics> for #krate::DataType #where_clause {
                #[inline]
                fn from(value: #ident #ty_generics) -> Self {
                    #body
                }
            }
        }
    });

    let inherent = is_enum.then(|| {
        let vis = input.vis;
        let const_arms = items.iter().filter_map(|item| {
            let Map::Fixed { value: v, .. } = &item.map else {
                return None;
            };
            let cfgs = cfgs(item.v);
            let pat = pattern(item.v, None);
            let v = value(krate, v);
            Some(quote!(#cfgs #pat => ::core::option::Option::Some(#v),))
        });
        let to_doc = doc(
            "The DLPack data type of this value as a `const fn`, for `const` items: `Some` for \
             every variant mapped to a data type (unit or not, `export_only` included), `None` \
             for `skip` variants and delegating variants. Generated by \
             `#[derive(DlpackDataType)]`; `DlpackDataType::dlpack_data_type` is the fallible, \
             complete form.",
        );
        let from_doc = doc(
            "The unit variant that imports `data_type`, as a `const fn`: `None` when no unit \
             variant imports it (it may still be imported through a delegating variant or \
             one with fields, which `DlpackDataType::from_dlpack_data_type` handles). Generated \
             by `#[derive(DlpackDataType)]`.",
        );
        let consts = &consts;
        quote! {
            #[automatically_derived]
            #[allow(dead_code, unreachable_patterns)]
            impl #impl_generics #ident #ty_generics #where_clause {
                #to_doc
                #[must_use]
                #[inline]
                #vis const fn to_dlpack_data_type(&self) -> ::core::option::Option<#krate::DataType> {
                    match self {
                        #(#const_arms)*
                        _ => ::core::option::Option::None,
                    }
                }

                #from_doc
                #[must_use]
                #[inline]
                #vis const fn unit_from_dlpack_data_type(data_type: #krate::DataType) -> ::core::option::Option<Self> {
                    #(#consts)*
                    match #krate::__private::data_type_key(data_type) {
                        #(#unit_arms)*
                        _ => ::core::option::Option::None,
                    }
                }
            }
        }
    });

    wrap(quote! {
        #[automatically_derived]
        #[allow(unreachable_patterns, unreachable_code)]
        impl #impl_generics #krate::DlpackDataType for #ident #ty_generics #where_clause {
            const PRODUCES: #krate::set::DataTypeSet = #produces;
            const ACCEPTS: #krate::set::DataTypeSet = #accepts;

            #[inline]
            fn dlpack_data_type(&self) -> ::core::result::Result<#krate::DataType, #krate::Error> {
                #export
            }

            #[inline]
            fn from_dlpack_data_type(data_type: #krate::DataType) -> ::core::result::Result<Self, #krate::Error> {
                #import
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

        #from
        #inherent
        #checks
    })
}

/// `const` assertions for what only the compiler knows: an `element` that imports the same
/// data type as another variant, and delegates whose `ACCEPTS` is empty or overlaps another
/// importing variant. Items whose types mention a type parameter, or that are `#[cfg]`-gated,
/// are left out (a `const` item can be neither generic nor conditional on its own).
fn checks(input: &Input, krate: &Path, items: &[Item]) -> TokenStream {
    let concrete = |item: &&Item| item.v.cfgs.is_empty();
    let fixed: Vec<(&Item, TokenStream, proc_macro2::Span, bool)> = items
        .iter()
        .filter(concrete)
        .filter(|i| i.map.imports())
        .filter_map(|item| match &item.map {
            Map::Fixed { value: v, span, .. } => {
                let generic = matches!(v, Value::Element(ty) if mentions_type_param(input, ty));
                (!generic).then(|| (item, value(krate, v), *span, matches!(v, Value::Element(_))))
            }
            _ => None,
        })
        .collect();
    let name = |item: &Item| value_name(input, item.v);
    let mut out = TokenStream::new();

    // An `element` mapping against every other direct mapping (elements: only earlier ones).
    for (i, (item, v, span, is_element)) in fixed.iter().enumerate() {
        if !is_element {
            continue;
        }
        let others: Vec<_> = fixed
            .iter()
            .enumerate()
            .filter(|(j, other)| *j != i && (!other.3 || *j < i))
            .map(|(_, other)| other)
            .collect();
        if others.is_empty() {
            continue;
        }
        let values = others.iter().map(|o| &o.1);
        let arms = others.iter().enumerate().map(|(k, o)| {
            let message = format!(
                "duplicate import mapping: `{}` (`element = …`) has the same data type as `{}`; mark all but one of them `export_only`",
                name(item),
                name(o.0)
            );
            quote!(::core::option::Option::Some(#k) => ::core::panic!(#message),)
        });
        out.extend(const_check(
            *span,
            quote!(match #krate::__private::position(&[#(#values),*], #v) {
                #(#arms)*
                _ => {}
            }),
        ));
    }

    // Delegates.
    let delegates: Vec<(&Item, &syn::Type, proc_macro2::Span)> = items
        .iter()
        .filter(concrete)
        .filter(|i| i.map.imports())
        .filter_map(|item| match &item.map {
            Map::Delegate { field, span, .. } if !mentions_type_param(input, field.ty) => {
                Some((item, field.ty, *span))
            }
            _ => None,
        })
        .collect();
    for (d, (item, ty, span)) in delegates.iter().enumerate() {
        let accepts = quote!(<#ty as #krate::DlpackDataType>::ACCEPTS);
        let empty = format!(
            "`{}` delegates to a type that accepts no data type (its `ACCEPTS` is empty): mark `{}` `export_only`, or declare `ACCEPTS` in that type's hand-written `DlpackDataType` impl",
            name(item),
            name(item)
        );
        let values = fixed.iter().map(|f| &f.1);
        let arms = fixed.iter().enumerate().map(|(k, f)| {
            let message = format!(
                "duplicate import mapping: `{}` delegates to a type that also accepts the data type of `{}`; mark one of them `export_only`",
                name(item),
                name(f.0)
            );
            quote!(::core::option::Option::Some(#k) => ::core::panic!(#message),)
        });
        let earlier = delegates[..d].iter().map(|(other, other_ty, _)| {
            let overlap = format!(
                "duplicate import mapping: `{}` and `{}` delegate to types that accept a common data type; mark one of them `export_only`",
                name(other),
                name(item)
            );
            let shadowed = format!(
                "`{}` comes after `{}`, which delegates to a type accepting every data type, so it never imports; move it first or mark it `export_only`",
                name(item),
                name(other)
            );
            quote! {
                if <#other_ty as #krate::DlpackDataType>::ACCEPTS.is_all() {
                    ::core::panic!(#shadowed);
                }
                if #krate::__private::data_types_overlap(
                    &<#other_ty as #krate::DlpackDataType>::ACCEPTS, &#accepts,
                ) {
                    ::core::panic!(#overlap);
                }
            }
        });
        let direct = if fixed.is_empty() {
            quote!()
        } else {
            let values = values.collect::<Vec<_>>();
            quote! {
                if !#accepts.is_all() {
                    match #krate::__private::position_in(&[#(#values),*], &#accepts) {
                        #(#arms)*
                        _ => {}
                    }
                }
            }
        };
        out.extend(const_check(
            *span,
            quote!({
                if #krate::__private::data_types_empty(&#accepts) {
                    ::core::panic!(#empty);
                }
                #direct
                #(#earlier)*
            }),
        ));
    }
    out
}

/// A struct with `code`/`bits`/`lanes` fields: a raw data type.
fn expand_raw(input: &Input, krate: &Path, raw: &Raw) -> TokenStream {
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
