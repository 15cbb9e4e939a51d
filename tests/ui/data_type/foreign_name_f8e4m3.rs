use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
enum DType {
    // safetensors' and candle's name: which DLPack fp8 is it?
    #[dlpack("F8_E4M3")]
    F8E4M3,
}

fn main() {}
