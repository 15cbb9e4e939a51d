//! How an item that is not matched directly is routed on import: by a set expression (a
//! delegate's `ACCEPTS`, or the values an `import_with` item exports). The import, the sets
//! and the assertions all read it from here, so the three agree.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::check::{Export, Import, Item};
use crate::parse::ast::Field;
use crate::parse::kind::{Helper, Paths};

/// The set expression an item is routed by on import, for items not matched directly: a
/// delegate's `ACCEPTS`, or, for an `import_with` item, the values it exports.
pub(super) fn route_set(paths: &Paths, item: &Item) -> Option<TokenStream> {
    let trait_ = &paths.trait_;
    match &item.export {
        Export::Delegate { inner, .. } => Some(match item.import {
            Import::With(_) => quote!(<#inner as #trait_>::PRODUCES),
            _ => quote!(<#inner as #trait_>::ACCEPTS),
        }),
        Export::With {
            field,
            path,
            device_type: None,
        } => Some(with_set(paths, *field, path)),
        _ => None,
    }
}

/// The values a `device_with` or `data_type_with` function's result type produces.
pub(super) fn with_set(paths: &Paths, field: Option<&Field>, path: &syn::Path) -> TokenStream {
    let produces = paths.private(Helper::WithProduces);
    let arg = match field {
        Some(field) => {
            let ty = field.ty;
            quote!(#ty)
        }
        None => quote!(Self),
    };
    quote_spanned!(path.span()=> #produces::<#arg, _>(#path))
}
