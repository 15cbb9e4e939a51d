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
//! | export a tensor and drop it| `ManagedTensor::from_vec`            | dlpark 0.10 `Dynamic::compact` + boxed `Vec` |
//! | import, validate, slice    | `ManagedTensor::from_raw` + `view` + `as_slice` | dlpark `Managed::from_raw` + `validate` + `cpu_slice` |
//!
//! The targets (DESIGN.md, "Performance"): derived conversions within 1.05× of the
//! hand-written match and allocation-free; export at most one heap allocation and at most 0.8×
//! dlpark's time at ranks 1–8; import and validation at most 1.0× dlpark.

pub mod data_type;
pub mod derived;
pub mod device;
pub mod fold;
pub mod stream;
pub mod tensor;
