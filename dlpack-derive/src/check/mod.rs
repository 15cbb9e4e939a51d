//! Validation: which options go on which item, which combine, what each item maps to and how
//! it comes back on import.
//!
//! The output is one [`Model`] for both derives, which `expand` turns into tokens without
//! further checks. Every mistake is reported into the [`Ctxt`], spanned on the offending
//! option, and checking goes on so one build shows them all. Checks that need type
//! information (an `element`'s data type, an id field's range, a delegate's sets) cannot run
//! here; `expand` emits them as `const` assertions.
//!
//! - [`placement`]: every option is written where it has a meaning.
//! - [`resolve`]: the one resolver: `skip`, `delegate`, `device_with` and the newtype rule.
//! - [`policy`]: how every item comes back (`export_only`, `default`, `import_with`), checked
//!   against the fields import cannot set.
//! - [`target`]: what differs by kind: the data type or device an item names directly.
//! - [`python`]: what `#[pymethods(…)]` refuses in the author's block.
//! - [`duplicates`]: two items importing one value.
//! - [`remote`]: the options of a mirror of another crate's type.
//! - [`model`]: what the stage hands on, and what the steps hand the resolver; [`types`]: what
//!   can be read from a type as written.
//!
//! ```text
//! layers (checked by .ci/check-cycles.py: a module uses only modules on lines below its own)
//! resolve
//! duplicates placement policy python remote target
//! model types
//! ```

mod duplicates;
mod model;
mod placement;
mod policy;
pub(crate) mod python;
mod remote;
mod resolve;
mod target;
mod types;

use crate::parse::ast::{Body, Input, Variant};
use crate::parse::attr::Attrs;
use crate::parse::ctxt::Ctxt;

pub(crate) use model::{Const, Export, Import, Item, Model, Raw, Remote};
pub(crate) use types::{is_small_integer, mentions_type_param};

pub(crate) fn check<'a>(cx: &Ctxt, input: &'a Input<'a>) -> Option<Model<'a>> {
    let kind = input.kind;
    let items = match &input.body {
        Body::Union(span) => {
            cx.error(
                *span,
                format_args!(
                    "`{}` cannot be derived for a union; derive it on an enum or a struct",
                    kind.trait_name()
                ),
            );
            Vec::new()
        }
        Body::Enum(variants) => {
            placement::check(cx, kind, &input.attrs, placement::Level::Enum);
            variants
                .iter()
                .filter_map(|v| {
                    let before = cx.count();
                    placement::check(cx, kind, &v.attrs, placement::Level::Variant);
                    placement::fields(cx, kind, v);
                    let item = resolve::item(cx, input, v, &v.attrs, false, before);
                    reported(cx, &item, &v.attrs, v, before);
                    item
                })
                .collect()
        }
        Body::Struct(v) => {
            let before = cx.count();
            placement::check(cx, kind, &input.attrs, placement::Level::Struct);
            placement::fields(cx, kind, v);
            let item = resolve::item(cx, input, v, &input.attrs, true, before);
            reported(cx, &item, &input.attrs, v, before);
            item.into_iter().collect()
        }
    };
    duplicates::check(cx, &items);
    let remote = remote::check(cx, input);
    if cx.has_errors() {
        return None;
    }
    Some(Model {
        kind,
        krate: input.krate(),
        items,
        is_enum: matches!(input.body, Body::Enum(_)),
        remote,
    })
}

/// The resolver's promise: an item that maps to nothing has an error (from parsing its
/// options, or since `before`), so no variant is ever left out of the impls silently.
fn reported(cx: &Ctxt, item: &Option<Item>, attrs: &Attrs, v: &Variant, before: usize) {
    let parsed_wrong = attrs.poisoned || v.fields.iter().any(|f| f.attrs.poisoned);
    debug_assert!(
        item.is_some() || parsed_wrong || cx.count() > before,
        "an item resolved to nothing without an error"
    );
}
