//! Tensor export and import, ours against dlpark 0.10, in one run.
//!
//! - `export_shared/{ours,dlpark}/<rank>`, ranks 1, 2, 4, 8 and 64: a clone of shared
//!   `Arc<[f32]>` storage of 64 elements (cloned outside the timed region) exported as a
//!   versioned DLPack tensor with shape and explicit strides, flagged read-only, then dropped
//!   (deleter and metadata freed, the clone released). The report's export target is judged on
//!   these (see `dlpack_benches::tensor` for why).
//! - `export/{ours,dlpark}/{1,8}`: a `Vec<f32>` of 64 elements (made outside the timed region)
//!   exported the same way and dropped, which frees the vector too.
//! - `export/{floor,floor_result,floor_boxed}/{1,8}`: the floor of the `Vec` export
//!   (`tensor::export_floor`), for the report's information lines. Their three registrations
//!   are written out rather than folded into a helper: folding them moved the floors' medians
//!   by up to 2 ns (code placement), and the README quotes the figures of this form.
//! - `import/{ours,dlpark}/<rank>`: the same foreign tensor (dlpark's export, made once) taken
//!   over from its raw pointer, validated, viewed as `&[f32]`, and handed back as a raw
//!   pointer.
//!
//! With `DLPACK_BENCH_REVERSE` set, dlpark's side of each pair runs first.

use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use dlpack_benches::stream::reverse_order;
use dlpack_benches::tensor::{self, ParkTensor, RANKS};

/// The two sides in the order this run uses.
fn sides() -> [&'static str; 2] {
    if reverse_order() {
        ["dlpark", "ours"]
    } else {
        ["ours", "dlpark"]
    }
}

fn export_shared(c: &mut Criterion) {
    let mut g = c.benchmark_group("export_shared");
    let storage = tensor::shared_data();
    for rank in RANKS {
        let shape = tensor::shape(rank);
        for side in sides() {
            g.bench_with_input(BenchmarkId::new(side, rank), &shape, |b, shape| {
                if side == "ours" {
                    b.iter_batched(
                        || storage.clone(),
                        |data| {
                            drop(black_box(
                                tensor::export_ours_shared(data, black_box(shape)).unwrap(),
                            ))
                        },
                        BatchSize::SmallInput,
                    )
                } else {
                    b.iter_batched(
                        || storage.clone(),
                        |data| {
                            drop(black_box(
                                tensor::export_dlpark_shared(data, black_box(shape)).unwrap(),
                            ))
                        },
                        BatchSize::SmallInput,
                    )
                }
            });
        }
    }
    g.finish();
}

fn export(c: &mut Criterion) {
    let mut g = c.benchmark_group("export");
    for rank in [1, 8] {
        let shape = tensor::shape(rank);
        for side in sides() {
            g.bench_with_input(BenchmarkId::new(side, rank), &shape, |b, shape| {
                if side == "ours" {
                    b.iter_batched(
                        tensor::data,
                        |data| {
                            drop(black_box(
                                tensor::export_ours(data, black_box(shape)).unwrap(),
                            ))
                        },
                        BatchSize::SmallInput,
                    )
                } else {
                    b.iter_batched(
                        tensor::data,
                        |data| {
                            drop(black_box(
                                tensor::export_dlpark(data, black_box(shape)).unwrap(),
                            ))
                        },
                        BatchSize::SmallInput,
                    )
                }
            });
        }
        // The floor of this export: what one allocation with nothing checked costs, bare, returned through `Result<_, dlpack_core::Error>`, and through a
        // `Result` whose error is boxed. Like the `Vec` export, each frees the vector.
        g.bench_with_input(BenchmarkId::new("floor", rank), &shape, |b, shape| {
            b.iter_batched(
                tensor::data,
                |data| drop(black_box(tensor::export_floor(data, black_box(shape)))),
                BatchSize::SmallInput,
            )
        });
        g.bench_with_input(
            BenchmarkId::new("floor_result", rank),
            &shape,
            |b, shape| {
                b.iter_batched(
                    tensor::data,
                    |data| {
                        drop(black_box(
                            tensor::export_floor_result(data, black_box(shape)).unwrap(),
                        ))
                    },
                    BatchSize::SmallInput,
                )
            },
        );
        g.bench_with_input(BenchmarkId::new("floor_boxed", rank), &shape, |b, shape| {
            b.iter_batched(
                tensor::data,
                |data| {
                    drop(black_box(
                        tensor::export_floor_boxed(data, black_box(shape)).unwrap(),
                    ))
                },
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

fn import(c: &mut Criterion) {
    let mut g = c.benchmark_group("import");
    for rank in RANKS {
        let shape = tensor::shape(rank);
        let mut raw = tensor::export_dlpark(tensor::data(), &shape)
            .unwrap()
            .into_raw();
        for side in sides() {
            g.bench_function(BenchmarkId::new(side, rank), |b| {
                if side == "ours" {
                    b.iter(|| {
                        // SAFETY: `raw` is a live tensor this loop owns; the call hands it back.
                        let (sum, back) =
                            unsafe { tensor::import_ours(black_box(raw).cast()) }.unwrap();
                        raw = back.cast();
                        sum
                    })
                } else {
                    b.iter(|| {
                        // SAFETY: as above.
                        let (sum, back) = unsafe { tensor::import_dlpark(black_box(raw)) }.unwrap();
                        raw = back;
                        sum
                    })
                }
            });
        }
        // SAFETY: `raw` is live and owned here; this drops it exactly once.
        drop(unsafe { ParkTensor::from_raw(raw) }.unwrap());
    }
    g.finish();
}

criterion_group!(benches, export_shared, export, import);
criterion_main!(benches);
