//! What differs by kind in the resolver: the data type ([`data_type`]) or device ([`device`])
//! an item names directly, from its own options and its fields' roles (`#[dlpack(id)]`, raw
//! `code`/`bits`/`lanes` fields).

pub(in crate::check) mod data_type;
pub(in crate::check) mod device;

use proc_macro2::Span;

use super::{Claim, Export};
use crate::ast::Variant;
use crate::attr::{Attrs, Target};
use crate::kind::Kind;
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
            if let Some(span) = data_type::parts(attrs) {
                out.push((span, "`code = …, bits = …`".to_owned()));
            }
            if let Some(span) = attrs.span(Sym::Element) {
                out.push((span, "`element = …`".to_owned()));
            }
            for (_, span) in data_type::raw_roles(v) {
                out.push((span, "a `code`/`bits`/`lanes` field".to_owned()));
            }
        }
        Kind::Device => out.extend(device::id_sources(attrs, v)),
    }
    out
}
