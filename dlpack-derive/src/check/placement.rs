//! Every option is written where it has a meaning ([`Sym::place`]). A misplaced option is
//! reported here and then ignored: the resolver reads each option only where it belongs, so
//! it causes no second error.

use crate::parse::ast::Variant;
use crate::parse::attr::{Attrs, Value};
use crate::parse::ctxt::Ctxt;
use crate::parse::kind::Kind;
use crate::parse::names::Target;
use crate::parse::symbol::{Place, Sym};

/// Where an item's options were written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    Enum,
    Struct,
    Variant,
    Field,
}

impl Level {
    fn here(self) -> &'static str {
        match self {
            Level::Enum => "on the enum",
            Level::Struct => "on the struct",
            Level::Variant => "on a variant",
            Level::Field => "on a field",
        }
    }
}

/// The options of every field of `v`.
pub(crate) fn fields(cx: &Ctxt, kind: Kind, v: &Variant) {
    for field in &v.fields {
        check(cx, kind, &field.attrs, Level::Field);
    }
}

pub(crate) fn check(cx: &Ctxt, kind: Kind, attrs: &Attrs, level: Level) {
    let here = level.here();
    for opt in &attrs.opts {
        let sym = opt.sym;
        let key = opt.key;
        match (sym.place(), level) {
            (Place::Type, Level::Enum | Level::Struct)
            | (Place::Item, Level::Variant | Level::Struct)
            | (Place::Variant, Level::Variant)
            | (Place::Field, Level::Field) => {}
            (Place::ItemOrField, Level::Enum) => cx.error(
                key,
                format_args!("`{sym}` goes on a variant, a struct or a field, not on the enum"),
            ),
            (Place::ItemOrField, _) => {}
            (Place::Type, _) => {
                cx.error(key, format_args!("`{sym} = …` goes on the type, not {here}"));
            }
            (Place::Item, _) if sym == Sym::Element => {
                mapping(cx, key, &format!("`{sym} = …`"), level);
            }
            (Place::Item, _) => cx.error(
                key,
                format_args!("`{sym}` goes on a variant or a struct, not {here}"),
            ),
            (Place::Variant, Level::Struct) => cx.error(
                key,
                "a struct cannot be skipped: `skip` goes on an enum variant that has no DLPack equivalent",
            ),
            (Place::Variant, _) => {
                cx.error(key, format_args!("`{sym}` goes on a variant, not {here}"));
            }
            (Place::Field, _) => cx.error(
                key,
                format_args!(
                    "`{sym}` goes on the field to delegate to, as in `{}`, not {here}",
                    kind.delegate_example()
                ),
            ),
            (Place::ValueOrRole, _) => match (&opt.value, level) {
                (Value::None, Level::Field) => {}
                (Value::None, _) => cx.error(key, role_on_item(kind, sym)),
                (_, Level::Field) => cx.error(
                    key,
                    format_args!(
                        "on a field, write `#[dlpack({sym})]` alone: the field holds the {}",
                        sym.role_noun()
                    ),
                ),
                (_, _) => mapping(cx, key, &format!("`{sym} = …`"), level),
            },
        }
    }
    if let Some(named) = &attrs.name {
        let what = match named.target {
            Target::DataType { .. } => "a data type name".to_owned(),
            Target::Device(info) => format!("the device `{}`", info.name),
        };
        mapping(cx, named.span, &what, level);
    }
}

/// An option that says what an item maps to: on a variant or a struct only.
fn mapping(cx: &Ctxt, span: proc_macro2::Span, what: &str, level: Level) {
    match level {
        Level::Enum => cx.error(
            span,
            format_args!(
                "{what} goes on each variant, not on the enum; on the enum only `crate`, `remote` and `non_exhaustive` are allowed"
            ),
        ),
        Level::Field => cx.error(
            span,
            format_args!("{what} goes on the variant or the struct, not on a field"),
        ),
        Level::Struct | Level::Variant => {}
    }
}

fn role_on_item(kind: Kind, sym: Sym) -> String {
    match (kind, sym) {
        (Kind::Device, _) => "`id` alone marks the id field; here give the id itself, as in `#[dlpack(cuda, id = 0)]`, or put `#[dlpack(id)]` on a field".to_owned(),
        (_, Sym::Code) => "`code` needs a value here, as in `code = float`; `#[dlpack(code)]` alone marks a field of a raw data type struct".to_owned(),
        (_, sym) => format!(
            "`{sym}` needs a value here, as in `{sym} = {}`; `#[dlpack({sym})]` alone marks a field of a raw data type struct",
            if sym == Sym::Bits { 16 } else { 4 }
        ),
    }
}
