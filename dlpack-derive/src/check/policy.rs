//! The import policy: import builds an item from the DLPack value only where every field has a
//! role in it (the device id, the delegate, a raw data type's fields, or `PhantomData`). Any
//! other field is a payload, and the item says how it comes back: `import_with = path` (the
//! user's function builds it), `default` (the payload from `Default`), or `export_only` (import
//! never chooses it). Without one it is a compile error at the payload: rebuilding a handle or
//! quantisation parameters silently from `Default` imports a value nobody wrote.

use proc_macro2::Span;

use super::model::{Const, Export, Import, Item};
use super::types::is_primitive_integer;
use crate::parse::ast::Field;
use crate::parse::attr::Attrs;
use crate::parse::ctxt::Ctxt;
use crate::parse::kind::Kind;
use crate::parse::symbol::Sym;

/// How the item comes back: its policy, checked against its payload.
pub(super) fn import<'a>(
    cx: &Ctxt,
    kind: Kind,
    attrs: &'a Attrs,
    item: &Item<'a>,
    is_struct: bool,
    what: &str,
) -> Option<Import<'a>> {
    let payload = item.payload();

    let given: Vec<(Span, Sym)> = [Sym::ExportOnly, Sym::ImportWith, Sym::Default]
        .into_iter()
        .filter_map(|sym| attrs.span(sym).map(|span| (span, sym)))
        .collect();
    for &(span, sym) in given.iter().skip(1) {
        let message = match given[0].1 {
            Sym::ExportOnly => format!(
                "conflicting options: {what} is `export_only` (import never chooses it), so it takes no `{sym}`"
            ),
            first => format!(
                "conflicting options: `{first}` and `{sym}` both say how {what} comes back; keep one"
            ),
        };
        cx.error(span, message);
    }
    if given.len() > 1 {
        return None;
    }

    let param = match kind {
        Kind::DataType => "fn(DataType) -> Result<Self, dlpack_core::Error>",
        Kind::Device => "fn(Device) -> Result<Self, dlpack_core::Error>",
    };
    match given.first() {
        Some((_, Sym::ExportOnly)) => return Some(Import::Never),
        Some((_, Sym::ImportWith)) => {
            return Some(Import::With(attrs.path(Sym::ImportWith).expect("a path")));
        }
        Some(&(span, _)) => {
            if let Export::With { .. } = item.export {
                let (with, noun) = (Sym::with(kind), kind.noun());
                cx.error(
                    span,
                    format_args!(
                        "`default` cannot build {what}: its {noun} comes from `{with}`, so it comes back only through `import_with = path` (a `{param}`); or mark it `export_only`"
                    ),
                );
                return None;
            }
            if payload.is_empty() {
                cx.error(
                    span,
                    format_args!(
                        "`default` has nothing to build: import sets every field of {what} from the DLPack {}; remove it",
                        kind.noun()
                    ),
                );
                return None;
            }
            return Some(Import::Build {
                default: Some(span),
            });
        }
        None => {}
    }

    if let Export::With { path, .. } = item.export {
        let (with, noun) = (Sym::with(kind), kind.noun());
        cx.error_spanned(
            path,
            format_args!(
                "{what} gets its {noun} from `{with}`, which cannot build it back: say how it comes back with `import_with = path` (a `{param}`), or mark it `export_only`"
            ),
        );
        return None;
    }
    let Some(first) = payload.first() else {
        return Some(Import::Build { default: None });
    };
    let default = if is_struct {
        "`Self::default()`, then the fields import sets"
    } else {
        "each such field from `Default::default()`"
    };
    let hint = payload_hint(attrs, item, first);
    cx.error(
        first.span,
        format_args!(
            "{} of {what} has no place in a DLPack {}{hint}, so import cannot build it; say how it comes back: `#[dlpack(import_with = path)]` (a `{param}`), `#[dlpack(default)]` ({default}), or `#[dlpack(export_only)]` (import never chooses it)",
            first.describe(),
            kind.noun()
        ),
    );
    None
}

/// Why a payload field is not what its author may think it is.
fn payload_hint(attrs: &Attrs, item: &Item, field: &Field) -> String {
    match &item.export {
        Export::IdWith { field: handle, .. } if handle.member == field.member => {
            " (`id_with` reads an id from this handle, but an id cannot make a handle)".to_owned()
        }
        Export::Const(Const::Device { id, .. })
            if attrs.valued(Sym::Id).is_some() && is_primitive_integer(field.ty) =>
        {
            format!(" (`id = {id}` fixes the device id, so this integer is not it)")
        }
        _ => String::new(),
    }
}
