//! The non-owning export (`TensorParts::to_dl_tensor`): the pure-Rust half of DLPack's C
//! exchange API, run under Miri.

use dlpack_core::ffi::DLPackVersion;
use dlpack_core::tensor::{CheckedLayout, Flags, TensorError, TensorParts, TensorView};
use dlpack_core::{DataType, Device, Error};

#[test]
fn a_borrowed_dl_tensor_points_at_the_owners_layout_and_reads_back() {
    let mut data = [1.0_f64, 2.0, 3.0, 4.0, 5.0, 6.0];
    let layout = CheckedLayout::new(
        &TensorParts::host(data.as_mut_ptr(), &[2_usize, 3]).with_strides(&[1_i64, 2]),
    )
    .unwrap();
    let parts = TensorParts::from_layout(data.as_mut_ptr().cast(), Device::CPU, &layout);
    let raw = parts.to_dl_tensor().unwrap();
    assert_eq!(raw.shape.cast_const(), layout.shape().as_ptr());
    assert_eq!(raw.strides.cast_const(), layout.strides().as_ptr());
    // SAFETY: `raw` describes `data` through `layout`, both alive and unchanged here.
    let view =
        unsafe { TensorView::from_dl_tensor(&raw, Flags::EMPTY, DLPackVersion::CURRENT) }.unwrap();
    assert_eq!(
        view.to_vec::<f64>().unwrap(),
        [1.0, 3.0, 5.0, 2.0, 4.0, 6.0]
    );
}

#[test]
fn parts_built_field_by_field_are_checked_before_they_are_lent() {
    let mut data = [0_u8; 4];
    let shape = [2_i64, 2];
    let ok = TensorParts::host(data.as_mut_ptr(), &shape).with_strides(&[2_i64, 1]);
    let raw = ok.to_dl_tensor().unwrap();
    assert_eq!((raw.ndim, raw.dtype), (2, DataType::U8));
    // A stride past the data's extent is fine to describe (the extent fits in isize), but a
    // negative dimension is not.
    let negative = [2_i64, -1];
    let err = TensorParts::host(data.as_mut_ptr(), &negative)
        .with_strides(&[1_i64, 1])
        .to_dl_tensor()
        .unwrap_err();
    assert_eq!(
        err,
        Error::Tensor(TensorError::NegativeDim { axis: 1, value: -1 })
    );
    let scalar = TensorParts::host(data.as_mut_ptr(), &[] as &[i64])
        .to_dl_tensor()
        .unwrap();
    assert!(scalar.strides.is_null() && scalar.ndim == 0);
}

#[test]
fn what_a_dl_tensor_cannot_say_is_refused() {
    let mut data = [0_u8; 4];
    let shape = [4_i64];
    let strides = [1_i64];
    let parts = TensorParts::host(data.as_mut_ptr(), &shape);
    assert_eq!(
        parts.to_dl_tensor().unwrap_err(),
        Error::Tensor(TensorError::BorrowedDims { field: "strides" })
    );
    assert_eq!(
        TensorParts::host(data.as_mut_ptr(), &[4_usize])
            .with_strides(&strides)
            .to_dl_tensor()
            .unwrap_err(),
        Error::Tensor(TensorError::BorrowedDims { field: "shape" })
    );
    let read_only = parts.with_strides(&strides).with_flags(Flags::READ_ONLY);
    assert_eq!(
        read_only.to_dl_tensor().unwrap_err(),
        Error::Tensor(TensorError::BorrowedFlags {
            flags: Flags::READ_ONLY
        })
    );
    assert!(
        read_only
            .to_dl_tensor()
            .unwrap_err()
            .to_string()
            .starts_with("a borrowed DLTensor cannot carry the flags")
    );
}
