//! `#[pymethods(data_type)]` / `(device)` / `(tensor)`: the attribute's arguments, and the
//! Python name of every method the author wrote in the block, as PyO3 names them.

use proc_macro2::Span;
use syn::{Attribute, ImplItem, ImplItemFn, ItemImpl, LitStr, Path};

use super::path::crate_path;

/// Which of DLPack's three Python protocols (data types, devices, tensors) the class that
/// `#[pymethods(…)]` completes speaks: the attribute's `data_type`, `device` or `tensor`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClassProtocol {
    DataType,
    Device,
    Tensor,
}

impl ClassProtocol {
    /// The argument that names it, as the author writes it.
    pub(crate) fn argument(self) -> &'static str {
        match self {
            Self::DataType => "data_type",
            Self::Device => "device",
            Self::Tensor => "tensor",
        }
    }

    /// `data type`, `device` or `tensor`, for messages.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Self::DataType => "data type",
            Self::Device => "device",
            Self::Tensor => "tensor",
        }
    }
}

/// The attribute's arguments: the class's protocol, and where dlpack-core is.
pub(crate) struct Args {
    /// The protocol written, or for a mistake in it, the one meant where that is clear (a
    /// misspelling of one, `dtype` for `data_type`): the block is then expanded as that kind,
    /// so the one mistake is not followed by errors wherever the class is used.
    pub(crate) protocol: Option<ClassProtocol>,
    pub(crate) krate: Path,
}

/// Other words for each kind, which a mistake is read as.
const MEANT: &[(&str, ClassProtocol)] = &[
    ("data_type", ClassProtocol::DataType),
    ("dtype", ClassProtocol::DataType),
    ("datatype", ClassProtocol::DataType),
    ("data_types", ClassProtocol::DataType),
    ("dtypes", ClassProtocol::DataType),
    ("device", ClassProtocol::Device),
    ("devices", ClassProtocol::Device),
    ("place", ClassProtocol::Device),
    ("tensor", ClassProtocol::Tensor),
    ("tensors", ClassProtocol::Tensor),
    ("array", ClassProtocol::Tensor),
];

/// Parses `data_type`, `device` or `tensor`, and an optional `crate = "path"`: the arguments,
/// and the error of a mistake in them (reported beside an expansion of the kind meant).
pub(crate) fn parse_args(args: proc_macro2::TokenStream) -> (Args, Option<syn::Error>) {
    let mut protocol = None;
    let mut meant = None;
    let mut krate = None;
    let parser = syn::meta::parser(|meta| {
        let found = if meta.path.is_ident("data_type") {
            Some(ClassProtocol::DataType)
        } else if meta.path.is_ident("device") {
            Some(ClassProtocol::Device)
        } else if meta.path.is_ident("tensor") {
            Some(ClassProtocol::Tensor)
        } else {
            None
        };
        if let Some(found) = found {
            if protocol.replace(found).is_some() {
                return Err(meta
                    .error("one kind per class: write one of `data_type`, `device` and `tensor`"));
            }
            return Ok(());
        }
        if meta.path.is_ident("crate") {
            if krate.is_some() {
                return Err(meta.error("`crate` is given twice"));
            }
            krate = Some(crate_path(&meta)?);
            return Ok(());
        }
        let word = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let words: Vec<&'static str> = MEANT.iter().map(|(word, _)| *word).collect();
        let guess = dlpack_grammar::suggest(&word.to_lowercase(), &words)
            .and_then(|word| MEANT.iter().find(|(w, _)| *w == word))
            .map(|(_, kind)| *kind);
        meant = guess;
        let hint = guess.map_or_else(String::new, |kind| {
            format!("did you mean `{}`? ", kind.argument())
        });
        Err(meta.error(format!(
            "unknown argument: {hint}write `#[pymethods(data_type)]` for a data type class, \
             `#[pymethods(device)]` for a device class or `#[pymethods(tensor)]` for a tensor \
             class (and optionally `crate = \"path\"`)",
        )))
    });
    let result = syn::parse::Parser::parse2(parser, args);
    let mut error = result.err();
    if protocol.is_none() && error.is_none() {
        error = Some(syn::Error::new(
            Span::call_site(),
            "say which class this is: `#[pymethods(data_type)]` for a data type class, \
             `#[pymethods(device)]` for a device class, `#[pymethods(tensor)]` for a tensor \
             class",
        ));
    }
    let krate = krate.unwrap_or_else(|| syn::parse_quote!(::dlpack_core));
    (
        Args {
            protocol: protocol.or(meant),
            krate,
        },
        error,
    )
}

/// One method of the author's block, by the name Python sees.
pub(crate) struct Written {
    pub(crate) name: String,
    pub(crate) span: Span,
    /// Its `#[cfg(…)]` attributes: a check of its name holds where it exists.
    pub(crate) cfgs: Vec<Attribute>,
}

/// The Python names of the methods, constants and class attributes the author wrote, as PyO3
/// gives them: `#[pyo3(name = "…")]`, `#[getter(name)]`, `#[new]` (`__new__`), a getter's
/// name without `get_`, the identifier without `r#`. Setters are left out: a setter named
/// like a generated getter adds to it, it does not replace it.
pub(crate) fn written_names(item: &ItemImpl) -> syn::Result<Vec<Written>> {
    let mut names = Vec::new();
    for impl_item in &item.items {
        match impl_item {
            ImplItem::Fn(f) => {
                if let Some(written) = fn_name(f)? {
                    names.push(written);
                }
            }
            ImplItem::Const(c) => {
                let (name, span) =
                    renamed(&c.attrs)?.unwrap_or_else(|| (unraw(&c.ident), c.ident.span()));
                let cfgs = cfgs(&c.attrs);
                names.push(Written { name, span, cfgs });
            }
            _ => {}
        }
    }
    Ok(names)
}

fn fn_name(f: &ImplItemFn) -> syn::Result<Option<Written>> {
    let ident = &f.sig.ident;
    let mut span = ident.span();
    let mut name = unraw(ident);
    if f.attrs.iter().any(|a| a.path().is_ident("setter")) {
        return Ok(None);
    }
    if f.attrs.iter().any(|a| a.path().is_ident("new")) {
        name = "__new__".to_owned();
    }
    for attr in &f.attrs {
        if attr.path().is_ident("getter") {
            if let Some(stripped) = name.strip_prefix("get_") {
                name = stripped.to_owned();
            }
            if let syn::Meta::List(list) = &attr.meta {
                if let Ok(ident) = list.parse_args::<syn::Ident>() {
                    name = unraw(&ident);
                } else if let Ok(lit) = list.parse_args::<LitStr>() {
                    name = lit.value();
                }
            }
        }
    }
    if let Some((renamed, at)) = renamed(&f.attrs)? {
        (name, span) = (renamed, at);
    }
    let cfgs = cfgs(&f.attrs);
    Ok(Some(Written { name, span, cfgs }))
}

/// `#[pyo3(name = "…")]`, if written, with where the name is (a mistake in the name is
/// reported there). PyO3 parses the other options (a `signature` is not syn's `Meta`), so the
/// top level of the list is scanned for `name = "…"` alone.
fn renamed(attrs: &[Attribute]) -> syn::Result<Option<(String, Span)>> {
    use proc_macro2::TokenTree;
    let mut name = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("pyo3")) {
        let syn::Meta::List(list) = &attr.meta else {
            continue;
        };
        let tokens: Vec<TokenTree> = list.tokens.clone().into_iter().collect();
        for window in tokens.windows(3) {
            if let [
                TokenTree::Ident(key),
                TokenTree::Punct(eq),
                TokenTree::Literal(lit),
            ] = window
            {
                if key == "name" && eq.as_char() == '=' {
                    let lit: LitStr = syn::parse2(TokenTree::Literal(lit.clone()).into())?;
                    name = Some((lit.value(), lit.span()));
                }
            }
        }
    }
    Ok(name)
}

fn cfgs(attrs: &[Attribute]) -> Vec<Attribute> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .cloned()
        .collect()
}

fn unraw(ident: &syn::Ident) -> String {
    let name = ident.to_string();
    name.strip_prefix("r#")
        .map_or_else(|| name.clone(), str::to_owned)
}
