//! The import of both derives, and how an item is built.
//!
//! `from_dlpack_…` is one `match` over the directly mapped items ([`value::key`]: a data type
//! as one integer, a device by its type with a guard on the id), then one test per item routed
//! by a set (a delegate: its type's `ACCEPTS`; an `import_with` on a delegate or on a
//! `device_with` item without a device name or a `data_type_with` item: the values it exports),
//! in the order written, then the error that lists what the type accepts.
//!
//! An item is built with the fields its mapping sets, `PhantomData` for phantom fields, and its
//! policy for the rest: `Default::default()` per field of a variant, `Self::default()` with the
//! set fields written over it for a struct, or the user's `import_with` function instead of all
//! of it.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Member;
use syn::spanned::Spanned;

use super::items::Gen;
use super::route::route_set;
use super::tokens::{binding, cfgs, path};
use super::value;
use crate::check::{Export, Import, Item, Raw};
use crate::parse::ast::{Field, Style};
use crate::parse::kind::{Helper, Paths};

impl Gen<'_> {
    pub(super) fn import(&self) -> TokenStream {
        let (param, import) = (&self.paths.param, &self.paths.import);
        let trait_ = &self.paths.trait_;
        let mut decls = Vec::new();
        let mut arms: Vec<(bool, TokenStream)> = Vec::new();
        let mut routed = Vec::new();
        for (index, item) in self.items.iter().enumerate() {
            if !item.imports() {
                continue;
            }
            let cfgs = cfgs(item.v);
            if let Some(key) = value::key(self.paths, self.input, index, &item.export) {
                decls.extend(key.decl.map(|decl| quote!(#cfgs #decl)));
                let pattern = key.pattern;
                let body = self.keyed_body(item);
                arms.push((key.specific, quote!(#cfgs #pattern => return #body,)));
                continue;
            }
            if let Export::Raw(raw) = &item.export {
                // A raw struct is the whole type: its import is the whole function.
                return self.raw_import(item, raw);
            }
            let Some(set) = route_set(self.paths, item) else {
                continue;
            };
            let body = match (&item.export, &item.import) {
                (_, Import::With(function)) => self.call_import(function),
                (Export::Delegate { field, inner }, _) => {
                    let value = binding("inner");
                    let wrapped = wrap(field, &quote!(#value));
                    let built = self.build(item, &[(&field.member, wrapped)]);
                    quote! {
                        match <#inner as #trait_>::#import(#param) {
                            ::core::result::Result::Ok(#value) => ::core::result::Result::Ok(#built),
                            ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
                        }
                    }
                }
                _ => continue,
            };
            let set = match item.export {
                Export::With { .. } => quote!(const { #set }),
                _ => set,
            };
            routed.push(quote! {
                #cfgs
                if #set.contains(#param) {
                    return #body;
                }
            });
        }
        // A fixed id of a device type before every id of it.
        arms.sort_by_key(|(specific, _)| !specific);
        let arms = arms.into_iter().map(|(_, arm)| arm);
        let (scrutinee, unsupported) = (
            value::scrutinee(self.paths),
            self.paths.private(Helper::Unsupported),
        );
        quote! {
            #(#decls)*
            match #scrutinee {
                #(#arms)*
                _ => {}
            }
            #(#routed)*
            ::core::result::Result::Err(#unsupported::<Self>(#param))
        }
    }

    /// What a directly matched item's arm returns.
    fn keyed_body(&self, item: &Item) -> TokenStream {
        let (krate, param) = (&self.paths.krate, &self.paths.param);
        if let Import::With(function) = item.import {
            return self.call_import(function);
        }
        let Export::IdField { field, .. } = &item.export else {
            let built = self.build(item, &[]);
            return quote!(::core::result::Result::Ok(#built));
        };
        let id = binding("id");
        let fty = field.ty;
        let built = self.build(item, &[(&field.member, quote!(#id))]);
        let call = quote_spanned!(field.span=> #krate::__private::import_id::<Self, #fty>(
            #param,
            <#fty as #krate::__private::DeviceId>::from_id(#param.device_id),
            <#fty as #krate::__private::DeviceId>::MAX,
        ));
        quote! {
            match #call {
                ::core::result::Result::Ok(#id) => ::core::result::Result::Ok(#built),
                ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
            }
        }
    }

    /// `import_with(path, value)`: the function as a `fn(Value) -> Result<Self, Error>`, so
    /// that one with another signature is a type error at the path.
    fn call_import(&self, function: &syn::Path) -> TokenStream {
        let Paths {
            krate,
            value,
            param,
            ..
        } = self.paths;
        quote_spanned!(function.span()=> #krate::__private::import_with::<#value, Self>(#function, #param))
    }

    /// A raw struct's import: its `code`, `bits` and `lanes` fields from the data type.
    fn raw_import(&self, item: &Item, raw: &Raw) -> TokenStream {
        let (krate, param) = (&self.paths.krate, &self.paths.param);
        if let Import::With(function) = item.import {
            return self.call_import(function);
        }
        let (code_ty, bits_ty) = (raw.code.ty, raw.bits.ty);
        let mut fills = vec![
            (
                &raw.code.member,
                quote_spanned!(raw.code.span=> <#code_ty as #krate::__private::CodeField>::from_code(#param.code)),
            ),
            (
                &raw.bits.member,
                quote_spanned!(raw.bits.span=> <#bits_ty as #krate::__private::BitsField>::from_bits(#param.bits)),
            ),
        ];
        let check = match raw.lanes {
            Some(lanes) => {
                let ty = lanes.ty;
                fills.push((
                    &lanes.member,
                    quote_spanned!(lanes.span=> <#ty as #krate::__private::LanesField>::from_lanes(#param.lanes)),
                ));
                quote!()
            }
            None => quote! {
                if #param.lanes != 1 {
                    return ::core::result::Result::Err(#krate::__private::scalar_only::<Self>(#param));
                }
            },
        };
        let built = self.build(item, &fills);
        quote! {
            #check
            ::core::result::Result::Ok(#built)
        }
    }

    /// The item, with `fills` set and every other field by its policy.
    pub(super) fn build(&self, item: &Item, fills: &[(&Member, TokenStream)]) -> TokenStream {
        let v = item.v;
        let path = path(v);
        if v.style == Style::Unit {
            return path;
        }
        let default = match item.import {
            Import::Build { default } => default,
            _ => None,
        };
        if let (Some(span), None) = (default, v.ident) {
            let value = binding("value");
            let default = quote_spanned!(span=> <Self as ::core::default::Default>::default());
            if fills.is_empty() {
                return default;
            }
            let sets = fills
                .iter()
                .map(|(member, fill)| quote!(#value.#member = #fill;));
            return quote!({
                let mut #value = #default;
                #(#sets)*
                #value
            });
        }
        let inits = v.fields.iter().map(|f| {
            let member = &f.member;
            if let Some((_, fill)) = fills.iter().find(|(m, _)| **m == f.member) {
                return quote!(#member: #fill);
            }
            if f.is_phantom() {
                return quote!(#member: ::core::marker::PhantomData);
            }
            let ty = f.ty;
            quote_spanned!(f.span=> #member: <#ty as ::core::default::Default>::default())
        });
        quote!(#path { #(#inits),* })
    }
}

/// A delegate's value as its field holds it: `T` itself, or wrapped in its `Box`, `Arc` or
/// `Rc` with `From`.
fn wrap(field: &Field, value: &TokenStream) -> TokenStream {
    match field.pointee() {
        Some(inner) => {
            let ty = field.ty;
            quote_spanned!(field.ty_span()=> <#ty as ::core::convert::From<#inner>>::from(#value))
        }
        None => value.clone(),
    }
}
