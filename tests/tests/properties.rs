//! Properties of every derived type of the framework shapes, over arbitrary DLPack values:
//! conversions never panic, what imports exports back unchanged, every non-export-only value
//! round-trips, and the `PRODUCES`/`ACCEPTS` sets agree exactly with the conversions.

use dlpack_core::{DataType, Device, DlpackDataType, DlpackDevice};
use dlpack_tests::{burn, candle, dfdx, tch};
use proptest::prelude::*;

fn any_data_type() -> impl Strategy<Value = DataType> {
    prop_oneof![
        // Anything a foreign producer could send.
        any::<(u8, u8, u16)>().prop_map(DataType::from),
        // Valid scalar types, so imports succeed often.
        (
            0u8..19,
            prop::sample::select(vec![1u8, 4, 6, 8, 16, 32, 64, 128]),
            1u16..3
        )
            .prop_map(DataType::from),
    ]
}

fn any_device() -> impl Strategy<Value = Device> {
    prop_oneof![
        any::<(i32, i32)>().prop_map(Device::from),
        (0i32..23, -2i32..300).prop_map(Device::from),
    ]
}

/// Import never panics; what imports exports back to the same data type; `ACCEPTS` holds
/// exactly what imports.
fn data_type_import<T: DlpackDataType>(data_type: DataType) -> Result<(), TestCaseError> {
    match T::from_dlpack_data_type(data_type) {
        Ok(value) => {
            prop_assert_eq!(value.dlpack_data_type(), Ok(data_type));
            prop_assert!(T::ACCEPTS.contains(data_type));
        }
        Err(_) => prop_assert!(!T::ACCEPTS.contains(data_type)),
    }
    Ok(())
}

fn device_import<T: DlpackDevice>(device: Device) -> Result<(), TestCaseError> {
    match T::from_dlpack_device(device) {
        Ok(value) => {
            prop_assert_eq!(value.dlpack_device(), Ok(device));
            prop_assert!(T::ACCEPTS.contains(device), "{:?} not in ACCEPTS", device);
        }
        Err(_) => prop_assert!(!T::ACCEPTS.contains(device), "{:?} in ACCEPTS", device),
    }
    Ok(())
}

/// Every value exports into `PRODUCES` (or has no data type), and every value that is not
/// export-only imports back as itself.
fn data_type_round_trip<T>(all: &[T], export_only: &[T])
where
    T: DlpackDataType + PartialEq + core::fmt::Debug,
{
    for value in all {
        let Ok(data_type) = value.dlpack_data_type() else {
            continue;
        };
        assert!(T::PRODUCES.contains(data_type), "{value:?}");
        if !export_only.contains(value) {
            assert_eq!(&T::from_dlpack_data_type(data_type).unwrap(), value);
        }
    }
}

#[test]
fn data_types_round_trip() {
    data_type_round_trip(tch::Kind::ALL, tch::Kind::EXPORT_ONLY);
    data_type_round_trip(dfdx::Dtype::ALL, dfdx::Dtype::EXPORT_ONLY);
}

fn device_round_trip<T>(value: &T)
where
    T: DlpackDevice + PartialEq + core::fmt::Debug,
{
    if let Ok(device) = value.dlpack_device() {
        assert!(T::PRODUCES.contains(device), "{value:?}");
        assert_eq!(&T::from_dlpack_device(device).unwrap(), value);
    }
}

proptest! {
    #[test]
    fn data_type_imports_agree_with_accepts(data_type in any_data_type()) {
        data_type_import::<tch::Kind>(data_type)?;
        data_type_import::<dfdx::Dtype>(data_type)?;
        data_type_import::<dfdx::ElementOf<half::f16>>(data_type)?;
    }

    #[test]
    fn device_imports_agree_with_accepts(device in any_device()) {
        device_import::<candle::DeviceLocation>(device)?;
        device_import::<burn::LibTorchDevice>(device)?;
        device_import::<burn::NdArrayDevice>(device)?;
        device_import::<burn::CudaDevice>(device)?;
        device_import::<burn::WgpuDevice>(device)?;
        device_import::<burn::DispatchDevice>(device)?;
        device_import::<tch::Device>(device)?;
        // candle's Device imports only Cpu, but must not panic on anything.
        let _ = candle::Device::from_dlpack_device(device);
    }

    #[test]
    fn devices_with_ids_round_trip(id in 0usize..=(i32::MAX as usize)) {
        device_round_trip(&tch::Device::Cuda(id));
        device_round_trip(&burn::LibTorchDevice::Cuda(id));
        device_round_trip(&burn::CudaDevice { index: id });
        device_round_trip(&candle::DeviceLocation::Cuda { gpu_id: id });
        device_round_trip(&candle::DeviceLocation::Metal { gpu_id: id });
        device_round_trip(&burn::DispatchDevice::Cuda(burn::CudaDevice { index: id }));
    }

    #[test]
    fn ids_past_i32_are_errors(id in (i32::MAX as usize + 1)..=usize::MAX) {
        prop_assert!(tch::Device::Cuda(id).dlpack_device().is_err());
        let cubecl = burn::CudaDevice { index: id };
        prop_assert!(cubecl.dlpack_device().is_err());
        prop_assert!(candle::Device::Cuda(candle::CudaDevice::new(id)).dlpack_device().is_err());
    }
}

#[test]
fn unit_devices_round_trip() {
    for value in [
        tch::Device::Cpu,
        tch::Device::Mps,
        tch::Device::Vulkan,
        tch::Device::Cuda(0),
    ] {
        device_round_trip(&value);
    }
    device_round_trip(&burn::NdArrayDevice::Cpu);
    device_round_trip(&burn::WgpuDevice::DefaultDevice);
    device_round_trip(&candle::DeviceLocation::Cpu);
}
