//! The burn bridge's `TensorData` paths, whose cost must not grow with the tensor, beside the
//! copy they avoid, at 1 k, 100 k and 10 M `f32`:
//!
//! - `burn_data/export/N`: `bridges::burn::data_to_dlpack(data)` and the export's drop (its
//!   deleter, which drops the `TensorData`'s bytes); the `TensorData` is made outside the timed
//!   region.
//! - `burn_data/import/N`: `bridges::burn::data_from_dlpack(tensor)` of a compact, aligned
//!   `ManagedTensor` (over a clone of shared `Arc<[f32]>` storage) and the `TensorData`'s drop,
//!   which releases the tensor.
//! - `burn_data/clone/N`: `TensorData::clone` and its drop: the copy a bridge without
//!   zero-copy paths would make.
//!
//! The exported `TensorData` lends its bytes from a buffer the bench owns ([`Lent`]), so that
//! the drop inside the timed region frees what the export allocated and not the 40 MB of
//! elements, which dropping any `TensorData` frees, exported or not (`benches/README.md`).
//! With `DLPACK_BENCH_REVERSE` set, the sizes run largest first.

use std::hint::black_box;
use std::mem::MaybeUninit;
use std::sync::Arc;

use burn_std::{
    AccessError, AccessPolicy, AllocationController, AllocationProperty, Bytes, DType, TensorData,
};
use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use dlpack_benches::stream::reverse_order;
use dlpack_core::ManagedTensor;
use dlpack_core::bridges::burn::{data_from_dlpack, data_to_dlpack};

const SIZES: [usize; 3] = [1_000, 100_000, 10_000_000];

/// burn's view of a buffer the bench keeps: reads and writes go to it, and dropping the
/// `Bytes` frees nothing but this controller.
struct Lent {
    memory: *mut MaybeUninit<u8>,
    len: usize,
}

impl AllocationController for Lent {
    fn alloc_align(&self) -> usize {
        align_of::<f32>()
    }

    fn property(&self) -> AllocationProperty {
        AllocationProperty::Other
    }

    unsafe fn memory_mut(
        &mut self,
        _: AccessPolicy,
    ) -> Result<&mut [MaybeUninit<u8>], AccessError> {
        // SAFETY: `memory` is `len` bytes of the buffer `lend` borrowed mutably for as long as
        // the `Bytes` lives, and `&mut self` makes this the only reference to them.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.memory, self.len) })
    }

    fn memory(&self, _: AccessPolicy) -> Result<&[MaybeUninit<u8>], AccessError> {
        // SAFETY: as above; `&self` gives reads only.
        Ok(unsafe { std::slice::from_raw_parts(self.memory, self.len) })
    }
}

// SAFETY: `Lent` is a pointer into a buffer that outlives it and that nothing else touches
// while it lives (see `lend`).
unsafe impl Send for Lent {}

/// `TensorData` of `buffer`'s floats, whose bytes are `buffer` itself. The caller drops the
/// data (and any export of it) before it touches `buffer` again; several may be alive at once
/// (criterion makes a batch of inputs first), each used and dropped in turn.
fn lend(buffer: &mut [f32]) -> TensorData {
    let len = size_of_val(buffer);
    let lent = Lent {
        memory: buffer.as_mut_ptr().cast(),
        len,
    };
    // SAFETY: `len` initialised bytes (the floats), which `lent` hands out.
    let bytes = unsafe { Bytes::from_controller(Box::new(lent), len) };
    TensorData::try_from_bytes(bytes, [buffer.len()], DType::F32).unwrap()
}

fn sizes() -> Vec<usize> {
    let mut sizes = SIZES.to_vec();
    if reverse_order() {
        sizes.reverse();
    }
    sizes
}

fn burn_data(c: &mut Criterion) {
    let mut g = c.benchmark_group("burn_data");
    for len in sizes() {
        g.sample_size(100);
        let mut buffer: Vec<f32> = (0..len).map(|i| i as f32).collect();
        g.bench_function(BenchmarkId::new("export", len), |b| {
            b.iter_batched(
                || lend(&mut buffer),
                |data| drop(black_box(data_to_dlpack(data).unwrap())),
                BatchSize::SmallInput,
            )
        });
        let shared: Arc<[f32]> = buffer.iter().copied().collect();
        g.bench_function(BenchmarkId::new("import", len), |b| {
            b.iter_batched(
                || ManagedTensor::from_arc(Arc::clone(&shared), &[len]).unwrap(),
                |tensor| drop(black_box(data_from_dlpack(tensor).unwrap())),
                BatchSize::SmallInput,
            )
        });
        // A clone of 10 M floats takes milliseconds: ten samples are enough to see it.
        g.sample_size(if len > 100_000 { 10 } else { 100 });
        let data = TensorData::new(buffer, [len]);
        g.bench_function(BenchmarkId::new("clone", len), |b| {
            b.iter(|| drop(black_box(data.clone())))
        });
    }
    g.finish();
}

criterion_group!(benches, burn_data);
criterion_main!(benches);
