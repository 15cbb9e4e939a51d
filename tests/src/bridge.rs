//! A bridge as dlpack-core writes one: the mirror of [`foreign::Backend`] with `__impl_remote`,
//! so the foreign type itself implements `DlpackDevice` and works with `from_dlpack`. Only a
//! crate that may implement the trait for that type can write this (here the type is this
//! crate's own; in dlpack-core, the trait is). `Backend` is `#[non_exhaustive]`, which binds
//! other crates only: here the mirror needs no `non_exhaustive` decision, and writing one is
//! an error ("unreachable pattern"), since it would hide a variant the mirror left out.

use dlpack_core::DlpackDevice;

use crate::foreign;

/// The mirror of [`foreign::Backend`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, DlpackDevice)]
#[dlpack(remote = "foreign::Backend", __impl_remote)]
#[allow(missing_docs)]
pub enum Backend {
    #[dlpack(cpu)]
    Host,
    #[dlpack(cuda)]
    Gpu(#[dlpack(id)] u8),
}
