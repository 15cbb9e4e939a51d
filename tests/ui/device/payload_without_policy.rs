use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(rocm)]
    Rocm {
        #[dlpack(id)]
        ordinal: u8,
        name: String,
    },
}

fn main() {}
