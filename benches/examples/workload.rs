//! One benchmark workload at a time, for instruction counts under callgrind, which are
//! deterministic where wall-clock time on a shared machine is not:
//!
//! ```text
//! cargo build --release -p dlpack-benches --example workload
//! valgrind --tool=callgrind target/release/examples/workload export_ours 4 100
//! ```
//!
//! Arguments: the workload, the rank (tensor workloads; ignored otherwise) and the number of
//! repetitions. The per-repetition cost is the difference between two repetition counts
//! divided by their difference (`benches/evidence/instructions.py` does this). Workloads: the
//! loops of `benches/conversions.rs` (`dtype_to_derived`, `dtype_to_hand`, `dtype_to_dlpark`,
//! and likewise `dtype_from_…`, `device_to_…`, `device_from_…`, one pass over the 4096-value
//! stream each) and of `benches/tensor.rs` (`export_shared_ours`, `export_shared_dlpark`,
//! which include cloning the shared storage, and `shared`, which only clones and drops it;
//! `export_ours`, `export_dlpark`, `export_floor`, `export_floor_result`,
//! `export_floor_boxed`, which include making the 64-element vector, and `data`, which only
//! makes it; `import_ours`, `import_dlpark`).

use std::hint::black_box;

use dlpack_benches::data_type::{self, HandDType};
use dlpack_benches::derived::{DType, Dev};
use dlpack_benches::device::{self, HandDevice};
use dlpack_benches::stream::convert_each;
use dlpack_benches::tensor;
use dlpack_core::{DlpackDataType, DlpackDevice};

const SEED: u64 = 0x00d1_9ac6;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, name, rank, reps] = &args[..] else {
        eprintln!("usage: workload <name> <rank> <repetitions>");
        std::process::exit(2);
    };
    let (Ok(rank), Ok(reps)) = (rank.parse::<usize>(), reps.parse::<usize>()) else {
        eprintln!("workload: the rank and the repetitions are numbers");
        std::process::exit(2);
    };
    if !run(name, rank, reps) {
        eprintln!("workload: unknown workload {name}");
        std::process::exit(2);
    }
}

/// The inputs every workload reads, made once.
struct Inputs {
    hand_dt: Vec<HandDType>,
    derived_dt: Vec<DType>,
    dts: Vec<dlpack_core::DataType>,
    park_dts: Vec<dlpark::ffi::DLDataType>,
    hand_dev: Vec<HandDevice>,
    derived_dev: Vec<Dev>,
    devs: Vec<dlpack_core::Device>,
    park_devs: Vec<dlpark::ffi::DLDevice>,
    shape: Vec<usize>,
    storage: std::sync::Arc<[f32]>,
}

/// One repetition of a workload. Each is its own function (a non-capturing closure coerced
/// to a pointer, called indirectly), so it is compiled alone, as each criterion closure is.
type Workload = fn(&Inputs, &mut *mut dlpark::ffi::DLManagedTensorVersioned);

fn workload(name: &str) -> Option<Workload> {
    Some(match name {
        "dtype_to_derived" => |i, _| convert_each(&i.derived_dt, DType::dlpack_data_type),
        "dtype_to_hand" => |i, _| convert_each(&i.hand_dt, HandDType::dlpack_data_type),
        "dtype_to_dlpark" => |i, _| convert_each(&i.hand_dt, |&v| data_type::to_dlpark(v)),
        "dtype_from_derived" => |i, _| convert_each(&i.dts, |&d| DType::from_dlpack_data_type(d)),
        "dtype_from_hand" => |i, _| convert_each(&i.dts, |&d| HandDType::from_dlpack_data_type(d)),
        "dtype_from_dlpark" => |i, _| convert_each(&i.park_dts, |&d| data_type::from_dlpark(d)),
        "device_to_derived" => |i, _| convert_each(&i.derived_dev, Dev::dlpack_device),
        "device_to_hand" => |i, _| convert_each(&i.hand_dev, HandDevice::dlpack_device),
        "device_to_dlpark" => |i, _| convert_each(&i.hand_dev, |&v| device::to_dlpark(v)),
        "device_from_derived" => |i, _| convert_each(&i.devs, |&d| Dev::from_dlpack_device(d)),
        "device_from_hand" => |i, _| convert_each(&i.devs, |&d| HandDevice::from_dlpack_device(d)),
        "device_from_dlpark" => |i, _| convert_each(&i.park_devs, |&d| device::from_dlpark(d)),
        "data" => |_, _| drop(black_box(tensor::data())),
        "shared" => |i, _| drop(black_box(i.storage.clone())),
        "export_shared_ours" => |i, _| {
            let t =
                tensor::export_ours_shared(i.storage.clone(), black_box(&i.shape)).expect("export");
            drop(black_box(t));
        },
        "export_shared_dlpark" => |i, _| {
            let t = tensor::export_dlpark_shared(i.storage.clone(), black_box(&i.shape))
                .expect("export");
            drop(black_box(t));
        },
        "export_ours" => |i, _| {
            let t = tensor::export_ours(tensor::data(), black_box(&i.shape)).expect("export");
            drop(black_box(t));
        },
        "export_dlpark" => |i, _| {
            let t = tensor::export_dlpark(tensor::data(), black_box(&i.shape)).expect("export");
            drop(black_box(t));
        },
        "export_floor" => |i, _| {
            drop(black_box(tensor::export_floor(
                tensor::data(),
                black_box(&i.shape),
            )));
        },
        "export_floor_result" => |i, _| {
            let t =
                tensor::export_floor_result(tensor::data(), black_box(&i.shape)).expect("export");
            drop(black_box(t));
        },
        "export_floor_boxed" => |i, _| {
            let t =
                tensor::export_floor_boxed(tensor::data(), black_box(&i.shape)).expect("export");
            drop(black_box(t));
        },
        "import_ours" => |_, raw| {
            // SAFETY: `*raw` is a live tensor we own; the call hands it back.
            let (sum, back) =
                unsafe { tensor::import_ours(black_box(*raw).cast()) }.expect("import");
            black_box(sum);
            *raw = back.cast();
        },
        "import_dlpark" => |_, raw| {
            // SAFETY: as above.
            let (sum, back) = unsafe { tensor::import_dlpark(black_box(*raw)) }.expect("import");
            black_box(sum);
            *raw = back;
        },
        _ => return None,
    })
}

/// Runs `name` `reps` times; false for an unknown name.
fn run(name: &str, rank: usize, reps: usize) -> bool {
    let Some(work) = workload(name) else {
        return false;
    };
    let hand_dt = data_type::variant_stream(SEED);
    let hand_dev = device::variant_stream(SEED);
    let inputs = Inputs {
        derived_dt: hand_dt.iter().map(|&v| DType::from_hand(v)).collect(),
        dts: data_type::data_type_stream(SEED),
        park_dts: data_type::park_data_type_stream(SEED),
        derived_dev: hand_dev.iter().map(|&v| Dev::from_hand(v)).collect(),
        devs: device::device_stream(SEED),
        park_devs: device::park_device_stream(SEED),
        shape: tensor::shape(rank),
        storage: tensor::shared_data(),
        hand_dt,
        hand_dev,
    };
    let mut raw = tensor::export_dlpark(tensor::data(), &inputs.shape)
        .expect("export")
        .into_raw();
    for _ in 0..reps {
        black_box(work)(&inputs, &mut raw);
    }
    // SAFETY: `raw` is live and ours; dropped once.
    drop(unsafe { tensor::ParkTensor::from_raw(raw) }.expect("from_raw"));
    true
}
