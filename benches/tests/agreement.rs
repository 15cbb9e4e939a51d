//! The derived and hand-written sides of each comparison compute the same function, so the
//! benchmarks compare like with like: the same values for every input of the streams, and an
//! error on both sides for what the enums do not support.

use dlpack_benches::data_type::{self, HandDType};
use dlpack_benches::derived::{DType, Dev};
use dlpack_benches::device::{self, HandDevice};
use dlpack_core::ffi::{DLDataTypeCode, DLDeviceType};
use dlpack_core::{DataType, Device, DlpackDataType, DlpackDevice};

#[test]
fn data_types_agree() {
    for &hand in HandDType::ALL {
        let derived = DType::from_hand(hand);
        let dt = hand.dlpack_data_type().unwrap();
        assert_eq!(derived.dlpack_data_type(), Ok(dt), "{hand:?}");
        assert_eq!(DType::from_dlpack_data_type(dt), Ok(derived));
        assert_eq!(HandDType::from_dlpack_data_type(dt), Ok(hand));
        // dlpark's side names the same triple.
        let park = data_type::to_dlpark(hand);
        assert_eq!(
            (park.code.0, park.bits, park.lanes),
            (dt.code.0, dt.bits, dt.lanes)
        );
        assert_eq!(data_type::from_dlpark(park), Some(hand));
    }
    for unsupported in [
        DataType::FLOAT8_E3M4,
        DataType::F32.with_lanes(4),
        DataType::new(DLDataTypeCode(200), 8, 1),
    ] {
        assert!(DType::from_dlpack_data_type(unsupported).is_err());
        assert!(HandDType::from_dlpack_data_type(unsupported).is_err());
    }
}

#[test]
fn devices_agree() {
    for hand in HandDevice::samples() {
        let derived = Dev::from_hand(hand);
        let d = hand.dlpack_device().unwrap();
        assert_eq!(derived.dlpack_device(), Ok(d), "{hand:?}");
        assert_eq!(Dev::from_dlpack_device(d).unwrap().tag(), hand.tag());
        assert_eq!(HandDevice::from_dlpack_device(d), Ok(hand));
        let park = device::to_dlpark(hand).unwrap();
        assert_eq!(device::from_dlpark(park), Some(hand));
    }
    // A host-side kind ignores the id, on both sides.
    let pinned = Device::new(DLDeviceType::CUDA_HOST, 5);
    assert_eq!(Dev::from_dlpack_device(pinned), Ok(Dev::CudaHost));
    assert_eq!(
        HandDevice::from_dlpack_device(pinned),
        Ok(HandDevice::CudaHost)
    );
    // Ids are range-checked both ways, never wrapped.
    for bad in [Device::cuda(-1), Device::new(DLDeviceType::TPU, 0)] {
        assert!(Dev::from_dlpack_device(bad).is_err(), "{bad:?}");
        assert!(HandDevice::from_dlpack_device(bad).is_err(), "{bad:?}");
    }
    let too_big = usize::try_from(i64::from(i32::MAX) + 1).unwrap();
    assert!(Dev::Cuda(too_big).dlpack_device().is_err());
    assert!(HandDevice::Cuda(too_big).dlpack_device().is_err());
    assert_eq!(device::to_dlpark(HandDevice::Cuda(too_big)), None);
}

/// Asserts that two `f32` exports at `rank` describe the same tensor: shape, strides, dtype,
/// device and elements.
fn assert_same_tensor(
    ours: &dlpack_core::ManagedTensor,
    other: &dlpack_core::ManagedTensor,
    rank: usize,
) {
    let (a, b) = (ours.view().unwrap(), other.view().unwrap());
    assert_eq!(
        (a.shape(), a.strides()),
        (b.shape(), b.strides()),
        "rank {rank}"
    );
    assert_eq!((a.dtype(), a.device()), (b.dtype(), b.device()));
    assert_eq!(a.as_slice::<f32>().unwrap(), b.as_slice::<f32>().unwrap());
}

/// The export's floor writes the tensor ours writes (so the report compares like with like),
/// and its `Result` form refuses what `from_vec` refuses, with the same error.
#[test]
fn floor_exports_what_ours_exports() {
    use dlpack_benches::tensor::{
        RANKS, data, export_floor, export_floor_boxed, export_floor_result, export_ours, shape,
    };
    use dlpack_core::ManagedTensor;

    for rank in RANKS {
        let shape = shape(rank);
        let ours = export_ours(data(), &shape).unwrap();
        // SAFETY: a live tensor handed over once; `from_raw` validates it as any import does.
        let floor =
            unsafe { ManagedTensor::from_raw(export_floor(data(), &shape).into_raw()) }.unwrap();
        assert_same_tensor(&ours, &floor, rank);
        assert!(export_floor_result(data(), &shape).is_ok());
        assert!(export_floor_boxed(data(), &shape).is_ok());
    }
    for bad in [&[8, 9][..], &[65], &[usize::MAX, 2], &[1; 65]] {
        assert_eq!(
            export_floor_result(data(), bad).unwrap_err(),
            export_ours(data(), bad).unwrap_err(),
            "{bad:?}"
        );
        assert_eq!(
            *export_floor_boxed(data(), bad).unwrap_err(),
            export_ours(data(), bad).unwrap_err()
        );
    }
}

/// Ours and dlpark's exports, from a vector and from shared storage, describe the same tensor
/// (so the report compares like with like), and dropping either releases its owner.
#[test]
fn exports_agree_with_dlparks() {
    use dlpack_benches::tensor::{
        RANKS, data, export_dlpark, export_dlpark_shared, export_ours, export_ours_shared, shape,
        shared_data,
    };
    use dlpack_core::ManagedTensor;
    use dlpack_core::tensor::Flags;
    use std::sync::Arc;

    let storage = shared_data();
    for rank in RANKS {
        let shape = shape(rank);
        let pairs = [
            (
                export_ours(data(), &shape).unwrap(),
                export_dlpark(data(), &shape).unwrap(),
                Flags::EMPTY,
            ),
            (
                export_ours_shared(storage.clone(), &shape).unwrap(),
                export_dlpark_shared(storage.clone(), &shape).unwrap(),
                Flags::READ_ONLY,
            ),
        ];
        for (ours, park, flags) in pairs {
            // SAFETY: a live tensor handed over once; `from_raw` validates it as any import.
            let park = unsafe { ManagedTensor::from_raw(park.into_raw().cast()) }.unwrap();
            assert_eq!((ours.flags(), park.flags()), (flags, flags), "rank {rank}");
            assert_same_tensor(&ours, &park, rank);
        }
        assert_eq!(
            Arc::strong_count(&storage),
            1,
            "rank {rank}: a clone was kept"
        );
    }
}
