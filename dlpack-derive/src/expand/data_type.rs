//! Tokens for `#[derive(DlpackDataType)]`.
//!
//! `from_dlpack_data_type` is one `match` on the data type as an integer
//! (`code | bits << 8 | lanes << 16`), with the known mappings as literal patterns and the
//! `element` mappings as local constants, then one `ACCEPTS` test per delegating variant.
//! `dlpack_data_type` is `Ok(match self { .. })` whose arms are inline `const` blocks (a
//! delegating arm uses `?`, a `skip` arm returns its error), so that LLVM builds one lookup
//! table for the whole `DataType` of a unit variant, as it does for a hand-written match:
//! `Ok(DataType::new(..))` in every arm built one table per field, about a third more
//! instructions per conversion (`benches/evidence/instructions.py`).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Path, WherePredicate};

use super::{
    Impl, binding, bound_if_generic, cfgs, construct, default_bounds, doc, outer_path, pattern,
    value_name, wrap,
};
use crate::ast::{Input, Style};
use crate::check::data_type::{Item, Map, Model, Shape, Value};
use crate::check::mentions_type_param;

pub(crate) fn expand(input: &Input, model: &Model) -> TokenStream {
    let krate = &model.krate;
    match &model.shape {
        Shape::Raw(raw) => super::raw::expand(input, krate, raw),
        Shape::Enum(items) => expand_items(input, krate, items, true),
        Shape::Struct(item) => expand_items(input, krate, std::slice::from_ref(item), false),
    }
}

/// The `DataType` of a mapping, as an expression.
pub(super) fn value(krate: &Path, value: &Value) -> TokenStream {
    match value {
        Value::Known { code, bits, lanes } => {
            let (code, bits, lanes) = (
                Literal::u8_suffixed(*code),
                Literal::u8_suffixed(*bits),
                Literal::u16_suffixed(*lanes),
            );
            quote!(const { #krate::DataType::new(#krate::ffi::DLDataTypeCode(#code), #bits, #lanes) })
        }
        Value::Element(ty) => {
            quote_spanned!(syn::spanned::Spanned::span(ty)=> <#ty as #krate::Element>::DATA_TYPE)
        }
    }
}

/// The key of a data type as a literal that reads as its parts: `0x0001_20_02` is lanes 1,
/// bits 0x20, code 2 (`float32`).
fn key_literal(code: u8, bits: u8, lanes: u16) -> syn::LitInt {
    syn::LitInt::new(
        &format!("0x{lanes:04x}_{bits:02x}_{code:02x}_u32"),
        proc_macro2::Span::call_site(),
    )
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
                quote!(#cfgs #pat => #v,)
            }
            Map::Delegate { field, .. } => {
                let pat = pattern(item.v, Some((field, &inner)));
                let ty = field.ty;
                let call = quote_spanned!(field.ty_span()=> <#ty as #krate::DlpackDataType>::dlpack_data_type(#inner));
                quote!(#cfgs #pat => #call?,)
            }
            Map::Skip => {
                let pat = pattern(item.v, None);
                let name = value_name(input, item.v);
                quote!(#cfgs #pat => return ::core::result::Result::Err(
                    #krate::__private::no_data_type::<Self>(#name)
                ),)
            }
        }
    });
    let export = if items.is_empty() {
        quote!(match *self {})
    } else {
        quote!(::core::result::Result::Ok(match self { #(#export_arms)* }))
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

    let checks = super::assertions::data_type(input, krate, items);

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
