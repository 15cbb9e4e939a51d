//! Counters of what is alive on the Rust side, for the leak checks of the Python tests.

use std::sync::atomic::{AtomicUsize, Ordering};

/// One counter: incremented by [`Counter::track`], decremented when the returned [`Live`]
/// guard drops.
pub struct Counter(AtomicUsize);

impl Counter {
    const fn new() -> Self {
        Self(AtomicUsize::new(0))
    }

    /// Counts one more live object until the guard drops.
    pub fn track(&'static self) -> Live {
        self.0.fetch_add(1, Ordering::Relaxed);
        Live(self)
    }

    /// How many are alive.
    pub fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

/// Keeps one object counted while it lives.
pub struct Live(&'static Counter);

impl Drop for Live {
    fn drop(&mut self) {
        self.0.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl core::fmt::Debug for Live {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Live")
    }
}

/// `Tensor` objects.
pub static TENSORS: Counter = Counter::new();
/// Buffers allocated by `dlpack_demo` (by `empty`, `arange` or a copy).
pub static BUFFERS: Counter = Counter::new();
/// DLPack tensors exported by `__dlpack__` that no consumer (or capsule destructor) has
/// released yet.
pub static EXPORTS: Counter = Counter::new();
/// Foreign DLPack tensors imported by `from_dlpack` and not yet released to their producer.
pub static IMPORTS: Counter = Counter::new();
