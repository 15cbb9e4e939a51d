use dlpack_core::impl_from_dlpack;

struct NotADataType;

impl_from_dlpack!(DlpackDataType for NotADataType);

fn main() {}
