use dlpack_core::{DataType, Device, assert_convertible};

assert_convertible!(Device => DataType);

fn main() {}
