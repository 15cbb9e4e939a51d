use dlpack_core::{DataType, Device, DlpackDataType, DlpackDevice, assert_convertible};

#[derive(DlpackDataType)]
enum Small {
    #[dlpack("float32")]
    F32,
    #[dlpack("float32", export_only)]
    Flex32,
    #[dlpack(skip)]
    Q,
}

#[derive(DlpackDataType)]
enum Large {
    #[dlpack("float32")]
    F32,
    #[dlpack("bfloat16")]
    BF16,
}

#[derive(DlpackDevice)]
enum Narrow {
    #[dlpack(cuda)]
    Cuda(u8),
    #[dlpack(cpu)]
    Cpu,
}

#[derive(DlpackDevice)]
enum Wide {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda, id = 0)]
    First,
    #[dlpack(cuda, export_only)]
    Any(usize),
}

#[derive(DlpackDevice)]
#[dlpack(cuda)]
struct Gpu {
    #[dlpack(id)]
    index: u32,
}

assert_convertible!(Small => Large);
assert_convertible!(Large => DataType);
assert_convertible!(Narrow => Device);
assert_convertible!(Gpu => Device,);

fn main() {
    let _ = (Wide::Cpu, Wide::First, Wide::Any(0), Gpu { index: 0 }.index);
}
