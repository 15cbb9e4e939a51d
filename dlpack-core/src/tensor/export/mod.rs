//! The export chain: what an owner keeps alive ([`owner`]) and describes ([`parts`], with the
//! shapes and strides it gives in [`dims`]), how each source describes itself and what of its
//! description is checked ([`describe`]), and the one-allocation export ([`allocation`]),
//! which `ManagedTensor` (in `tensor/managed.rs`) wraps.
//!
//! ```text
//! layers (checked by .ci/check-cycles.py: a module uses only modules on lines below its own)
//! tests
//! allocation
//! describe
//! owner
//! parts
//! dims
//! ```

pub(crate) mod allocation;
pub(crate) mod describe;
pub(crate) mod dims;
pub(crate) mod owner;
pub(crate) mod parts;

#[cfg(test)]
mod tests;
