//! Token generation, after `check` has resolved every mapping.
//!
//! - [`items`] and [`import`]: each item's part of every generated function, by where its
//!   value comes from and how it comes back (and [`value`], the few tokens that differ by kind:
//!   constants, set entries, match keys).
//! - [`builder`]: the impls around those parts, for a valid input and for the fallback.
//! - [`assertions`]: `const` checks of what only the compiler knows.
//! - [`route`]: the set an item not matched directly is routed by, read by the three above.
//! - [`remote`]: a mirror's conversions to and from the type it mirrors, which prove they
//!   match.
//! - [`args`]: `#[tensor_args]`, a `#[pyfunction]`'s typed tensor arguments extracted by name.
//! - [`dispatch`]: a data type enum's dispatch, a bound per variant whose message names it.
//! - [`python`]: `#[pymethods(…)]`, the author's block completed with the protocol methods.
//! - [`fallback`]: the impls emitted beside the errors of an invalid input.
//! - [`tokens`]: the small helpers every part uses.
//!
//! Everything is emitted inside `const _: () = { … };` and names only absolute paths (the
//! dlpack-core path, `::core`), so it works under `#![no_implicit_prelude]` and next to any
//! user item names. Generated items carry `#[automatically_derived]` and allow `deprecated`
//! (a `#[deprecated]` variant is still converted without warnings). The shapes that matter for
//! speed are pinned by the golden tests (`src/golden.rs`), and why they are what they are is
//! in the benchmarks' documentation (`benches/src/lib.rs`).
//!
//! ```text
//! layers (checked by .ci/check-cycles.py: a module uses only modules on lines below its own)
//! args assertions dispatch fallback import python remote
//! items
//! builder route value
//! tokens
//! ```

pub(crate) mod args;
mod assertions;
mod builder;
mod dispatch;
mod fallback;
mod import;
mod items;
pub(crate) mod python;
mod remote;
mod route;
mod tokens;
mod value;

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::check::{self, Model};
use crate::parse::ast::Input;
use crate::parse::ctxt::Ctxt;
use crate::parse::kind::Kind;
use builder::Parts;
use items::Gen;

/// The whole derive: parse, check, expand; on any error the errors plus a fallback impl.
pub(crate) fn derive(input: &DeriveInput, kind: Kind) -> TokenStream {
    let cx = Ctxt::default();
    let ast = Input::from_syn(&cx, kind, input);
    let expanded = check::check(&cx, &ast).map(|model| expand(&ast, &model));
    match (cx.finish(), expanded) {
        (Ok(()), Some(tokens)) => tokens,
        (result, _) => {
            let errors = result.err().map(|e| e.to_compile_error());
            let fallback = fallback::expand(&ast);
            let remote = remote::fallback(&ast, &kind.paths(&ast.krate()));
            quote!(#fallback #remote #errors)
        }
    }
}

/// The impls of a valid input: each item's part of every function, inside the builder's impls.
fn expand(input: &Input, model: &Model) -> TokenStream {
    let paths = model.kind.paths(&model.krate);
    let g = Gen {
        input,
        paths: &paths,
        items: &model.items,
    };
    let bounds = g.bounds();
    let dispatch = (model.kind == Kind::DataType && model.is_enum)
        .then(|| dispatch::expand(input, &paths, &model.items, &bounds));
    let parts = Parts {
        bounds,
        produces: g.set(false),
        accepts: g.set(true),
        export: g.export(),
        import: g.import(),
        from: g.from(),
        inherent: model.is_enum.then(|| g.inherent()),
        units: model.is_enum.then(|| g.units()),
        checks: assertions::expand(input, &paths, &model.items),
        fallback: false,
    };
    let mut impls = builder::build(input, &paths, parts);
    if let Some(dispatch) = dispatch {
        impls.extend(quote! {
            #[allow(deprecated, non_local_definitions)]
            const _: () = { #dispatch };
        });
    }
    let remote = remote::expand(input, model, &paths);
    if remote.is_empty() {
        return impls;
    }
    quote!(#impls const _: () = { #remote };)
}
