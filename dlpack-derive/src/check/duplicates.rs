//! Two importing items for one value make import ambiguous. Here are the values the macro knows
//! (data type names and parts, device types and fixed ids); `element` types and delegates are
//! known to the compiler only, and `expand` checks them with `const` assertions.

use proc_macro2::Span;

use super::Item;
use crate::ctxt::Ctxt;

/// What an importing item takes: a group of values (one data type, or one device type) and,
/// for a device, one id of the group or (`None`) every id.
pub(crate) struct Claim {
    pub group: i64,
    pub id: Option<i32>,
    /// The values, for messages: "`float32`", "`cuda` devices", "`cuda:0`".
    pub label: String,
    /// Where the mapping was written.
    pub span: Span,
}

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
