//! Calls the derived conversions of `dlpack_benches::derived` from another crate, as a
//! framework's users do, for `benches/evidence/check-fold.sh`: across a crate boundary a
//! unit variant's mapping must still fold to a constant, which needs the generated methods
//! to be inlinable there.

use dlpack_benches::derived::{DType, Dev};
use dlpack_core::{DataType, Device, DlpackDataType, DlpackDevice, Error};

/// `DType::F32.dlpack_data_type()`, called from a downstream crate.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn dlpack_bench_fold_downstream_f32() -> Result<DataType, Error> {
    DType::F32.dlpack_data_type()
}

/// `Dev::CudaHost.dlpack_device()`, called from a downstream crate.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn dlpack_bench_fold_downstream_cuda_host() -> Result<Device, Error> {
    Dev::CudaHost.dlpack_device()
}

fn main() {
    println!("{:?}", dlpack_bench_fold_downstream_f32());
    println!("{:?}", dlpack_bench_fold_downstream_cuda_host());
}
