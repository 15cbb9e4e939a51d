//! The producer: `__dlpack__` of a Rust tensor. [`request`] reads and answers a consumer's
//! request (`DlpackRequest`: the version, device and copy asked for, the plan, the capsule,
//! and with feature `cuda` the stream rule of a CUDA producer), and [`exchange`] publishes
//! DLPack 1.3's C exchange table.
//!
//! ```text
//! layers (checked by .ci/check-cycles.py: a module uses only modules on lines below its own)
//! exchange
//! request
//! ```

pub mod exchange;
pub(crate) mod request;
