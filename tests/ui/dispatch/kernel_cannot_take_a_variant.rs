// A kernel over floats dispatched on an enum that also holds `int32`: the error names the
// variant the kernel cannot take.
use dlpack_core::DlpackDataType;
use dlpack_core::dispatch::{Dispatch, Kernel, Of};

#[derive(Clone, Copy, DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    #[dlpack("int32")]
    I32,
}

trait Float {}
impl Float for f32 {}

struct Zero;
impl<T: Float> Kernel<Of<T>> for Zero {
    type Output = u8;
    fn run(self, _: Of<T>) -> u8 {
        0
    }
}

fn main() {
    let _ = DType::F32.dispatch(Zero);
}
