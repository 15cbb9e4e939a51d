//! Validation: which options go on which item, which combine, and what each variant maps to.
//!
//! The output is a resolved model per derive ([`data_type::Model`], [`device::Model`]) that
//! `expand` turns into tokens without further checks. Every mistake is reported into the
//! [`Ctxt`], spanned on the offending option, and checking goes on so one build shows them all.
//! Checks that need type information (an `element`'s data type, an id field's range, a
//! delegate's sets) cannot run here; `expand` emits them as `const` assertions.

pub(crate) mod data_type;
pub(crate) mod device;

use proc_macro2::Span;
use syn::{Path, Type};

use crate::ast::{Field, Input, Variant};
use crate::attr::{Attrs, Which};
use crate::ctxt::Ctxt;

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

/// The path of dlpack-core in generated code: `#[dlpack(crate = "…")]` or `::dlpack_core`.
pub(crate) fn krate(input: &Input) -> Path {
    match &input.attrs.krate {
        Some(opt) => opt.value.clone(),
        None => syn::parse_quote!(::dlpack_core),
    }
}

/// Reports every option written where it has no meaning. Misplaced options are then ignored,
/// so they cause no second error.
pub(crate) fn placement(cx: &Ctxt, which: Which, attrs: &Attrs, level: Level) {
    let here = level.here();
    let on_type = matches!(level, Level::Enum | Level::Struct);
    if let Some(o) = &attrs.krate {
        if !on_type {
            cx.error(
                o.key,
                format_args!("`crate = …` goes on the type, not {here}"),
            );
        }
    }
    // The options that say what an item maps to.
    let mut mapping: Vec<(Span, String)> = Vec::new();
    if let Some(v) = &attrs.name {
        mapping.push((v.span, "a data type name".to_owned()));
    }
    for (opt, name) in [
        (
            attrs.code.as_ref().map(|o| (o.key, o.value.is_some())),
            "code",
        ),
        (
            attrs.bits.as_ref().map(|o| (o.key, o.value.is_some())),
            "bits",
        ),
        (
            attrs.lanes.as_ref().map(|o| (o.key, o.value.is_some())),
            "lanes",
        ),
        (attrs.id.as_ref().map(|o| (o.key, o.value.is_some())), "id"),
    ] {
        let Some((key, has_value)) = opt else {
            continue;
        };
        match (has_value, level) {
            (true, Level::Field) => cx.error(
                key,
                format_args!(
                    "on a field, write `#[dlpack({name})]` alone: the field holds the {}",
                    role_noun(name)
                ),
            ),
            (true, _) => mapping.push((key, format!("`{name} = …`"))),
            (false, Level::Field) => {}
            (false, _) => cx.error(key, role_on_item(which, name)),
        }
    }
    if let Some(o) = &attrs.element {
        mapping.push((o.key, "`element = …`".to_owned()));
    }
    if let Some(v) = &attrs.device {
        mapping.push((v.span, format!("the device `{}`", v.value.name)));
    }
    for (span, name) in mapping {
        match level {
            Level::Enum => cx.error(
                span,
                format_args!(
                    "{name} goes on each variant, not on the enum; on the enum only `crate = \"…\"` is allowed"
                ),
            ),
            Level::Field => cx.error(
                span,
                format_args!("{name} goes on the variant or the struct, not on a field"),
            ),
            Level::Struct | Level::Variant => {}
        }
    }
    if let Some(span) = attrs.export_only {
        if matches!(level, Level::Enum | Level::Field) {
            cx.error(
                span,
                format_args!("`export_only` goes on a variant or a struct, not {here}"),
            );
        }
    }
    if let Some(span) = attrs.skip {
        match level {
            Level::Variant => {}
            Level::Struct => cx.error(
                span,
                "a struct cannot be skipped: `skip` goes on an enum variant that has no DLPack equivalent",
            ),
            _ => cx.error(span, format_args!("`skip` goes on a variant, not {here}")),
        }
    }
    if let Some(span) = attrs.delegate {
        if level != Level::Field {
            let example = match which {
                Which::DataType => "Bool(#[dlpack(delegate)] BoolStore)",
                Which::Device => "Dispatch(#[dlpack(delegate)] InnerDevice)",
            };
            cx.error(
                span,
                format_args!(
                    "`delegate` goes on the field to delegate to, as in `{example}`, not {here}"
                ),
            );
        }
    }
    if let Some(o) = &attrs.id_with {
        if level == Level::Enum {
            cx.error(
                o.key,
                "`id_with` goes on a variant, a struct or a field, not on the enum",
            );
        }
    }
}

fn role_noun(name: &str) -> &'static str {
    match name {
        "code" => "data type code",
        "bits" => "bit width",
        "lanes" => "lane count",
        _ => "device id",
    }
}

fn role_on_item(which: Which, name: &str) -> String {
    match (which, name) {
        (Which::Device, _) => "`id` alone marks the id field; here give the id itself, as in `#[dlpack(cuda, id = 0)]`, or put `#[dlpack(id)]` on a field".to_owned(),
        (_, "code") => "`code` needs a value here, as in `code = float`; `#[dlpack(code)]` alone marks a field of a raw data type struct".to_owned(),
        (_, name) => format!(
            "`{name}` needs a value here, as in `{name} = {}`; `#[dlpack({name})]` alone marks a field of a raw data type struct",
            if name == "bits" { 16 } else { 4 }
        ),
    }
}

/// Whether the type mentions one of the input's type parameters (then checks that need a
/// concrete type are left to the compiler's monomorphisation, and a bound is added).
pub(crate) fn mentions_type_param(input: &Input, ty: &Type) -> bool {
    let params: Vec<&syn::Ident> = input.generics.type_params().map(|p| &p.ident).collect();
    if params.is_empty() {
        return false;
    }
    fn walk(tokens: proc_macro2::TokenStream, params: &[&syn::Ident]) -> bool {
        tokens.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => params.iter().any(|p| **p == i),
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), params),
            _ => false,
        })
    }
    walk(quote::quote!(#ty), &params)
}

/// Whether a type is written as a primitive integer (`usize`, `u32`, …).
pub(crate) fn is_primitive_integer(ty: &Type) -> bool {
    let Type::Path(p) = ty else { return false };
    p.qself.is_none()
        && p.path.get_ident().is_some_and(|i| {
            matches!(
                i.to_string().as_str(),
                "u8" | "u16"
                    | "u32"
                    | "u64"
                    | "u128"
                    | "usize"
                    | "i8"
                    | "i16"
                    | "i32"
                    | "i64"
                    | "i128"
                    | "isize"
            )
        })
}

/// The fields of `v` whose options include `pick`.
pub(crate) fn fields_with<'v, 'a>(
    v: &'v Variant<'a>,
    pick: impl Fn(&Attrs) -> Option<Span>,
) -> Vec<(&'v Field<'a>, Span)> {
    v.fields
        .iter()
        .filter_map(|f| pick(&f.attrs).map(|span| (f, span)))
        .collect()
}

/// Whether the item or any of its fields carries a `#[dlpack]` attribute.
pub(crate) fn annotated(attrs: &Attrs, v: &Variant) -> bool {
    !attrs.is_empty() || v.fields.iter().any(|f| !f.attrs.is_empty())
}
