//! What differs by kind in the resolver: the data type or device an item names directly, from
//! its own options and its fields' roles (`#[dlpack(id)]`, raw `code`/`bits`/`lanes` fields).

use dlpack_grammar::{Bits, InvalidDataType};
use proc_macro2::Span;

use super::{Claim, Const, Export, Raw, is_primitive_integer};
use crate::ast::{Field, Input, Variant};
use crate::attr::{Attrs, Opt, Target, Value};
use crate::ctxt::Ctxt;
use crate::kind::Kind;
use crate::names;
use crate::symbol::Sym;

/// An item's direct mapping.
pub(super) struct Direct<'a> {
    pub export: Export<'a>,
    pub claim: Option<Claim>,
    /// Where the mapping was written.
    pub span: Span,
}

pub(super) enum Outcome<'a> {
    /// The item's options name no value.
    Absent,
    /// They do, wrongly; the error is reported.
    Invalid,
    Found(Direct<'a>),
}

/// The options of an item and its fields that give a direct mapping, described for
/// conflicts with `skip`, `delegate` and `device_with`: the name first, if any.
pub(super) fn sources(kind: Kind, attrs: &Attrs, v: &Variant) -> Vec<(Span, String)> {
    let mut out = Vec::new();
    if let Some(named) = &attrs.name {
        out.push((
            named.span,
            match named.target {
                Target::DataType { .. } => "a data type name".to_owned(),
                Target::Device(info) => format!("the device `{}`", info.name),
            },
        ));
    }
    match kind {
        Kind::DataType => {
            if let Some(span) = parts(attrs) {
                out.push((span, "`code = …, bits = …`".to_owned()));
            }
            if let Some(span) = attrs.span(Sym::Element) {
                out.push((span, "`element = …`".to_owned()));
            }
            for (_, span) in raw_roles(v) {
                out.push((span, "a `code`/`bits`/`lanes` field".to_owned()));
            }
        }
        Kind::Device => out.extend(id_sources(attrs, v)),
    }
    out
}

pub(super) fn direct<'a>(
    cx: &Ctxt,
    input: &Input,
    v: &'a Variant<'a>,
    attrs: &'a Attrs,
    is_struct: bool,
    what: &str,
) -> Outcome<'a> {
    match input.kind {
        Kind::DataType => data_type(cx, v, attrs, is_struct, what),
        Kind::Device => device(cx, input, v, attrs, what),
    }
}

/// The span of the first of `code = …`, `bits = …`, `lanes = …`.
fn parts(attrs: &Attrs) -> Option<Span> {
    [Sym::Code, Sym::Bits, Sym::Lanes]
        .into_iter()
        .find_map(|sym| attrs.valued(sym).map(|o| o.key))
}

/// The fields marked `#[dlpack(code)]`, `#[dlpack(bits)]` or `#[dlpack(lanes)]`.
fn raw_roles<'v, 'a>(v: &'v Variant<'a>) -> Vec<(&'v Field<'a>, Span)> {
    v.fields
        .iter()
        .filter_map(|f| {
            [Sym::Code, Sym::Bits, Sym::Lanes]
                .into_iter()
                .find_map(|sym| f.attrs.role(sym))
                .map(|span| (f, span))
        })
        .collect()
}

fn data_type<'a>(
    cx: &Ctxt,
    v: &'a Variant<'a>,
    attrs: &'a Attrs,
    is_struct: bool,
    what: &str,
) -> Outcome<'a> {
    let roles = raw_roles(v);
    if is_struct && !roles.is_empty() {
        return raw(cx, v, attrs, what);
    }
    for (_, span) in &roles {
        cx.error(
            *span,
            "`code`/`bits`/`lanes` fields make a struct a raw data type; in an enum, delegate to `DataType` instead: `Other(#[dlpack(delegate)] DataType)`",
        );
    }
    // The ways to give the data type, in the order they were most likely meant.
    let forms: Vec<(Span, String)> = sources(Kind::DataType, attrs, v)
        .into_iter()
        .filter(|(_, form)| !form.contains("field"))
        .collect();
    for (span, form) in forms.iter().skip(1) {
        cx.error(
            *span,
            format_args!(
                "conflicting options: {form} and {} both give the data type of {what}; keep one",
                forms[0].1
            ),
        );
    }
    let value = if let Some(named) = &attrs.name {
        let Target::DataType { code, bits, lanes } = named.target else {
            unreachable!("a data type derive parses data type names")
        };
        Some((code, bits, lanes, named.span))
    } else if let Some(opt) = attrs.get(Sym::Element) {
        let Value::Type(ty) = &opt.value else {
            unreachable!("`element` takes a type")
        };
        return Outcome::Found(Direct {
            export: Export::Element(ty),
            claim: None,
            span: opt.key,
        });
    } else if let Some(span) = parts(attrs) {
        match parts_value(cx, attrs, what) {
            Some((code, bits, lanes)) => Some((code, bits, lanes, span)),
            None => return Outcome::Invalid,
        }
    } else {
        None
    };
    match value {
        Some((code, bits, lanes, span)) => Outcome::Found(Direct {
            export: Export::Const(Const::DataType { code, bits, lanes }),
            claim: Some(Claim {
                group: i64::from(code) | i64::from(bits) << 8 | i64::from(lanes) << 16,
                id: None,
                label: format!("`{}`", names::data_type(code, bits, lanes)),
                span,
            }),
            span,
        }),
        None if !roles.is_empty() => Outcome::Invalid,
        None => Outcome::Absent,
    }
}

/// `code = float, bits = 16, lanes = 4`, checked with the grammar's rules.
fn parts_value(cx: &Ctxt, attrs: &Attrs, what: &str) -> Option<(u8, u8, u16)> {
    let int = |sym| attrs.valued(sym).and_then(Opt::int);
    let (bits, lanes) = (int(Sym::Bits), int(Sym::Lanes));
    let Some((info, code_span)) = attrs.valued(Sym::Code).and_then(|o| match o.value {
        Value::Code(info, span) => Some((info, span)),
        _ => None,
    }) else {
        let span = [Sym::Bits, Sym::Lanes]
            .into_iter()
            .find_map(|s| attrs.span(s))
            .expect("parts were given");
        cx.error(
            span,
            format_args!(
                "the data type of {what} needs a code beside its bits and lanes, as in `code = float, bits = 16`"
            ),
        );
        return None;
    };
    let bits_value = match (bits, info.bits) {
        (Some((b, _)), _) => u8::try_from(b).expect("parsed within u8"),
        (None, Bits::Fixed(n) | Bits::AnyOrBare(n) | Bits::Only(n)) => n,
        (None, _) => {
            cx.error(
                code_span,
                format_args!(
                    "`code = {}` needs a bit width, as in `code = {}, bits = 32`",
                    info.name, info.name
                ),
            );
            return None;
        }
    };
    let lanes_value = lanes.map_or(1, |(l, _)| u16::try_from(l).expect("parsed within u16"));
    match names::check_data_type(info.code, bits_value, lanes_value) {
        Ok(()) => Some((info.code, bits_value, lanes_value)),
        Err(reason) => {
            let span = match reason {
                InvalidDataType::ZeroLanes => lanes.map(|l| l.1),
                InvalidDataType::ZeroBits | InvalidDataType::WrongBits { .. } => bits.map(|b| b.1),
                InvalidDataType::UnknownCode(_) => None,
            }
            .unwrap_or(code_span);
            cx.error(span, format_args!("invalid data type for {what}: {reason}"));
            None
        }
    }
}

/// A struct with `#[dlpack(code)]`, `#[dlpack(bits)]` and optional `#[dlpack(lanes)]` fields.
fn raw<'a>(cx: &Ctxt, v: &'a Variant<'a>, attrs: &Attrs, what: &str) -> Outcome<'a> {
    let own = [
        attrs.name.as_ref().map(|n| n.span),
        attrs.span(Sym::Element),
        attrs.span(Sym::Code),
        attrs.span(Sym::Bits),
        attrs.span(Sym::Lanes),
    ];
    for span in own.into_iter().flatten() {
        cx.error(
            span,
            format_args!(
                "conflicting options: {what} holds its data type in `code`/`bits`/`lanes` fields, so it takes no data type of its own"
            ),
        );
    }
    let pick = |sym: Sym| -> Option<&'a Field<'a>> {
        let found: Vec<(&'a Field<'a>, Span)> = v
            .fields
            .iter()
            .filter_map(|f| f.attrs.role(sym).map(|span| (f, span)))
            .collect();
        for (_, span) in found.iter().skip(1) {
            cx.error(
                *span,
                format_args!("a second `{sym}` field; {what} has one"),
            );
        }
        found.first().map(|f| f.0)
    };
    let (code, bits, lanes) = (pick(Sym::Code), pick(Sym::Bits), pick(Sym::Lanes));
    let (Some(code), Some(bits)) = (code, bits) else {
        let missing: Vec<&str> = [("code", code.is_none()), ("bits", bits.is_none())]
            .into_iter()
            .filter_map(|(n, m)| m.then_some(n))
            .collect();
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
        return Outcome::Invalid;
    };
    Outcome::Found(Direct {
        export: Export::Raw(Raw { code, bits, lanes }),
        claim: None,
        span: v.span,
    })
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

fn device<'a>(
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
