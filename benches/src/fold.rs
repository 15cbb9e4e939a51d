//! Functions whose machine code `benches/evidence/check-fold.sh` inspects, to show that a
//! unit variant's mapping folds to a constant: each body must be nothing but stores of
//! immediates and a return, with no call, no branch and no table load.
//!
//! They are `#[inline(never)]` (so each exists as a function of its own) and `#[no_mangle]`
//! (so the script finds it by name in `cargo rustc --release -- --emit asm` output).

use dlpack_core::{DataType, Device, DlpackDataType, DlpackDevice, Error};

use crate::data_type::HandDType;
use crate::derived::{DType, Dev};

/// `HandDType::F32.dlpack_data_type()`: the hand-written baseline, for comparison.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn dlpack_bench_fold_hand_f32() -> Result<DataType, Error> {
    HandDType::F32.dlpack_data_type()
}

/// `DType::F32.dlpack_data_type()`: the derived trait method on a unit variant.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn dlpack_bench_fold_f32() -> Result<DataType, Error> {
    DType::F32.dlpack_data_type()
}

/// `DType::BF16.dlpack_data_type()`.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn dlpack_bench_fold_bf16() -> Result<DataType, Error> {
    DType::BF16.dlpack_data_type()
}

/// `DataType::from(DType::F32)`: the infallible conversion the derive adds when every variant
/// maps.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn dlpack_bench_fold_f32_from() -> DataType {
    DataType::from(DType::F32)
}

/// `Dev::CudaHost.dlpack_device()`: the derived trait method on a unit variant.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn dlpack_bench_fold_cuda_host() -> Result<Device, Error> {
    Dev::CudaHost.dlpack_device()
}

/// The control: a variant known only at run time cannot fold, and the check must say so.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn dlpack_bench_fold_control(variant: DType) -> Result<DataType, Error> {
    variant.dlpack_data_type()
}
