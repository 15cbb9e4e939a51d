//! `const` assertions for what only the compiler knows: the data type of an `element`, the
//! id range of an id field's type, and the `ACCEPTS` sets of delegated types. Each is spanned
//! on the user's annotation, so a failed evaluation points there; the message names the
//! variants involved and the fix.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Path;

use super::{const_check, value_name};
use crate::ast::Input;
use crate::check::mentions_type_param;
use crate::check::{data_type as dt, device as dv};

/// `const` assertions for what only the compiler knows: an `element` that imports the same
/// data type as another variant, and delegates whose `ACCEPTS` is empty or overlaps another
/// importing variant. Items whose types mention a type parameter, or that are `#[cfg]`-gated,
/// are left out (a `const` item can be neither generic nor conditional on its own).
pub(super) fn data_type(input: &Input, krate: &Path, items: &[dt::Item]) -> TokenStream {
    let concrete = |item: &&dt::Item| item.v.cfgs.is_empty();
    let fixed: Vec<(&dt::Item, TokenStream, proc_macro2::Span, bool)> = items
        .iter()
        .filter(concrete)
        .filter(|i| i.map.imports())
        .filter_map(|item| match &item.map {
            dt::Map::Fixed { value: v, span, .. } => {
                let generic = matches!(v, dt::Value::Element(ty) if mentions_type_param(input, ty));
                (!generic).then(|| {
                    (
                        item,
                        super::data_type::value(krate, v),
                        *span,
                        matches!(v, dt::Value::Element(_)),
                    )
                })
            }
            _ => None,
        })
        .collect();
    let name = |item: &dt::Item| value_name(input, item.v);
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
    let delegates: Vec<(&dt::Item, &syn::Type, proc_macro2::Span)> = items
        .iter()
        .filter(concrete)
        .filter(|i| i.map.imports())
        .filter_map(|item| match &item.map {
            dt::Map::Delegate { field, .. } if !mentions_type_param(input, field.ty) => {
                Some((item, field.ty, field.ty_span()))
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

/// `const` assertions on delegates: an `ACCEPTS` that is empty, or that overlaps another
/// importing variant. Generic or `#[cfg]`-gated items are left out, as for data types.
pub(super) fn device(input: &Input, krate: &Path, items: &[dv::Item]) -> TokenStream {
    let concrete = |item: &&dv::Item| item.v.cfgs.is_empty();
    let direct: Vec<(&dv::Item, TokenStream)> = items
        .iter()
        .filter(concrete)
        .filter(|i| i.map.imports())
        .filter_map(|item| match &item.map {
            dv::Map::Mapped { info, id, .. } => {
                let generic = matches!(id, dv::Id::Field(f) if mentions_type_param(input, f.ty));
                (!generic).then(|| (item, super::device::range(krate, info.device_type, id)))
            }
            _ => None,
        })
        .collect();
    let delegates: Vec<(&dv::Item, &syn::Type, proc_macro2::Span)> = items
        .iter()
        .filter(concrete)
        .filter(|i| i.map.imports())
        .filter_map(|item| match &item.map {
            dv::Map::Delegate { field, .. } if !mentions_type_param(input, field.ty) => {
                Some((item, field.ty, field.ty_span()))
            }
            _ => None,
        })
        .collect();
    let name = |item: &dv::Item| value_name(input, item.v);
    let mut out = TokenStream::new();
    for (d, (item, ty, span)) in delegates.iter().enumerate() {
        let accepts = quote!(<#ty as #krate::DlpackDevice>::ACCEPTS);
        let empty = format!(
            "`{}` delegates to a type that accepts no device (its `ACCEPTS` is empty): mark `{}` `export_only`, or declare `ACCEPTS` in that type's hand-written `DlpackDevice` impl",
            name(item),
            name(item)
        );
        let direct_check = if direct.is_empty() {
            quote!()
        } else {
            let ranges = direct.iter().map(|d| &d.1);
            let arms = direct.iter().enumerate().map(|(k, dd)| {
                let message = format!(
                    "duplicate import mapping: `{}` delegates to a type that also accepts devices that `{}` imports; mark one of them `export_only`",
                    name(item),
                    name(dd.0)
                );
                quote!(::core::option::Option::Some(#k) => ::core::panic!(#message),)
            });
            quote! {
                if !#accepts.is_all() {
                    match #krate::__private::range_position_in(&[#(#ranges),*], &#accepts) {
                        #(#arms)*
                        _ => {}
                    }
                }
            }
        };
        let earlier = delegates[..d].iter().map(|(other, other_ty, _)| {
            let overlap = format!(
                "duplicate import mapping: `{}` and `{}` delegate to types that accept a common device; mark one of them `export_only`",
                name(other),
                name(item)
            );
            let shadowed = format!(
                "`{}` comes after `{}`, which delegates to a type accepting every device, so it never imports; move it first or mark it `export_only`",
                name(item),
                name(other)
            );
            quote! {
                if <#other_ty as #krate::DlpackDevice>::ACCEPTS.is_all() {
                    ::core::panic!(#shadowed);
                }
                if #krate::__private::devices_overlap(
                    &<#other_ty as #krate::DlpackDevice>::ACCEPTS, &#accepts,
                ) {
                    ::core::panic!(#overlap);
                }
            }
        });
        out.extend(const_check(
            *span,
            quote!({
                if #krate::__private::devices_empty(&#accepts) {
                    ::core::panic!(#empty);
                }
                #direct_check
                #(#earlier)*
            }),
        ));
    }
    out
}
