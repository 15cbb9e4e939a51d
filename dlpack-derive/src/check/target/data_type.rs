//! A data type named directly: by name (`"float32"`), by parts (`code = float, bits = 16`),
//! by `element = T`, or held in a raw struct's `code`/`bits`/`lanes` fields.

use dlpack_grammar::{Bits, InvalidDataType};
use proc_macro2::Span;

use crate::check::model::{Claim, Const, Direct, Export, Outcome, Raw};
use crate::parse::ast::{Field, Variant};
use crate::parse::attr::{Attrs, Opt, Value};
use crate::parse::ctxt::Ctxt;
use crate::parse::names::{self, Target};
use crate::parse::symbol::Sym;

/// The options of an item and its fields that give a data type, described for conflicts: the
/// name first, if any.
pub(super) fn sources(attrs: &Attrs, v: &Variant) -> Vec<(Span, String)> {
    let mut out = Vec::new();
    if let Some(named) = &attrs.name {
        out.push((named.span, "a data type name".to_owned()));
    }
    if let Some(span) = parts(attrs) {
        out.push((span, "`code = …, bits = …`".to_owned()));
    }
    if let Some(span) = attrs.span(Sym::Element) {
        out.push((span, "`element = …`".to_owned()));
    }
    for (_, span) in raw_roles(v) {
        out.push((span, "a `code`/`bits`/`lanes` field".to_owned()));
    }
    out
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

pub(crate) fn direct<'a>(
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
    let forms: Vec<(Span, String)> = sources(attrs, v)
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
                // An unknown code, and any reason a later grammar adds: point at the code.
                _ => None,
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
