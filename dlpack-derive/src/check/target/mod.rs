//! What differs by kind in the resolver: the data type ([`data_type`]) or device ([`device`])
//! an item names directly, from its own options and its fields' roles (`#[dlpack(id)]`, raw
//! `code`/`bits`/`lanes` fields).
//!
//! ```text
//! layers (checked by .ci/check-cycles.py: a module uses only modules on lines below its own)
//! data_type device
//! ```

pub(super) mod data_type;
pub(super) mod device;

use proc_macro2::Span;

use crate::parse::ast::Variant;
use crate::parse::attr::Attrs;
use crate::parse::kind::Kind;

/// The options of an item and its fields that give a direct mapping, described for
/// conflicts with `skip`, `delegate` and `device_with`: the name first, if any.
pub(super) fn sources(kind: Kind, attrs: &Attrs, v: &Variant) -> Vec<(Span, String)> {
    match kind {
        Kind::DataType => data_type::sources(attrs, v),
        Kind::Device => device::sources(attrs, v),
    }
}
