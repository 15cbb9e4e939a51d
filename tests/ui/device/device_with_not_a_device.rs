use dlpack_core::DlpackDevice;

struct Context(u32);

impl Context {
    fn ordinal(&self) -> u32 {
        self.0
    }
}

#[derive(DlpackDevice)]
enum Place {
    // `device_with` returns a device; an ordinal is what `id_with` reads.
    #[dlpack(cuda, device_with = Context::ordinal, export_only)]
    Cuda(Context),
}

fn main() {}
