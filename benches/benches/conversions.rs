//! Derived dtype/device conversions against the same enum's hand-written `match` and against
//! dlpark 0.10's `DLDataType`/`DLDevice`, over the same shuffled stream, in one run.
//!
//! One iteration converts [`STREAM_LEN`] values, each result handed to `black_box`
//! ([`convert_each`]); the report divides by the stream length. Groups: `dtype_to_dlpack`,
//! `dtype_from_dlpack`, `device_to_dlpack`, `device_from_dlpack`; functions: `derived`,
//! `hand`, `dlpark`. Group `dispatch`: a kernel run on each value's element type, by the
//! derived enum's `dispatch` (`derived`) and by a hand-written `match` (`hand`).

use criterion::measurement::WallTime;
use criterion::{Bencher, BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use dlpack_benches::data_type::{self, HandDType};
use dlpack_benches::derived::{DType, Dev};
use dlpack_benches::device::{self, HandDevice};
use dlpack_benches::dispatch::{self, Bytes};
use dlpack_benches::stream::{STREAM_LEN, convert_each, reverse_order};
use dlpack_core::{DlpackDataType, DlpackDevice};

const SEED: u64 = 0x00d1_9ac6;

type Side<'a> = (&'static str, Box<dyn FnMut(&mut Bencher<'_>) + 'a>);

/// Runs one group's sides, in reverse order when the report asks for it.
fn run_group(mut g: BenchmarkGroup<'_, WallTime>, mut sides: Vec<Side<'_>>) {
    if reverse_order() {
        sides.reverse();
    }
    g.throughput(Throughput::Elements(STREAM_LEN as u64));
    for (name, f) in &mut sides {
        g.bench_function(*name, f);
    }
    g.finish();
}

fn dtype(c: &mut Criterion) {
    let hand = data_type::variant_stream(SEED);
    let derived: Vec<DType> = hand.iter().map(|&v| DType::from_hand(v)).collect();
    let values = data_type::data_type_stream(SEED);
    let park_values = data_type::park_data_type_stream(SEED);

    run_group(
        c.benchmark_group("dtype_to_dlpack"),
        vec![
            (
                "derived",
                Box::new(|b| b.iter(|| convert_each(&derived, DType::dlpack_data_type))),
            ),
            (
                "hand",
                Box::new(|b| b.iter(|| convert_each(&hand, HandDType::dlpack_data_type))),
            ),
            (
                "dlpark",
                Box::new(|b| b.iter(|| convert_each(&hand, |&v| data_type::to_dlpark(v)))),
            ),
        ],
    );

    run_group(
        c.benchmark_group("dispatch"),
        vec![
            (
                "derived",
                Box::new(|b| b.iter(|| convert_each(&derived, |v| dispatch::derived(v, Bytes(3))))),
            ),
            (
                "hand",
                Box::new(|b| b.iter(|| convert_each(&derived, |v| dispatch::hand(v, Bytes(3))))),
            ),
        ],
    );

    run_group(
        c.benchmark_group("dtype_from_dlpack"),
        vec![
            (
                "derived",
                Box::new(|b| {
                    b.iter(|| convert_each(&values, |&dt| DType::from_dlpack_data_type(dt)))
                }),
            ),
            (
                "hand",
                Box::new(|b| {
                    b.iter(|| convert_each(&values, |&dt| HandDType::from_dlpack_data_type(dt)))
                }),
            ),
            (
                "dlpark",
                Box::new(|b| {
                    b.iter(|| convert_each(&park_values, |&dt| data_type::from_dlpark(dt)))
                }),
            ),
        ],
    );
}

fn device(c: &mut Criterion) {
    let hand = device::variant_stream(SEED);
    let derived: Vec<Dev> = hand.iter().map(|&v| Dev::from_hand(v)).collect();
    let values = device::device_stream(SEED);
    let park_values = device::park_device_stream(SEED);

    run_group(
        c.benchmark_group("device_to_dlpack"),
        vec![
            (
                "derived",
                Box::new(|b| b.iter(|| convert_each(&derived, Dev::dlpack_device))),
            ),
            (
                "hand",
                Box::new(|b| b.iter(|| convert_each(&hand, HandDevice::dlpack_device))),
            ),
            (
                "dlpark",
                Box::new(|b| b.iter(|| convert_each(&hand, |&v| device::to_dlpark(v)))),
            ),
        ],
    );

    run_group(
        c.benchmark_group("device_from_dlpack"),
        vec![
            (
                "derived",
                Box::new(|b| b.iter(|| convert_each(&values, |&d| Dev::from_dlpack_device(d)))),
            ),
            (
                "hand",
                Box::new(|b| {
                    b.iter(|| convert_each(&values, |&d| HandDevice::from_dlpack_device(d)))
                }),
            ),
            (
                "dlpark",
                Box::new(|b| b.iter(|| convert_each(&park_values, |&d| device::from_dlpark(d)))),
            ),
        ],
    );
}

criterion_group!(benches, dtype, device);
criterion_main!(benches);
