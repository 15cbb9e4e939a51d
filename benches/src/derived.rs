//! The derived side of the conversion benchmarks: the same enums as
//! [`HandDType`] and [`HandDevice`], with `#[derive]` instead of a hand-written `match`.

use dlpack_core::{DlpackDataType, DlpackDevice};

use crate::data_type::HandDType;
use crate::device::HandDevice;

/// The benchmark's dtype enum, derived: 18 unit variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, DlpackDataType)]
#[allow(missing_docs)]
pub enum DType {
    #[dlpack("bool")]
    Bool,
    #[dlpack("int8")]
    I8,
    #[dlpack("int16")]
    I16,
    #[dlpack("int32")]
    I32,
    #[dlpack("int64")]
    I64,
    #[dlpack("uint8")]
    U8,
    #[dlpack("uint16")]
    U16,
    #[dlpack("uint32")]
    U32,
    #[dlpack("uint64")]
    U64,
    #[dlpack("float16")]
    F16,
    #[dlpack("bfloat16")]
    BF16,
    #[dlpack("float32")]
    F32,
    #[dlpack("float64")]
    F64,
    #[dlpack("complex64")]
    C64,
    #[dlpack("complex128")]
    C128,
    #[dlpack("float8_e4m3fn")]
    F8E4M3FN,
    #[dlpack("float8_e5m2")]
    F8E5M2,
    #[dlpack("float4_e2m1fn")]
    F4E2M1FN,
}

impl DType {
    /// Every variant, in the order of [`HandDType::ALL`].
    pub const ALL: [DType; 18] = [
        DType::Bool,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C128,
        DType::F8E4M3FN,
        DType::F8E5M2,
        DType::F4E2M1FN,
    ];

    /// The variant of the same name.
    pub fn from_hand(hand: HandDType) -> Self {
        Self::ALL[hand as usize]
    }
}

/// The benchmark's device enum, derived: 9 unit variants and 7 that carry a `usize` id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, DlpackDevice)]
#[allow(missing_docs)]
pub enum Dev {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda_host)]
    CudaHost,
    #[dlpack(cuda_managed)]
    CudaManaged,
    #[dlpack(rocm_host)]
    RocmHost,
    #[dlpack(vpi)]
    Vpi,
    #[dlpack(ext_dev)]
    ExtDev,
    #[dlpack(webgpu)]
    WebGpu,
    #[dlpack(hexagon)]
    Hexagon,
    #[dlpack(maia)]
    Maia,
    #[dlpack(cuda)]
    Cuda(usize),
    #[dlpack(rocm)]
    Rocm(usize),
    #[dlpack(opencl)]
    OpenCl(usize),
    #[dlpack(vulkan)]
    Vulkan(usize),
    #[dlpack(metal)]
    Metal(usize),
    #[dlpack(oneapi)]
    OneApi(usize),
    #[dlpack(trn)]
    Trn(usize),
}

impl Dev {
    /// The variant of the same name, with the same id.
    pub fn from_hand(hand: HandDevice) -> Self {
        match hand {
            HandDevice::Cpu => Dev::Cpu,
            HandDevice::CudaHost => Dev::CudaHost,
            HandDevice::CudaManaged => Dev::CudaManaged,
            HandDevice::RocmHost => Dev::RocmHost,
            HandDevice::Vpi => Dev::Vpi,
            HandDevice::ExtDev => Dev::ExtDev,
            HandDevice::WebGpu => Dev::WebGpu,
            HandDevice::Hexagon => Dev::Hexagon,
            HandDevice::Maia => Dev::Maia,
            HandDevice::Cuda(id) => Dev::Cuda(id),
            HandDevice::Rocm(id) => Dev::Rocm(id),
            HandDevice::OpenCl(id) => Dev::OpenCl(id),
            HandDevice::Vulkan(id) => Dev::Vulkan(id),
            HandDevice::Metal(id) => Dev::Metal(id),
            HandDevice::OneApi(id) => Dev::OneApi(id),
            HandDevice::Trn(id) => Dev::Trn(id),
        }
    }

    /// The same tag as [`HandDevice::tag`]: the variant's device type code and its id.
    #[inline(always)]
    pub fn tag(&self) -> (i32, usize) {
        use dlpack_core::ffi::DLDeviceType as T;
        match *self {
            Dev::Cpu => (T::CPU.0, 0),
            Dev::CudaHost => (T::CUDA_HOST.0, 0),
            Dev::CudaManaged => (T::CUDA_MANAGED.0, 0),
            Dev::RocmHost => (T::ROCM_HOST.0, 0),
            Dev::Vpi => (T::VPI.0, 0),
            Dev::ExtDev => (T::EXT_DEV.0, 0),
            Dev::WebGpu => (T::WEBGPU.0, 0),
            Dev::Hexagon => (T::HEXAGON.0, 0),
            Dev::Maia => (T::MAIA.0, 0),
            Dev::Cuda(id) => (T::CUDA.0, id),
            Dev::Rocm(id) => (T::ROCM.0, id),
            Dev::OpenCl(id) => (T::OPENCL.0, id),
            Dev::Vulkan(id) => (T::VULKAN.0, id),
            Dev::Metal(id) => (T::METAL.0, id),
            Dev::OneApi(id) => (T::ONEAPI.0, id),
            Dev::Trn(id) => (T::TRN.0, id),
        }
    }
}
