//! Tokens for `#[derive(DlpackDevice)]`.
//!
//! `from_dlpack_device` is one `match` on the device type (with a guard on the id for
//! variants that import one fixed id), then one `ACCEPTS` test per delegating variant. Ids
//! convert through `__private::{export_id, import_id}`, which check the range both ways
//! (never a wrap); a device type without ids ignores the id, as `Device`'s equality does.
//! `dlpack_device` is `Ok(match self { .. })`: a fixed device is a plain arm, an id conversion
//! or a delegating variant uses `?`, a `skip` arm returns its error. One `Ok` around the match,
//! rather than one per arm, compiles to the same code as a hand-written match
//! (`benches/evidence/instructions.py`).

use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};
use syn::{Path, WherePredicate};

use super::{
    Impl, binding, bound_if_generic, cfgs, construct, default_bounds, doc, outer_path, pattern,
    value_name, wrap,
};
use crate::ast::{Input, Style};
use crate::check::device::{Id, Item, Map, Model, Shape};
use crate::check::is_primitive_integer;

pub(crate) fn expand(input: &Input, model: &Model) -> TokenStream {
    let krate = &model.krate;
    match &model.shape {
        Shape::Enum(items) => expand_items(input, krate, items, true),
        Shape::Struct(item) => expand_items(input, krate, std::slice::from_ref(item), false),
    }
}

fn device_type(krate: &Path, t: i32) -> TokenStream {
    let t = Literal::i32_suffixed(t);
    quote!(#krate::ffi::DLDeviceType(#t))
}

/// The device of a mapping whose id is a constant.
fn constant(krate: &Path, t: i32, id: i32) -> TokenStream {
    let ty = device_type(krate, t);
    let id = Literal::i32_suffixed(id);
    quote!(#krate::Device::new(#ty, #id))
}

/// The `DeviceRange` a mapping produces (or accepts).
pub(super) fn range(krate: &Path, info_type: i32, id: &Id) -> TokenStream {
    let ty = device_type(krate, info_type);
    match id {
        Id::Zero => {
            let d = constant(krate, info_type, 0);
            quote!(#krate::set::DeviceRange::one(#d))
        }
        Id::Fixed(n) => {
            let d = constant(krate, info_type, *n);
            quote!(#krate::set::DeviceRange::one(#d))
        }
        Id::Field(f) => {
            let fty = f.ty;
            quote_spanned!(f.span=> #krate::__private::id_range(#ty, <#fty as #krate::__private::DeviceId>::MAX))
        }
        Id::With { .. } => quote!(#krate::set::DeviceRange::every(#ty)),
    }
}

fn expand_items(input: &Input, krate: &Path, items: &[Item], is_enum: bool) -> TokenStream {
    let mut bounds: Vec<WherePredicate> = Vec::new();
    for item in items {
        match &item.map {
            Map::Delegate { field, .. } => {
                bound_if_generic(input, field.ty, quote!(#krate::DlpackDevice), &mut bounds);
            }
            Map::Mapped { id, .. } => {
                let id_member = match id {
                    Id::Field(f) => {
                        bound_if_generic(
                            input,
                            f.ty,
                            quote!(#krate::__private::DeviceId),
                            &mut bounds,
                        );
                        Some(&f.member)
                    }
                    _ => None,
                };
                if item.map.imports() {
                    default_bounds(input, item.v, id_member, &mut bounds);
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

    let set =
        |importing: bool| {
            let steps = items.iter().filter(|i| !importing || i.map.imports()).map(|item| {
            let cfgs = cfgs(item.v);
            match &item.map {
                Map::Mapped { info, id, .. } => {
                    let r = range(krate, info.device_type, id);
                    quote!(#cfgs let set = set.with(#r);)
                }
                Map::Delegate { field, .. } => {
                    let ty = field.ty;
                    let which = if importing { quote!(ACCEPTS) } else { quote!(PRODUCES) };
                    quote!(#cfgs let set = set.union(&<#ty as #krate::DlpackDevice>::#which);)
                }
                Map::Skip => quote!(),
            }
        });
            quote!({
                let set = #krate::set::DeviceSet::EMPTY;
                #(#steps)*
                set
            })
        };
    let produces = set(false);
    let accepts = set(true);

    // dlpack_device.
    let inner = binding("inner");
    let id_binding = binding("id");
    let export_arms = items.iter().map(|item| {
        let cfgs = cfgs(item.v);
        match &item.map {
            Map::Mapped { info, id, .. } => {
                let t = info.device_type;
                match id {
                    Id::Zero | Id::Fixed(_) => {
                        let n = if let Id::Fixed(n) = id { *n } else { 0 };
                        let pat = pattern(item.v, None);
                        let d = constant(krate, t, n);
                        quote!(#cfgs #pat => #d,)
                    }
                    Id::Field(f) => {
                        let pat = pattern(item.v, Some((f, &id_binding)));
                        let (fty, ty) = (f.ty, device_type(krate, t));
                        let call = quote_spanned!(f.span=> #krate::__private::export_id::<Self>(
                            #ty, <#fty as #krate::__private::DeviceId>::to_i128(*#id_binding)
                        ));
                        quote!(#cfgs #pat => #call?,)
                    }
                    Id::With { field, path } => {
                        let pat = pattern(item.v, Some((field, &inner)));
                        let ty = device_type(krate, t);
                        let span = syn::spanned::Spanned::span(path);
                        let call = quote_spanned!(span=> #krate::__private::IdWithOutput::into_device::<Self>(#path(#inner), #ty));
                        quote!(#cfgs #pat => #call?,)
                    }
                }
            }
            Map::Delegate { field, .. } => {
                let pat = pattern(item.v, Some((field, &inner)));
                let ty = field.ty;
                let call = quote_spanned!(field.ty_span()=> <#ty as #krate::DlpackDevice>::dlpack_device(#inner));
                quote!(#cfgs #pat => #call?,)
            }
            Map::Skip => {
                let pat = pattern(item.v, None);
                let name = value_name(input, item.v);
                quote!(#cfgs #pat => return ::core::result::Result::Err(
                    #krate::__private::no_device::<Self>(#name)
                ),)
            }
        }
    });
    let export = if items.is_empty() {
        quote!(match *self {})
    } else {
        quote!(::core::result::Result::Ok(match self { #(#export_arms)* }))
    };

    // from_dlpack_device: fixed ids first, then whole device types.
    let mut arms = Vec::new();
    let mut unit_arms = Vec::new();
    let importing = || {
        items
            .iter()
            .filter(|i| i.map.imports())
            .filter_map(|item| match &item.map {
                Map::Mapped { info, id, .. } => Some((item, info.device_type, id)),
                _ => None,
            })
    };
    for (item, t, id) in importing().filter(|(_, _, id)| matches!(id, Id::Fixed(_))) {
        let Id::Fixed(n) = id else { continue };
        let (cfgs, built) = (cfgs(item.v), construct(item.v, None));
        let (t, n) = (Literal::i32_suffixed(t), Literal::i32_suffixed(*n));
        arms.push(quote!(#cfgs #t if device.device_id == #n => return ::core::result::Result::Ok(#built),));
        if item.v.style == Style::Unit {
            unit_arms.push(
                quote!(#cfgs #t if device.device_id == #n => ::core::option::Option::Some(#built),),
            );
        }
    }
    for (item, t, id) in importing() {
        let cfgs = cfgs(item.v);
        let t = Literal::i32_suffixed(t);
        match id {
            Id::Zero => {
                let built = construct(item.v, None);
                arms.push(quote!(#cfgs #t => return ::core::result::Result::Ok(#built),));
                if item.v.style == Style::Unit {
                    unit_arms.push(quote!(#cfgs #t => ::core::option::Option::Some(#built),));
                }
            }
            Id::Field(f) => {
                let fty = f.ty;
                let built = construct(item.v, Some((f, quote!(#id_binding))));
                let call = quote_spanned!(f.span=> #krate::__private::import_id::<Self, #fty>(
                    device,
                    <#fty as #krate::__private::DeviceId>::from_id(device.device_id),
                    <#fty as #krate::__private::DeviceId>::MAX,
                ));
                arms.push(quote! {
                    #cfgs #t => return match #call {
                        ::core::result::Result::Ok(#id_binding) => ::core::result::Result::Ok(#built),
                        ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
                    },
                });
            }
            Id::Fixed(_) | Id::With { .. } => {}
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
            if <#ty as #krate::DlpackDevice>::ACCEPTS.contains(device) {
                return match <#ty as #krate::DlpackDevice>::from_dlpack_device(device) {
                    ::core::result::Result::Ok(#inner) => ::core::result::Result::Ok(#built),
                    ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
                };
            }
        })
    });
    let import = quote! {
        match device.device_type.0 {
            #(#arms)*
            _ => {}
        }
        #(#delegates)*
        ::core::result::Result::Err(#krate::__private::unsupported_device::<Self>(device))
    };

    let checks = super::assertions::device(input, krate, items);

    // From<T> for Device when every item maps to a device without a fallible id.
    let total = items.iter().all(|i| match &i.map {
        Map::Mapped { id, .. } => match id {
            Id::Zero | Id::Fixed(_) => true,
            Id::Field(f) => is_small(f.ty),
            Id::With { .. } => false,
        },
        _ => false,
    });
    let from = total.then(|| {
        let arms = items.iter().map(|item| {
            let Map::Mapped { info, id, .. } = &item.map else {
                unreachable!("total")
            };
            let cfgs = cfgs(item.v);
            let path = outer_path(ident, item.v);
            let t = info.device_type;
            match id {
                Id::Field(f) => {
                    let (member, fty, ty) = (&f.member, f.ty, device_type(krate, t));
                    quote!(#cfgs #path { #member: #id_binding, .. } => #krate::Device::new(
                        #ty, <#fty as #krate::__private::SmallDeviceId>::to_id(#id_binding)
                    ),)
                }
                Id::Fixed(n) => {
                    let d = constant(krate, t, *n);
                    quote!(#cfgs #path { .. } => #d,)
                }
                _ => {
                    let d = constant(krate, t, 0);
                    quote!(#cfgs #path { .. } => #d,)
                }
            }
        });
        let body = if items.is_empty() {
            quote!(match value {})
        } else {
            quote!(match value { #(#arms)* })
        };
        quote! {
            #[automatically_derived]
            impl #impl_generics ::core::convert::From<#ident #ty_generics> for #krate::Device #where_clause {
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
            let Map::Mapped { info, id, .. } = &item.map else {
                return None;
            };
            let n = match id {
                Id::Zero => 0,
                Id::Fixed(n) => *n,
                _ => return None,
            };
            let cfgs = cfgs(item.v);
            let pat = pattern(item.v, None);
            let d = constant(krate, info.device_type, n);
            Some(quote!(#cfgs #pat => ::core::option::Option::Some(#d),))
        });
        let to_doc = doc(
            "The DLPack device of this value as a `const fn`, for `const` items: `Some` for \
             every variant whose device is a constant (a device type without ids, or \
             `id = N`), `None` for variants whose id is read from a field or a function, \
             delegating variants and `skip` variants. Generated by `#[derive(DlpackDevice)]`; \
             `DlpackDevice::dlpack_device` is the fallible, complete form.",
        );
        let from_doc = doc(
            "The unit variant that imports `device`, as a `const fn`: `None` when no unit \
             variant imports it (it may still be imported by a variant with an id field or a \
             delegating variant, which `DlpackDevice::from_dlpack_device` handles). Generated \
             by `#[derive(DlpackDevice)]`.",
        );
        quote! {
            #[automatically_derived]
            #[allow(dead_code, unreachable_patterns)]
            impl #impl_generics #ident #ty_generics #where_clause {
                #to_doc
                #[must_use]
                #[inline]
                #vis const fn to_dlpack_device(&self) -> ::core::option::Option<#krate::Device> {
                    match self {
                        #(#const_arms)*
                        _ => ::core::option::Option::None,
                    }
                }

                #from_doc
                #[must_use]
                #[inline]
                #vis const fn unit_from_dlpack_device(device: #krate::Device) -> ::core::option::Option<Self> {
                    match device.device_type.0 {
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
        impl #impl_generics #krate::DlpackDevice for #ident #ty_generics #where_clause {
            const PRODUCES: #krate::set::DeviceSet = #produces;
            const ACCEPTS: #krate::set::DeviceSet = #accepts;

            #[inline]
            fn dlpack_device(&self) -> ::core::result::Result<#krate::Device, #krate::Error> {
                #export
            }

            #[inline]
            fn from_dlpack_device(device: #krate::Device) -> ::core::result::Result<Self, #krate::Error> {
                #import
            }
        }

        #[automatically_derived]
        impl #impl_generics ::core::convert::TryFrom<#krate::Device> for #ident #ty_generics #where_clause {
            type Error = #krate::Error;

            #[inline]
            fn try_from(device: #krate::Device) -> ::core::result::Result<Self, #krate::Error> {
                <Self as #krate::DlpackDevice>::from_dlpack_device(device)
            }
        }

        #from
        #inherent
        #checks
    })
}

/// Whether an id field's type always fits a DLPack id (`u8`, `u16`): then `From` is total.
fn is_small(ty: &syn::Type) -> bool {
    is_primitive_integer(ty) && matches!(quote!(#ty).to_string().as_str(), "u8" | "u16")
}
