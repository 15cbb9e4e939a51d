//! Each item's part of every generated function, by where its value comes from ([`Export`])
//! and how it comes back ([`Import`]); the same code for both derives.
//!
//! - The export is `Ok(match self { .. })`: a constant arm for a constant, `?` on an id
//!   conversion, a delegate or a `device_with` function, an early `return` of the error for a
//!   `skip` item. One `Ok` around the match, not one per arm, is the shape under which a
//!   derived export compiles to what a hand-written match compiles to.
//! - The import is one `match` over the directly mapped items ([`value::key`]), then one test
//!   per item routed by a set (a delegate: its type's `ACCEPTS`; an `import_with` on a
//!   delegate or `device_with` item: the values it exports), in the order written, then the
//!   error that lists what the type accepts.
//! - An item is built with the fields its mapping sets, `PhantomData` for phantom fields, and
//!   its policy for the rest: `Default::default()` per field of a variant, `Self::default()`
//!   for a struct, or the user's `import_with` function instead of all of it.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Member, WherePredicate};

use super::builder::{self, Parts};
use super::{assertions, binding, bound_if_generic, cfgs, outer_path, path, pattern, value};
use crate::ast::{Field, Input, Style};
use crate::check::{Export, Import, Item, Model, Raw, is_small_integer};
use crate::kind::{Helper, Paths};

pub(super) fn expand(input: &Input, model: &Model) -> TokenStream {
    let paths = model.kind.paths(&model.krate);
    let g = Gen {
        input,
        paths: &paths,
        items: &model.items,
    };
    let parts = Parts {
        bounds: g.bounds(),
        produces: g.set(false),
        accepts: g.set(true),
        export: g.export(),
        import: g.import(),
        from: g.from(),
        inherent: model.is_enum.then(|| g.inherent()),
        checks: assertions::expand(input, &paths, &model.items),
        fallback: false,
    };
    builder::build(input, &paths, parts)
}

struct Gen<'g> {
    input: &'g Input<'g>,
    paths: &'g Paths,
    items: &'g [Item<'g>],
}

/// The set expression an item is routed by on import, for items not matched directly: a
/// delegate's `ACCEPTS`, or, for an `import_with` item, the values it exports.
pub(super) fn route_set(paths: &Paths, item: &Item) -> Option<TokenStream> {
    let trait_ = &paths.trait_;
    match &item.export {
        Export::Delegate { inner, .. } => Some(match item.import {
            Import::With(_) => quote!(<#inner as #trait_>::PRODUCES),
            _ => quote!(<#inner as #trait_>::ACCEPTS),
        }),
        Export::DeviceWith {
            field,
            path,
            device_type: None,
        } => Some(device_with_set(paths, *field, path)),
        _ => None,
    }
}

/// The devices a `device_with` function's type produces.
fn device_with_set(paths: &Paths, field: Option<&Field>, path: &syn::Path) -> TokenStream {
    let krate = &paths.krate;
    let arg = match field {
        Some(field) => {
            let ty = field.ty;
            quote!(#ty)
        }
        None => quote!(Self),
    };
    quote_spanned!(path.span()=> #krate::__private::device_with_produces::<#arg, _>(#path))
}

impl Gen<'_> {
    fn bounds(&self) -> Vec<WherePredicate> {
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
    fn set(&self, importing: bool) -> TokenStream {
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
                    Export::DeviceWith { field, path, .. } => {
                        device_with_set(self.paths, *field, path)
                    }
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

    fn export(&self) -> TokenStream {
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
            Export::DeviceWith {
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
                        quote_spanned!(function.span()=> #krate::__private::device_with(#function, #arg))
                    }
                };
                (pattern, quote!(#call?))
            }
            Export::Raw(raw) => (unbound, raw_value(self.paths, raw, &quote!(self))),
            Export::Skip => {
                let name = super::value_name(self.input, item.v);
                let no_value = self.paths.private(Helper::NoValue);
                (
                    unbound,
                    quote!(return ::core::result::Result::Err(#no_value::<Self>(#name))),
                )
            }
            Export::Const(_) | Export::Element(_) => unreachable!("known values are handled above"),
        }
    }

    fn import(&self) -> TokenStream {
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
                Export::DeviceWith { .. } => quote!(const { #set }),
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
    fn build(&self, item: &Item, fills: &[(&Member, TokenStream)]) -> TokenStream {
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

    /// `From<T> for Value`, when every item's value cannot fail.
    fn from(&self) -> Option<TokenStream> {
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

    /// The bodies of `const fn to_dlpack_…` and `const fn unit_from_dlpack_…`.
    fn inherent(&self) -> (TokenStream, TokenStream) {
        let none = quote!(::core::option::Option::None);
        let to_arms = self.items.iter().filter_map(|item| {
            let value = value::known(self.paths, &item.export)?;
            let (cfgs, pattern) = (cfgs(item.v), pattern(&path(item.v), None));
            Some(quote!(#cfgs #pattern => ::core::option::Option::Some(#value),))
        });
        let mut decls = Vec::new();
        let mut arms: Vec<(bool, TokenStream)> = Vec::new();
        for (index, item) in self.items.iter().enumerate() {
            let unit_built = item.v.style == Style::Unit
                && matches!(item.import, Import::Build { .. })
                && value::known(self.paths, &item.export).is_some();
            if !unit_built {
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
