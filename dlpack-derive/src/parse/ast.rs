//! A typed view of the derive input that borrows the syn tree: the type, its variants (a
//! struct is one variant whose path is `Self`), their fields, and each item's parsed
//! `#[dlpack(...)]` options.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{
    Attribute, Data, DeriveInput, Fields, GenericArgument, Generics, Ident, Index, Member, Path,
    PathArguments, Type,
};

use super::attr::{self, Attrs};
use super::ctxt::Ctxt;
use super::kind::Kind;
use super::symbol::Sym;

pub(crate) struct Input<'a> {
    /// Which derive reads it.
    pub kind: Kind,
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub vis: &'a syn::Visibility,
    /// The type's own `#[dlpack]` options (`crate`, and the mapping of a struct).
    pub attrs: Attrs,
    pub body: Body<'a>,
}

pub(crate) enum Body<'a> {
    Enum(Vec<Variant<'a>>),
    /// A struct: one variant, whose options are the type's.
    Struct(Box<Variant<'a>>),
    Union(Span),
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Unit,
    Tuple,
    Named,
}

pub(crate) struct Variant<'a> {
    /// `None` for a struct.
    pub ident: Option<&'a Ident>,
    /// The variant's own options; empty for a struct (its options are the type's).
    pub attrs: Attrs,
    pub fields: Vec<Field<'a>>,
    pub style: Style,
    /// `#[cfg(...)]` attributes, repeated on every generated arm. (rustc strips disabled
    /// variants before a derive runs; repeating the attribute keeps the output correct either way.)
    pub cfgs: Vec<&'a Attribute>,
    /// The variant name, or the type name for a struct: where errors about the item point.
    pub span: Span,
}

pub(crate) struct Field<'a> {
    pub member: Member,
    pub ty: &'a Type,
    pub attrs: Attrs,
    pub span: Span,
}

impl<'a> Input<'a> {
    pub(crate) fn from_syn(cx: &Ctxt, kind: Kind, input: &'a DeriveInput) -> Self {
        let attrs = attr::parse(cx, kind, &input.attrs);
        let body = match &input.data {
            Data::Enum(data) => Body::Enum(
                data.variants
                    .iter()
                    .map(|v| Variant {
                        ident: Some(&v.ident),
                        attrs: attr::parse(cx, kind, &v.attrs),
                        fields: fields(cx, kind, &v.fields),
                        style: style(&v.fields),
                        cfgs: cfgs(&v.attrs),
                        span: v.ident.span(),
                    })
                    .collect(),
            ),
            Data::Struct(data) => Body::Struct(Box::new(Variant {
                ident: None,
                attrs: Attrs::default(),
                fields: fields(cx, kind, &data.fields),
                style: style(&data.fields),
                cfgs: Vec::new(),
                span: input.ident.span(),
            })),
            Data::Union(data) => Body::Union(data.union_token.span),
        };
        Input {
            kind,
            ident: &input.ident,
            generics: &input.generics,
            vis: &input.vis,
            attrs,
            body,
        }
    }
}

impl Input<'_> {
    /// The path of dlpack-core in generated code: `#[dlpack(crate = "…")]` or `::dlpack_core`.
    pub(crate) fn krate(&self) -> Path {
        match self.attrs.path(Sym::Crate) {
            Some(path) => path.clone(),
            None => syn::parse_quote!(::dlpack_core),
        }
    }
}

impl Field<'_> {
    /// The span of the field's type, where errors about the type point.
    pub(crate) fn ty_span(&self) -> Span {
        self.ty.span()
    }

    /// `T` for a field of type `Box<T>`, `Arc<T>` or `Rc<T>`, recognised by the last segment
    /// of the path as written (`std::sync::Arc<T>` included): a delegate goes through the
    /// pointer to `T`, and import wraps the `T` it builds with `From`.
    pub(crate) fn pointee(&self) -> Option<&Type> {
        let segment = last_segment(self.ty)?;
        if !matches!(segment.ident.to_string().as_str(), "Box" | "Arc" | "Rc") {
            return None;
        }
        let PathArguments::AngleBracketed(args) = &segment.arguments else {
            return None;
        };
        match args.args.iter().collect::<Vec<_>>().as_slice() {
            [GenericArgument::Type(inner)] => Some(inner),
            _ => None,
        }
    }

    /// Whether the field is a `PhantomData<…>`, which holds nothing: import writes
    /// `PhantomData`, and the field needs no import policy.
    pub(crate) fn is_phantom(&self) -> bool {
        last_segment(self.ty).is_some_and(|s| s.ident == "PhantomData")
    }

    /// How messages name the field: "field `stream`", "field 0".
    pub(crate) fn describe(&self) -> String {
        match &self.member {
            Member::Named(ident) => format!("field `{ident}`"),
            Member::Unnamed(index) => format!("field {}", index.index),
        }
    }
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

impl Variant<'_> {
    /// How errors name the item: `variant `Cuda`` or `struct `CudaDevice``.
    pub(crate) fn describe(&self, type_ident: &Ident) -> String {
        match self.ident {
            Some(ident) => format!("variant `{ident}`"),
            None => format!("`{type_ident}`"),
        }
    }
}

fn fields<'a>(cx: &Ctxt, kind: Kind, fields: &'a Fields) -> Vec<Field<'a>> {
    fields
        .iter()
        .enumerate()
        .map(|(i, field)| Field {
            member: match &field.ident {
                Some(ident) => Member::Named(ident.clone()),
                None => Member::Unnamed(Index {
                    index: i as u32,
                    span: field.ty.span(),
                }),
            },
            ty: &field.ty,
            attrs: attr::parse(cx, kind, &field.attrs),
            span: field
                .ident
                .as_ref()
                .map_or_else(|| field.ty.span(), Ident::span),
        })
        .collect()
}

fn style(fields: &Fields) -> Style {
    match fields {
        Fields::Unit => Style::Unit,
        Fields::Unnamed(_) => Style::Tuple,
        Fields::Named(_) => Style::Named,
    }
}

fn cfgs(attrs: &[Attribute]) -> Vec<&Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("cfg")).collect()
}
