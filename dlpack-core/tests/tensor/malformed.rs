//! Malformed tensors built by hand, one per validation rule: each is refused with an error
//! naming the field and the value, the deleter still runs once, and nothing panics.

use super::{Data, Foreign};
use dlpack_core::ffi::{DLDataTypeCode, DLManagedTensorVersioned, DLPackVersion};
use dlpack_core::tensor::ToDlpackTensor;
use dlpack_core::tensor::{Flags, MAX_NDIM, TensorError};
use dlpack_core::{DataType, Device, Error, ManagedTensor};

/// Imports `f` and returns the error `view()` gives; checks the deleter ran once afterwards.
fn view_error(f: Foreign) -> TensorError {
    let (tensor, released) = f.import();
    let tensor = tensor.unwrap();
    let err = match tensor.view() {
        Err(Error::Tensor(err)) => err,
        other => panic!("expected a tensor error, got {other:?}"),
    };
    drop(tensor);
    assert_eq!(released.get(), 1);
    err
}

/// The error of `as_slice::<T>()` on an otherwise valid tensor.
fn slice_error<T: dlpack_core::Element + core::fmt::Debug>(f: Foreign) -> TensorError {
    let (tensor, released) = f.import();
    let tensor = tensor.unwrap();
    let err = match tensor.view().unwrap().as_slice::<T>() {
        Err(Error::Tensor(err)) => err,
        other => panic!("expected a tensor error, got {other:?}"),
    };
    drop(tensor);
    assert_eq!(released.get(), 1);
    err
}

fn f32s(shape: &[i64]) -> Foreign {
    let count = shape
        .iter()
        .fold(1_i64, |n, &d| n.saturating_mul(d))
        .clamp(0, 64) as usize;
    Foreign::of(&vec![1.0_f32; count], shape)
}

#[test]
fn ndim_out_of_range() {
    for ndim in [-1, MAX_NDIM as i32 + 1, i32::MAX, i32::MIN] {
        let mut f = f32s(&[1]);
        f.ndim = Some(ndim);
        assert_eq!(
            view_error(f),
            TensorError::Ndim {
                ndim: i64::from(ndim)
            }
        );
    }
    let mut f = f32s(&[1]);
    f.ndim = Some(65);
    assert_eq!(view_error(f).to_string(), "ndim is 65; expected 0 to 64");
    // The limit itself is fine.
    let (t, _) = f32s(&[1; MAX_NDIM]).import();
    assert_eq!(t.unwrap().view().unwrap().ndim(), MAX_NDIM);
}

#[test]
fn null_and_misaligned_shape() {
    let mut f = f32s(&[2, 2]);
    f.shape = None;
    f.ndim = Some(2);
    assert_eq!(view_error(f), TensorError::NullShape { ndim: 2 });
    let mut f = f32s(&[2, 2]);
    f.misalign = Some("shape");
    assert!(matches!(
        view_error(f),
        TensorError::MisalignedMetadata { field: "shape", .. }
    ));
    let mut f = f32s(&[2, 2]);
    f.misalign = Some("strides");
    assert!(matches!(
        view_error(f),
        TensorError::MisalignedMetadata {
            field: "strides",
            ..
        }
    ));
    // Rank 0 needs neither.
    let mut f = f32s(&[]);
    f.shape = None;
    f.strides = None;
    let (t, _) = f.import();
    assert_eq!(t.unwrap().view().unwrap().as_slice::<f32>().unwrap(), [1.0]);
}

#[test]
fn null_strides_follow_the_version() {
    let f = f32s(&[2, 3]).strides(None);
    let err = view_error(f.clone());
    assert_eq!(
        err,
        TensorError::NullStrides {
            ndim: 2,
            version: DLPackVersion::CURRENT
        }
    );
    assert!(
        err.to_string()
            .starts_with("strides is null with ndim 2; DLPack 1.2")
    );
    for minor in [0, 1] {
        let mut old = f.clone();
        old.version = DLPackVersion { major: 1, minor };
        let (t, _) = old.import();
        assert_eq!(t.unwrap().view().unwrap().strides(), [3, 1]);
    }
    let mut f12 = f;
    f12.version = DLPackVersion { major: 1, minor: 2 };
    assert!(matches!(view_error(f12), TensorError::NullStrides { .. }));
}

#[test]
fn negative_dimensions() {
    let err = view_error(f32s(&[2, 3, -4]));
    assert_eq!(err, TensorError::NegativeDim { axis: 2, value: -4 });
    assert_eq!(
        err.to_string(),
        "shape[2] is -4; dimensions must be non-negative"
    );
}

#[test]
fn element_count_overflow() {
    let big = 1_i64 << 32;
    assert!(matches!(
        view_error(f32s(&[big, big])),
        TensorError::TooManyElements { .. }
    ));
    // An empty tensor's other dimensions still have to multiply within isize.
    let err = view_error(f32s(&[0, i64::MAX, 2]));
    assert!(matches!(err, TensorError::TooManyElements { .. }));
    assert_eq!(
        err.to_string(),
        format!(
            "the non-zero dimensions of shape [0, {}, 2] multiply to more than {}; an empty \
             tensor's other dimensions must multiply within that too",
            i64::MAX,
            isize::MAX
        )
    );
    let (t, _) = f32s(&[0, i64::MAX]).import();
    assert!(t.unwrap().view().unwrap().is_empty());
}

#[test]
fn byte_extent_overflow() {
    // Few elements, but far apart.
    let f = f32s(&[2, 2]).strides(Some(&[i64::MAX, 1]));
    assert!(matches!(view_error(f), TensorError::ExtentOverflow { .. }));
    let f = f32s(&[2, 2]).strides(Some(&[i64::MIN, 1]));
    assert!(matches!(view_error(f), TensorError::ExtentOverflow { .. }));
    // Elements within isize, bytes not.
    let mut f = f32s(&[1]);
    f.dtype = DataType::F64;
    f.shape = Some(vec![1 << 61]);
    f.strides = Some(vec![1]);
    assert!(matches!(view_error(f), TensorError::ExtentOverflow { .. }));
    // Many axes, each reaching far.
    let mut f = f32s(&[1]);
    f.shape = Some(vec![2; 62]);
    f.strides = Some(vec![i64::MAX; 62]);
    let err = view_error(f);
    assert!(matches!(err, TensorError::ExtentOverflow { .. }), "{err}");
}

#[test]
fn byte_offset_overflow() {
    for byte_offset in [u64::MAX, isize::MAX as u64, isize::MAX as u64 - 3] {
        let mut f = f32s(&[1]);
        f.byte_offset = byte_offset;
        assert_eq!(
            view_error(f),
            TensorError::ByteOffsetOverflow { byte_offset }
        );
    }
    // Empty tensors read nothing, but their offset is still bounded.
    let mut f = f32s(&[0]);
    f.byte_offset = u64::MAX;
    assert!(matches!(
        view_error(f),
        TensorError::ByteOffsetOverflow { .. }
    ));
}

#[test]
fn address_space_overflow() {
    // Past the top of the address space: the view is fine, reading is refused.
    let mut f = f32s(&[2]);
    f.data = Data::Addr(usize::MAX - 3);
    let err = slice_error::<f32>(f);
    assert!(matches!(err, TensorError::AddressOverflow { .. }), "{err}");
    // Below zero through a negative stride.
    let mut f = f32s(&[3]).strides(Some(&[-1]));
    f.data = Data::Addr(4);
    let (t, _) = f.import();
    let err = t.unwrap().view().unwrap().iter::<f32>().unwrap_err();
    assert!(matches!(
        err,
        Error::Tensor(TensorError::AddressOverflow { .. })
    ));
}

#[test]
fn unknown_or_invalid_dtypes() {
    let cases = [
        DataType::new(DLDataTypeCode(99), 8, 1),
        DataType::new(DLDataTypeCode::FLOAT, 0, 1),
        DataType::new(DLDataTypeCode::FLOAT, 32, 0),
        DataType::new(DLDataTypeCode::BOOL, 16, 1),
        DataType::new(DLDataTypeCode::FLOAT8_E4M3FN, 16, 1),
        DataType::new(DLDataTypeCode::BFLOAT, 32, 1),
    ];
    for dtype in cases {
        let mut f = f32s(&[1]);
        f.dtype = dtype;
        let err = view_error(f);
        assert!(
            matches!(err, TensorError::InvalidDataType { dtype: d, .. } if d == dtype),
            "{err}"
        );
    }
    let mut f = f32s(&[1]);
    f.dtype = DataType::new(DLDataTypeCode(99), 8, 1);
    assert!(
        view_error(f)
            .to_string()
            .starts_with("dtype is unknown(code=99")
    );
}

#[test]
fn packed_sub_byte_must_be_compact() {
    let mut f = Foreign::bytes(&[0; 4], DataType::FLOAT4_E2M1FN, &[3]).strides(Some(&[2]));
    assert_eq!(
        view_error(f.clone()),
        TensorError::PackedStrides {
            dtype: DataType::FLOAT4_E2M1FN,
            axis: 0,
            stride: 2,
            expected: 1
        }
    );
    f.flags = Flags::IS_SUBBYTE_TYPE_PADDED.bits();
    let (t, _) = f.import();
    assert!(t.unwrap().view().is_ok());
}

#[test]
fn read_only_refuses_mutable_views() {
    let mut f = f32s(&[2]);
    f.flags = Flags::READ_ONLY.bits();
    let (t, released) = f.import();
    let mut t = t.unwrap();
    assert_eq!(
        t.view_mut().unwrap_err(),
        Error::Tensor(TensorError::ReadOnly)
    );
    assert_eq!(t.view().unwrap().as_slice::<f32>().unwrap(), [1.0, 1.0]);
    drop(t);
    assert_eq!(released.get(), 1);
}

#[test]
fn misaligned_data() {
    let mut f = Foreign::of(&[0_u8; 12], &[2]);
    f.dtype = DataType::F32;
    f.byte_offset = 1;
    let err = slice_error::<f32>(f.clone());
    assert!(
        matches!(err, TensorError::Misaligned { align: 4, .. }),
        "{err}"
    );
    let (t, _) = f.import();
    let t = t.unwrap();
    let view = t.view().unwrap();
    assert!(view.iter::<f32>().is_err());
    assert_eq!(view.as_bytes().unwrap().len(), 8, "bytes need no alignment");
}

#[test]
fn devices_the_cpu_cannot_read() {
    for device in [
        Device::cuda(0),
        Device::rocm(1),
        Device::new(dlpack_core::ffi::DLDeviceType(99), 0),
    ] {
        let mut f = f32s(&[2]);
        f.device = device;
        let (t, _) = f.import();
        let t = t.unwrap();
        let view = t.view().unwrap();
        assert_eq!(view.shape(), [2], "metadata is readable");
        assert_eq!(
            view.as_slice::<f32>().unwrap_err(),
            Error::Tensor(TensorError::NotHostAccessible { device })
        );
        assert!(view.iter::<f32>().is_err());
        assert!(view.as_bytes().is_err());
        assert!(view.to_dlpack_tensor().is_err());
    }
    let mut f = f32s(&[2]);
    f.device = Device::cuda(0);
    assert_eq!(
        slice_error::<f32>(f).to_string(),
        "the data lives on cuda:0, which the CPU cannot read; copy it to the host first"
    );
}

#[test]
fn null_data() {
    let mut f = f32s(&[3]);
    f.data = Data::Null;
    assert_eq!(slice_error::<f32>(f), TensorError::NullData { elements: 3 });
}

#[test]
fn wrong_element_type() {
    let err = slice_error::<u32>(f32s(&[2]));
    assert_eq!(err.to_string(), "dtype is float32; u32 reads uint32");
    let mut f = f32s(&[2]);
    f.dtype = DataType::F32.with_lanes(2);
    assert!(matches!(
        slice_error::<f32>(f),
        TensorError::DataTypeMismatch { .. }
    ));
}

#[test]
fn strided_tensors_are_not_slices() {
    let f = Foreign::of(&[1_u8, 2, 3, 4, 5, 6], &[3, 2]).strides(Some(&[1, 3]));
    assert!(matches!(
        slice_error::<u8>(f),
        TensorError::NotContiguous { .. }
    ));
}

#[test]
fn overlapping_strides_refuse_mutable_access() {
    let (t, _) = Foreign::of(&[1_u8, 2, 3], &[2, 3])
        .strides(Some(&[0, 1]))
        .import();
    let mut t = t.unwrap();
    // Reading a broadcast is fine.
    assert_eq!(
        t.view().unwrap().to_vec::<u8>().unwrap(),
        [1, 2, 3, 1, 2, 3]
    );
    let mut view = t.view_mut().unwrap();
    assert!(matches!(
        view.iter_mut::<u8>().unwrap_err(),
        Error::Tensor(TensorError::Overlapping { .. })
    ));
    // Strides that interleave without touching the same element are not overlapping.
    let (t, _) = Foreign::of(&[0_u8; 6], &[2, 3])
        .strides(Some(&[1, 2]))
        .import();
    assert!(t.unwrap().view_mut().unwrap().iter_mut::<u8>().is_ok());
}

#[test]
fn bool_bytes_must_be_zero_or_one() {
    let mut f = Foreign::bytes(&[0, 1, 2, 1], DataType::BOOL, &[4]);
    assert_eq!(
        slice_error::<bool>(f.clone()),
        TensorError::InvalidBool { index: 2, byte: 2 }
    );
    let (t, _) = f.clone().import();
    let mut t = t.unwrap();
    assert!(t.view().unwrap().iter::<bool>().is_err());
    assert!(t.view().unwrap().to_vec::<bool>().is_err());
    assert!(t.view_mut().unwrap().as_slice_mut::<bool>().is_err());
    assert!(t.view_mut().unwrap().iter_mut::<bool>().is_err());
    // The bytes are still readable as bytes, and a view that skips the bad one is fine.
    assert_eq!(t.view().unwrap().as_bytes().unwrap(), [0, 1, 2, 1]);
    f.shape = Some(vec![2]);
    f.strides = Some(vec![3]);
    f.byte_offset = 0;
    let (t, _) = f.import();
    assert_eq!(
        t.unwrap().view().unwrap().to_vec::<bool>().unwrap(),
        [false, true]
    );
}

#[test]
fn unsupported_versions_are_released() {
    for major in [0, 2, u32::MAX] {
        let mut f = f32s(&[2]);
        f.version = DLPackVersion { major, minor: 0 };
        let (result, released) = f.import();
        let err = result.unwrap_err();
        assert_eq!(released.get(), 1, "the deleter ran before the error");
        assert_eq!(
            err,
            Error::Tensor(TensorError::UnsupportedVersion {
                version: DLPackVersion { major, minor: 0 }
            })
        );
    }
    let mut f = f32s(&[2]);
    f.version = DLPackVersion { major: 2, minor: 1 };
    let err = f.import().0.unwrap_err();
    assert_eq!(
        err.to_string(),
        "the producer's DLPack major version is 2 (version 2.1); this crate reads major version 1 (the tensor was released)"
    );
    // A newer minor version of major 1 is read.
    let mut f = f32s(&[2]);
    f.version = DLPackVersion {
        major: 1,
        minor: 99,
    };
    assert!(f.import().0.unwrap().view().is_ok());
}

#[test]
fn null_pointers() {
    let null: *mut DLManagedTensorVersioned = core::ptr::null_mut();
    // SAFETY: null is always allowed.
    let err = unsafe { ManagedTensor::from_raw(null) }.unwrap_err();
    assert_eq!(err, Error::Tensor(TensorError::NullPointer));
    // SAFETY: as above.
    let err =
        unsafe { dlpack_core::LegacyManagedTensor::from_raw(core::ptr::null_mut()) }.unwrap_err();
    assert_eq!(err.to_string(), "the managed tensor pointer is null");
}
