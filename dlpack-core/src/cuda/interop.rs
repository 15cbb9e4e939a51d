//! What the Python layer uses of the backend's internals: contexts and their scopes, the raw
//! driver, streams, queued copies, and the release of an export after its consumer's stream.
//! The Python layer reaches the backend through this module and the public API alone, so that
//! what it depends on is listed here, in one place, and the modules behind it stay private.
//! Nothing here knows PyO3.

pub(crate) use super::context::present;
pub(crate) use super::copy::{StreamOn, stream_on};
pub(crate) use super::driver::Check;
pub(crate) use super::export::{Pending, ReleaseAfter};
pub(crate) use super::gather::queue;
pub(crate) use super::order::raw_stream;
pub(crate) use super::raw::{Cuda, Driver, Dst};
pub(crate) use super::scope::{Scope, enter, preserve};
pub(crate) use super::transfer::alloc_device;
