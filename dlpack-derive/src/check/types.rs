//! What the derive reads from a type as written, before the compiler knows what it is: the
//! primitive integers by name, and whether it mentions a type parameter of the input.

use syn::Type;

use crate::parse::ast::Input;

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
