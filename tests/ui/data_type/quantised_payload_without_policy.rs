use dlpack_core::DlpackDataType;

#[derive(Clone, Copy, Default)]
struct QuantParams {
    scale: f32,
    zero_point: i32,
}

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    // Importing `int8` must not silently build `QInt8(QuantParams::default())`.
    #[dlpack("int8")]
    QInt8(QuantParams),
}

fn main() {}
