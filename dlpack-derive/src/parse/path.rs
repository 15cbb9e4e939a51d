//! A path an option names, written as a string or bare: `crate = "my_framework::dlpack"` (as
//! PyO3's and serde's `crate` take it) or `crate = my_framework::dlpack`, and `remote = "…"`.
//! Both `#[dlpack(...)]` and `#[pymethods(…)]` read their `crate` here.

use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{LitStr, Path};

/// `crate = "path"` or `crate = path`: where dlpack-core is.
pub(crate) fn crate_path(meta: &ParseNestedMeta) -> syn::Result<Path> {
    path_value(
        meta,
        Path::parse_mod_style,
        "the path of dlpack-core as re-exported, as in `crate = \"my_framework::dlpack\"`",
    )
}

/// `remote = "path::Type"` or `remote = path::Type`: the type a mirror mirrors.
pub(crate) fn type_path(meta: &ParseNestedMeta) -> syn::Result<Path> {
    path_value(
        meta,
        <Path as syn::parse::Parse>::parse,
        "the path of the type this one mirrors, as in `remote = \"candle_core::DType\"`",
    )
}

/// The value after `=`: a bare path read by `bare`, or a string holding a path; a string that
/// holds none is an error at the string, saying to write `expected`.
fn path_value(
    meta: &ParseNestedMeta,
    bare: fn(ParseStream) -> syn::Result<Path>,
    expected: &str,
) -> syn::Result<Path> {
    let value = meta.value()?;
    if !value.peek(LitStr) {
        return bare(value);
    }
    let lit: LitStr = value.parse()?;
    lit.parse::<Path>().map_err(|_| {
        syn::Error::new(
            lit.span(),
            format_args!("`{}` is not a path; write {expected}", lit.value()),
        )
    })
}
