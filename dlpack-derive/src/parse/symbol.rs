//! The option keys of `#[dlpack(...)]`, as serde_derive's `Symbol` constants: each key is
//! spelt once, here, and the parser, the checks and the messages name it through [`Sym`].

use std::fmt;

use super::kind::Kind;

/// One option key.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Sym {
    Crate,
    Code,
    Bits,
    Lanes,
    Element,
    DataTypeWith,
    Id,
    IdWith,
    DeviceWith,
    ImportWith,
    Default,
    ExportOnly,
    Skip,
    Delegate,
    Remote,
    NonExhaustive,
    /// `__impl_remote`: hidden, for dlpack-core's bridges (see [`Sym::is_hidden`]).
    ImplRemote,
}

/// What follows a key.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// Nothing: `skip`.
    Flag,
    /// `= path`.
    Path,
    /// `= Type`.
    Type,
    /// `= "path"` or `= path`: `crate`.
    CratePath,
    /// `= value` on an item, or nothing on a field, whose role it marks: `code`, `id`.
    ValueOrRole,
    /// `= "path"` or `= path` of a type: `remote`.
    TypePath,
    /// `= "error"`, the one decision there is today: `non_exhaustive`.
    Decision,
}

/// Where an option may be written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// The type only: `crate`.
    Type,
    /// A variant or a struct: what the item maps to, and how it comes back.
    Item,
    /// A variant only: `skip`.
    Variant,
    /// A field only: `delegate`.
    Field,
    /// A variant, a struct or the field the function reads: `id_with`, `device_with`,
    /// `data_type_with`.
    ItemOrField,
    /// A value on an item, a role (no value) on a field.
    ValueOrRole,
}

impl Sym {
    /// Every key, in the order messages list them: each derive's own keys, then the ones both
    /// take.
    const ALL: [Sym; 17] = [
        Sym::Code,
        Sym::Bits,
        Sym::Lanes,
        Sym::Element,
        Sym::DataTypeWith,
        Sym::Id,
        Sym::IdWith,
        Sym::DeviceWith,
        Sym::ExportOnly,
        Sym::Default,
        Sym::ImportWith,
        Sym::Skip,
        Sym::Delegate,
        Sym::Crate,
        Sym::Remote,
        Sym::NonExhaustive,
        Sym::ImplRemote,
    ];

    /// The options `kind`'s derive takes, in the order messages list them, hidden ones left
    /// out: no message lists or suggests them. Which derive a key belongs to is written once,
    /// in [`Sym::kind`].
    pub(crate) fn keys(kind: Kind) -> impl Iterator<Item = Sym> {
        Sym::ALL
            .into_iter()
            .filter(move |s| !s.is_hidden() && s.kind().is_none_or(|k| k == kind))
    }

    /// A key the derive reads but no user documentation or message names: `__impl_remote`,
    /// which implements dlpack-core's traits for a mirror's foreign type. The orphan rule
    /// lets only dlpack-core (its bridges) and the foreign type's own crate write that impl;
    /// in any other crate it is E0117, so it is not offered to users (see
    /// `names::unknown_option` for what `impl_remote` says instead).
    pub(crate) fn is_hidden(self) -> bool {
        self == Sym::ImplRemote
    }

    /// The key as written.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Sym::Crate => "crate",
            Sym::Code => "code",
            Sym::Bits => "bits",
            Sym::Lanes => "lanes",
            Sym::Element => "element",
            Sym::DataTypeWith => "data_type_with",
            Sym::Id => "id",
            Sym::IdWith => "id_with",
            Sym::DeviceWith => "device_with",
            Sym::ImportWith => "import_with",
            Sym::Default => "default",
            Sym::ExportOnly => "export_only",
            Sym::Skip => "skip",
            Sym::Delegate => "delegate",
            Sym::Remote => "remote",
            Sym::NonExhaustive => "non_exhaustive",
            Sym::ImplRemote => "__impl_remote",
        }
    }

    /// The key that reads an item's value with a function, for `kind`'s derive:
    /// `data_type_with` or `device_with`.
    pub(crate) fn with(kind: Kind) -> Sym {
        match kind {
            Kind::DataType => Sym::DataTypeWith,
            Kind::Device => Sym::DeviceWith,
        }
    }

    /// The key spelt `name`, if any.
    pub(crate) fn from_name(name: &str) -> Option<Sym> {
        Sym::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The derive the key belongs to, or `None` for keys both take.
    pub(crate) fn kind(self) -> Option<Kind> {
        match self {
            Sym::Code | Sym::Bits | Sym::Lanes | Sym::Element | Sym::DataTypeWith => {
                Some(Kind::DataType)
            }
            Sym::Id | Sym::IdWith | Sym::DeviceWith => Some(Kind::Device),
            _ => None,
        }
    }

    pub(crate) fn form(self) -> Form {
        match self {
            Sym::Crate => Form::CratePath,
            Sym::Code | Sym::Bits | Sym::Lanes | Sym::Id => Form::ValueOrRole,
            Sym::Element => Form::Type,
            Sym::IdWith | Sym::DeviceWith | Sym::DataTypeWith | Sym::ImportWith => Form::Path,
            Sym::Default | Sym::ExportOnly | Sym::Skip | Sym::Delegate | Sym::ImplRemote => {
                Form::Flag
            }
            Sym::Remote => Form::TypePath,
            Sym::NonExhaustive => Form::Decision,
        }
    }

    pub(crate) fn place(self) -> Place {
        match self {
            Sym::Crate | Sym::Remote | Sym::NonExhaustive | Sym::ImplRemote => Place::Type,
            Sym::Code | Sym::Bits | Sym::Lanes | Sym::Id => Place::ValueOrRole,
            Sym::Element | Sym::ImportWith | Sym::Default | Sym::ExportOnly => Place::Item,
            Sym::IdWith | Sym::DeviceWith | Sym::DataTypeWith => Place::ItemOrField,
            Sym::Skip => Place::Variant,
            Sym::Delegate => Place::Field,
        }
    }

    /// What a field marked with this role holds, for messages.
    pub(crate) fn role_noun(self) -> &'static str {
        match self {
            Sym::Code => "data type code",
            Sym::Bits => "bit width",
            Sym::Lanes => "lane count",
            _ => "device id",
        }
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
