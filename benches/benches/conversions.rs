//! Derived dtype/device conversions against the same enum's hand-written `match` and against
//! dlpark 0.10's `DLDataType`/`DLDevice`, over the same shuffled stream, in one run.
//!
//! One iteration converts [`STREAM_LEN`] values and folds them into a checksum; the report
//! divides by the stream length. Groups: `dtype_to_dlpack`, `dtype_from_dlpack`,
//! `device_to_dlpack`, `device_from_dlpack`; functions: `derived`, `hand`, `dlpark`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dlpack_benches::data_type::{self, HandDType};
use dlpack_benches::derived::{DType, Dev};
use dlpack_benches::device::{self, HandDevice};
use dlpack_benches::stream::STREAM_LEN;
use dlpack_core::{DlpackDataType, DlpackDevice};

const SEED: u64 = 0x00d1_9ac6;

fn dtype(c: &mut Criterion) {
    let hand = data_type::variant_stream(SEED);
    let derived: Vec<DType> = hand.iter().map(|&v| DType::from_hand(v)).collect();
    let values = data_type::data_type_stream(SEED);
    let park_values = data_type::park_data_type_stream(SEED);

    let mut g = c.benchmark_group("dtype_to_dlpack");
    g.throughput(Throughput::Elements(STREAM_LEN as u64));
    g.bench_function("derived", |b| {
        b.iter(|| {
            black_box(&derived).iter().fold(0, |acc, v| {
                data_type::fold_data_type(acc, v.dlpack_data_type())
            })
        })
    });
    g.bench_function("hand", |b| {
        b.iter(|| {
            black_box(&hand).iter().fold(0, |acc, v| {
                data_type::fold_data_type(acc, v.dlpack_data_type())
            })
        })
    });
    g.bench_function("dlpark", |b| {
        b.iter(|| {
            black_box(&hand).iter().fold(0, |acc, &v| {
                data_type::fold_park_data_type(acc, data_type::to_dlpark(v))
            })
        })
    });
    g.finish();

    let mut g = c.benchmark_group("dtype_from_dlpack");
    g.throughput(Throughput::Elements(STREAM_LEN as u64));
    g.bench_function("derived", |b| {
        b.iter(|| {
            black_box(&values).iter().fold(0, |acc, &dt| {
                data_type::fold_variant(acc, DType::from_dlpack_data_type(dt).ok())
            })
        })
    });
    g.bench_function("hand", |b| {
        b.iter(|| {
            black_box(&values).iter().fold(0, |acc, &dt| {
                data_type::fold_variant(acc, HandDType::from_dlpack_data_type(dt).ok())
            })
        })
    });
    g.bench_function("dlpark", |b| {
        b.iter(|| {
            black_box(&park_values).iter().fold(0, |acc, &dt| {
                data_type::fold_variant(acc, data_type::from_dlpark(dt))
            })
        })
    });
    g.finish();
}

fn device(c: &mut Criterion) {
    let hand = device::variant_stream(SEED);
    let derived: Vec<Dev> = hand.iter().map(|&v| Dev::from_hand(v)).collect();
    let values = device::device_stream(SEED);
    let park_values = device::park_device_stream(SEED);

    let mut g = c.benchmark_group("device_to_dlpack");
    g.throughput(Throughput::Elements(STREAM_LEN as u64));
    g.bench_function("derived", |b| {
        b.iter(|| {
            black_box(&derived)
                .iter()
                .fold(0, |acc, v| device::fold_device(acc, v.dlpack_device()))
        })
    });
    g.bench_function("hand", |b| {
        b.iter(|| {
            black_box(&hand)
                .iter()
                .fold(0, |acc, v| device::fold_device(acc, v.dlpack_device()))
        })
    });
    g.bench_function("dlpark", |b| {
        b.iter(|| {
            black_box(&hand).iter().fold(0, |acc, &v| {
                device::fold_park_device(acc, device::to_dlpark(v))
            })
        })
    });
    g.finish();

    let mut g = c.benchmark_group("device_from_dlpack");
    g.throughput(Throughput::Elements(STREAM_LEN as u64));
    g.bench_function("derived", |b| {
        b.iter(|| {
            black_box(&values).iter().fold(0, |acc, &d| {
                device::fold_tag(acc, Dev::from_dlpack_device(d).ok().map(|v| v.tag()))
            })
        })
    });
    g.bench_function("hand", |b| {
        b.iter(|| {
            black_box(&values).iter().fold(0, |acc, &d| {
                device::fold_tag(acc, HandDevice::from_dlpack_device(d).ok().map(|v| v.tag()))
            })
        })
    });
    g.bench_function("dlpark", |b| {
        b.iter(|| {
            black_box(&park_values).iter().fold(0, |acc, &d| {
                device::fold_tag(acc, device::from_dlpark(d).map(|v| v.tag()))
            })
        })
    });
    g.finish();
}

criterion_group!(benches, dtype, device);
criterion_main!(benches);
