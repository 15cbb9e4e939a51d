// The example of DESIGN.md ("The derives"), with the types it refers to, and with the import
// policy DESIGN.md's payload rule asks of `Handle` (an id cannot make a `CudaContext`).
use dlpack_core::{DataType, DlpackDataType, DlpackDevice};

#[derive(Debug, PartialEq, DlpackDataType)]
enum BoolStore {
    #[dlpack("bool")]
    Native,
    #[dlpack("bool", export_only)]
    U8,
}

struct CudaContext {
    ordinal: usize,
}

fn handle_ordinal(context: &CudaContext) -> usize {
    context.ordinal
}

#[derive(DlpackDevice)]
enum InnerDevice {
    #[dlpack(vulkan)]
    Vulkan(u32),
}

#[derive(DlpackDataType)]
enum DType {
    #[dlpack("float32")] F32,
    #[dlpack("bfloat16")] BF16,
    #[dlpack(code = float, bits = 16)] F16,
    #[dlpack(element = u8)] U8,          // taken from `Element`, checked at compile time
    #[dlpack("float32", export_only)] Flex32,   // exports as float32; never chosen on import
    #[dlpack(skip)] QInt8,                // no DLPack equivalent: an error, not a panic
    Bool(#[dlpack(delegate)] BoolStore),  // a field type that derives DlpackDataType itself
}

#[derive(DlpackDevice)]
enum Device {
    #[dlpack(cpu)] Cpu,
    #[dlpack(cuda)] Cuda(usize),               // the one integer field is the device_id
    #[dlpack(rocm)] Rocm { #[dlpack(id)] ordinal: u32 },
    #[dlpack(cuda_host)] Pinned,
    #[dlpack(cuda, id_with = handle_ordinal, export_only)] Handle(CudaContext), // ordinal through a fn
    Dispatch(#[dlpack(delegate)] InnerDevice),
    #[dlpack(skip)] Remote(String),
}

#[derive(DlpackDevice)]
#[dlpack(cuda)]
struct CudaDevice { #[dlpack(id)] index: usize }

#[derive(DlpackDataType)]
struct RawDType { #[dlpack(code)] code: u8, #[dlpack(bits)] bits: u8, #[dlpack(lanes)] lanes: u16 }

fn main() {
    assert_eq!(DType::Flex32.dlpack_data_type(), Ok(DataType::F32));
    assert!(matches!(DType::from_dlpack_data_type(DataType::BOOL), Ok(DType::Bool(BoolStore::Native))));
    let handle = Device::Handle(CudaContext { ordinal: 1 });
    assert_eq!(handle.dlpack_device(), Ok(dlpack_core::Device::cuda(1)));
    assert!(Device::Remote(String::new()).dlpack_device().is_err());
    let cuda = CudaDevice { index: 2 };
    assert_eq!(cuda.dlpack_device(), Ok(dlpack_core::Device::cuda(2)));
    let raw = RawDType { code: 4, bits: 16, lanes: 1 };
    assert_eq!(raw.dlpack_data_type(), Ok(DataType::BF16));
    let _ = (DType::F32, DType::BF16, DType::F16, DType::U8, DType::QInt8, BoolStore::U8);
    let _ = (Device::Cpu, Device::Cuda(0), Device::Rocm { ordinal: 0 }, Device::Pinned);
    let _ = Device::Dispatch(InnerDevice::Vulkan(0));
}
