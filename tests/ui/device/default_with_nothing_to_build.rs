use dlpack_core::DlpackDevice;

#[derive(DlpackDevice)]
enum Place {
    // The one field is the device id: import sets it, so `default` has nothing to do.
    #[dlpack(cuda, default)]
    Cuda(usize),
}

fn main() {}
