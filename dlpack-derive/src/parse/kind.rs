//! What differs between the two derives: the kind of DLPack value they map. Everything else
//! (parsing, the resolver, the impl builder, the fallback) is one engine that reads its names
//! from here, as zerocopy-derive's `Trait` parameterises its impl builder.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Ident, Path};

/// The value a derive maps to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// `#[derive(DlpackDataType)]`: a `DataType`, `__dlpack_data_type__`.
    DataType,
    /// `#[derive(DlpackDevice)]`: a `Device`, `__dlpack_device__`.
    Device,
}

impl Kind {
    /// The trait (and derive) name.
    pub(crate) fn trait_name(self) -> &'static str {
        match self {
            Kind::DataType => "DlpackDataType",
            Kind::Device => "DlpackDevice",
        }
    }

    /// The value type's name in dlpack-core.
    pub(crate) fn value_name(self) -> &'static str {
        match self {
            Kind::DataType => "DataType",
            Kind::Device => "Device",
        }
    }

    /// The export method: `dlpack_data_type`.
    pub(crate) fn export_name(self) -> &'static str {
        match self {
            Kind::DataType => "dlpack_data_type",
            Kind::Device => "dlpack_device",
        }
    }

    /// What the value is called in messages.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Kind::DataType => "data type",
            Kind::Device => "device",
        }
    }

    /// The other derive, for "that is a device, not a data type".
    pub(crate) fn other(self) -> Kind {
        match self {
            Kind::DataType => Kind::Device,
            Kind::Device => Kind::DataType,
        }
    }

    /// An example annotation, for messages.
    pub(crate) fn example(self) -> &'static str {
        match self {
            Kind::DataType => "#[dlpack(\"float32\")]",
            Kind::Device => "#[dlpack(cuda)]",
        }
    }

    /// An example of a delegating variant, for messages.
    pub(crate) fn delegate_example(self) -> &'static str {
        match self {
            Kind::DataType => "Bool(#[dlpack(delegate)] BoolStore)",
            Kind::Device => "Dispatch(#[dlpack(delegate)] InnerDevice)",
        }
    }

    /// The paths generated code names, under dlpack-core's path `krate`.
    pub(crate) fn paths(self, krate: &Path) -> Paths {
        let (set, param, import, to_const, from_unit) = match self {
            Kind::DataType => (
                "DataTypeSet",
                "data_type",
                "from_dlpack_data_type",
                "to_dlpack_data_type",
                "unit_from_dlpack_data_type",
            ),
            Kind::Device => (
                "DeviceSet",
                "device",
                "from_dlpack_device",
                "to_dlpack_device",
                "unit_from_dlpack_device",
            ),
        };
        let ident = |name: &str| Ident::new(name, Span::call_site());
        let (trait_, value, set) = (
            ident(self.trait_name()),
            ident(self.value_name()),
            ident(set),
        );
        Paths {
            krate: krate.clone(),
            trait_: quote!(#krate::#trait_),
            value: quote!(#krate::#value),
            set: quote!(#krate::set::#set),
            error: quote!(#krate::Error),
            param: ident(param),
            export: ident(self.export_name()),
            import: ident(import),
            to_const: ident(to_const),
            from_unit: ident(from_unit),
            kind: self,
        }
    }
}

/// The names one derive's generated code uses.
pub(crate) struct Paths {
    pub krate: Path,
    /// `::dlpack_core::DlpackDevice`.
    pub trait_: TokenStream,
    /// `::dlpack_core::Device`.
    pub value: TokenStream,
    /// `::dlpack_core::set::DeviceSet`.
    pub set: TokenStream,
    /// `::dlpack_core::Error`.
    pub error: TokenStream,
    /// The import function's parameter: `device`.
    pub param: Ident,
    /// `dlpack_device`.
    pub export: Ident,
    /// `from_dlpack_device`.
    pub import: Ident,
    /// The inherent `const fn to_dlpack_device`.
    pub to_const: Ident,
    /// The inherent `const fn unit_from_dlpack_device`.
    pub from_unit: Ident,
    pub kind: Kind,
}

impl Paths {
    /// A helper of dlpack-core's `__private` module whose name depends on the kind.
    pub(crate) fn private(&self, helper: Helper) -> TokenStream {
        let name = match (self.kind, helper) {
            (Kind::DataType, Helper::NoValue) => "no_data_type",
            (Kind::Device, Helper::NoValue) => "no_device",
            (Kind::DataType, Helper::Unsupported) => "unsupported_data_type",
            (Kind::Device, Helper::Unsupported) => "unsupported_device",
            (Kind::DataType, Helper::Overlap) => "data_types_overlap",
            (Kind::Device, Helper::Overlap) => "devices_overlap",
            (Kind::DataType, Helper::Empty) => "data_types_empty",
            (Kind::Device, Helper::Empty) => "devices_empty",
            (Kind::DataType, Helper::PositionIn) => "position_in",
            (Kind::Device, Helper::PositionIn) => "range_position_in",
            (Kind::DataType, Helper::With) => "data_type_with",
            (Kind::Device, Helper::With) => "device_with",
            (Kind::DataType, Helper::WithProduces) => "data_type_with_produces",
            (Kind::Device, Helper::WithProduces) => "device_with_produces",
        };
        let krate = &self.krate;
        let name = Ident::new(name, Span::call_site());
        quote!(#krate::__private::#name)
    }
}

/// The `__private` helpers that exist once per kind.
#[derive(Clone, Copy)]
pub(crate) enum Helper {
    /// The error of a `skip` value.
    NoValue,
    /// The error of a value no variant imports.
    Unsupported,
    /// Whether two sets share a value.
    Overlap,
    /// Whether a set is empty.
    Empty,
    /// The first of a list of direct mappings that a set holds.
    PositionIn,
    /// The value a `device_with` or `data_type_with` function's result exports.
    With,
    /// Every value a `device_with` or `data_type_with` function's result type produces.
    WithProduces,
}
