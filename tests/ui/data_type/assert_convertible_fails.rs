use dlpack_core::{DlpackDataType, assert_convertible};

#[derive(DlpackDataType)]
enum Small {
    #[dlpack("float32")]
    F32,
}

#[derive(DlpackDataType)]
enum Large {
    #[dlpack("float32")]
    F32,
    #[dlpack("bfloat16")]
    BF16,
}

assert_convertible!(Large => Small);

fn main() {}
