// A kernel whose output differs between element types: one dispatch returns one type.
use dlpack_core::DlpackDataType;
use dlpack_core::dispatch::{Dispatch, Kernel, Of};

#[derive(Clone, Copy, DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    #[dlpack("uint8")]
    U8,
}

struct Widen;
impl Kernel<Of<f32>> for Widen {
    type Output = f64;
    fn run(self, _: Of<f32>) -> f64 {
        0.0
    }
}
impl Kernel<Of<u8>> for Widen {
    type Output = u16;
    fn run(self, _: Of<u8>) -> u16 {
        0
    }
}

fn main() {
    let _ = DType::U8.dispatch(Widen);
}
