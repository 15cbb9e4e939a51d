//! Gathering a tensor with any strides into compact memory with the driver: the copies of its
//! [`Plan`], queued on a stream. Between host memories the CPU gathers, with the crate's one
//! host copy ([`TensorMeta::copy_compact_into`](crate::tensor::TensorMeta::copy_compact_into)).

use cudarc::driver::{CudaStream, sys};

use super::driver::attribute;
use super::order::raw_stream;
use super::plan::Plan;
use super::raw::{Cuda, Driver, Dst, RawStream, Rect, Src};
use super::view::check_address;
use crate::error::Error;
use crate::ffi::DLDeviceType;
use crate::tensor::TensorView;

/// The copies that gather `view` into compact memory, and the offset of the byte they start
/// from. A compact tensor (packed sub-byte types included) is its byte range, in one run.
fn plan(view: &TensorView<'_>, max_pitch: usize) -> (Plan, isize) {
    if view.is_compact() {
        let range = view.byte_range();
        let len = i64::try_from(range.len()).unwrap_or(i64::MAX);
        return (Plan::new(&[len], &[1], 1, max_pitch), range.start);
    }
    let plan = Plan::new(
        view.shape(),
        view.strides(),
        view.dtype().itemsize(),
        max_pitch,
    );
    // `byte_offset <= isize::MAX` (validated with the view).
    (plan, view.byte_offset() as isize)
}

/// Queues on `stream` (whose context is current) the copies of `view`'s elements into compact
/// memory at `dst`, which holds [`compact_len`](crate::tensor::TensorMeta::compact_len) bytes.
pub(crate) fn queue(view: &TensorView<'_>, dst: Dst, stream: &CudaStream) -> Result<(), Error> {
    if view.is_empty() {
        return Ok(());
    }
    check_address(view)?;
    let src = match view.device().device_type {
        DLDeviceType::CPU | DLDeviceType::CUDA_HOST => Src::Host(view.data_ptr().cast()),
        _ => Src::Device(view.data_ptr().addr() as u64),
    };
    let max_pitch = attribute(
        stream.context(),
        sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_PITCH,
    )?;
    let (plan, start) = plan(view, usize::try_from(max_pitch).unwrap_or(0));
    // SAFETY: the plan reads only the elements of the validated view, which its producer keeps
    // alive while the view lives (and the caller waits for the copies before it drops the
    // view, or keeps the source alive until they are done), and writes the `compact_len` bytes
    // at `dst`, memory the caller owns; a source handle of the same memory cannot overlap a
    // fresh destination.
    unsafe { run(&Cuda, &plan, src.offset(start), dst, raw_stream(stream)) }
}

/// Queues the copies of `plan` on `stream`: from the block starts relative to `first`, into
/// compact memory at `dst`.
///
/// # Safety
///
/// As for [`Driver::copy`], for every block of the plan.
pub(crate) unsafe fn run<D: Driver>(
    driver: &D,
    plan: &Plan,
    first: Src,
    dst: Dst,
    stream: RawStream,
) -> Result<(), Error> {
    let block = plan.block();
    for (src, at) in plan.starts() {
        let rect = Rect {
            src: first.offset(src),
            dst: dst.offset(at),
            block,
        };
        // SAFETY: this function's contract.
        unsafe { driver.copy(&rect, stream) }?;
    }
    Ok(())
}

impl Src {
    fn offset(self, bytes: isize) -> Self {
        match self {
            Self::Host(host) => Self::Host(host.wrapping_offset(bytes)),
            Self::Device(device) => Self::Device(device.wrapping_add_signed(bytes as i64)),
        }
    }
}

impl Dst {
    fn offset(self, bytes: usize) -> Self {
        match self {
            Self::Host(host) => Self::Host(host.wrapping_add(bytes)),
            Self::Device(device) => Self::Device(device.wrapping_add(bytes as u64)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::fake::{Call, Fake};
    use crate::cuda::plan::Block;

    #[test]
    fn a_plan_runs_as_one_driver_copy_per_block() {
        // Column 1 of a 3 x 4 matrix of u16, and its transpose.
        let matrix: Vec<u16> = (0..12).collect();
        let fake = Fake::default();
        let plan = Plan::new(&[3], &[4], 2, usize::MAX);
        let mut column = [0_u16; 3];
        let first = matrix.as_ptr().cast::<u8>().wrapping_add(2);
        // SAFETY: the plan reads elements 1, 5 and 9 of `matrix` and writes `column`.
        unsafe {
            run(
                &fake,
                &plan,
                Src::Host(first),
                Dst::Host(column.as_mut_ptr().cast()),
                7,
            )
        }
        .unwrap();
        assert_eq!(column, [1, 5, 9]);
        assert_eq!(
            fake.calls(),
            [Call::Copy {
                stream: 7,
                block: Block {
                    width: 2,
                    height: 3,
                    depth: 1,
                    src_pitch: 8,
                    src_slice: 24
                }
            }]
        );
        let fake = Fake::default();
        let plan = Plan::new(&[4, 3], &[1, 4], 2, usize::MAX);
        let mut transposed = [0_u16; 12];
        // SAFETY: the plan reads the 12 elements of `matrix` and writes `transposed`.
        unsafe {
            run(
                &fake,
                &plan,
                Src::Host(matrix.as_ptr().cast()),
                Dst::Host(transposed.as_mut_ptr().cast()),
                7,
            )
        }
        .unwrap();
        assert_eq!(transposed, [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]);
        assert_eq!(fake.calls().len(), 4);
        // A failing copy stops the plan with the driver's error.
        let fake = Fake::default();
        fake.fail("copy");
        // SAFETY: as above.
        let failed = unsafe {
            run(
                &fake,
                &plan,
                Src::Host(matrix.as_ptr().cast()),
                Dst::Host(transposed.as_mut_ptr().cast()),
                7,
            )
        };
        assert!(failed.is_err());
        assert_eq!(fake.calls().len(), 1);
    }
}
