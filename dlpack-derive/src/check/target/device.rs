//! A device named directly: a device type (`#[dlpack(cuda)]`) and where its id comes from
//! (`id = N`, an id field, `id_with`, or none for host-side memory).

use proc_macro2::Span;

use crate::check::model::{Claim, Const, Direct, Export, Outcome};
use crate::check::types::is_primitive_integer;
use crate::parse::ast::{Input, Variant};
use crate::parse::attr::Attrs;
use crate::parse::ctxt::Ctxt;
use crate::parse::names::Target;
use crate::parse::symbol::Sym;

/// The options of an item and its fields that give a device, described for conflicts: the
/// device name first, if any.
pub(super) fn sources(attrs: &Attrs, v: &Variant) -> Vec<(Span, String)> {
    let mut out = Vec::new();
    if let Some(named) = &attrs.name {
        out.push((
            named.span,
            match named.target {
                Target::Device(info) => format!("the device `{}`", info.name),
                // A device derive parses no data type names; described all the same.
                Target::DataType { .. } => "a data type name".to_owned(),
            },
        ));
    }
    out.extend(id_sources(attrs, v));
    out
}

/// Every way the options of an item and its fields give a device id.
fn id_sources(attrs: &Attrs, v: &Variant) -> Vec<(Span, String)> {
    let mut out = Vec::new();
    if let Some(opt) = attrs.valued(Sym::Id) {
        out.push((opt.key, "`id = …`".to_owned()));
    }
    if let Some(span) = attrs.span(Sym::IdWith) {
        out.push((span, "`id_with = …`".to_owned()));
    }
    for field in &v.fields {
        if let Some(span) = field.attrs.role(Sym::Id) {
            out.push((span, "an `#[dlpack(id)]` field".to_owned()));
        }
    }
    for field in &v.fields {
        if let Some(span) = field.attrs.span(Sym::IdWith) {
            out.push((span, "an `#[dlpack(id_with = …)]` field".to_owned()));
        }
    }
    out
}

pub(crate) fn direct<'a>(
    cx: &Ctxt,
    input: &Input,
    v: &'a Variant<'a>,
    attrs: &'a Attrs,
    what: &str,
) -> Outcome<'a> {
    let sources = id_sources(attrs, v);
    let Some(Target::Device(info)) = attrs.name.map(|n| n.target) else {
        if let Some((span, source)) = sources.first() {
            cx.error(
                *span,
                format_args!(
                    "{source} needs a device type beside it, as in `#[dlpack(cuda, id = 0)]`"
                ),
            );
            return Outcome::Invalid;
        }
        return Outcome::Absent;
    };
    let name = info.name;
    let t = info.device_type;
    let span = attrs.name.expect("a device").span;
    let claim = |id: Option<i32>, label: String| {
        Some(Claim {
            group: i64::from(t),
            id,
            label,
            span,
        })
    };

    for (span, source) in sources.iter().skip(1) {
        if *source == sources[0].1 {
            cx.error(
                *span,
                format_args!("{source} again: {what} has one device id; keep one"),
            );
        } else {
            cx.error(
                *span,
                format_args!(
                    "conflicting options: {source} and {} both give the device id of {what}; keep one",
                    sources[0].1
                ),
            );
        }
    }
    if sources.len() > 1 {
        return Outcome::Invalid;
    }

    if info.host_side {
        for (span, source) in &sources {
            cx.error(
                *span,
                format_args!(
                    "`{name}` has no device id (DLPack sets it to 0: the memory belongs to no particular device), so {what} cannot take {source}; ids are for numbered devices such as `cuda`"
                ),
            );
        }
        let says_how = [Sym::ExportOnly, Sym::Default, Sym::ImportWith]
            .into_iter()
            .any(|s| attrs.get(s).is_some());
        if let ([field], [], false) = (v.fields.as_slice(), sources.as_slice(), says_how) {
            if is_primitive_integer(field.ty) {
                cx.error(
                    field.span,
                    format_args!(
                        "`{name}` has no device id, so this integer field of {what} cannot be one: remove it, or if it holds something else, say how {what} comes back (`default`, `import_with = …`) or mark it `export_only`"
                    ),
                );
            }
        }
        return Outcome::Found(Direct {
            export: Export::Const(Const::Device {
                device_type: t,
                id: 0,
                any_id: true,
            }),
            claim: claim(None, format!("`{name}`")),
            span,
        });
    }

    // A mapping of every id of the device type.
    let every = |export| {
        Outcome::Found(Direct {
            export,
            claim: claim(None, format!("`{name}` devices")),
            span,
        })
    };
    if let Some(opt) = attrs.valued(Sym::Id) {
        let (id, _) = opt.int().expect("`id = n` is an integer");
        let id = i32::try_from(id).expect("parsed within i32");
        return Outcome::Found(Direct {
            export: Export::Const(Const::Device {
                device_type: t,
                id,
                any_id: false,
            }),
            claim: claim(Some(id), format!("`{name}:{id}`")),
            span,
        });
    }
    if let Some((key, path)) = attrs.path_opt(Sym::IdWith) {
        return match v.fields.as_slice() {
            [field] => every(Export::IdWith {
                device_type: t,
                field,
                path,
            }),
            [] => {
                cx.error(
                    key,
                    format_args!(
                        "`id_with` calls its function on the field of {what}, which has none"
                    ),
                );
                Outcome::Invalid
            }
            fields => {
                cx.error(
                    key,
                    format_args!(
                        "{what} has {} fields; put `#[dlpack(id_with = …)]` on the one that the function reads",
                        fields.len()
                    ),
                );
                Outcome::Invalid
            }
        };
    }
    for field in &v.fields {
        if field.attrs.role(Sym::Id).is_some() {
            return every(Export::IdField {
                device_type: t,
                field,
            });
        }
        if let Some(path) = field.attrs.path(Sym::IdWith) {
            return every(Export::IdWith {
                device_type: t,
                field,
                path,
            });
        }
    }
    match v.fields.as_slice() {
        [field] => every(Export::IdField {
            device_type: t,
            field,
        }),
        // An accelerator that is usually alone (`webgpu`, `maia`): a unit item means id 0.
        [] if !info.indexed => Outcome::Found(Direct {
            export: Export::Const(Const::Device {
                device_type: t,
                id: 0,
                any_id: false,
            }),
            claim: claim(Some(0), format!("`{name}:0`")),
            span,
        }),
        [] => {
            cx.error(
                span,
                format_args!(
                    "`{name}` devices are numbered, so {what} needs an id: give it, as in `#[dlpack({name}, id = 0)]`, or add an id field, as in `{}(usize)`",
                    v.ident
                        .map_or_else(|| input.ident.to_string(), ToString::to_string)
                ),
            );
            Outcome::Invalid
        }
        fields => {
            cx.error(
                v.span,
                format_args!(
                    "{what} has {} fields; mark the one that holds the `{name}` device id with `#[dlpack(id)]`",
                    fields.len()
                ),
            );
            Outcome::Invalid
        }
    }
}
