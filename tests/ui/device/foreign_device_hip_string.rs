use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Device {
    #[dlpack("hip:0")]
    Hip,
}

fn main() {}
