//! Functions whose machine code `benches/evidence/check-fold.sh` inspects, to show that a
//! unit variant's mapping folds to a constant: each body must be nothing but stores of
//! immediates and a return, with no call, no branch and no table load.
//!
//! They are `#[inline(never)]` (so each exists as a function of its own) and `#[no_mangle]`
//! (so the script finds it by name in `cargo rustc --release -- --emit asm` output).

use dlpack_core::{DataType, Device, DlpackDataType, DlpackDevice, Error};

use crate::data_type::HandDType;

/// `HandDType::F32.dlpack_data_type()`: the hand-written baseline, for comparison.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn dlpack_bench_fold_hand_f32() -> Result<DataType, Error> {
    HandDType::F32.dlpack_data_type()
}
