//! Validation: which options go on which item, which combine, what each item maps to and how
//! it comes back on import.
//!
//! The output is one [`Model`] for both derives, which `expand` turns into tokens without
//! further checks. Every mistake is reported into the [`Ctxt`], spanned on the offending
//! option, and checking goes on so one build shows them all. Checks that need type
//! information (an `element`'s data type, an id field's range, a delegate's sets) cannot run
//! here; `expand` emits them as `const` assertions.
//!
//! - [`placement`]: every option is written where it has a meaning.
//! - [`resolve`]: the one resolver: `skip`, `delegate`, `device_with` and the newtype rule.
//! - [`policy`]: how every item comes back (`export_only`, `default`, `import_with`), checked
//!   against the fields import cannot set.
//! - [`target`]: what differs by kind: the data type or device an item names directly.
//! - [`duplicates`]: two items importing one value.

mod duplicates;
mod placement;
mod policy;
mod resolve;
mod target;

use proc_macro2::Span;
use syn::{Path, Type};

use crate::ast::{Body, Field, Input, Variant};
use crate::attr::Attrs;
use crate::ctxt::Ctxt;
use crate::kind::Kind;

pub(crate) use duplicates::Claim;

/// Both derives' resolved input.
pub(crate) struct Model<'a> {
    pub kind: Kind,
    pub krate: Path,
    pub items: Vec<Item<'a>>,
    pub is_enum: bool,
}

/// One variant, or a struct as a whole.
pub(crate) struct Item<'a> {
    pub v: &'a Variant<'a>,
    pub export: Export<'a>,
    pub import: Import<'a>,
    /// What the item imports, when the macro knows it (for the duplicate check).
    pub claim: Option<Claim>,
    /// Where its mapping was written, for `const` assertions about it.
    pub span: Span,
}

/// Where an item's DLPack value comes from.
pub(crate) enum Export<'a> {
    /// A value the macro knows: it folds to a constant.
    Const(Const),
    /// `element = T`: `<T as Element>::DATA_TYPE`, known to the compiler only.
    Element(&'a Type),
    /// A device type whose id is this integer field.
    IdField {
        device_type: i32,
        field: &'a Field<'a>,
    },
    /// A device type whose id is `path(&field)`.
    IdWith {
        device_type: i32,
        field: &'a Field<'a>,
        path: &'a Path,
    },
    /// The field's own impl, through `Box`, `Arc` or `Rc` when `inner` is the pointee.
    Delegate {
        field: &'a Field<'a>,
        inner: &'a Type,
    },
    /// The device of `path(&field)` (or `path(&self)` for a struct), a `DlpackDevice`; of
    /// `device_type`, when the item names one.
    DeviceWith {
        field: Option<&'a Field<'a>>,
        path: &'a Path,
        device_type: Option<i32>,
    },
    /// `code`, `bits` and optional `lanes` fields: any data type.
    Raw(Raw<'a>),
    /// No DLPack value.
    Skip,
}

/// A value the macro knows.
#[derive(Clone, Copy)]
pub(crate) enum Const {
    DataType {
        code: u8,
        bits: u8,
        lanes: u16,
    },
    Device {
        device_type: i32,
        id: i32,
        /// Host-side memory belongs to no device: every id imports, as `Device`'s equality
        /// ignores it.
        any_id: bool,
    },
}

/// The fields of a raw data type struct.
pub(crate) struct Raw<'a> {
    pub code: &'a Field<'a>,
    pub bits: &'a Field<'a>,
    pub lanes: Option<&'a Field<'a>>,
}

/// How an item comes back from a DLPack value.
pub(crate) enum Import<'a> {
    /// It does not: `export_only` or `skip`.
    Never,
    /// The derive builds it: the fields the mapping sets (an id, a delegate, raw fields),
    /// `PhantomData`, and with `default` (its span) every other field from `Default` (a
    /// struct: from `Self::default()`).
    Build { default: Option<Span> },
    /// `import_with = path`: the user's function builds it.
    With(&'a Path),
}

impl Item<'_> {
    pub(crate) fn imports(&self) -> bool {
        !matches!(self.import, Import::Never)
    }

    /// The fields the import sets from the DLPack value (the others are the payload).
    pub(crate) fn roles(&self) -> Vec<&Field<'_>> {
        match &self.export {
            Export::IdField { field, .. } | Export::Delegate { field, .. } => vec![*field],
            Export::Raw(raw) => [Some(raw.code), Some(raw.bits), raw.lanes]
                .into_iter()
                .flatten()
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The fields the import does not set: they come back by the item's policy.
    pub(crate) fn payload(&self) -> Vec<&Field<'_>> {
        let roles = self.roles();
        self.v
            .fields
            .iter()
            .filter(|f| !f.is_phantom() && !roles.iter().any(|r| r.member == f.member))
            .collect()
    }
}

pub(crate) fn check<'a>(cx: &Ctxt, input: &'a Input<'a>) -> Option<Model<'a>> {
    let kind = input.kind;
    let items = match &input.body {
        Body::Union(span) => {
            cx.error(
                *span,
                format_args!(
                    "`{}` cannot be derived for a union; derive it on an enum or a struct",
                    kind.trait_name()
                ),
            );
            Vec::new()
        }
        Body::Enum(variants) => {
            placement::check(cx, kind, &input.attrs, placement::Level::Enum);
            variants
                .iter()
                .filter_map(|v| {
                    let before = cx.count();
                    placement::check(cx, kind, &v.attrs, placement::Level::Variant);
                    placement::fields(cx, kind, v);
                    let item = resolve::item(cx, input, v, &v.attrs, false, before);
                    reported(cx, &item, &v.attrs, v, before);
                    item
                })
                .collect()
        }
        Body::Struct(v) => {
            let before = cx.count();
            placement::check(cx, kind, &input.attrs, placement::Level::Struct);
            placement::fields(cx, kind, v);
            let item = resolve::item(cx, input, v, &input.attrs, true, before);
            reported(cx, &item, &input.attrs, v, before);
            item.into_iter().collect()
        }
    };
    duplicates::check(cx, &items);
    if cx.has_errors() {
        return None;
    }
    Some(Model {
        kind,
        krate: krate(input),
        items,
        is_enum: matches!(input.body, Body::Enum(_)),
    })
}

/// The resolver's promise: an item that maps to nothing has an error (from parsing its
/// options, or since `before`), so no variant is ever left out of the impls silently.
fn reported(cx: &Ctxt, item: &Option<Item>, attrs: &Attrs, v: &Variant, before: usize) {
    let parsed_wrong = attrs.poisoned || v.fields.iter().any(|f| f.attrs.poisoned);
    debug_assert!(
        item.is_some() || parsed_wrong || cx.count() > before,
        "an item resolved to nothing without an error"
    );
}

/// The path of dlpack-core in generated code: `#[dlpack(crate = "…")]` or `::dlpack_core`.
pub(crate) fn krate(input: &Input) -> Path {
    match input.attrs.path(crate::symbol::Sym::Crate) {
        Some(path) => path.clone(),
        None => syn::parse_quote!(::dlpack_core),
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
    primitive(ty).is_some_and(|name| {
        matches!(
            name.as_str(),
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

/// Whether an id field's type always fits a DLPack id (`u8`, `u16`): then `From` is total.
pub(crate) fn is_small_integer(ty: &Type) -> bool {
    primitive(ty).is_some_and(|name| matches!(name.as_str(), "u8" | "u16"))
}

fn primitive(ty: &Type) -> Option<String> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    p.path.get_ident().map(ToString::to_string)
}
