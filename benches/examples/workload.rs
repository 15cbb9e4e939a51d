//! One benchmark workload at a time, for instruction counts under callgrind (deterministic,
//! unlike wall-clock time on a shared machine):
//!
//! ```text
//! cargo build --release -p dlpack-benches --example workload
//! valgrind --tool=callgrind --toggle-collect='*workload*run*' \
//!     target/release/examples/workload export_ours 4 1000
//! ```
//!
//! Arguments: the workload (`dtype_to_{derived,hand,dlpark}`, `dtype_from_…`, `device_to_…`,
//! `device_from_…`, `export_{ours,dlpark}`, `import_{ours,dlpark}`, and `data`, the
//! vector every export workload makes first), the rank (tensor
//! workloads; ignored otherwise) and the number of repetitions. Prints the checksum.

use std::hint::black_box;

use dlpack_benches::data_type::{self, HandDType};
use dlpack_benches::derived::{DType, Dev};
use dlpack_benches::device::{self, HandDevice};
use dlpack_benches::tensor;
use dlpack_core::{DlpackDataType, DlpackDevice};

const SEED: u64 = 0x00d1_9ac6;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, name, rank, reps] = &args[..] else {
        eprintln!("usage: workload <name> <rank> <repetitions>");
        std::process::exit(2);
    };
    let rank: usize = rank.parse().expect("rank");
    let reps: usize = reps.parse().expect("repetitions");
    println!("{}", run(name, rank, reps));
}

#[inline(never)]
fn run(name: &str, rank: usize, reps: usize) -> u64 {
    let hand_dt = data_type::variant_stream(SEED);
    let derived_dt: Vec<DType> = hand_dt.iter().map(|&v| DType::from_hand(v)).collect();
    let dts = data_type::data_type_stream(SEED);
    let park_dts = data_type::park_data_type_stream(SEED);
    let hand_dev = device::variant_stream(SEED);
    let derived_dev: Vec<Dev> = hand_dev.iter().map(|&v| Dev::from_hand(v)).collect();
    let devs = device::device_stream(SEED);
    let park_devs = device::park_device_stream(SEED);
    let shape = tensor::shape(rank);
    let mut raw = tensor::export_dlpark(tensor::data(), &shape)
        .expect("export")
        .into_raw();
    let mut acc = 0u64;
    for _ in 0..reps {
        acc = acc.wrapping_add(match name {
            "dtype_to_derived" => black_box(&derived_dt)
                .iter()
                .fold(0, |a, v| data_type::fold_data_type(a, v.dlpack_data_type())),
            "dtype_to_hand" => black_box(&hand_dt)
                .iter()
                .fold(0, |a, v| data_type::fold_data_type(a, v.dlpack_data_type())),
            "dtype_to_dlpark" => black_box(&hand_dt).iter().fold(0, |a, &v| {
                data_type::fold_park_data_type(a, data_type::to_dlpark(v))
            }),
            "dtype_from_derived" => black_box(&dts).iter().fold(0, |a, &d| {
                data_type::fold_variant(a, DType::from_dlpack_data_type(d).ok())
            }),
            "dtype_from_hand" => black_box(&dts).iter().fold(0, |a, &d| {
                data_type::fold_variant(a, HandDType::from_dlpack_data_type(d).ok())
            }),
            "dtype_from_dlpark" => black_box(&park_dts).iter().fold(0, |a, &d| {
                data_type::fold_variant(a, data_type::from_dlpark(d))
            }),
            "device_to_derived" => black_box(&derived_dev)
                .iter()
                .fold(0, |a, v| device::fold_device(a, v.dlpack_device())),
            "device_to_hand" => black_box(&hand_dev)
                .iter()
                .fold(0, |a, v| device::fold_device(a, v.dlpack_device())),
            "device_to_dlpark" => black_box(&hand_dev)
                .iter()
                .fold(0, |a, &v| device::fold_park_device(a, device::to_dlpark(v))),
            "device_from_derived" => black_box(&devs).iter().fold(0, |a, &d| {
                device::fold_tag(a, Dev::from_dlpack_device(d).ok().map(|v| v.tag()))
            }),
            "device_from_hand" => black_box(&devs).iter().fold(0, |a, &d| {
                device::fold_tag(a, HandDevice::from_dlpack_device(d).ok().map(|v| v.tag()))
            }),
            "device_from_dlpark" => black_box(&park_devs).iter().fold(0, |a, &d| {
                device::fold_tag(a, device::from_dlpark(d).map(|v| v.tag()))
            }),
            "export_ours" => {
                let t = tensor::export_ours(tensor::data(), black_box(&shape)).expect("export");
                black_box(&t);
                0
            }
            "export_dlpark" => {
                let t = tensor::export_dlpark(tensor::data(), black_box(&shape)).expect("export");
                black_box(&t);
                0
            }
            "data" => {
                black_box(tensor::data());
                0
            }
            "import_ours" => {
                // SAFETY: `raw` is live and ours; the call hands it back.
                let (sum, back) =
                    unsafe { tensor::import_ours(black_box(raw).cast()) }.expect("import");
                raw = back.cast();
                sum as u64
            }
            "import_dlpark" => {
                // SAFETY: as above.
                let (sum, back) = unsafe { tensor::import_dlpark(black_box(raw)) }.expect("import");
                raw = back;
                sum as u64
            }
            other => panic!("unknown workload {other}"),
        });
    }
    // SAFETY: `raw` is live and ours; dropped once.
    drop(unsafe { dlpark::Managed::from_raw(raw) }.expect("from_raw"));
    acc
}
