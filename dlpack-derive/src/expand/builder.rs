//! The impls both derives generate, around the bodies [`super::items`] writes: the trait impl
//! with its two sets, `TryFrom<Value>`, `From<T> for Value` when every value has one, the
//! inherent `const fn`s of an enum, the `const` assertions, and the tags `from_dlpack`
//! dispatches on. The fallback (an input with
//! errors) is the same impls with bodies that never run.

use proc_macro2::TokenStream;
use quote::quote;
use syn::WherePredicate;

use crate::parse::ast::{Body, Input};
use crate::parse::kind::{Kind, Paths};

/// The bodies of the generated functions.
pub(crate) struct Parts {
    /// Where predicates for the types that mention type parameters.
    pub bounds: Vec<WherePredicate>,
    pub produces: TokenStream,
    pub accepts: TokenStream,
    /// `dlpack_device(&self)`.
    pub export: TokenStream,
    /// `from_dlpack_device(device)`.
    pub import: TokenStream,
    /// `From<T> for Device`, when every value has a device that cannot fail.
    pub from: Option<TokenStream>,
    /// `const fn to_dlpack_device(&self)` and `const fn unit_from_dlpack_device(device)`,
    /// for enums.
    pub inherent: Option<(TokenStream, TokenStream)>,
    /// The elements of the trait's hidden `__UNIT_VALUES`, for enums: what each unit variant
    /// imports as.
    pub units: Option<TokenStream>,
    /// `const` assertions.
    pub checks: TokenStream,
    /// Whether these are the fallback's bodies, which allow the lints they trip.
    pub fallback: bool,
}

impl Parts {
    /// What the fallback emits: bodies that never run (the build fails anyway), `PRODUCES`
    /// empty and `ACCEPTS` everything, so that neither a use of the type nor an
    /// `assert_convertible!` naming it adds an error to the one that matters.
    pub(crate) fn fallback(input: &Input, paths: &Paths) -> Self {
        let set = &paths.set;
        let unreachable = quote!(::core::unreachable!(
            "the derive failed; see the error above"
        ));
        let none = quote!(::core::option::Option::None);
        Parts {
            bounds: Vec::new(),
            produces: quote!(#set::EMPTY),
            accepts: quote!(#set::ALL),
            export: unreachable.clone(),
            import: unreachable,
            from: None,
            inherent: matches!(input.body, Body::Enum(_)).then(|| (none.clone(), none)),
            units: None,
            checks: TokenStream::new(),
            fallback: true,
        }
    }
}

pub(crate) fn build(input: &Input, paths: &Paths, parts: Parts) -> TokenStream {
    let Paths {
        trait_,
        value,
        set,
        error,
        param,
        export,
        import,
        to_const,
        from_unit,
        ..
    } = paths;
    let mut generics = input.generics.clone();
    if !parts.bounds.is_empty() {
        generics.make_where_clause().predicates.extend(parts.bounds);
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let ident = input.ident;
    let Parts {
        produces,
        accepts,
        export: export_body,
        import: import_body,
        checks,
        ..
    } = parts;
    let (allow, allow_inherent) = if parts.fallback {
        (
            quote!(#[allow(unused_variables, clippy::all)]),
            quote!(#[allow(dead_code, unused_variables, clippy::all)]),
        )
    } else {
        (
            quote!(#[allow(unreachable_patterns, unreachable_code)]),
            quote!(#[allow(dead_code, unreachable_patterns)]),
        )
    };

    let from = parts.from.map(|body| {
        quote! {
            #[automatically_derived]
            impl #impl_generics ::core::convert::From<#ident #ty_generics> for #value #where_clause {
                #[inline]
                fn from(value: #ident #ty_generics) -> Self {
                    #body
                }
            }
        }
    });

    let units = parts.units.map(|units| {
        quote! {
            #[doc(hidden)]
            const __UNIT_VALUES: &'static [#value] = &[#units];
        }
    });
    let tags = tags(input, paths);
    let inherent = parts.inherent.map(|(to_body, from_body)| {
        let vis = input.vis;
        let (to_doc, from_doc) = docs(paths.kind, &param.to_string());
        quote! {
            #[automatically_derived]
            #allow_inherent
            impl #impl_generics #ident #ty_generics #where_clause {
                #[doc = #to_doc]
                #[must_use]
                #[inline]
                #vis const fn #to_const(&self) -> ::core::option::Option<#value> {
                    #to_body
                }

                #[doc = #from_doc]
                #[must_use]
                #[inline]
                #vis const fn #from_unit(#param: #value) -> ::core::option::Option<Self> {
                    #from_body
                }
            }
        }
    });

    quote! {
        #[allow(deprecated, non_local_definitions)]
        const _: () = {
            #[automatically_derived]
            #allow
            impl #impl_generics #trait_ for #ident #ty_generics #where_clause {
                const PRODUCES: #set = #produces;
                const ACCEPTS: #set = #accepts;
                #units

                #[inline]
                fn #export(&self) -> ::core::result::Result<#value, #error> {
                    #export_body
                }

                #[inline]
                fn #import(#param: #value) -> ::core::result::Result<Self, #error> {
                    #import_body
                }
            }

            #[automatically_derived]
            impl #impl_generics ::core::convert::TryFrom<#value> for #ident #ty_generics #where_clause {
                type Error = #error;

                #[inline]
                fn try_from(#param: #value) -> ::core::result::Result<Self, #error> {
                    <Self as #trait_>::#import(#param)
                }
            }

            #from
            #inherent
            #checks
            #tags
        };
    }
}

/// The tags that tell `from_dlpack` which protocol the type speaks, as a source and as a
/// target (see `dlpack-core`'s `convert/kind.rs`: a blanket impl cannot tell a data type from
/// a device, so each derived type states its own). The fallback emits them too, so that a
/// failed derive adds no `from_dlpack` errors.
fn tags(input: &Input, paths: &Paths) -> TokenStream {
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    tag_impls(
        paths,
        &quote!(#impl_generics),
        &quote!(#ident #ty_generics),
        &quote!(#where_clause),
    )
}

/// The two tag impls for `ty`: the input's, or (`__impl_remote`) the foreign type's.
pub(super) fn tag_impls(
    paths: &Paths,
    impl_generics: &TokenStream,
    ty: &TokenStream,
    where_clause: &TokenStream,
) -> TokenStream {
    let krate = &paths.krate;
    let tag = match paths.kind {
        Kind::DataType => quote!(DataTypeKind),
        Kind::Device => quote!(DeviceKind),
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::__private::SourceKind for #ty #where_clause {
            type Kind = #krate::__private::#tag;
        }

        #[automatically_derived]
        impl #impl_generics #krate::__private::TargetKind for #ty #where_clause {
            type Kind = #krate::__private::#tag;
        }
    }
}

/// The documentation of the inherent `const fn`s.
fn docs(kind: Kind, param: &str) -> (String, String) {
    let (noun, derive) = (kind.noun(), kind.trait_name());
    let to = match kind {
        Kind::DataType => format!(
            "The DLPack {noun} of this value as a `const fn`, for `const` items: `Some` for every \
             variant mapped to a {noun} (unit or not, `export_only` included), `None` for `skip` \
             variants and delegating variants. Generated by `#[derive({derive})]`; \
             `{derive}::dlpack_data_type` is the fallible, complete form."
        ),
        Kind::Device => format!(
            "The DLPack {noun} of this value as a `const fn`, for `const` items: `Some` for every \
             variant whose {noun} is a constant (a device type without ids, or `id = N`), `None` \
             for variants whose id is read from a field or a function, delegating variants and \
             `skip` variants. Generated by `#[derive({derive})]`; `{derive}::dlpack_device` is \
             the fallible, complete form."
        ),
    };
    let from = format!(
        "The unit variant that imports `{param}`, as a `const fn`: `None` when no unit variant \
         imports it (it may still be imported by a variant with fields or a delegating variant, \
         which `{derive}::{}` handles). Generated by `#[derive({derive})]`.",
        match kind {
            Kind::DataType => "from_dlpack_data_type",
            Kind::Device => "from_dlpack_device",
        },
    );
    (to, from)
}
