use dlpack_core::DlpackDevice;

struct CudaContext(usize);

fn ordinal(context: &CudaContext) -> usize {
    context.0
}

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda, id_with = ordinal)]
    Cuda(CudaContext),
}

fn main() {}
