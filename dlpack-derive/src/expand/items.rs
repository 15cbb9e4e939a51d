//! Each item's part of every generated function, by where its value comes from ([`Export`]);
//! the same code for both derives. Here: the bounds, the two sets, the export, `From` and the
//! inherent `const fn`s; the import is in [`super::import`].
//!
//! The export is `Ok(match self { .. })`: a constant arm for a constant, `?` on an id
//! conversion, a delegate or a `device_with`/`data_type_with` function, an early `return` of the error for a
//! `skip` item. One `Ok` around the match, not one per arm, is the shape under which a derived
//! export compiles to what a hand-written match compiles to.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::WherePredicate;
use syn::spanned::Spanned;

use super::route::with_set;
use super::tokens::{binding, bound_if_generic, cfgs, outer_path, path, pattern, value_name};
use super::value;
use crate::check::{Export, Import, Item, Raw, is_small_integer};
use crate::parse::ast::{Input, Style};
use crate::parse::kind::{Helper, Paths};

pub(super) struct Gen<'g> {
    pub input: &'g Input<'g>,
    pub paths: &'g Paths,
    pub items: &'g [Item<'g>],
}

impl Gen<'_> {
    pub(super) fn bounds(&self) -> Vec<WherePredicate> {
        let (input, krate, trait_) = (self.input, &self.paths.krate, &self.paths.trait_);
        let mut bounds = Vec::new();
        for item in self.items {
            match &item.export {
                Export::Delegate { inner, .. } => {
                    bound_if_generic(input, inner, quote!(#trait_), &mut bounds);
                }
                Export::Element(ty) => {
                    bound_if_generic(input, ty, quote!(#krate::Element), &mut bounds);
                }
                Export::IdField { field, .. } => {
                    let bound = quote!(#krate::__private::DeviceId);
                    bound_if_generic(input, field.ty, bound, &mut bounds);
                }
                _ => {}
            }
            if let Import::Build { default: Some(_) } = item.import {
                if item.v.ident.is_none() {
                    if input.generics.type_params().next().is_some() {
                        let ident = input.ident;
                        let (_, ty_generics, _) = input.generics.split_for_impl();
                        bounds
                            .push(syn::parse_quote!(#ident #ty_generics: ::core::default::Default));
                    }
                } else {
                    for field in item.payload() {
                        let bound = quote!(::core::default::Default);
                        bound_if_generic(input, field.ty, bound, &mut bounds);
                    }
                }
            }
        }
        bounds
    }

    /// `PRODUCES` (every value an item can export) or `ACCEPTS` (every value that imports).
    pub(super) fn set(&self, importing: bool) -> TokenStream {
        let (set, trait_) = (&self.paths.set, &self.paths.trait_);
        if let [item] = self.items {
            if let Export::Raw(raw) = &item.export {
                // Any data type; a scalar-only one cannot be listed, so it proves none.
                let any = !importing || (item.imports() && raw.lanes.is_some());
                return if any {
                    quote!(#set::ALL)
                } else {
                    quote!(#set::EMPTY)
                };
            }
        }
        let steps = self
            .items
            .iter()
            .filter(|i| !importing || i.imports())
            .map(|item| {
                let cfgs = cfgs(item.v);
                if let Some(entry) = value::entry(self.paths, &item.export) {
                    return quote!(#cfgs let set = set.with(#entry););
                }
                let union = match &item.export {
                    Export::Delegate { inner, .. }
                        if importing && !matches!(item.import, Import::With(_)) =>
                    {
                        quote!(<#inner as #trait_>::ACCEPTS)
                    }
                    Export::Delegate { inner, .. } => quote!(<#inner as #trait_>::PRODUCES),
                    Export::With { field, path, .. } => with_set(self.paths, *field, path),
                    _ => return quote!(),
                };
                quote!(#cfgs let set = set.union(&#union);)
            });
        quote!({
            let set = #set::EMPTY;
            #(#steps)*
            set
        })
    }

    pub(super) fn export(&self) -> TokenStream {
        if self.items.is_empty() {
            return quote!(match *self {});
        }
        let arms = self.items.iter().map(|item| {
            let cfgs = cfgs(item.v);
            let (pattern, value) = self.export_arm(item);
            quote!(#cfgs #pattern => #value,)
        });
        quote!(::core::result::Result::Ok(match self { #(#arms)* }))
    }

    /// The pattern and value of an item's export arm.
    fn export_arm(&self, item: &Item) -> (TokenStream, TokenStream) {
        let (krate, trait_, export) = (&self.paths.krate, &self.paths.trait_, &self.paths.export);
        let path = path(item.v);
        let inner = binding("inner");
        let bound = |field| pattern(&path, Some((field, &inner)));
        let unbound = pattern(&path, None);
        if let Some(value) = value::known(self.paths, &item.export) {
            return (unbound, value);
        }
        match &item.export {
            Export::IdField { device_type, field } => {
                let id = binding("id");
                let (fty, ty) = (
                    field.ty,
                    value::device_type_tokens(self.paths, *device_type),
                );
                let call = quote_spanned!(field.span=> #krate::__private::export_id::<Self>(
                    #ty, <#fty as #krate::__private::DeviceId>::to_i128(*#id)
                ));
                (pattern(&path, Some((field, &id))), quote!(#call?))
            }
            Export::IdWith {
                device_type,
                field,
                path: function,
            } => {
                let ty = value::device_type_tokens(self.paths, *device_type);
                let call = quote_spanned!(function.span()=> #krate::__private::IdWithOutput::into_device::<Self>(#function(#inner), #ty));
                (bound(field), quote!(#call?))
            }
            Export::Delegate { field, inner: ty } => {
                let arg = match field.pointee() {
                    Some(_) => quote!(&**#inner),
                    None => quote!(#inner),
                };
                // Spanned on the delegated type, as its sets are: a type that is not a
                // `DlpackDevice` is then one error, not one per use.
                let call = quote_spanned!(ty.span()=> <#ty as #trait_>::#export(#arg));
                (bound(field), quote!(#call?))
            }
            Export::With {
                field,
                path: function,
                device_type,
            } => {
                let (pattern, arg) = match field {
                    Some(field) => (bound(field), quote!(#inner)),
                    None => (unbound, quote!(self)),
                };
                let call = match device_type {
                    Some(t) => {
                        let ty = value::device_type_tokens(self.paths, *t);
                        quote_spanned!(function.span()=> #krate::__private::device_with_type::<Self, _, _>(#function, #arg, #ty))
                    }
                    None => {
                        let with = self.paths.private(Helper::With);
                        quote_spanned!(function.span()=> #with(#function, #arg))
                    }
                };
                (pattern, quote!(#call?))
            }
            Export::Raw(raw) => (unbound, raw_value(self.paths, raw, &quote!(self))),
            Export::Skip => {
                let name = value_name(self.input, item.v);
                let no_value = self.paths.private(Helper::NoValue);
                (
                    unbound,
                    quote!(return ::core::result::Result::Err(#no_value::<Self>(#name))),
                )
            }
            Export::Const(_) | Export::Element(_) => unreachable!("known values are handled above"),
        }
    }

    /// `From<T> for Value`, when every item's value cannot fail.
    pub(super) fn from(&self) -> Option<TokenStream> {
        let ident = self.input.ident;
        let mut arms = Vec::new();
        for item in self.items {
            let cfgs = cfgs(item.v);
            let path = outer_path(ident, item.v);
            let (pattern, value) = match &item.export {
                Export::IdField { device_type, field } if is_small_integer(field.ty) => {
                    let (krate, id) = (&self.paths.krate, binding("id"));
                    let (fty, ty) = (
                        field.ty,
                        value::device_type_tokens(self.paths, *device_type),
                    );
                    (
                        pattern(&path, Some((field, &id))),
                        quote!(#krate::Device::new(
                            #ty, <#fty as #krate::__private::SmallDeviceId>::to_id(#id)
                        )),
                    )
                }
                Export::Raw(raw) => (
                    pattern(&path, None),
                    raw_value(self.paths, raw, &quote!(value)),
                ),
                export => (pattern(&path, None), value::known(self.paths, export)?),
            };
            arms.push(quote!(#cfgs #pattern => #value,));
        }
        Some(if arms.is_empty() {
            quote!(match value {})
        } else {
            quote!(match value { #(#arms)* })
        })
    }

    /// The elements of `__UNIT_VALUES`: the value each unit variant imports as (the ones
    /// `unit_from_dlpack_…` builds), which `python::add_values` names on a Python class.
    pub(super) fn units(&self) -> TokenStream {
        let values = self.items.iter().filter_map(|item| {
            let value = self.unit_value(item)?;
            let cfgs = cfgs(item.v);
            Some(quote!(#cfgs #value))
        });
        quote!(#(#values,)*)
    }

    /// The value a unit variant that import builds exports and imports as; `None` for any
    /// other item.
    fn unit_value(&self, item: &Item<'_>) -> Option<TokenStream> {
        let unit_built = item.v.style == Style::Unit && matches!(item.import, Import::Build { .. });
        value::known(self.paths, &item.export).filter(|_| unit_built)
    }

    /// The bodies of `const fn to_dlpack_…` and `const fn unit_from_dlpack_…`.
    pub(super) fn inherent(&self) -> (TokenStream, TokenStream) {
        let none = quote!(::core::option::Option::None);
        let to_arms = self.items.iter().filter_map(|item| {
            let value = value::known(self.paths, &item.export)?;
            let (cfgs, pattern) = (cfgs(item.v), pattern(&path(item.v), None));
            Some(quote!(#cfgs #pattern => ::core::option::Option::Some(#value),))
        });
        let mut decls = Vec::new();
        let mut arms: Vec<(bool, TokenStream)> = Vec::new();
        for (index, item) in self.items.iter().enumerate() {
            if self.unit_value(item).is_none() {
                continue;
            }
            let Some(key) = value::key(self.paths, self.input, index, &item.export) else {
                continue;
            };
            let (cfgs, pattern, built) = (cfgs(item.v), key.pattern, path(item.v));
            decls.extend(key.decl.map(|decl| quote!(#cfgs #decl)));
            arms.push((
                key.specific,
                quote!(#cfgs #pattern => ::core::option::Option::Some(#built),),
            ));
        }
        arms.sort_by_key(|(specific, _)| !specific);
        let arms = arms.into_iter().map(|(_, arm)| arm);
        let scrutinee = value::scrutinee(self.paths);
        (
            quote!(match self { #(#to_arms)* _ => #none, }),
            quote! {
                #(#decls)*
                match #scrutinee {
                    #(#arms)*
                    _ => #none,
                }
            },
        )
    }
}

/// The data type a raw struct holds, read from `recv` (`self`, or `value` in `From`).
fn raw_value(paths: &Paths, raw: &Raw, recv: &TokenStream) -> TokenStream {
    let krate = &paths.krate;
    let (code_m, code_ty) = (&raw.code.member, raw.code.ty);
    let (bits_m, bits_ty) = (&raw.bits.member, raw.bits.ty);
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
}
