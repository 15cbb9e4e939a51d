//! Benchmarks of `dlpack-core` and `dlpack-derive`, side by side with the code they replace.
//!
//! This unpublished package holds the fixtures the criterion benches (`benches/`), the
//! allocation tests (`tests/`) and `scripts/bench-report.sh` share, so that every comparison
//! measures the same enum, the same stream of values and the same tensor on both sides:
//!
//! | comparison                 | ours                                 | peer                                      |
//! |----------------------------|--------------------------------------|-------------------------------------------|
//! | dtype to / from DLPack     | `#[derive(DlpackDataType)]` enum     | the same enum with a hand-written `match`; dlpark's `DLDataType` |
//! | device to / from DLPack    | `#[derive(DlpackDevice)]` enum       | the same enum with a hand-written `match`; dlpark's `DLDevice`   |
//! | export a tensor and drop it| `ManagedTensor::from_arc` (targeted), `ManagedTensor::from_vec` | dlpark 0.10 `Dynamic::compact` + the boxed `Arc<[f32]>` or `Vec` |
//! | import, validate, slice    | `ManagedTensor::from_raw` + `view` + `as_slice` | dlpark `Managed::from_raw` + `validate` + `cpu_slice` |
//!
//! The export target is judged on a clone of shared storage, whose drop frees only what the
//! export allocated; the export of an owned `Vec`, whose drop also frees the vector, is timed
//! for information ([`tensor`] says why). Beside it, the report times the floor of that export
//! ([`tensor::export_floor`]: the same single allocation with nothing checked, bare and
//! returned through `Result<_, dlpack_core::Error>`), so that a reader can see how much of an
//! export is the allocator's and how much its checks and error path.
//!
//! The targets (DESIGN.md, "Performance"): derived conversions within 1.05× of the
//! hand-written match and allocation-free; export at most one heap allocation and at most 0.8×
//! dlpark's time at ranks 1–8; import and validation at most 1.0× dlpark.
//!
//! # Method
//!
//! - Conversions run over a shuffled stream of 4096 values ([`stream`]), so the branch
//!   predictor cannot learn the answer, and every result goes to `black_box`
//!   ([`stream::convert_each`]): the optimiser must compute each one but cannot fuse the
//!   conversion with the benchmark's own code (a checksum folded over the results let LLVM merge
//!   a second jump table into the conversion's, on one side and not the other).
//! - The hand-written baselines are what a careful author writes: `#[inline]`, consts for the
//!   values, cold error paths, the derive's semantics (range-checked ids, exact matches).
//! - Tensors hold 64 `f32` at every rank. The owner (a clone of the shared storage, or the
//!   vector) is made outside the timed region and dropped inside it, on both sides. Both
//!   importers read the same foreign tensor (dlpark's).
//! - `scripts/bench-report.sh` runs each bench in three rounds, the peer first on every other
//!   round (`DLPACK_BENCH_REVERSE`, [`stream::reverse_order`]), and takes each benchmark's
//!   least median: on a shared machine load only ever adds time.
//! - Instruction counts, which do not move with the load, come from
//!   `benches/evidence/instructions.py` (callgrind over `examples/workload.rs`); the constant
//!   folding of unit variants from `benches/evidence/check-fold.sh` (the release assembly of
//!   [`fold`] and `examples/fold_downstream.rs`).
//!
//! # The shape of the derived code
//!
//! The derives' golden tests (`dlpack-derive/golden/data_type_unit_variants.txt`,
//! `device_unit_and_id_fields.txt`) pin the expansion that these benchmarks measured; a change
//! there is a reason to run the conversion benchmarks and the instruction counts again, before
//! and after. What was tried, and what it cost:
//!
//! - **Data type export.** `dlpack_data_type` is `Ok(match self { .. })` whose arms are inline
//!   `const` blocks holding the whole `DataType`, so that LLVM builds one lookup table for the
//!   value of a unit variant, as it does for a hand-written match. An earlier expansion wrote
//!   `Ok(DataType::new(..))` in every arm; LLVM then built one table per field (code, bits,
//!   lanes), about a third more instructions per conversion (`evidence/instructions.py`).
//! - **Device export.** `dlpack_device` is `Ok(match self { .. })` too, with `?` on the arms
//!   whose id conversion can fail: one `Ok` around the match, rather than one per arm, is the
//!   form measured to compile to the same code as the hand-written match (callgrind: 1.00x,
//!   `evidence/instructions.py`). The id check was also rewritten once to compile to the hand-written compare (which
//!   holds 2^31 in a register where the derived arm compares with an immediate), and a derive
//!   that splits the import match in two (device type, then id) was tried: neither moved the
//!   timed ratio (LLVM folds the split match back into one jump table), so neither was kept.
//! - **Imports** are one `match` on an integer key (a data type as `code | bits << 8 | lanes
//!   << 16`, a device by its type with a guard on the id), with the error paths `#[cold]`
//!   calls into `dlpack_core::__private`: the shape the README's import ratios were measured
//!   on.

pub mod data_type;
pub mod derived;
pub mod device;
pub mod dispatch;
pub mod fold;
pub mod stream;
pub mod tensor;
