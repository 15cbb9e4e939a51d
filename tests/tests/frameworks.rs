//! The dtype and device types of candle, burn, tch-rs and dfdx, checked both ways against the
//! raw DLPack codes (`dlpack.h`: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLComplex 5,
//! kDLBool 6, kDLFloat8_e4m3fn 10, kDLFloat8_e4m3fnuz 11, kDLFloat8_e5m2 12,
//! kDLFloat8_e5m2fnuz 13, kDLFloat8_e8m0fnu 14, kDLFloat6_e2m3fn 15, kDLFloat6_e3m2fn 16,
//! kDLFloat4_e2m1fn 17; kDLCPU 1, kDLCUDA 2, kDLVulkan 7, kDLMetal 8, kDLWebGPU 15), written
//! here as integers so that a wrong name in the grammar cannot hide a wrong mapping.

use dlpack_core::{
    DataType, Device, DlpackDataType, DlpackDevice, Error, assert_convertible, from_dlpack,
    same_device,
};
use dlpack_tests::{burn, candle, dfdx, tch};

fn dt(code: u8, bits: u8, lanes: u16) -> DataType {
    DataType::from((code, bits, lanes))
}

/// Every `(value, (code, bits, lanes))` exports that triple, and the triple imports the value
/// unless it is export-only.
/// `(code, bits, lanes)`, or `None` for no DLPack data type.
type Expected = Option<(u8, u8, u16)>;

fn check_data_types<T>(table: &[(T, Expected)], export_only: &[T])
where
    T: DlpackDataType + PartialEq + core::fmt::Debug,
{
    for (value, expected) in table {
        match expected {
            Some((c, b, l)) => {
                let exported = value.dlpack_data_type().unwrap();
                assert_eq!(exported, dt(*c, *b, *l), "{value:?} exports");
                if !export_only.contains(value) {
                    assert_eq!(
                        &T::from_dlpack_data_type(exported).unwrap(),
                        value,
                        "{exported} imports"
                    );
                }
            }
            None => assert!(
                matches!(value.dlpack_data_type(), Err(Error::NoDataType { .. })),
                "{value:?} has no DLPack data type"
            ),
        }
    }
}

#[test]
fn tch_kind() {
    use tch::Kind::*;
    check_data_types(
        &[
            (Uint8, Some((1, 8, 1))),
            (Int8, Some((0, 8, 1))),
            (Int16, Some((0, 16, 1))),
            (Int, Some((0, 32, 1))),
            (Int64, Some((0, 64, 1))),
            (Half, Some((2, 16, 1))),
            (Float, Some((2, 32, 1))),
            (Double, Some((2, 64, 1))),
            (ComplexHalf, Some((5, 32, 1))),
            (ComplexFloat, Some((5, 64, 1))),
            (ComplexDouble, Some((5, 128, 1))),
            (Bool, Some((6, 8, 1))),
            (QInt8, None),
            (QUInt8, None),
            (QInt32, None),
            (BFloat16, Some((4, 16, 1))),
            (Float8e5m2, Some((12, 8, 1))),
            (Float8e4m3fn, Some((10, 8, 1))),
            (Float8e5m2fnuz, Some((13, 8, 1))),
            (Float8e4m3fnuz, Some((11, 8, 1))),
        ],
        tch::Kind::EXPORT_ONLY,
    );
    assert_eq!(
        QInt8.dlpack_data_type().unwrap_err().to_string(),
        "dlpack_tests::tch::Kind::QInt8 has no DLPack data type"
    );
    // The bug the design cites: tch maps `half::bf16` to its f16 kind. Through `Element`,
    // bf16 is bfloat16, which is tch's BFloat16.
    use dlpack_core::Element;
    assert_eq!(
        tch::Kind::from_dlpack_data_type(<half::bf16 as Element>::DATA_TYPE).unwrap(),
        BFloat16
    );
}

#[test]
fn dfdx_elements() {
    use dfdx::Dtype::*;
    let usize_dt = if cfg!(target_pointer_width = "64") {
        (1, 64, 1)
    } else {
        (1, 32, 1)
    };
    let isize_dt = if cfg!(target_pointer_width = "64") {
        (0, 64, 1)
    } else {
        (0, 32, 1)
    };
    check_data_types(
        &[
            (F32, Some((2, 32, 1))),
            (F64, Some((2, 64, 1))),
            (F16, Some((2, 16, 1))),
            (U8, Some((1, 8, 1))),
            (I8, Some((0, 8, 1))),
            (U16, Some((1, 16, 1))),
            (I16, Some((0, 16, 1))),
            (U32, Some((1, 32, 1))),
            (I32, Some((0, 32, 1))),
            (U64, Some((1, 64, 1))),
            (I64, Some((0, 64, 1))),
            (Usize, Some(usize_dt)),
            (Isize, Some(isize_dt)),
            (Bool, Some((6, 8, 1))),
            (AmpF16, Some((2, 16, 1))),
        ],
        dfdx::Dtype::EXPORT_ONLY,
    );
    assert_eq!(
        dfdx::Dtype::from_dlpack_data_type(DataType::F16).unwrap(),
        F16
    );
    // The generic marker maps itself through its type parameter.
    let marker = dfdx::ElementOf::<half::bf16>::new();
    assert_eq!(marker.dlpack_data_type().unwrap(), dt(4, 16, 1));
    assert!(dfdx::ElementOf::<f32>::from_dlpack_data_type(DataType::F32).is_ok());
    assert!(dfdx::ElementOf::<f32>::from_dlpack_data_type(DataType::F64).is_err());
    // Total: every variant has a data type, so `From` is generated.
    assert_eq!(DataType::from(AmpF16), DataType::F16);
}

#[test]
fn conversions_between_frameworks() {
    // dfdx's dtypes all exist in tch? No: dfdx's uint32 does not.
    let err = from_dlpack::<tch::Kind>(&dfdx::Dtype::U32).unwrap_err();
    assert!(matches!(err, Error::UnsupportedDataType { .. }), "{err}");
    // Import never picks an export-only variant (`AmpF16` stores float16 too)...
    assert_eq!(
        from_dlpack::<dfdx::Dtype>(&tch::Kind::Half).unwrap(),
        dfdx::Dtype::F16
    );
    // ...and one converts as its data type.
    assert_eq!(
        from_dlpack::<tch::Kind>(&dfdx::Dtype::AmpF16).unwrap(),
        tch::Kind::Half
    );
}

// Proven at compile time: every burn device converts to a dispatch device, every tch dtype
// that has a DLPack data type is a DataType, LibTorch's devices are tch's, and dfdx's generic
// marker of an element type tch has is a tch kind.
assert_convertible!(burn::CudaDevice => burn::DispatchDevice);
assert_convertible!(burn::NdArrayDevice => burn::DispatchDevice);
assert_convertible!(burn::WgpuDevice => burn::DispatchDevice);
assert_convertible!(burn::LibTorchDevice => tch::Device);
assert_convertible!(tch::Device => burn::LibTorchDevice);
assert_convertible!(tch::Kind => DataType);
assert_convertible!(dfdx::ElementOf<half::f16> => tch::Kind);

#[test]
fn devices_both_ways() {
    // (value, (device_type, device_id)), then import of that pair.
    let tch_table = [
        (tch::Device::Cpu, (1, 0)),
        (tch::Device::Cuda(0), (2, 0)),
        (tch::Device::Cuda(3), (2, 3)),
        (tch::Device::Mps, (8, 0)),
        (tch::Device::Vulkan, (7, 0)),
    ];
    for (value, pair) in tch_table {
        let device = Device::from(pair);
        assert_eq!(value.dlpack_device().unwrap(), device);
        assert_eq!(tch::Device::from_dlpack_device(device).unwrap(), value);
    }
    let lt = [
        (burn::LibTorchDevice::Cpu, (1, 0)),
        (burn::LibTorchDevice::Cuda(7), (2, 7)),
        (burn::LibTorchDevice::Mps, (8, 0)),
        (burn::LibTorchDevice::Vulkan, (7, 0)),
    ];
    for (value, pair) in lt {
        let device = Device::from(pair);
        assert_eq!(value.dlpack_device().unwrap(), device);
        assert_eq!(
            burn::LibTorchDevice::from_dlpack_device(device).unwrap(),
            value
        );
    }
    // Metal 1 is not tch's Mps (which is metal:0).
    assert!(tch::Device::from_dlpack_device(Device::metal(1)).is_err());
    // cubecl's struct device.
    let cuda = burn::CudaDevice { index: 5 };
    assert_eq!(cuda.dlpack_device().unwrap(), Device::cuda(5));
    assert_eq!(
        burn::CudaDevice::from_dlpack_device(Device::cuda(5)).unwrap(),
        cuda
    );
    // wgpu: everything is webgpu, and webgpu imports as DefaultDevice.
    #[allow(deprecated)]
    let wgpu = [
        burn::WgpuDevice::DiscreteGpu(1),
        burn::WgpuDevice::IntegratedGpu(0),
        burn::WgpuDevice::VirtualGpu(2),
        burn::WgpuDevice::Cpu,
        burn::WgpuDevice::DefaultDevice,
        burn::WgpuDevice::BestAvailable,
        burn::WgpuDevice::Existing(9),
    ];
    for value in wgpu {
        assert_eq!(value.dlpack_device().unwrap(), Device::from((15, 0)));
    }
    assert_eq!(
        burn::WgpuDevice::from_dlpack_device(Device::WEBGPU).unwrap(),
        burn::WgpuDevice::DefaultDevice
    );
    // Dispatch: CPU imports as NdArray, CUDA as Cuda; LibTorch exports.
    assert_eq!(
        burn::DispatchDevice::from_dlpack_device(Device::CPU).unwrap(),
        burn::DispatchDevice::NdArray(burn::NdArrayDevice::Cpu)
    );
    assert_eq!(
        burn::DispatchDevice::from_dlpack_device(Device::cuda(2)).unwrap(),
        burn::DispatchDevice::Cuda(burn::CudaDevice { index: 2 })
    );
    assert_eq!(
        burn::DispatchDevice::LibTorch(burn::LibTorchDevice::Mps)
            .dlpack_device()
            .unwrap(),
        Device::metal(0)
    );
    assert!(burn::DispatchDevice::from_dlpack_device(Device::metal(0)).is_err());
}

#[test]
fn candle_devices() {
    let cpu = candle::Device::Cpu;
    let gpu = candle::Device::Cuda(candle::CudaDevice::new(1));
    let metal = candle::Device::Metal(candle::MetalDevice::new(0, 0x1_0000_02a6));
    assert_eq!(cpu.dlpack_device().unwrap(), Device::CPU);
    assert_eq!(gpu.dlpack_device().unwrap(), Device::cuda(1));
    assert_eq!(metal.dlpack_device().unwrap(), Device::metal(0));
    // A CUDA handle comes back through `new_cuda` (its `import_with`); a Metal handle, whose
    // location is a registry id, does not come back.
    assert!(matches!(
        candle::Device::from_dlpack_device(Device::CPU),
        Ok(candle::Device::Cpu)
    ));
    let back = candle::Device::from_dlpack_device(Device::cuda(1)).unwrap();
    assert_eq!(back.dlpack_device().unwrap(), Device::cuda(1));
    let err = candle::Device::from_dlpack_device(Device::metal(0)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "dlpack_tests::candle::Device has no DLPack device for metal:0; it supports: cpu, cuda:<id>"
    );
    // `import_with` is called for every device of the type the variant names.
    const { assert!(<candle::Device as DlpackDevice>::ACCEPTS.contains(Device::cuda(7))) };
    // DeviceLocation imports everything it exports.
    let loc = candle::DeviceLocation::Cuda { gpu_id: 3 };
    assert_eq!(loc.dlpack_device().unwrap(), Device::cuda(3));
    assert_eq!(
        candle::DeviceLocation::from_dlpack_device(Device::cuda(3)).unwrap(),
        loc
    );
    // A Metal registry id is no DLPack ordinal: an error, not a truncated id.
    let registry = candle::DeviceLocation::Metal {
        gpu_id: 0x1_0000_02a6,
    };
    assert_eq!(
        registry.dlpack_device().unwrap_err(),
        Error::DeviceIdOutOfRange {
            type_name: "dlpack_tests::candle::DeviceLocation",
            id: 0x1_0000_02a6,
            min: 0,
            max: i128::from(i32::MAX),
        }
    );
}

#[test]
fn same_device_across_frameworks() {
    let candle_gpu = candle::Device::Cuda(candle::CudaDevice::new(1));
    let burn_gpu = burn::CudaDevice { index: 1 };
    let tch_gpu = tch::Device::Cuda(1);
    let dispatch = burn::DispatchDevice::Cuda(burn::CudaDevice { index: 1 });
    assert!(same_device(&candle_gpu, &burn_gpu));
    assert!(same_device(&burn_gpu, &candle_gpu));
    assert!(same_device(&candle_gpu, &tch_gpu));
    assert!(same_device(&dispatch, &candle_gpu));
    assert!(same_device(
        &candle::DeviceLocation::Cuda { gpu_id: 1 },
        &burn_gpu
    ));
    assert!(!same_device(&candle_gpu, &burn::CudaDevice { index: 0 }));
    assert!(!same_device(&candle::Device::Cpu, &burn_gpu));
    assert!(same_device(&candle::Device::Cpu, &burn::NdArrayDevice::Cpu));
    // A value with no DLPack device is the same as nothing.
    let registry = candle::DeviceLocation::Metal { gpu_id: usize::MAX };
    assert!(!same_device(&registry, &registry));
    // Cross-framework conversion of devices.
    assert_eq!(
        from_dlpack::<burn::LibTorchDevice>(&candle_gpu).unwrap(),
        burn::LibTorchDevice::Cuda(1)
    );
    assert!(
        tch_gpu
            .dlpack_device()
            .unwrap()
            .can_access(Device::CUDA_HOST)
    );
}

#[test]
fn ids_never_wrap() {
    // usize 4_294_967_296 would be device 0 after a 32-bit truncation.
    let err = tch::Device::Cuda(4_294_967_296)
        .dlpack_device()
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::DeviceIdOutOfRange {
                id: 4_294_967_296,
                ..
            }
        ),
        "{err}"
    );
    let err = tch::Device::Cuda(2_147_483_648)
        .dlpack_device()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "device id 2147483648 is out of range for dlpack_tests::tch::Device: expected 0 to 2147483647"
    );
    // A negative DLPack id never becomes a huge usize.
    let err = tch::Device::from_dlpack_device(Device::cuda(-1)).unwrap_err();
    assert!(
        matches!(err, Error::DeviceIdOutOfRange { id: -1, .. }),
        "{err}"
    );
    // The largest valid id round-trips.
    let max = tch::Device::Cuda(i32::MAX as usize);
    assert_eq!(
        tch::Device::from_dlpack_device(max.dlpack_device().unwrap()).unwrap(),
        max
    );
}
