//! `const` assertions for what only the compiler knows: the data type of an `element`, and the
//! sets of the types an item is routed by on import (a delegate's `ACCEPTS`, what an
//! `import_with` item exports). Each is spanned on the user's annotation, so a failed
//! evaluation points there; the message names the items involved and the fix.
//!
//! Items whose types mention a type parameter, or that are `#[cfg]`-gated, are left out (a
//! `const` item can be neither generic nor conditional on its own).

use proc_macro2::TokenStream;
use quote::quote;

use super::route::route_set;
use super::tokens::{const_check, value_name};
use super::value;
use crate::check::{Export, Import, Item, mentions_type_param};
use crate::parse::ast::Input;
use crate::parse::kind::{Helper, Kind, Paths};

/// An importing item matched directly: its value (a data type) or range (of devices).
struct Direct<'i> {
    item: &'i Item<'i>,
    entry: TokenStream,
    /// Known only to the compiler (`element = T`): checked here against the others.
    opaque: bool,
}

/// An importing item routed by a set.
struct Routed<'i> {
    item: &'i Item<'i>,
    set: TokenStream,
    /// How it imports, for messages.
    via: &'static str,
}

pub(super) fn expand(input: &Input, paths: &Paths, items: &[Item]) -> TokenStream {
    let name = |item: &Item| value_name(input, item.v);
    let noun = paths.kind.noun();
    let concrete = items
        .iter()
        .filter(|i| i.imports() && i.v.cfgs.is_empty())
        .filter(|i| !generic(input, i));
    let mut direct = Vec::new();
    let mut routed = Vec::new();
    for item in concrete {
        if let Some(set) = route_set(paths, item) {
            let via = match (&item.export, &item.import) {
                (Export::Delegate { .. }, Import::With(_)) => "delegate and `import_with`",
                (Export::Delegate { .. }, _) => "delegate",
                _ => match paths.kind {
                    Kind::DataType => "`data_type_with` function and `import_with`",
                    Kind::Device => "`device_with` function and `import_with`",
                },
            };
            routed.push(Routed { item, set, via });
        } else if let Some(entry) = value::entry(paths, &item.export) {
            let opaque = matches!(item.export, Export::Element(_));
            direct.push(Direct {
                item,
                entry,
                opaque,
            });
        }
    }

    let mut out = TokenStream::new();
    // An `element` mapping against every other direct mapping (elements: only earlier ones).
    let position = {
        let krate = &paths.krate;
        quote!(#krate::__private::position)
    };
    for (i, d) in direct.iter().enumerate().filter(|(_, d)| d.opaque) {
        let others: Vec<&Direct> = direct
            .iter()
            .enumerate()
            .filter(|(j, other)| *j != i && (!other.opaque || *j < i))
            .map(|(_, other)| other)
            .collect();
        if others.is_empty() {
            continue;
        }
        let entries = others.iter().map(|o| &o.entry);
        let arms = others.iter().enumerate().map(|(k, o)| {
            let message = format!(
                "duplicate import mapping: `{}` (`element = …`) has the same {noun} as `{}`; mark all but one of them `export_only`",
                name(d.item),
                name(o.item)
            );
            quote!(::core::option::Option::Some(#k) => ::core::panic!(#message),)
        });
        let entry = &d.entry;
        out.extend(const_check(
            d.item.span,
            quote!(match #position(&[#(#entries),*], #entry) {
                #(#arms)*
                _ => {}
            }),
        ));
    }

    let (empty, overlap, position_in) = (
        paths.private(Helper::Empty),
        paths.private(Helper::Overlap),
        paths.private(Helper::PositionIn),
    );
    let trait_name = paths.kind.trait_name();
    for (r, route) in routed.iter().enumerate() {
        let (this, set) = (name(route.item), &route.set);
        let empty_check = matches!(route.item.import, Import::Build { .. }).then(|| {
            let message = format!(
                "`{this}` delegates to a type that accepts no {noun} (its `ACCEPTS` is empty): mark `{this}` `export_only`, say how it comes back with `import_with = path`, or declare `ACCEPTS` in that type's hand-written `{trait_name}` impl"
            );
            quote! {
                if #empty(&#set) {
                    ::core::panic!(#message);
                }
            }
        });
        let direct_check = (!direct.is_empty()).then(|| {
            let entries = direct.iter().map(|d| &d.entry);
            let arms = direct.iter().enumerate().map(|(k, d)| {
                let message = format!(
                    "duplicate import mapping: `{this}` (through its {}) and `{}` both import some {noun}s; mark one of them `export_only`",
                    route.via,
                    name(d.item)
                );
                quote!(::core::option::Option::Some(#k) => ::core::panic!(#message),)
            });
            quote! {
                if !#set.is_all() {
                    match #position_in(&[#(#entries),*], &#set) {
                        #(#arms)*
                        _ => {}
                    }
                }
            }
        });
        let earlier = routed[..r].iter().map(|other| {
            let (first, first_set) = (name(other.item), &other.set);
            let shadowed = format!(
                "`{this}` comes after `{first}`, which imports every {noun} (through its {}), so it never imports; move it first or mark it `export_only`",
                other.via
            );
            let common = format!(
                "duplicate import mapping: `{first}` and `{this}` both import some {noun}s; mark one of them `export_only`"
            );
            quote! {
                if #first_set.is_all() {
                    ::core::panic!(#shadowed);
                }
                if #overlap(&#first_set, &#set) {
                    ::core::panic!(#common);
                }
            }
        });
        out.extend(const_check(
            route.item.span,
            quote!({
                #empty_check
                #direct_check
                #(#earlier)*
            }),
        ));
    }
    out
}

/// Whether an item's checks would name a type parameter (or `Self`, which a free `const`
/// cannot): then they are left to the compiler's monomorphisation.
fn generic(input: &Input, item: &Item) -> bool {
    match &item.export {
        Export::Element(ty) | Export::Delegate { inner: ty, .. } => mentions_type_param(input, ty),
        Export::IdField { field, .. }
        | Export::With {
            field: Some(field), ..
        } => mentions_type_param(input, field.ty),
        Export::With {
            field: None,
            device_type: None,
            ..
        } => true,
        _ => false,
    }
}
