// `DataType` dispatches to every element type: a kernel over `f32` alone names the first
// type it cannot take.
use dlpack_core::DataType;
use dlpack_core::dispatch::{Dispatch, Kernel};

struct Sum;
impl Kernel<&[f32]> for Sum {
    type Output = f32;
    fn run(self, x: &[f32]) -> f32 {
        x.iter().sum()
    }
}

fn main() {
    let tensor = dlpack_core::ManagedTensor::from_vec(vec![1.0_f32], &[1]).unwrap();
    let _ = DataType::dispatch_slice(&tensor.view().unwrap(), Sum);
}
