use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32", element = f64)]
    F,
}

fn main() {}
