//! The parse stage: a typed view of the input ([`ast`]) that borrows the syn tree, with each
//! item's `#[dlpack(...)]` options parsed ([`attr`]), syntax only.
//!
//! - [`names`]: data type and device names as the grammar reads them, and every message about
//!   a name (other frameworks' spellings included).
//! - [`symbol`]: the option keys, each spelt once, and which derive each belongs to.
//! - [`kind`]: what differs between the two derives (the value type, its set, the generated
//!   names).
//! - [`python`]: the arguments of `#[pymethods(…)]` and the Python names of the author's
//!   methods.
//! - [`path`]: a path written as a string or bare (`crate = "…"`, `remote = "…"`), for both
//!   `#[dlpack(...)]` and `#[pymethods(…)]`.
//! - [`ctxt`]: the error collector every stage reports into.
//!
//! ```text
//! layers (checked by .ci/check-cycles.py: a module uses only modules on lines below its own)
//! ast
//! attr
//! names
//! symbol
//! ctxt kind python
//! path
//! ```

pub(crate) mod ast;
pub(crate) mod attr;
pub(crate) mod ctxt;
pub(crate) mod kind;
pub(crate) mod names;
pub(crate) mod path;
pub(crate) mod python;
pub(crate) mod symbol;
