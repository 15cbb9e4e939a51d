//! The one resolver of both derives: for each variant (or a struct as a whole), where its value
//! comes from (`skip`, a `delegate` field, `device_with` or `data_type_with`, its own mapping,
//! or the newtype rule); then [`policy`] decides how it comes back on import.

use proc_macro2::Span;

use super::model::{Claim, Direct, Export, Import, Item, Outcome};
use super::{policy, target};
use crate::parse::ast::{Field, Input, Variant};
use crate::parse::attr::Attrs;
use crate::parse::ctxt::Ctxt;
use crate::parse::kind::Kind;
use crate::parse::names::Target;
use crate::parse::symbol::{Place, Sym};

/// Resolves one item. `before` is the error count before its options were checked: an item
/// that resolves to nothing always leaves an error behind.
pub(super) fn item<'a>(
    cx: &Ctxt,
    input: &Input,
    v: &'a Variant<'a>,
    attrs: &'a Attrs,
    is_struct: bool,
    before: usize,
) -> Option<Item<'a>> {
    if attrs.poisoned || v.fields.iter().any(|f| f.attrs.poisoned) {
        return None;
    }
    let kind = input.kind;
    let what = v.describe(input.ident);
    let sources = target::sources(kind, attrs, v);

    if let (Some(_), false) = (attrs.span(Sym::Skip), is_struct) {
        skip_conflicts(cx, kind, attrs, v, &sources, &what);
        return Some(Item {
            v,
            export: Export::Skip,
            import: Import::Never,
            claim: None,
            span: v.span,
        });
    }

    let (export, claim, span) = if let Some(export) = delegate(cx, kind, attrs, v, &sources, &what)
    {
        let span = span_of(&export, v);
        (export, None, span)
    } else if let Some(found) = value_with(cx, kind, v, attrs, is_struct, &sources, &what) {
        let (export, claim) = found?;
        let span = span_of(&export, v);
        (export, claim, span)
    } else {
        let direct = match kind {
            Kind::DataType => target::data_type::direct(cx, v, attrs, is_struct, &what),
            Kind::Device => target::device::direct(cx, input, v, attrs, &what),
        };
        match direct {
            Outcome::Found(Direct {
                export,
                claim,
                span,
            }) => (export, claim, span),
            Outcome::Invalid => return None,
            Outcome::Absent if is_struct && v.fields.len() == 1 && !annotated(attrs, v) => {
                // A newtype: `struct MyDevice(Device)` delegates to its field.
                let field = &v.fields[0];
                let inner = field.pointee().unwrap_or(field.ty);
                let span = syn::spanned::Spanned::span(inner);
                (Export::Delegate { field, inner }, None, span)
            }
            Outcome::Absent => {
                missing(cx, kind, attrs, v, is_struct, &what, cx.count() == before);
                return None;
            }
        }
    };

    if cx.count() > before {
        // The mapping is wrong already: its fields' roles are unknown, so the import policy
        // is not checked (one mistake, one error).
        return None;
    }
    let mut item = Item {
        v,
        export,
        import: Import::Never,
        claim,
        span,
    };
    item.import = policy::import(cx, kind, attrs, &item, is_struct, &what)?;
    Some(item)
}

/// Where a delegate's or a `device_with`/`data_type_with` function's mapping was written.
fn span_of(export: &Export, v: &Variant) -> Span {
    match export {
        Export::Delegate { inner, .. } => syn::spanned::Spanned::span(inner),
        Export::With { path, .. } => syn::spanned::Spanned::span(path),
        _ => v.span,
    }
}

/// Everything that says what a `skip` item maps to, or how it comes back.
fn skip_conflicts(
    cx: &Ctxt,
    kind: Kind,
    attrs: &Attrs,
    v: &Variant,
    sources: &[(Span, String)],
    what: &str,
) {
    let noun = kind.noun();
    let mut mapping: Vec<Span> = sources.iter().map(|s| s.0).collect();
    mapping.extend(attrs.span(Sym::ExportOnly));
    let with = Sym::with(kind);
    mapping.extend(attrs.span(with));
    mapping.extend(v.fields.iter().filter_map(|f| f.attrs.span(Sym::Delegate)));
    mapping.extend(v.fields.iter().filter_map(|f| f.attrs.span(with)));
    for span in mapping {
        cx.error(
            span,
            format_args!(
                "conflicting options: {what} is `skip` (it has no DLPack {noun}), so it cannot also map one"
            ),
        );
    }
    for (span, sym) in policies(attrs) {
        cx.error(
            span,
            format_args!(
                "conflicting options: {what} is `skip` (it has no DLPack {noun}), so it never comes back from one: remove `{sym}`"
            ),
        );
    }
}

/// A `#[dlpack(delegate)]` field: the item's value is the field's own.
fn delegate<'a>(
    cx: &Ctxt,
    kind: Kind,
    attrs: &Attrs,
    v: &'a Variant<'a>,
    sources: &[(Span, String)],
    what: &str,
) -> Option<Export<'a>> {
    let delegates: Vec<(&'a Field<'a>, Span)> = v
        .fields
        .iter()
        .filter_map(|f| f.attrs.span(Sym::Delegate).map(|span| (f, span)))
        .collect();
    let &(field, _) = delegates.first()?;
    for &(_, extra) in &delegates[1..] {
        cx.error(extra, format_args!("{what} delegates to one field only"));
    }
    let noun = kind.noun();
    for (span, source) in sources {
        cx.error(
            *span,
            format_args!(
                "conflicting options: {what} delegates to its field, so {source} cannot also give its {noun}"
            ),
        );
    }
    let with = Sym::with(kind);
    let functions = attrs
        .span(with)
        .into_iter()
        .chain(v.fields.iter().filter_map(|f| f.attrs.span(with)));
    for span in functions {
        cx.error(
            span,
            format_args!(
                "conflicting options: {what} delegates to its field, so `{with}` cannot also give its {noun}"
            ),
        );
    }
    let inner = field.pointee().unwrap_or(field.ty);
    Some(Export::Delegate { field, inner })
}

/// `device_with = path` or `data_type_with = path` on the item or on one field: `None` when
/// absent, `Some(None)` after an error. A device name beside `device_with` says the device type
/// the function returns, which makes the item one of that type's (in the sets, and on import);
/// beside `data_type_with` every other mapping is a conflict, since a data type has no part the
/// function would leave open.
fn value_with<'a>(
    cx: &Ctxt,
    kind: Kind,
    v: &'a Variant<'a>,
    attrs: &'a Attrs,
    is_struct: bool,
    sources: &[(Span, String)],
    what: &str,
) -> Option<Option<(Export<'a>, Option<Claim>)>> {
    let (with, noun) = (Sym::with(kind), kind.noun());
    let on_field = v
        .fields
        .iter()
        .find_map(|f| f.attrs.path_opt(with).map(|(key, path)| (f, key, path)));
    let (key, path, field) = match (attrs.path_opt(with), on_field) {
        (None, None) => return None,
        (Some((key, path)), Some((_, extra, _))) => {
            cx.error(
                extra,
                format_args!("`{with}` again: {what} reads its {noun} with one function"),
            );
            (key, path, None)
        }
        (None, Some((field, key, path))) => (key, path, Some(field)),
        (Some((key, path)), None) => (key, path, None),
    };
    let named = attrs.name.as_ref().and_then(|named| match named.target {
        Target::Device(info) => Some((named.span, info)),
        Target::DataType { .. } => None,
    });
    // The device name, first among the sources, goes with `device_with`: the rest give an id.
    // Nothing goes with `data_type_with`.
    for (span, source) in sources.iter().skip(usize::from(named.is_some())) {
        let message = match kind {
            Kind::Device => format!(
                "conflicting options: {what} reads its device with `device_with`, which gives the id too, so {source} cannot also give it"
            ),
            Kind::DataType => format!(
                "conflicting options: {what} reads its data type with `data_type_with`, so {source} cannot also give it"
            ),
        };
        cx.error(*span, message);
    }
    if kind == Kind::DataType && !sources.is_empty() {
        return Some(None);
    }
    let field = match (field, is_struct, v.fields.as_slice()) {
        (Some(field), _, _) => Some(field),
        // On a struct, the function reads the whole value.
        (None, true, _) => None,
        (None, false, [field]) => Some(field),
        (None, false, []) => {
            cx.error(
                key,
                format_args!(
                    "`{with}` calls its function on the variant's field, and {what} is a unit variant with no field to read: give it a {noun} of its own, as in `{}`",
                    kind.example()
                ),
            );
            return Some(None);
        }
        (None, false, fields) => {
            cx.error(
                key,
                format_args!(
                    "`{with}` on a variant calls its function on the variant's one field, and {what} has {}: put `#[dlpack({with} = …)]` on the field it reads",
                    fields.len()
                ),
            );
            return Some(None);
        }
    };
    let claim = named.map(|(span, info)| Claim {
        group: i64::from(info.device_type),
        id: None,
        label: format!("`{}` devices", info.name),
        span,
    });
    let export = Export::With {
        field,
        path,
        device_type: named.map(|(_, info)| info.device_type),
    };
    Some(Some((export, claim)))
}

/// The error for an item whose options map nothing, unless another error about it was
/// reported (a misplaced option): one mistake, one error.
fn missing(
    cx: &Ctxt,
    kind: Kind,
    attrs: &Attrs,
    v: &Variant,
    is_struct: bool,
    what: &str,
    no_error_yet: bool,
) {
    let (noun, example) = (kind.noun(), kind.example());
    if !no_error_yet {
        return;
    }
    if let Some(span) = attrs.span(Sym::ExportOnly) {
        let example = match kind {
            Kind::DataType => "#[dlpack(\"float32\", export_only)]",
            Kind::Device => "#[dlpack(cuda, export_only)]",
        };
        cx.error(
            span,
            format_args!("`export_only` needs a {noun} to export, as in `{example}`"),
        );
        return;
    }
    if let Some((span, sym)) = policies(attrs).next() {
        cx.error(
            span,
            format_args!(
                "`{sym}` says how {what} comes back, but nothing says which {noun} it maps to: add one, as in `{example}`"
            ),
        );
        return;
    }
    let message = match (kind, is_struct) {
        (Kind::DataType, true) => format!(
            "{what} needs a DLPack data type: `#[dlpack(\"float32\")]` on the struct, `#[dlpack(code)]`, `#[dlpack(bits)]` and `#[dlpack(lanes)]` on its fields, `#[dlpack(data_type_with = path)]` for a value whose data type a function computes, or a single field to delegate to"
        ),
        (Kind::DataType, false) => format!(
            "{what} has no DLPack data type annotation: add `#[dlpack(\"float32\")]` (or `code = …, bits = …`, or `element = T`), `#[dlpack(skip)]` if it has no DLPack equivalent, or `#[dlpack(delegate)]` on its field"
        ),
        (Kind::Device, true) => format!(
            "{what} needs a DLPack device: a device type on the struct with an id field, as in `#[dlpack(cuda)] struct CudaDevice {{ #[dlpack(id)] index: usize }}`, `#[dlpack(device_with = path)]` for a handle that knows its device, or a single field to delegate to"
        ),
        (Kind::Device, false) => format!(
            "{what} has no DLPack device annotation: add `#[dlpack(cpu)]`, `#[dlpack(cuda)]`, … (see the device names of `dlpack_core::Device`), `#[dlpack(skip)]` if it has no DLPack equivalent, or `#[dlpack(delegate)]` on its field"
        ),
    };
    cx.error(v.span, message);
}

/// `default` and `import_with`, where given.
fn policies(attrs: &Attrs) -> impl Iterator<Item = (Span, Sym)> + '_ {
    [Sym::Default, Sym::ImportWith]
        .into_iter()
        .filter_map(|sym| attrs.span(sym).map(|span| (span, sym)))
}

/// Whether the item or any of its fields says anything about its mapping (`crate` does not).
fn annotated(attrs: &Attrs, v: &Variant) -> bool {
    attrs.name.is_some()
        || attrs.opts.iter().any(|o| o.sym.place() != Place::Type)
        || v.fields.iter().any(|f| !f.attrs.is_empty())
}
