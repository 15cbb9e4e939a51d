//! What the check stage hands on: the resolved [`Model`] that `expand` turns into tokens
//! without further checks, and what the resolver's steps return to it ([`Direct`],
//! [`Claim`]).

use proc_macro2::Span;
use syn::{Path, Type};

use crate::parse::ast::{Field, Variant};
use crate::parse::kind::Kind;

/// Both derives' resolved input.
pub(crate) struct Model<'a> {
    pub kind: Kind,
    pub krate: Path,
    pub items: Vec<Item<'a>>,
    pub is_enum: bool,
    /// `remote = "…"`: the type the input mirrors.
    pub remote: Option<Remote<'a>>,
}

/// A mirror's foreign type and what was decided about it.
pub(crate) struct Remote<'a> {
    /// The foreign type's path, as written.
    pub path: &'a Path,
    /// `non_exhaustive = "error"`: a foreign value of a variant the mirror does not list
    /// converts to an error (its span).
    pub non_exhaustive: Option<Span>,
    /// `__impl_remote` (hidden, for dlpack-core's bridges): the traits are implemented for the
    /// foreign type too.
    pub impl_remote: bool,
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
    /// `device_with` or `data_type_with`: the value of `path(&field)` (or `path(&self)` for a
    /// struct), a `DlpackDevice` or a `DlpackDataType`; a device of `device_type`, when the
    /// item names one (a data type item never does).
    With {
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

/// What an importing item takes: a group of values (one data type, or one device type) and,
/// for a device, one id of the group or (`None`) every id.
pub(crate) struct Claim {
    pub group: i64,
    pub id: Option<i32>,
    /// The values, for messages: "`float32`", "`cuda` devices", "`cuda:0`".
    pub label: String,
    /// Where the mapping was written.
    pub span: Span,
}

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
