use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    Raw {
        #[dlpack(code)]
        code: u8,
        #[dlpack(bits)]
        bits: u8,
    },
}

fn main() {}
