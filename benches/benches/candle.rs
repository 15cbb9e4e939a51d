//! The README's candle import path against the copy a candle user writes by hand, in one run.
//!
//! - `candle_import/ours`: `from_dlpack::<candle_core::Tensor>(&tensor)` of a compact
//!   `ManagedTensor` of 1M `f32`, the call the README shows.
//! - `candle_import/hand`: `Tensor::from_slice(tensor.view()?.as_slice::<f32>()?, ..)`, the one
//!   copy a hand-written import makes.
//!
//! Both copy the 4 MB once into a new candle storage; the target is ours <= 1.2x hand.
//!
//! - `candle_export/ours`: `tensor.to_dlpack_tensor()` of a CPU candle `Tensor` of 1M `f32`,
//!   the safe export (a compact copy under candle's read lock), and its drop.
//! - `candle_export/hand`: candle's own copy out, `tensor.to_vec1::<f32>()`, and its drop.
//!
//! Both copy the 4 MB once under candle's lock; the target is ours <= 1.1x hand. With
//! `DLPACK_BENCH_REVERSE` set, the hand-written side of each group runs first.

use std::hint::black_box;

use candle_core::{Device, Tensor};
use criterion::{Criterion, criterion_group, criterion_main};
use dlpack_benches::stream::reverse_order;
use dlpack_core::tensor::ToDlpackTensor;
use dlpack_core::{ManagedTensor, from_dlpack};

const LEN: usize = 1 << 20;

fn candle_import(c: &mut Criterion) {
    let mut g = c.benchmark_group("candle_import");
    let data: Vec<f32> = (0..LEN).map(|i| i as f32).collect();
    let tensor = ManagedTensor::from_vec(data, &[LEN]).unwrap();
    let sides = if reverse_order() {
        ["hand", "ours"]
    } else {
        ["ours", "hand"]
    };
    for side in sides {
        g.bench_function(side, |b| {
            if side == "ours" {
                b.iter(|| from_dlpack::<Tensor>(black_box(&tensor)).unwrap())
            } else {
                b.iter(|| {
                    let view = black_box(&tensor).view().unwrap();
                    Tensor::from_slice(view.as_slice::<f32>().unwrap(), LEN, &Device::Cpu).unwrap()
                })
            }
        });
    }
    g.finish();
}

fn candle_export(c: &mut Criterion) {
    let mut g = c.benchmark_group("candle_export");
    let tensor = Tensor::arange(0_f32, LEN as f32, &Device::Cpu).unwrap();
    let sides = if reverse_order() {
        ["hand", "ours"]
    } else {
        ["ours", "hand"]
    };
    for side in sides {
        g.bench_function(side, |b| {
            if side == "ours" {
                b.iter(|| black_box(&tensor).to_dlpack_tensor().unwrap())
            } else {
                b.iter(|| black_box(&tensor).to_vec1::<f32>().unwrap())
            }
        });
    }
    g.finish();
}

criterion_group!(benches, candle_import, candle_export);
criterion_main!(benches);
