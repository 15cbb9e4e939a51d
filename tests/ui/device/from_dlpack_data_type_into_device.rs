use dlpack_core::{DataType, Device, from_dlpack};

fn main() {
    let _: Result<Device, _> = from_dlpack(&DataType::F32);
}
