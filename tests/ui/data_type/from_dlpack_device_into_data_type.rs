use dlpack_core::{DataType, Device, from_dlpack};

fn main() {
    let _: Result<DataType, _> = from_dlpack(&Device::cuda(0));
}
