//! `#[tensor_args]`: the errors of a `#[pyfunction]`'s (or a `#[pymethods]` block's methods')
//! arguments name the function and the argument. PyO3 tells an argument's extractor neither,
//! so each argument the attribute knows — `TensorArg`, `DataTypeLike`, `DeviceLike`, `bool`,
//! and an `Option` of any of them — is given a type that carries both: `x: T` becomes
//! `x: Named<T, N>` (`Option<Named<T, N>>` for an `Option<T>`), `N` a unit type written here,
//! beside the function (or the impl block), whose `ArgNames` are the two names, and the body
//! starts with `let x = x.__into_inner();`. A refusal reads `sum(): argument 'x' must be a
//! float32 tensor …`, and PyO3 writes `T`'s annotation into the stubs (`x: TensorLike`), which
//! it would not for an extractor function (`#[pyo3(from_py_with = …)]`). An argument whose
//! signature default is not `None` (`flag = false`) keeps such an extractor, see
//! [`name_arguments`].
//!
//! The attribute goes above `#[pyfunction]` or `#[pymethods]`: PyO3 reads the arguments when
//! its own attribute expands, so a change made after that (on a function below
//! `#[pyfunction]`, or on a method inside a `#[pymethods]` block, which expands first) comes
//! too late. Written anywhere else, it says where it goes.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::punctuated::Punctuated;
use syn::{Attribute, FnArg, ImplItem, Item, ItemFn, ItemImpl, Pat, Signature, Token, Type};

/// The function (or the impl block's methods) with its known arguments extracted by name, and
/// their extractors.
pub(crate) fn tensor_args(args: TokenStream, input: TokenStream) -> TokenStream {
    let krate: syn::Path = if args.is_empty() {
        syn::parse_quote!(::dlpack_core)
    } else {
        match syn::parse2::<syn::LitStr>(args).and_then(|lit| lit.parse()) {
            Ok(path) => path,
            Err(err) => return err.to_compile_error(),
        }
    };
    match syn::parse2::<Item>(input) {
        Ok(Item::Fn(function)) => on_function(&krate, function),
        Ok(Item::Impl(block)) => on_impl(&krate, block),
        Ok(other) => misplaced(syn::spanned::Spanned::span(&other), quote!(#other)),
        Err(err) => {
            let mut error = syn::Error::new(err.span(), PLACES).to_compile_error();
            error.extend(err.to_compile_error());
            error
        }
    }
}

/// Where the attribute goes.
const PLACES: &str = "`#[tensor_args]` goes above `#[pyfunction]` on a function, or above \
                      `#[pymethods]` on an impl block (for its methods)";

fn misplaced(span: Span, item: TokenStream) -> TokenStream {
    let error = syn::Error::new(span, PLACES).to_compile_error();
    quote!(#error #item)
}

/// Whether `attrs` holds `#[name]` or `#[path::name(…)]`.
fn has_attribute(attrs: &[Attribute], name: &str) -> bool {
    attrs
        .iter()
        .any(|attr| attr.path().segments.last().is_some_and(|s| s.ident == name))
}

fn on_function(krate: &syn::Path, mut function: ItemFn) -> TokenStream {
    if !has_attribute(&function.attrs, "pyfunction") {
        let receiver = function.sig.receiver().is_some();
        let message = if receiver {
            "`#[tensor_args]` on a method cannot name its arguments: `#[pymethods]` has read \
             them before this attribute expands; write `#[tensor_args]` on the impl block, \
             above `#[pymethods]`"
        } else {
            "`#[tensor_args]` goes above `#[pyfunction]`, which reads the arguments it names \
             (below it, or on a function that is no `#[pyfunction]`, it comes too late); for \
             the methods of a `#[pymethods]` block, write it on the impl block, above \
             `#[pymethods]`"
        };
        let error = syn::Error::new(function.sig.ident.span(), message).to_compile_error();
        return quote!(#error #function);
    }
    let python_name =
        python_name(&function.attrs).unwrap_or_else(|| function.sig.ident.to_string());
    let prefix = function.sig.ident.to_string();
    let extractors = name_arguments(
        krate,
        &function.vis,
        &function.attrs,
        &mut function.sig,
        &mut function.block,
        &python_name,
        &prefix,
    );
    quote!(#(#extractors)* #function)
}

fn on_impl(krate: &syn::Path, mut block: ItemImpl) -> TokenStream {
    if !has_attribute(&block.attrs, "pymethods") {
        return misplaced(block.impl_token.span, quote!(#block));
    }
    let class = match &*block.self_ty {
        Type::Path(path) => path.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
    .unwrap_or_default();
    let mut extractors = Vec::new();
    for item in &mut block.items {
        let ImplItem::Fn(method) = item else { continue };
        let method_name = if has_attribute(&method.attrs, "new") {
            "__new__".to_owned()
        } else {
            python_name(&method.attrs).unwrap_or_else(|| method.sig.ident.to_string())
        };
        let python_name = format!("{class}.{method_name}");
        let prefix = format!("{class}_{}", method.sig.ident);
        extractors.extend(name_arguments(
            krate,
            &method.vis,
            &method.attrs,
            &mut method.sig,
            &mut method.block,
            &python_name,
            &prefix,
        ));
    }
    quote!(#(#extractors)* #block)
}

/// Gives each argument the attribute knows its names: the type `Named<T, N>`, `N` a unit type
/// declared here whose `ArgNames` are the function's and the argument's (unwrapped at the top
/// of `block`), or, for an argument whose signature default is not `None`, an extractor
/// (`#[pyo3(from_py_with = …)]`). Returns the items to write beside the function.
///
/// The type keeps what PyO3 knows of the argument: its stub annotation is `T`'s
/// (`dlpack_typing.TensorLike`, …), where PyO3 writes none for a `from_py_with` parameter. A
/// default other than `None` is a Rust value of `T`, not of `Named<T, N>`; converting it in
/// the signature would show `...` for it in `__text_signature__` and the stub, so such an
/// argument keeps the extractor and its default, untyped in the stub.
fn name_arguments(
    krate: &syn::Path,
    vis: &syn::Visibility,
    attrs: &[Attribute],
    sig: &mut Signature,
    block: &mut syn::Block,
    python_name: &str,
    prefix: &str,
) -> Vec<TokenStream> {
    let defaults = signature_defaults(attrs);
    let mut items = Vec::new();
    let mut unwraps: Vec<syn::Stmt> = Vec::new();
    for arg in &mut sig.inputs {
        let FnArg::Typed(typed) = arg else { continue };
        let Pat::Ident(pat) = &mut *typed.pat else {
            continue;
        };
        if pat.by_ref.is_some() || pat.subpat.is_some() || !is_named(&typed.ty) {
            continue;
        }
        if has_from_py_with(&typed.attrs) {
            continue;
        }
        let argument = pat.ident.to_string();
        let argument = argument.strip_prefix("r#").unwrap_or(&argument).to_owned();
        let marker = format_ident!("__dlpack_tensor_arg_{}_{}", prefix, argument);
        let default = defaults
            .iter()
            .find(|(name, _)| *name == argument)
            .map(|&(_, is_none)| is_none);
        if default == Some(false) {
            typed
                .attrs
                .push(syn::parse_quote!(#[pyo3(from_py_with = #marker)]));
            items.push(quote! {
                #[doc(hidden)]
                #[allow(non_snake_case)]
                #[inline(always)]
                fn #marker<'a, 'py, T>(
                    obj: &'a #krate::python::pyo3::Bound<'py, #krate::python::pyo3::PyAny>,
                ) -> #krate::python::pyo3::PyResult<T>
                where
                    T: #krate::__private::NamedArg<'a>,
                {
                    const NAMES: &(&::core::primitive::str, &::core::primitive::str) =
                        &(#python_name, #argument);
                    T::__extract_named(#krate::python::pyo3::Bound::as_borrowed(obj), NAMES)
                }
            });
            continue;
        }
        // The unwrapping is spanned on the declared type: an error of that type (a
        // `TensorArg` of a type that is no element) points there, not at the attribute.
        let span = syn::spanned::Spanned::span(&typed.ty);
        let or_none = wrap_named(krate, &mut typed.ty, &marker);
        items.push(quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            #vis struct #marker;
            impl #krate::__private::ArgNames for #marker {
                const NAMES: &'static (&'static ::core::primitive::str, &'static ::core::primitive::str) =
                    &(#python_name, #argument);
                const OR_NONE: ::core::primitive::bool = #or_none;
            }
        });
        // The body sees the argument as it was declared: `mut` moves to the binding.
        let mutability = pat.mutability.take();
        let ident = &pat.ident;
        let krate = respan(quote!(#krate), span);
        unwraps.push(if or_none {
            syn::parse_quote_spanned! {span=>
                let #mutability #ident = ::core::option::Option::map(
                    #ident,
                    #krate::__private::Named::__into_inner,
                );
            }
        } else {
            syn::parse_quote_spanned! {span=>
                let #mutability #ident = #krate::__private::Named::__into_inner(#ident);
            }
        });
    }
    block.stmts.splice(0..0, unwraps);
    items
}

/// `ty` (`T` or `Option<T>`) made `Named<T, marker>` (or `Option<Named<T, marker>>`, whose
/// `Option` PyO3 still sees, for its `None` default), spanned on `T`; whether it is an
/// `Option`.
fn wrap_named(krate: &syn::Path, ty: &mut Type, marker: &syn::Ident) -> bool {
    fn named(krate: &syn::Path, inner: &Type, marker: &syn::Ident) -> Type {
        let span = syn::spanned::Spanned::span(inner);
        let krate = respan(quote!(#krate), span);
        syn::parse_quote_spanned!(span=> #krate::__private::Named<#inner, #marker>)
    }
    match ty {
        Type::Group(group) => wrap_named(krate, &mut group.elem, marker),
        Type::Path(path)
            if path
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "Option") =>
        {
            let segment = path.path.segments.last_mut();
            if let Some(syn::PathArguments::AngleBracketed(args)) =
                segment.map(|segment| &mut segment.arguments)
            {
                if let Some(syn::GenericArgument::Type(inner)) = args.args.first_mut() {
                    *inner = named(krate, inner, marker);
                }
            }
            true
        }
        _ => {
            *ty = named(krate, ty, marker);
            false
        }
    }
}

/// `tokens`, every one of them spanned on `span`: a path written by the attribute, in a type
/// or statement that rustc's errors point at by its first and last tokens, which then point at
/// the user's tokens rather than at the attribute.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    use proc_macro2::{Group, TokenTree};
    tokens
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(group) = &token {
                let mut respanned = Group::new(group.delimiter(), respan(group.stream(), span));
                respanned.set_span(span);
                token = TokenTree::Group(respanned);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}

/// The arguments that the signature (`#[pyo3(signature = (…))]`, `#[pyfunction(signature =
/// (…))]`) gives a default, each with whether that default is `None`.
fn signature_defaults(attrs: &[Attribute]) -> Vec<(String, bool)> {
    use proc_macro2::{Delimiter, TokenTree};
    let mut defaults = Vec::new();
    for attr in attrs {
        let syn::Meta::List(list) = &attr.meta else {
            continue;
        };
        if !list
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "pyo3" || s.ident == "pyfunction")
        {
            continue;
        }
        let tokens: Vec<TokenTree> = list.tokens.clone().into_iter().collect();
        for window in tokens.windows(3) {
            let [
                TokenTree::Ident(kw),
                TokenTree::Punct(eq),
                TokenTree::Group(group),
            ] = window
            else {
                continue;
            };
            if kw != "signature"
                || eq.as_char() != '='
                || group.delimiter() != Delimiter::Parenthesis
            {
                continue;
            }
            // Items split at the commas between them (a comma inside a default's generic
            // arguments splits it too, but leaves its start, which is all that is read).
            let mut items = vec![Vec::new()];
            for token in group.stream() {
                match &token {
                    TokenTree::Punct(p) if p.as_char() == ',' => items.push(Vec::new()),
                    _ => items.last_mut().expect("one item").push(token),
                }
            }
            for item in items {
                let Some(TokenTree::Ident(name)) = item.first() else {
                    continue;
                };
                // `name = default` or `name: "annotation" = default`.
                let eq_at = match item.get(1) {
                    Some(TokenTree::Punct(p)) if p.as_char() == ':' => 3,
                    _ => 1,
                };
                if !matches!(item.get(eq_at), Some(TokenTree::Punct(p)) if p.as_char() == '=') {
                    continue;
                }
                let default = &item[eq_at + 1..];
                let is_none = matches!(default, [TokenTree::Ident(none)] if none == "None");
                let name = name.to_string();
                let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
                defaults.push((name, is_none));
            }
        }
    }
    defaults
}

/// Whether the argument already says how it is extracted.
fn has_from_py_with(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("pyo3"))
        .any(|attr| {
            attr.parse_args_with(Punctuated::<syn::Meta, Token![,]>::parse_terminated)
                .is_ok_and(|metas| metas.iter().any(|m| m.path().is_ident("from_py_with")))
        })
}

/// `#[pyo3(name = "…")]`, which is the Python name.
fn python_name(attrs: &[Attribute]) -> Option<String> {
    let mut name = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("pyo3")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("name") {
                let value: syn::LitStr = meta.value()?.parse()?;
                name = Some(value.value());
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                let _ = meta.parse_nested_meta(|_| Ok(()));
            }
            Ok(())
        });
    }
    name
}

/// Whether the type is one the attribute names (by the last segment of its path):
/// `TensorArg<…>`, `DataTypeLike<…>`, `DeviceLike<…>`, `bool`, or an `Option` of one.
fn is_named(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path.path.segments.last().is_some_and(|segment| {
            match segment.ident.to_string().as_str() {
                "TensorArg" | "DataTypeLike" | "DeviceLike" | "bool" => true,
                "Option" => match &segment.arguments {
                    syn::PathArguments::AngleBracketed(args) => {
                        matches!(args.args.first(), Some(syn::GenericArgument::Type(inner)) if args.args.len() == 1 && is_named(inner) && !is_option(inner))
                    }
                    _ => false,
                },
                _ => false,
            }
        }),
        Type::Group(group) => is_named(&group.elem),
        _ => false,
    }
}

fn is_option(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "Option"),
        Type::Group(group) => is_option(&group.elem),
        _ => false,
    }
}
