//! Validation for `#[derive(DlpackDevice)]`.

use std::collections::HashMap;

use dlpack_grammar::DeviceInfo;
use proc_macro2::Span;
use syn::Path;

use super::{Level, annotated, fields_with, is_primitive_integer, krate, placement};
use crate::ast::{Body, Field, Input, Variant};
use crate::attr::{Attrs, Which};
use crate::ctxt::Ctxt;

pub(crate) struct Model<'a> {
    pub krate: Path,
    pub shape: Shape<'a>,
}

pub(crate) enum Shape<'a> {
    Enum(Vec<Item<'a>>),
    Struct(Item<'a>),
}

pub(crate) struct Item<'a> {
    pub v: &'a Variant<'a>,
    pub map: Map<'a>,
}

pub(crate) enum Map<'a> {
    /// One device type; the id comes from `id`. Other fields are filled with `Default` on
    /// import.
    Mapped {
        info: &'static DeviceInfo,
        id: Id<'a>,
        export_only: bool,
        span: Span,
    },
    /// The device of the one field, whose type implements `DlpackDevice`.
    Delegate {
        field: &'a Field<'a>,
        export_only: bool,
    },
    /// No DLPack device.
    Skip,
}

impl Map<'_> {
    pub(crate) fn imports(&self) -> bool {
        match self {
            Map::Mapped {
                id: Id::With { .. },
                ..
            } => false,
            Map::Mapped { export_only, .. } | Map::Delegate { export_only, .. } => !export_only,
            Map::Skip => false,
        }
    }
}

pub(crate) enum Id<'a> {
    /// A device type without ids (`cpu`, `cuda_host`): always 0.
    Zero,
    /// `id = N` on a unit variant of a numbered device type.
    Fixed(i32),
    /// The id is this integer field.
    Field(&'a Field<'a>),
    /// The id is `path(&field)`: export only, since a handle cannot be built from an id.
    With {
        field: &'a Field<'a>,
        path: &'a Path,
    },
}

pub(crate) fn check<'a>(cx: &Ctxt, input: &'a Input<'a>) -> Option<Model<'a>> {
    let which = Which::Device;
    let shape = match &input.body {
        Body::Union(span) => {
            cx.error(
                *span,
                "`DlpackDevice` cannot be derived for a union; derive it on an enum or a struct",
            );
            None
        }
        Body::Enum(variants) => {
            placement(cx, which, &input.attrs, Level::Enum);
            let items: Vec<Item> = variants
                .iter()
                .filter_map(|v| {
                    placement(cx, which, &v.attrs, Level::Variant);
                    fields_placement(cx, &v.fields);
                    item(cx, input, v, &v.attrs, false).map(|map| Item { v, map })
                })
                .collect();
            duplicates(cx, &items);
            Some(Shape::Enum(items))
        }
        Body::Struct(v) => {
            placement(cx, which, &input.attrs, Level::Struct);
            fields_placement(cx, &v.fields);
            item(cx, input, v, &input.attrs, true).map(|map| Shape::Struct(Item { v, map }))
        }
    };
    if cx.has_errors() {
        return None;
    }
    Some(Model {
        krate: krate(input),
        shape: shape?,
    })
}

fn fields_placement(cx: &Ctxt, fields: &[Field]) {
    for field in fields {
        placement(cx, Which::Device, &field.attrs, Level::Field);
    }
}

fn id_role(attrs: &Attrs) -> Option<Span> {
    attrs
        .id
        .as_ref()
        .filter(|o| o.value.is_none())
        .map(|o| o.key)
}

fn item<'a>(
    cx: &Ctxt,
    input: &Input,
    v: &'a Variant<'a>,
    attrs: &'a Attrs,
    is_struct: bool,
) -> Option<Map<'a>> {
    if attrs.poisoned || v.fields.iter().any(|f| f.attrs.poisoned) {
        return None;
    }
    let what = v.describe(input.ident);
    let delegates = fields_with(v, |a| a.delegate);
    let id_fields = fields_with(v, id_role);
    let with_fields = fields_with(v, |a| a.id_with.as_ref().map(|o| o.key));
    let fixed = attrs
        .id
        .as_ref()
        .and_then(|o| o.value.map(|val| (o.key, val)));

    // Every way to give the id, for conflict reports.
    let mut id_sources: Vec<(Span, String)> = Vec::new();
    if let Some((key, _)) = fixed {
        id_sources.push((key, "`id = …`".into()));
    }
    if let Some(o) = &attrs.id_with {
        id_sources.push((o.key, "`id_with = …`".into()));
    }
    for (_, span) in &id_fields {
        id_sources.push((*span, "an `#[dlpack(id)]` field".into()));
    }
    for (_, span) in &with_fields {
        id_sources.push((*span, "an `#[dlpack(id_with = …)]` field".into()));
    }

    if attrs.skip.is_some() {
        let mut conflicts: Vec<Span> = id_sources.iter().map(|s| s.0).collect();
        conflicts.extend(attrs.device.map(|d| d.span));
        conflicts.extend(attrs.export_only);
        conflicts.extend(delegates.iter().map(|d| d.1));
        for span in conflicts {
            cx.error(
                span,
                format_args!(
                    "conflicting options: {what} is `skip` (it has no DLPack device), so it cannot also map one"
                ),
            );
        }
        return Some(Map::Skip);
    }

    if let Some(&(field, span)) = delegates.first() {
        for &(_, extra) in &delegates[1..] {
            cx.error(extra, format_args!("{what} delegates to one field only"));
        }
        let mut conflicts: Vec<Span> = id_sources.iter().map(|s| s.0).collect();
        conflicts.extend(attrs.device.map(|d| d.span));
        for span in conflicts {
            cx.error(
                span,
                format_args!(
                    "conflicting options: {what} delegates to its field, which gives the whole device"
                ),
            );
        }
        if v.fields.len() != 1 {
            cx.error(
                span,
                format_args!(
                    "a delegating {what} must have exactly one field, the one it delegates to (it has {})",
                    v.fields.len()
                ),
            );
            return None;
        }
        return Some(Map::Delegate {
            field,
            export_only: attrs.export_only.is_some(),
        });
    }

    let export_only = attrs.export_only.is_some();
    let Some(device) = attrs.device else {
        if let Some((span, source)) = id_sources.first() {
            cx.error(
                *span,
                format_args!(
                    "{source} needs a device type beside it, as in `#[dlpack(cuda, id = 0)]`"
                ),
            );
            return None;
        }
        if let Some(span) = attrs.export_only {
            cx.error(
                span,
                "`export_only` needs a device to export, as in `#[dlpack(cuda, export_only)]`",
            );
            return None;
        }
        if is_struct && v.fields.len() == 1 && !annotated(attrs, v) {
            // A newtype: `struct MyDevice(Device)` delegates to its field.
            return Some(Map::Delegate {
                field: &v.fields[0],
                export_only: false,
            });
        }
        if !annotated(attrs, v) {
            let message = if is_struct {
                format!(
                    "{what} needs a DLPack device: a device type on the struct with an id field, as in `#[dlpack(cuda)] struct CudaDevice {{ #[dlpack(id)] index: usize }}`, or a single field to delegate to"
                )
            } else {
                format!(
                    "{what} has no DLPack device annotation: add `#[dlpack(cpu)]`, `#[dlpack(cuda)]`, … (see the device names of `dlpack_core::Device`), `#[dlpack(skip)]` if it has no DLPack equivalent, or `#[dlpack(delegate)]` on its field"
                )
            };
            cx.error(v.span, message);
        }
        return None;
    };
    let info = device.value;
    let name = info.name;

    for (span, source) in id_sources.iter().skip(1) {
        if *source == id_sources[0].1 {
            cx.error(
                *span,
                format_args!("{source} again: {what} has one device id; keep one"),
            );
        } else {
            cx.error(
                *span,
                format_args!(
                    "conflicting options: {source} and {} both give the device id of {what}; keep one",
                    id_sources[0].1
                ),
            );
        }
    }

    if !info.indexed {
        for (span, source) in &id_sources {
            cx.error(
                *span,
                format_args!(
                    "`{name}` has no device id (DLPack sets it to 0: the memory belongs to no particular device), so {what} cannot take {source}; ids are for numbered devices such as `cuda`"
                ),
            );
        }
        if id_sources.is_empty()
            && !export_only
            && v.fields.len() == 1
            && is_primitive_integer(v.fields[0].ty)
        {
            cx.error(
                v.fields[0].span,
                format_args!(
                    "`{name}` has no device id, so this integer field of {what} cannot be one: remove it, or mark the item `export_only` if it holds something else"
                ),
            );
        }
        return Some(Map::Mapped {
            info,
            id: Id::Zero,
            export_only,
            span: device.span,
        });
    }

    let id = if let Some((_, val)) = fixed {
        Id::Fixed(val.value)
    } else if let Some(o) = &attrs.id_with {
        match v.fields.as_slice() {
            [field] => Id::With {
                field,
                path: &o.value,
            },
            [] => {
                cx.error(
                    o.key,
                    format_args!(
                        "`id_with` calls its function on the field of {what}, which has none"
                    ),
                );
                return None;
            }
            fields => {
                cx.error(
                    o.key,
                    format_args!(
                        "{what} has {} fields; put `#[dlpack(id_with = …)]` on the one that the function reads",
                        fields.len()
                    ),
                );
                return None;
            }
        }
    } else if let Some(&(field, _)) = id_fields.first() {
        Id::Field(field)
    } else if let Some(&(field, _)) = with_fields.first() {
        let path = &field
            .attrs
            .id_with
            .as_ref()
            .expect("picked by id_with")
            .value;
        Id::With { field, path }
    } else {
        match v.fields.as_slice() {
            [field] => Id::Field(field),
            [] => {
                cx.error(
                    device.span,
                    format_args!(
                        "`{name}` devices are numbered, so {what} needs an id: give it, as in `#[dlpack({name}, id = 0)]`, or add an id field, as in `{}(usize)`",
                        v.ident.map_or_else(|| input.ident.to_string(), ToString::to_string)
                    ),
                );
                return None;
            }
            fields => {
                cx.error(
                    v.span,
                    format_args!(
                        "{what} has {} fields; mark the one that holds the `{name}` device id with `#[dlpack(id)]`",
                        fields.len()
                    ),
                );
                return None;
            }
        }
    };
    if id_fields.len() > 1 {
        // Reported above as conflicting id sources.
        return None;
    }
    Some(Map::Mapped {
        info,
        id,
        export_only,
        span: device.span,
    })
}

/// Two importable variants for the same device: import would be ambiguous.
fn duplicates(cx: &Ctxt, items: &[Item]) {
    // Per device type: the variant taking every id, and the variants for fixed ids.
    let mut every: HashMap<i32, &Item> = HashMap::new();
    let mut fixed: HashMap<(i32, i32), &Item> = HashMap::new();
    for item in items {
        if !item.map.imports() {
            continue;
        }
        let Map::Mapped { info, id, span, .. } = &item.map else {
            continue;
        };
        let t = info.device_type;
        let this = item.v.ident.expect("an enum variant");
        let clash = match id {
            Id::Zero | Id::Field(_) => every
                .get(&t)
                .or_else(|| fixed.iter().find(|(k, _)| k.0 == t).map(|(_, f)| f))
                .copied(),
            Id::Fixed(n) => every.get(&t).or_else(|| fixed.get(&(t, *n))).copied(),
            Id::With { .. } => None,
        };
        if let Some(first) = clash {
            let first_name = first.v.ident.expect("an enum variant");
            let device = match id {
                Id::Fixed(n) => format!("`{}:{n}`", info.name),
                Id::Field(_) => format!("`{}` devices", info.name),
                _ => format!("`{}`", info.name),
            };
            cx.error(
                *span,
                format_args!(
                    "duplicate import mapping: `{this}` and `{first_name}` both import {device}; mark all but one of them `export_only`"
                ),
            );
            continue;
        }
        match id {
            Id::Zero | Id::Field(_) => {
                every.insert(t, item);
            }
            Id::Fixed(n) => {
                fixed.insert((t, *n), item);
            }
            Id::With { .. } => {}
        }
    }
}
