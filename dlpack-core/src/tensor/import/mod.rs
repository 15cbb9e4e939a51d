//! The import chain: a foreign tensor's C struct ([`abi`]), its metadata validated before any
//! byte is touched ([`validate`]), the validated metadata ([`meta`]) and the two views on it
//! ([`view`], [`view_mut`]), and what reading host memory needs on the way: the checks made
//! at the moment of reading ([`host`]), the element walk ([`iter`]), the overlap decision of
//! mutable strided access ([`overlap`]) and the one host copy ([`compact`]).
//!
//! ```text
//! layers (checked by .ci/check-cycles.py: a module uses only modules on lines below its own)
//! view_mut
//! view
//! meta
//! abi compact host
//! iter overlap validate
//! ```

pub(crate) mod abi;
pub(crate) mod compact;
pub(crate) mod host;
pub(crate) mod iter;
pub(crate) mod meta;
pub(crate) mod overlap;
pub(crate) mod validate;
pub(crate) mod view;
pub(crate) mod view_mut;
