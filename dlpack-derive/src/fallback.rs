//! What is emitted beside the errors when the input is invalid: the trait impl (and, for
//! enums, the inherent `const fn`s) with bodies that never run, because the build fails
//! anyway. Without it, every use of the type as a `DlpackDataType` would add a "trait not
//! implemented" error to the one that matters.
//!
//! `PRODUCES` is empty and `ACCEPTS` is everything, so an `assert_convertible!` that names the
//! type adds no error of its own either.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{Body, Input};
use crate::attr::Which;
use crate::check::krate;
use crate::expand::{Impl, wrap};

pub(crate) fn expand(input: &Input, which: Which) -> TokenStream {
    let krate = krate(input);
    let Impl {
        ident,
        impl_generics,
        ty_generics,
        where_clause,
    } = Impl::new(input, Vec::new());
    let (trait_, set, value, to, from, from_fn, to_fn) = match which {
        Which::DataType => (
            quote!(DlpackDataType),
            quote!(DataTypeSet),
            quote!(DataType),
            quote!(dlpack_data_type),
            quote!(from_dlpack_data_type),
            quote!(unit_from_dlpack_data_type),
            quote!(to_dlpack_data_type),
        ),
        Which::Device => (
            quote!(DlpackDevice),
            quote!(DeviceSet),
            quote!(Device),
            quote!(dlpack_device),
            quote!(from_dlpack_device),
            quote!(unit_from_dlpack_device),
            quote!(to_dlpack_device),
        ),
    };
    let inherent = matches!(input.body, Body::Enum(_)).then(|| {
        let vis = input.vis;
        quote! {
            #[allow(dead_code, missing_docs, clippy::all)]
            impl #impl_generics #ident #ty_generics #where_clause {
                #vis const fn #to_fn(&self) -> ::core::option::Option<#krate::#value> {
                    ::core::option::Option::None
                }
                #vis const fn #from_fn(_: #krate::#value) -> ::core::option::Option<Self> {
                    ::core::option::Option::None
                }
            }
        }
    });
    wrap(quote! {
        #[allow(unused_variables, clippy::all)]
        impl #impl_generics #krate::#trait_ for #ident #ty_generics #where_clause {
            const PRODUCES: #krate::set::#set = #krate::set::#set::EMPTY;
            const ACCEPTS: #krate::set::#set = #krate::set::#set::ALL;

            fn #to(&self) -> ::core::result::Result<#krate::#value, #krate::Error> {
                ::core::unreachable!("the derive failed; see the error above")
            }

            fn #from(value: #krate::#value) -> ::core::result::Result<Self, #krate::Error> {
                ::core::unreachable!("the derive failed; see the error above")
            }
        }
        #inherent
    })
}
