use dlpack_core::{DataType, Device, from_dlpack};

fn main() {
    let _ = from_dlpack::<DataType>(&Device::cuda(0));
}
