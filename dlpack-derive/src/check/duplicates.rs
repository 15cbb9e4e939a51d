//! Two importing items for one value make import ambiguous. Here are the values the macro knows
//! (data type names and parts, device types and fixed ids); `element` types and delegates are
//! known to the compiler only, and `expand` checks them with `const` assertions.

use super::model::{Claim, Item};
use crate::parse::ctxt::Ctxt;

pub(super) fn check(cx: &Ctxt, items: &[Item]) {
    // The importing items seen so far, with their claims, in the order written.
    let mut seen: Vec<(&Claim, &Item)> = Vec::new();
    for item in items.iter().filter(|i| i.imports()) {
        let Some(claim) = &item.claim else { continue };
        let clash = seen.iter().find(|(other, _)| {
            other.group == claim.group
                && (other.id.is_none() || claim.id.is_none() || other.id == claim.id)
        });
        match clash {
            Some((_, first)) => cx.error(
                claim.span,
                format_args!(
                    "duplicate import mapping: `{}` and `{}` both import {}; mark all but one of them `export_only`",
                    item.v.ident.expect("an enum variant"),
                    first.v.ident.expect("an enum variant"),
                    claim.label
                ),
            ),
            None => seen.push((claim, item)),
        }
    }
}
