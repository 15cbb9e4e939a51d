//! A data type enum's dispatch: `dispatch::Runs` for every kernel that takes the element type
//! of each variant, and `dispatch::Dispatch` for the enum.
//!
//! Each variant with a data type is one bound, `ElementType: Slot<K, P, R, Variant, Enum>`,
//! where `Variant` is a type generated here named as the variant: `Slot`'s
//! `#[diagnostic::on_unimplemented]` message (in dlpack-core, since `#[diagnostic::…]` cannot be
//! named in a crate under `#![no_implicit_prelude]`) prints it, and its impl is
//! `#[diagnostic::do_not_recommend]`, so rustc reports that bound, whose self type (the
//! element type) differs from the root obligation's (the enum), rather than the kernel's own
//! unmet bound (`i32: Float`): "`Mean` cannot run on `DType::I32`, whose elements are `i32`".
//! The hot path is one `match` on the value, each arm one inlined call.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{GenericParam, Generics, WherePredicate};

use super::tokens::{binding, cfgs, outer_path, pattern};
use super::value;
use crate::check::{Const, Export, Item};
use crate::parse::ast::Input;
use crate::parse::kind::Paths;

/// What a variant dispatches to.
enum Target<'a> {
    /// A type that is an `Element` or `NoRustType`.
    Slot { ty: TokenStream },
    /// The field's own dispatch.
    Delegate {
        field: &'a crate::parse::ast::Field<'a>,
        inner: &'a syn::Type,
    },
    /// No data type at all (`skip`).
    Skip,
}

/// The impls, for an enum of the data type derive; nothing for a struct.
pub(super) fn expand(
    input: &Input,
    paths: &Paths,
    items: &[Item],
    bounds: &[WherePredicate],
) -> TokenStream {
    let krate = &paths.krate;
    let ident = input.ident;
    let targets: Vec<(&Item, Target)> = items.iter().map(|i| (i, target(paths, i))).collect();

    // The generics of the impls: the enum's, its bounds, and the kernel, input and output.
    let mut generics: Generics = input.generics.clone();
    generics
        .make_where_clause()
        .predicates
        .extend(bounds.iter().cloned());
    let (enum_impl, enum_ty, enum_where) = generics.split_for_impl();
    let mut with_kpr = generics.clone();
    for name in ["__K", "__P", "__R"] {
        let param = format_ident!("{}", name);
        with_kpr
            .params
            .push(GenericParam::Type(syn::parse_quote!(#param)));
    }
    let (kpr_impl, _, _) = with_kpr.split_for_impl();
    let base_where = enum_where.map(|w| &w.predicates);

    let mut markers = Vec::new();
    let mut bounds_of_runs = Vec::new();
    let mut arms = Vec::new();
    let mut elements = Vec::new();
    let this = quote!(#ident #enum_ty);
    for (item, target) in &targets {
        let name = variant_name(item);
        let cfgs = cfgs(item.v);
        let span = item.span;
        let value_pattern = pattern(&outer_path(ident, item.v), None);
        match target {
            Target::Skip => {
                elements.push(quote!(#cfgs ::core::option::Option::None,));
                arms.push(quote! {
                    #cfgs #value_pattern => ::core::result::Result::Err(
                        #krate::__private::Missed::NoDataType(#name)
                    ),
                });
            }
            Target::Slot { ty } => {
                let data_type = value::known(paths, &item.export)
                    .expect("a variant with an element type has a known data type");
                // An `element`'s data type, as the derive's other items write it (so that an
                // `element` that is not an `Element` is one error, not one more here); a
                // named data type's element type, which may be `NoRustType`.
                elements.push(match item.export {
                    Export::Element(_) => quote!(#cfgs ::core::option::Option::Some(#data_type),),
                    _ => {
                        quote!(#cfgs <#ty as #krate::__private::MaybeElement>::DATA_TYPE,)
                    }
                });
                let marker = format_ident!("{}", name);
                markers.push(quote!(#cfgs pub enum #marker {}));
                let slot = quote!(#krate::__private::Slot<__K, __P, __R, __dlpack_variants::#marker, #this>);
                bounds_of_runs.push(quote_spanned!(span=> #ty: #slot,));
                arms.push(quote! {
                    #cfgs #value_pattern => <#ty as #slot>::__go(
                        kernel,
                        input,
                        const { &#krate::__private::NoElement { variant: #name, data_type: #data_type } },
                    ),
                });
            }
            Target::Delegate { field, inner } => {
                elements.push(quote!(#cfgs ::core::option::Option::None,));
                let inner_binding = binding("inner");
                let arg = match field.pointee() {
                    Some(_) => quote!(&**#inner_binding),
                    None => quote!(#inner_binding),
                };
                let bound_pattern =
                    pattern(&outer_path(ident, item.v), Some((field, &inner_binding)));
                let runs = quote!(#krate::dispatch::Runs<__K, __P, __R>);
                bounds_of_runs.push(quote_spanned!(span=> #inner: #runs,));
                arms.push(quote! {
                    #cfgs #bound_pattern => <#inner as #runs>::__run(#arg, kernel, input),
                });
            }
        }
    }
    let body = if arms.is_empty() {
        quote!(match *self {})
    } else {
        quote!(match self { #(#arms)* })
    };
    quote! {
        /// Types named as the variants, which name a variant a kernel cannot take.
        #[allow(non_camel_case_types, dead_code, clippy::upper_case_acronyms)]
        mod __dlpack_variants {
            #(#markers)*
        }

        #krate::__private::impl_runs! {
            [#kpr_impl] #this [#(#bounds_of_runs)* #base_where] {
                #[inline]
                fn __run(&self, kernel: __K, input: __P) -> ::core::result::Result<__R, #krate::__private::Missed> {
                    #body
                }
            }
        }

        #[automatically_derived]
        impl #enum_impl #krate::dispatch::Dispatch for #this #enum_where {
            #[doc(hidden)]
            const __ELEMENTS: &'static [::core::option::Option<#krate::DataType>] = &[#(#elements)*];
        }
    }
}

fn variant_name(item: &Item) -> String {
    item.v.ident.map(ToString::to_string).unwrap_or_default()
}

fn target<'a>(paths: &Paths, item: &'a Item<'a>) -> Target<'a> {
    let krate = &paths.krate;
    match &item.export {
        Export::Skip => Target::Skip,
        Export::Delegate { field, inner } => Target::Delegate { field, inner },
        Export::Element(ty) => Target::Slot {
            ty: quote_spanned!(ty.span()=> #ty),
        },
        Export::Const(Const::DataType { code, bits, lanes }) => Target::Slot {
            ty: natural(krate, *code, *bits, *lanes),
        },
        // A device or a raw struct: not an enum of this derive.
        _ => Target::Skip,
    }
}

/// The Rust element type of a data type, as `Element` maps them (`dlpack-core`'s
/// `dispatch::natural` for the types behind a feature), or `NoRustType`.
fn natural(krate: &syn::Path, code: u8, bits: u8, lanes: u16) -> TokenStream {
    let span = Span::call_site();
    let prim = |name: &str| {
        let ident = syn::Ident::new(name, span);
        quote!(::core::primitive::#ident)
    };
    let natural = |name: &str| {
        let ident = syn::Ident::new(name, span);
        quote!(#krate::__private::natural::#ident)
    };
    if lanes != 1 {
        return quote!(#krate::__private::NoRustType);
    }
    match (code, bits) {
        (0, 8) => prim("i8"),
        (0, 16) => prim("i16"),
        (0, 32) => prim("i32"),
        (0, 64) => prim("i64"),
        (1, 8) => prim("u8"),
        (1, 16) => prim("u16"),
        (1, 32) => prim("u32"),
        (1, 64) => prim("u64"),
        (2, 16) => natural("F16"),
        (2, 32) => prim("f32"),
        (2, 64) => prim("f64"),
        (4, 16) => natural("BF16"),
        (5, 64) => natural("C64"),
        (5, 128) => natural("C128"),
        (6, 8) => prim("bool"),
        _ => quote!(#krate::__private::NoRustType),
    }
}
