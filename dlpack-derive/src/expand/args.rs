//! `#[tensor_args]`: the errors of a `#[pyfunction]`'s `TensorArg` arguments name the function
//! and the argument. PyO3 tells an argument's extractor neither, so each such argument gets
//! `#[pyo3(from_py_with = …)]` with an extractor written here, beside the function, that passes
//! both names: `sum(): argument 'x' must be a float32 tensor …`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{FnArg, ItemFn, Pat, Type};

/// The function with its `TensorArg` arguments extracted by name, and their extractors.
pub(crate) fn tensor_args(args: TokenStream, input: TokenStream) -> TokenStream {
    let krate: syn::Path = if args.is_empty() {
        syn::parse_quote!(::dlpack_core)
    } else {
        match syn::parse2::<syn::LitStr>(args).and_then(|lit| lit.parse()) {
            Ok(path) => path,
            Err(err) => return err.to_compile_error(),
        }
    };
    let mut function: ItemFn = match syn::parse2(input) {
        Ok(function) => function,
        Err(err) => {
            let message = "`#[tensor_args]` goes on a `#[pyfunction]` (above it), not on this item";
            let mut error = syn::Error::new(err.span(), message).to_compile_error();
            error.extend(err.to_compile_error());
            return error;
        }
    };
    let python_name = python_name(&function).unwrap_or_else(|| function.sig.ident.to_string());
    let rust_name = function.sig.ident.clone();
    let mut extractors = Vec::new();
    for arg in &mut function.sig.inputs {
        let FnArg::Typed(typed) = arg else { continue };
        let (Pat::Ident(pat), true) = (&*typed.pat, is_tensor_arg(&typed.ty)) else {
            continue;
        };
        let argument = pat.ident.to_string();
        let argument = argument.strip_prefix("r#").unwrap_or(&argument).to_owned();
        let extractor = format_ident!("__dlpack_tensor_arg_{}_{}", rust_name, argument);
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
                T: #krate::python::__NamedArg<'a>,
            {
                T::__extract_named(obj, #python_name, #argument)
            }
        });
    }
    quote!(#(#extractors)* #function)
}

/// `#[pyo3(name = "…")]` on the function, which is its Python name.
fn python_name(function: &ItemFn) -> Option<String> {
    let mut name = None;
    for attr in function.attrs.iter().filter(|a| a.path().is_ident("pyo3")) {
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

/// Whether the type is `TensorArg<…>` (by the last segment of its path).
fn is_tensor_arg(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "TensorArg"),
        Type::Group(group) => is_tensor_arg(&group.elem),
        _ => false,
    }
}
