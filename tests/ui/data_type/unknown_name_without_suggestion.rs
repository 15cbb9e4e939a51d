use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("quaternion")]
    Q,
}

fn main() {}
