//! Validation for `#[derive(DlpackDataType)]`.

use std::collections::HashMap;

use dlpack_grammar::{Bits, InvalidDataType};
use proc_macro2::Span;
use syn::{Path, Type};

use super::{Level, annotated, fields_with, krate, placement};
use crate::ast::{Body, Field, Input, Variant};
use crate::attr::{Attrs, Which};
use crate::ctxt::Ctxt;

pub(crate) struct Model<'a> {
    pub krate: Path,
    pub shape: Shape<'a>,
}

pub(crate) enum Shape<'a> {
    Enum(Vec<Item<'a>>),
    /// A struct mapped as a whole (a fixed data type, or a delegate).
    Struct(Item<'a>),
    /// A struct with `code`, `bits` and optional `lanes` fields: a raw data type.
    Raw(Raw<'a>),
}

pub(crate) struct Item<'a> {
    pub v: &'a Variant<'a>,
    pub map: Map<'a>,
}

pub(crate) enum Map<'a> {
    /// One data type; the item's fields, if any, are filled with `Default` on import.
    Fixed {
        value: Value<'a>,
        export_only: bool,
        span: Span,
    },
    /// The data type of the one field, whose type implements `DlpackDataType`.
    Delegate {
        field: &'a Field<'a>,
        export_only: bool,
    },
    /// No DLPack data type.
    Skip,
}

impl Map<'_> {
    pub(crate) fn imports(&self) -> bool {
        match self {
            Map::Fixed { export_only, .. } | Map::Delegate { export_only, .. } => !export_only,
            Map::Skip => false,
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) enum Value<'a> {
    Known {
        code: u8,
        bits: u8,
        lanes: u16,
    },
    /// `<T as Element>::DATA_TYPE`, known only to the compiler.
    Element(&'a Type),
}

pub(crate) struct Raw<'a> {
    pub v: &'a Variant<'a>,
    pub code: &'a Field<'a>,
    pub bits: &'a Field<'a>,
    pub lanes: Option<&'a Field<'a>>,
}

pub(crate) fn check<'a>(cx: &Ctxt, input: &'a Input<'a>) -> Option<Model<'a>> {
    let which = Which::DataType;
    let shape = match &input.body {
        Body::Union(span) => {
            cx.error(
                *span,
                "`DlpackDataType` cannot be derived for a union; derive it on an enum or a struct",
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
            let roles = fields_with(v, |a| {
                role(a, "code")
                    .or_else(|| role(a, "bits"))
                    .or_else(|| role(a, "lanes"))
            });
            if roles.is_empty() {
                item(cx, input, v, &input.attrs, true).map(|map| Shape::Struct(Item { v, map }))
            } else {
                raw(cx, input, v)
            }
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
        placement(cx, Which::DataType, &field.attrs, Level::Field);
    }
}

/// The span of a field role (`#[dlpack(code)]` alone).
fn role(attrs: &Attrs, name: &str) -> Option<Span> {
    match name {
        "code" => attrs
            .code
            .as_ref()
            .filter(|o| o.value.is_none())
            .map(|o| o.key),
        "bits" => attrs
            .bits
            .as_ref()
            .filter(|o| o.value.is_none())
            .map(|o| o.key),
        _ => attrs
            .lanes
            .as_ref()
            .filter(|o| o.value.is_none())
            .map(|o| o.key),
    }
}

/// What one variant (or a struct as a whole) maps to.
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
    if !is_struct {
        for (_, span) in fields_with(v, |a| {
            role(a, "code")
                .or_else(|| role(a, "bits"))
                .or_else(|| role(a, "lanes"))
        }) {
            cx.error(
                span,
                "`code`/`bits`/`lanes` fields make a struct a raw data type; in an enum, delegate to `DataType` instead: `Other(#[dlpack(delegate)] DataType)`",
            );
        }
    }

    // The ways to give the data type, in the order they were most likely meant.
    let mut forms: Vec<(Span, &str)> = Vec::new();
    if let Some(v) = &attrs.name {
        forms.push((v.span, "a data type name"));
    }
    let parts = (attrs
        .code
        .as_ref()
        .filter(|o| o.value.is_some())
        .map(|o| o.key))
    .or_else(|| {
        attrs
            .bits
            .as_ref()
            .filter(|o| o.value.is_some())
            .map(|o| o.key)
    })
    .or_else(|| {
        attrs
            .lanes
            .as_ref()
            .filter(|o| o.value.is_some())
            .map(|o| o.key)
    });
    if let Some(span) = parts {
        forms.push((span, "`code = …, bits = …`"));
    }
    if let Some(o) = &attrs.element {
        forms.push((o.key, "`element = …`"));
    }
    for &(span, form) in forms.iter().skip(1) {
        cx.error(
            span,
            format_args!(
                "conflicting options: {form} and {} both give the data type of {what}; keep one",
                forms[0].1
            ),
        );
    }

    if attrs.skip.is_some() {
        let mut conflicts: Vec<Span> = forms.iter().map(|f| f.0).collect();
        conflicts.extend(attrs.export_only);
        conflicts.extend(delegates.iter().map(|d| d.1));
        for span in conflicts {
            cx.error(
                span,
                format_args!(
                    "conflicting options: {what} is `skip` (it has no DLPack data type), so it cannot also map one"
                ),
            );
        }
        return Some(Map::Skip);
    }

    if let Some(&(_, span)) = delegates.first() {
        for &(_, extra) in &delegates[1..] {
            cx.error(extra, format_args!("{what} delegates to one field only"));
        }
        if let Some(&(form_span, form)) = forms.first() {
            cx.error(
                form_span,
                format_args!(
                    "conflicting options: {what} delegates to its field, so {form} cannot also give its data type"
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
            field: delegates[0].0,
            export_only: attrs.export_only.is_some(),
        });
    }

    let export_only = attrs.export_only.is_some();
    if let Some(name) = &attrs.name {
        let (code, bits, lanes) = name.value;
        return Some(Map::Fixed {
            value: Value::Known { code, bits, lanes },
            export_only,
            span: name.span,
        });
    }
    if let Some(o) = &attrs.element {
        return Some(Map::Fixed {
            value: Value::Element(&o.value),
            export_only,
            span: o.key,
        });
    }
    if let Some(span) = parts {
        return parts_value(cx, attrs, &what).map(|value| Map::Fixed {
            value,
            export_only,
            span,
        });
    }

    // Nothing says what the item maps to.
    if let Some(span) = attrs.export_only {
        cx.error(
            span,
            "`export_only` needs a data type to export, as in `#[dlpack(\"float32\", export_only)]`",
        );
        return None;
    }
    if is_struct && v.fields.len() == 1 && !annotated(attrs, v) {
        // A newtype: `struct MyDType(DataType)` delegates to its field.
        return Some(Map::Delegate {
            field: &v.fields[0],
            export_only: false,
        });
    }
    if !annotated(attrs, v) {
        let message = if is_struct {
            format!(
                "{what} needs a DLPack data type: `#[dlpack(\"float32\")]` on the struct, `#[dlpack(code)]`, `#[dlpack(bits)]` and `#[dlpack(lanes)]` on its fields, or a single field to delegate to"
            )
        } else {
            format!(
                "{what} has no DLPack data type annotation: add `#[dlpack(\"float32\")]` (or `code = …, bits = …`, or `element = T`), `#[dlpack(skip)]` if it has no DLPack equivalent, or `#[dlpack(delegate)]` on its field"
            )
        };
        cx.error(v.span, message);
    }
    None
}

/// `code = float, bits = 16, lanes = 4`, checked with the grammar's rules.
fn parts_value<'a>(cx: &Ctxt, attrs: &Attrs, what: &str) -> Option<Value<'a>> {
    let bits = attrs.bits.as_ref().and_then(|o| o.value);
    let lanes = attrs.lanes.as_ref().and_then(|o| o.value);
    let Some(code) = attrs.code.as_ref().and_then(|o| o.value) else {
        let span = attrs
            .bits
            .as_ref()
            .map(|o| o.key)
            .or(attrs.lanes.as_ref().map(|o| o.key))
            .expect("parts were given");
        cx.error(
            span,
            format_args!(
                "the data type of {what} needs a code beside its bits and lanes, as in `code = float, bits = 16`"
            ),
        );
        return None;
    };
    let info = code.value;
    let bits_value = match (bits, info.bits) {
        (Some(b), _) => b.value,
        (None, Bits::Fixed(n) | Bits::AnyOrBare(n)) => n,
        (None, Bits::Only(n)) => n,
        (None, _) => {
            cx.error(
                code.span,
                format_args!(
                    "`code = {}` needs a bit width, as in `code = {}, bits = 32`",
                    info.name, info.name
                ),
            );
            return None;
        }
    };
    let lanes_value = lanes.map_or(1, |l| l.value);
    match dlpack_grammar::check_data_type(info.code, bits_value, lanes_value) {
        Ok(_) => Some(Value::Known {
            code: info.code,
            bits: bits_value,
            lanes: lanes_value,
        }),
        Err(reason) => {
            let span = match reason {
                InvalidDataType::ZeroLanes => lanes.map(|l| l.span),
                InvalidDataType::ZeroBits | InvalidDataType::WrongBits { .. } => {
                    bits.map(|b| b.span)
                }
                InvalidDataType::UnknownCode(_) => None,
            }
            .unwrap_or(code.span);
            cx.error(span, format_args!("invalid data type for {what}: {reason}"));
            None
        }
    }
}

/// A struct with `#[dlpack(code)]`, `#[dlpack(bits)]` and optional `#[dlpack(lanes)]` fields.
fn raw<'a>(cx: &Ctxt, input: &Input, v: &'a Variant<'a>) -> Option<Shape<'a>> {
    let what = v.describe(input.ident);
    let attrs = &input.attrs;
    let conflicting = [
        attrs.name.as_ref().map(|n| n.span),
        attrs.element.as_ref().map(|o| o.key),
        attrs.code.as_ref().map(|o| o.key),
        attrs.bits.as_ref().map(|o| o.key),
        attrs.lanes.as_ref().map(|o| o.key),
        attrs.export_only,
    ];
    for span in conflicting.into_iter().flatten() {
        cx.error(
            span,
            format_args!(
                "conflicting options: {what} holds its data type in `code`/`bits`/`lanes` fields, so it takes no data type of its own"
            ),
        );
    }
    for (_, span) in fields_with(v, |a| a.delegate) {
        cx.error(
            span,
            format_args!("conflicting options: {what} has `code`/`bits`/`lanes` fields, so it cannot delegate"),
        );
    }
    let pick = |name: &str| -> Option<&'a Field<'a>> {
        let found = fields_with(v, |a| role(a, name));
        for (_, span) in found.iter().skip(1) {
            cx.error(
                *span,
                format_args!("a second `{name}` field; {what} has one"),
            );
        }
        found.first().map(|f| f.0)
    };
    let code = pick("code");
    let bits = pick("bits");
    let lanes = pick("lanes");
    let missing: Vec<&str> = [("code", code.is_none()), ("bits", bits.is_none())]
        .into_iter()
        .filter_map(|(n, m)| m.then_some(n))
        .collect();
    if !missing.is_empty() {
        cx.error(
            v.span,
            format_args!(
                "{what} is a raw data type and needs {} field{} marked `#[dlpack({})]`",
                if missing.len() == 1 {
                    "a"
                } else {
                    "`code` and `bits`"
                },
                if missing.len() == 1 { "" } else { "s" },
                missing.join(")]` and `#[dlpack(")
            ),
        );
        return None;
    }
    Some(Shape::Raw(Raw {
        v,
        code: code?,
        bits: bits?,
        lanes,
    }))
}

/// Two importable variants with the same known data type: import would be ambiguous.
fn duplicates(cx: &Ctxt, items: &[Item]) {
    let mut seen: HashMap<(u8, u8, u16), &Item> = HashMap::new();
    for item in items {
        let Map::Fixed {
            value: Value::Known { code, bits, lanes },
            export_only: false,
            span,
        } = item.map
        else {
            continue;
        };
        match seen.get(&(code, bits, lanes)) {
            Some(first) => {
                let mut name = String::new();
                let _ = dlpack_grammar::write_data_type(&mut name, code, bits, lanes);
                let first = first.v.ident.expect("an enum variant");
                cx.error(
                    span,
                    format_args!(
                        "duplicate import mapping: `{name}` is already imported as `{first}`; mark all but one of them `export_only`"
                    ),
                );
            }
            None => {
                seen.insert((code, bits, lanes), item);
            }
        }
    }
}
