//! `#[tensor_args]`: the errors of a `#[pyfunction]`'s (or a `#[pymethods]` block's methods')
//! arguments name the function and the argument. PyO3 tells an argument's extractor neither,
//! so each argument the attribute knows — `TensorArg`, `DataTypeLike`, `DeviceLike`, `bool`,
//! and an `Option` of any of them — gets `#[pyo3(from_py_with = …)]` with an extractor written
//! here, beside the function (or the impl block), that passes both names:
//! `sum(): argument 'x' must be a float32 tensor …`.
//!
//! The attribute goes above `#[pyfunction]` or `#[pymethods]`: PyO3 reads the arguments'
//! `#[pyo3(…)]` attributes when its own attribute expands, so one added after that (on a
//! function below `#[pyfunction]`, or on a method inside a `#[pymethods]` block, which expands
//! first) is "cannot find attribute `pyo3`". Written anywhere else, it says where it goes.

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
    let extractors = name_arguments(krate, &mut function.sig, &python_name, &prefix);
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
            &mut method.sig,
            &python_name,
            &prefix,
        ));
    }
    quote!(#(#extractors)* #block)
}

/// Adds `#[pyo3(from_py_with = …)]` to each argument the attribute knows, and returns the
/// extractors, named from `prefix` and the argument.
fn name_arguments(
    krate: &syn::Path,
    sig: &mut Signature,
    python_name: &str,
    prefix: &str,
) -> Vec<TokenStream> {
    let mut extractors = Vec::new();
    for arg in &mut sig.inputs {
        let FnArg::Typed(typed) = arg else { continue };
        let (Pat::Ident(pat), true) = (&*typed.pat, is_named(&typed.ty)) else {
            continue;
        };
        if has_from_py_with(&typed.attrs) {
            continue;
        }
        let argument = pat.ident.to_string();
        let argument = argument.strip_prefix("r#").unwrap_or(&argument).to_owned();
        let extractor = format_ident!("__dlpack_tensor_arg_{}_{}", prefix, argument);
        typed
            .attrs
            .push(syn::parse_quote!(#[pyo3(from_py_with = #extractor)]));
        extractors.push(quote! {
            #[doc(hidden)]
            #[allow(non_snake_case)]
            #[inline(always)]
            fn #extractor<'a, 'py, T>(
                obj: &'a #krate::python::pyo3::Bound<'py, #krate::python::pyo3::PyAny>,
            ) -> #krate::python::pyo3::PyResult<T>
            where
                T: #krate::__private::NamedArg<'a>,
            {
                const NAMES: &(&::core::primitive::str, &::core::primitive::str) =
                    &(#python_name, #argument);
                T::__extract_named(obj, NAMES)
            }
        });
    }
    extractors
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
