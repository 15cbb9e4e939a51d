//! Exactly-once release: the deleter of an imported tensor and the owner of an export run once
//! on every path, errors and panics included.

use std::panic::{AssertUnwindSafe, catch_unwind};

use super::{Counter, Foreign, Probe};
use dlpack_core::tensor::{Flags, TensorError};
use dlpack_core::{DataType, Error, LegacyManagedTensor, ManagedTensor, from_dlpack};

#[test]
fn imported_tensors_are_released_once() {
    // Dropped.
    let (t, released) = Foreign::of(&[1_u8, 2], &[2]).import();
    let t = t.unwrap();
    let view = t.view().unwrap();
    assert_eq!(view.len(), 2);
    assert_eq!(released.get(), 0);
    drop(t);
    assert_eq!(released.get(), 1);

    // Through into_raw and from_raw several times.
    let (t, released) = Foreign::of(&[1_u8, 2], &[2]).import();
    let mut ptr = t.unwrap().into_raw();
    for _ in 0..3 {
        // SAFETY: from `into_raw`, handed over once.
        ptr = unsafe { ManagedTensor::from_raw(ptr) }.unwrap().into_raw();
        assert_eq!(released.get(), 0);
    }
    // SAFETY: as above.
    drop(unsafe { ManagedTensor::from_raw(ptr) });
    assert_eq!(released.get(), 1);

    // Legacy.
    let (t, released) = Foreign::of(&[1_u8, 2], &[2]).import_legacy();
    drop(t);
    assert_eq!(released.get(), 1);
}

#[test]
fn released_once_on_error_paths() {
    // A view error does not release; the drop afterwards does.
    let (t, released) = Foreign::of(&[1_u8], &[-1]).import();
    let t = t.unwrap();
    assert!(t.view().is_err());
    assert!(from_dlpack::<Vec<u8>>(&t).is_err());
    assert_eq!(released.get(), 0);
    drop(t);
    assert_eq!(released.get(), 1);

    // A failed conversion consumes and releases the original once.
    let mut f = Foreign::of(&[1_u8], &[1]);
    f.flags = Flags::READ_ONLY.bits();
    let (t, released) = f.import();
    assert!(matches!(
        t.unwrap().into_legacy(),
        Err(Error::Tensor(TensorError::LegacyFlags { .. }))
    ));
    assert_eq!(released.get(), 1);
    let (t, released) = Foreign::of(&[1_u8], &[-1]).import_legacy();
    assert!(t.into_versioned().is_err());
    assert_eq!(released.get(), 1);

    // A successful conversion releases the original when the new tensor goes.
    let (t, released) = Foreign::of(&[1_u8], &[1]).import();
    let legacy = t.unwrap().into_legacy().unwrap();
    let versioned = legacy.into_versioned().unwrap();
    assert_eq!(released.get(), 0);
    drop(versioned);
    assert_eq!(released.get(), 1);
}

#[test]
fn released_once_when_user_code_panics() {
    let (t, released) = Foreign::of(&[1_u8, 2], &[2]).import();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let t = t.unwrap();
        let slice = t.view().unwrap().as_slice::<u8>().unwrap();
        assert_eq!(slice, [1, 2]);
        panic!("user code fails while holding the tensor");
    }));
    assert!(result.is_err());
    assert_eq!(released.get(), 1);

    // An export whose consumer panics.
    let drops = Counter::default();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let t = ManagedTensor::from_owner(Probe::new(&[2], &drops)).unwrap();
        let _legacy = t.into_legacy().unwrap();
        panic!("consumer fails");
    }));
    assert!(result.is_err());
    assert_eq!(drops.get(), 1);
}

#[test]
fn export_owner_dropped_once() {
    let drops = Counter::default();
    let t = ManagedTensor::from_owner(Probe::new(&[2, 2], &drops)).unwrap();
    let legacy = LegacyManagedTensor::from_legacy_owner(Probe::new(&[4], &drops)).unwrap();
    assert_eq!(drops.get(), 0);
    drop(t);
    drop(legacy);
    assert_eq!(drops.get(), 2);

    // Handed to a "C consumer" that calls the deleter itself.
    let t = ManagedTensor::from_owner(Probe::new(&[3], &drops)).unwrap();
    let raw = t.into_raw();
    // SAFETY: our own export; its deleter is called once, as a consumer would.
    unsafe { ((*raw).deleter.unwrap())(raw) };
    assert_eq!(drops.get(), 3);
}

/// Exports `probe` and checks that the export fails with `expected` and drops the owner once.
fn refused(probe: impl FnOnce(&Counter) -> Probe, legacy: bool) -> TensorError {
    let drops = Counter::default();
    let p = probe(&drops);
    let err = if legacy {
        LegacyManagedTensor::from_legacy_owner(p).map(drop)
    } else {
        ManagedTensor::from_owner(p).map(drop)
    }
    .unwrap_err();
    assert_eq!(drops.get(), 1, "owner dropped once after {err}");
    match err {
        Error::Tensor(err) => err,
        other => panic!("{other:?}"),
    }
}

#[test]
fn export_errors_drop_the_owner_once() {
    // Before the allocation: rank and strides length.
    let err = refused(|d| Probe::new(&[1; 65], d), false);
    assert_eq!(err, TensorError::Ndim { ndim: 65 });
    let err = refused(
        |d| Probe {
            strides: Some(vec![1]),
            ..Probe::new(&[1, 1], d)
        },
        false,
    );
    assert_eq!(
        err,
        TensorError::StridesLength {
            ndim: 2,
            strides: 1
        }
    );
    // After it: validation of the finished tensor.
    let err = refused(|d| Probe::new(&[2, -3], d), false);
    assert_eq!(err, TensorError::NegativeDim { axis: 1, value: -3 });
    let err = refused(
        |d| Probe {
            dtype: DataType::new(dlpack_core::ffi::DLDataTypeCode(77), 8, 1),
            ..Probe::new(&[1], d)
        },
        false,
    );
    assert!(matches!(err, TensorError::InvalidDataType { .. }));
    let err = refused(
        |d| Probe {
            strides: Some(vec![i64::MAX]),
            ..Probe::new(&[2], d)
        },
        false,
    );
    assert!(matches!(err, TensorError::ExtentOverflow { .. }));
    // The owner changed its answer after the move.
    let err = refused(
        |d| Probe {
            grow: true,
            ..Probe::new(&[2], d)
        },
        false,
    );
    assert_eq!(
        err,
        TensorError::OwnerChanged {
            before: 1,
            after: 2
        }
    );
    // What the legacy struct cannot carry.
    let err = refused(
        |d| Probe {
            flags: Flags::READ_ONLY,
            ..Probe::new(&[2], d)
        },
        true,
    );
    assert_eq!(
        err,
        TensorError::LegacyFlags {
            flags: Flags::READ_ONLY
        }
    );
    let err = refused(
        |d| Probe {
            dtype: DataType::FLOAT4_E2M1FN,
            flags: Flags::IS_SUBBYTE_TYPE_PADDED,
            ..Probe::new(&[2], d)
        },
        true,
    );
    assert_eq!(
        err,
        TensorError::LegacyFlags {
            flags: Flags::IS_SUBBYTE_TYPE_PADDED
        }
    );
    // Padded is fine for a type that is not sub-byte, and IS_COPIED is simply dropped.
    let drops = Counter::default();
    let t = LegacyManagedTensor::from_legacy_owner(Probe {
        flags: Flags::IS_SUBBYTE_TYPE_PADDED | Flags::IS_COPIED,
        ..Probe::new(&[2], &drops)
    })
    .unwrap();
    drop(t);
    assert_eq!(drops.get(), 1);
}

#[test]
fn export_owner_dropped_once_when_describe_panics() {
    for call in [1, 2] {
        let drops = Counter::default();
        let probe = Probe {
            panic_on: Some(call),
            ..Probe::new(&[2], &drops)
        };
        let result = catch_unwind(AssertUnwindSafe(|| ManagedTensor::from_owner(probe)));
        assert!(result.is_err(), "describe call {call} panicked");
        assert_eq!(
            drops.get(),
            1,
            "owner dropped once after panic in call {call}"
        );
    }
}

#[test]
fn shape_mismatch_drops_the_data() {
    let data = std::sync::Arc::<[u8]>::from(vec![1, 2, 3]);
    let err = ManagedTensor::from_arc(data.clone(), &[2, 2]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "shape [2, 2] holds 4 elements; the data has 3"
    );
    assert_eq!(std::sync::Arc::strong_count(&data), 1);
    let err = ManagedTensor::from_vec(vec![0_u8; 3], &[usize::MAX, 2]).unwrap_err();
    assert!(err.to_string().contains("more than usize::MAX elements"));
}
