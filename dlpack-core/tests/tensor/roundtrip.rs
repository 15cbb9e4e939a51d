//! Round trips: every element type, ranks 0 to 8, empty tensors, strided and negative-stride
//! layouts, legacy and versioned, and the `from_dlpack` conversions.

use dlpack_core::tensor::ToDlpackTensor;
use std::sync::Arc;

use super::Foreign;
use dlpack_core::ffi::{DLDataTypeCode, DLPackVersion};
use dlpack_core::tensor::{Flags, TensorOwner, TensorParts};
use dlpack_core::{
    DataType, Device, Element, LegacyManagedTensor, ManagedTensor, TensorView, from_dlpack,
};

/// Checks one element type through every path, with `values` (at least 6 distinct values).
fn round_trip<T: Element + PartialEq + core::fmt::Debug>(values: &[T]) {
    let values = &values[..6];
    // Versioned, from_vec, through a raw pointer and back.
    let tensor = ManagedTensor::from_vec(values.to_vec(), &[2, 3]).unwrap();
    assert_eq!(tensor.as_raw().version, DLPackVersion::CURRENT);
    assert_eq!(tensor.flags(), Flags::EMPTY);
    // SAFETY: straight from `into_raw`.
    let tensor = unsafe { ManagedTensor::from_raw(tensor.into_raw()) }.unwrap();
    let view = tensor.view().unwrap();
    assert_eq!(view.dtype(), T::DATA_TYPE);
    assert_eq!(view.device(), Device::CPU);
    assert_eq!((view.shape(), view.strides()), (&[2, 3][..], &[3, 1][..]));
    assert_eq!(view.as_slice::<T>().unwrap(), values);
    assert_eq!(view.iter::<T>().unwrap().collect::<Vec<_>>(), values);
    assert_eq!(view.to_vec::<T>().unwrap(), values);
    assert_eq!(
        view.as_bytes().unwrap().len(),
        6 * size_of::<T>(),
        "{}",
        T::DATA_TYPE
    );
    // A copy, then the conversions of `from_dlpack`.
    let copy = view.to_dlpack_tensor().unwrap();
    assert_eq!(copy.flags(), Flags::IS_COPIED);
    assert_eq!(copy.view().unwrap().as_slice::<T>().unwrap(), values);
    let back: Vec<T> = from_dlpack(&tensor).unwrap();
    assert_eq!(back, values);
    // Boxed and shared exports.
    let boxed = ManagedTensor::from_boxed(values.to_vec().into_boxed_slice(), &[6]).unwrap();
    assert_eq!(boxed.view().unwrap().as_slice::<T>().unwrap(), values);
    let shared: Arc<[T]> = values.into();
    let arc = ManagedTensor::from_arc(shared.clone(), &[3, 2]).unwrap();
    assert_eq!(arc.flags(), Flags::READ_ONLY);
    assert_eq!(arc.view().unwrap().as_slice::<T>().unwrap(), values);
    assert_eq!(Arc::strong_count(&shared), 2);
    drop(arc);
    assert_eq!(Arc::strong_count(&shared), 1);
    // Legacy, and conversions both ways.
    let legacy = ManagedTensor::from_vec(values.to_vec(), &[6, 1])
        .and_then(ManagedTensor::into_legacy)
        .unwrap();
    // SAFETY: straight from `into_raw`.
    let legacy = unsafe { LegacyManagedTensor::from_raw(legacy.into_raw()) }.unwrap();
    assert_eq!(legacy.view().unwrap().as_slice::<T>().unwrap(), values);
    let versioned = legacy.into_versioned().unwrap();
    assert_eq!(versioned.view().unwrap().shape(), [6, 1]);
    let legacy = versioned.into_legacy().unwrap();
    assert_eq!(legacy.view().unwrap().to_vec::<T>().unwrap(), values);
    // A writable view.
    let mut tensor = ManagedTensor::from_vec(values.to_vec(), &[6]).unwrap();
    let mut view = tensor.view_mut().unwrap();
    view.as_slice_mut::<T>().unwrap().reverse();
    let reversed: Vec<T> = values.iter().rev().copied().collect();
    assert_eq!(tensor.view().unwrap().as_slice::<T>().unwrap(), reversed);
    // A foreign producer's compact tensor.
    let (imported, released) = Foreign::of(values, &[3, 2]).import();
    assert_eq!(
        imported.unwrap().view().unwrap().as_slice::<T>().unwrap(),
        values
    );
    assert_eq!(released.get(), 1);
}

#[test]
fn every_element_type() {
    round_trip(&[-1_i8, 0, 1, 2, i8::MIN, i8::MAX]);
    round_trip(&[-1_i16, 0, 1, 2, i16::MIN, i16::MAX]);
    round_trip(&[-1_i32, 0, 1, 2, i32::MIN, i32::MAX]);
    round_trip(&[-1_i64, 0, 1, 2, i64::MIN, i64::MAX]);
    round_trip(&[-1_i128, 0, 1, 2, i128::MIN, i128::MAX]);
    round_trip(&[-1_isize, 0, 1, 2, isize::MIN, isize::MAX]);
    round_trip(&[0_u8, 1, 2, 3, 128, u8::MAX]);
    round_trip(&[0_u16, 1, 2, 3, 1 << 15, u16::MAX]);
    round_trip(&[0_u32, 1, 2, 3, 1 << 31, u32::MAX]);
    round_trip(&[0_u64, 1, 2, 3, 1 << 63, u64::MAX]);
    round_trip(&[0_u128, 1, 2, 3, 1 << 127, u128::MAX]);
    round_trip(&[0_usize, 1, 2, 3, 4, usize::MAX]);
    round_trip(&[0.0_f32, -1.5, 2.25, f32::MIN, f32::MAX, f32::INFINITY]);
    round_trip(&[0.0_f64, -1.5, 2.25, f64::MIN, f64::MAX, f64::NEG_INFINITY]);
    round_trip(&[true, false, false, true, true, false]);
    #[cfg(feature = "half")]
    {
        use half::{bf16, f16};
        let f = |x: f32| (f16::from_f32(x), bf16::from_f32(x));
        let (h, b): (Vec<f16>, Vec<bf16>) = [0.0, -1.5, 2.25, 3.0, 65504.0, -2.0]
            .into_iter()
            .map(f)
            .unzip();
        round_trip(&h);
        round_trip(&b);
    }
    #[cfg(feature = "num-complex")]
    {
        use num_complex::Complex;
        let c: Vec<Complex<f32>> = (0..6).map(|i| Complex::new(i as f32, -i as f32)).collect();
        round_trip(&c);
        let c: Vec<Complex<f64>> = (0..6).map(|i| Complex::new(-i as f64, i as f64)).collect();
        round_trip(&c);
    }
}

#[test]
fn ranks_zero_to_eight() {
    for rank in 0..=8_usize {
        let shape: Vec<usize> = (0..rank).map(|i| 1 + i % 3).collect();
        let count: usize = shape.iter().product();
        let data: Vec<u32> = (0..count as u32).collect();
        let tensor = ManagedTensor::from_vec(data.clone(), &shape).unwrap();
        let view = tensor.view().unwrap();
        assert_eq!(view.ndim(), rank);
        assert_eq!(view.len(), count);
        let expect_shape: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        assert_eq!(view.shape(), expect_shape);
        assert_eq!(view.strides(), super::compact_strides(&expect_shape));
        assert_eq!(view.as_slice::<u32>().unwrap(), data);
        assert_eq!(view.iter::<u32>().unwrap().collect::<Vec<_>>(), data);
        let legacy = ManagedTensor::from_vec(data.clone(), &shape)
            .and_then(ManagedTensor::into_legacy)
            .unwrap();
        assert_eq!(legacy.view().unwrap().shape(), expect_shape);
    }
}

#[test]
fn empty_tensors() {
    for shape in [&[0_usize][..], &[2, 0, 3], &[0, 0]] {
        let tensor = ManagedTensor::from_vec(Vec::<f32>::new(), shape).unwrap();
        let view = tensor.view().unwrap();
        assert!(view.is_empty());
        assert!(view.is_compact());
        assert_eq!(view.as_slice::<f32>().unwrap(), &[] as &[f32]);
        assert_eq!(view.iter::<f32>().unwrap().count(), 0);
        assert!(view.byte_range().is_empty());
        let copy = view.to_dlpack_tensor().unwrap();
        assert_eq!(copy.view().unwrap().shape(), view.shape());
    }
    // DLPack asks producers for a null data pointer on empty tensors, with any strides.
    let mut empty = Foreign::of::<f64>(&[], &[3, 0]).strides(Some(&[-5, 99]));
    empty.data = super::Data::Null;
    let (tensor, released) = empty.import();
    let tensor = tensor.unwrap();
    assert_eq!(
        tensor.view().unwrap().as_slice::<f64>().unwrap(),
        &[] as &[f64]
    );
    drop(tensor);
    assert_eq!(released.get(), 1);
}

#[test]
fn strided_and_negative_strides() {
    // A 3 x 4 row-major buffer of 0..12 read four ways.
    let data: Vec<i32> = (0..12).collect();
    let read = |shape: &[i64], strides: &[i64], byte_offset: u64| -> Vec<i32> {
        let mut f = Foreign::of(&data, shape).strides(Some(strides));
        f.byte_offset = byte_offset;
        let (tensor, _) = f.import();
        let tensor = tensor.unwrap();
        let view = tensor.view().unwrap();
        let items = view.iter::<i32>().unwrap().collect::<Vec<_>>();
        assert_eq!(view.to_vec::<i32>().unwrap(), items);
        let copy = view.to_dlpack_tensor().unwrap();
        assert_eq!(copy.view().unwrap().as_slice::<i32>().unwrap(), items);
        items
    };
    // Transposed.
    assert_eq!(
        read(&[4, 3], &[1, 4], 0),
        [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
    );
    // Rows reversed: first element is row 2.
    assert_eq!(
        read(&[3, 4], &[-4, 1], 32),
        [8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3]
    );
    // Both axes reversed.
    assert_eq!(
        read(&[3, 4], &[-4, -1], 44),
        (0..12).rev().collect::<Vec<_>>()
    );
    // Every other column, broadcast over a new axis of stride 0.
    assert_eq!(
        read(&[2, 3, 2], &[0, 4, 2], 0),
        [0, 2, 4, 6, 8, 10, 0, 2, 4, 6, 8, 10]
    );
    // Mutable iteration with a negative stride writes in index order.
    let mut f = Foreign::of(&data[..4], &[4]).strides(Some(&[-1]));
    f.byte_offset = 12;
    let (tensor, _) = f.import();
    let mut tensor = tensor.unwrap();
    for (i, x) in tensor
        .view_mut()
        .unwrap()
        .iter_mut::<i32>()
        .unwrap()
        .enumerate()
    {
        *x = 10 * i as i32;
    }
    let view = tensor.view().unwrap();
    assert_eq!(
        view.iter::<i32>().unwrap().collect::<Vec<_>>(),
        [0, 10, 20, 30]
    );
    assert_eq!(view.byte_range(), 0..16);
}

#[test]
fn owner_exports_keep_their_layout() {
    struct Reversed(Vec<u16>);
    // SAFETY: three elements from byte 4 downwards, all inside the Vec.
    unsafe impl TensorOwner for Reversed {
        fn describe(&mut self) -> TensorParts<'_> {
            TensorParts::host(self.0.as_mut_ptr(), &[3_usize])
                .with_strides(&[-1_isize])
                .with_byte_offset(4)
        }
    }
    let tensor = ManagedTensor::from_owner(Reversed(vec![1, 2, 3])).unwrap();
    let view = tensor.view().unwrap();
    assert_eq!((view.strides(), view.byte_offset()), (&[-1][..], 4));
    assert_eq!(view.byte_range(), 0..6);
    assert!(!view.is_compact());
    assert_eq!(view.iter::<u16>().unwrap().collect::<Vec<_>>(), [3, 2, 1]);
    let legacy = tensor.into_legacy().unwrap();
    assert_eq!(legacy.view().unwrap().strides(), [-1]);
    assert_eq!(legacy.view().unwrap().to_vec::<u16>().unwrap(), [3, 2, 1]);
}

#[test]
fn non_cpu_exports_and_views() {
    struct OnGpu;
    // SAFETY: the address is never read on the host (the tests only read metadata), and the
    // "device memory" is notionally owned by this zero-sized owner.
    unsafe impl TensorOwner for OnGpu {
        fn describe(&mut self) -> TensorParts<'_> {
            let ptr = core::ptr::without_provenance_mut(0x7000_0000_0000);
            TensorParts::new(ptr, Device::cuda(1), DataType::BF16, &[4_usize, 8])
                .with_strides(&[1_i64, 4])
                .with_byte_offset(512)
                .with_flags(Flags::READ_ONLY)
        }
    }
    let mut tensor = ManagedTensor::from_owner(OnGpu).unwrap();
    assert_eq!(tensor.device(), Device::cuda(1));
    let view = tensor.view().unwrap();
    assert_eq!((view.shape(), view.strides()), (&[4, 8][..], &[1, 4][..]));
    assert_eq!(view.byte_offset(), 512);
    assert_eq!(view.data_ptr().addr(), 0x7000_0000_0000);
    assert!(view.as_bytes().is_err());
    assert!(tensor.view_mut().is_err());
    assert!(tensor.into_legacy().is_err(), "READ_ONLY cannot be legacy");
}

#[test]
fn host_side_devices_are_readable() {
    for device in [Device::CUDA_HOST, Device::CUDA_MANAGED, Device::ROCM_HOST] {
        let mut f = Foreign::of(&[1_u8, 2], &[2]);
        f.device = device;
        let (tensor, _) = f.import();
        assert_eq!(
            tensor.unwrap().view().unwrap().as_slice::<u8>().unwrap(),
            [1, 2]
        );
    }
}

#[test]
fn sub_byte_types() {
    let fp4 = DataType::FLOAT4_E2M1FN;
    // Packed: 5 elements in 3 bytes.
    let (tensor, _) = Foreign::bytes(&[0x21, 0x43, 0x05], fp4, &[5]).import();
    let tensor = tensor.unwrap();
    let view = tensor.view().unwrap();
    assert!(view.is_packed());
    assert_eq!(view.byte_range(), 0..3);
    assert_eq!(view.as_bytes().unwrap(), [0x21, 0x43, 0x05]);
    let copy = view.to_dlpack_tensor().unwrap();
    assert_eq!(copy.flags(), Flags::IS_COPIED);
    assert_eq!(copy.view().unwrap().as_bytes().unwrap(), [0x21, 0x43, 0x05]);
    // Padded: one element per byte, strides allowed.
    let mut f = Foreign::bytes(&[1, 9, 2, 9, 3], fp4, &[3]).strides(Some(&[2]));
    f.flags = Flags::IS_SUBBYTE_TYPE_PADDED.bits();
    let (tensor, _) = f.import();
    let tensor = tensor.unwrap();
    let view = tensor.view().unwrap();
    assert!(!view.is_packed());
    assert_eq!(view.byte_range(), 0..5);
    let copy = view.to_dlpack_tensor().unwrap();
    assert_eq!(
        copy.flags(),
        Flags::IS_COPIED | Flags::IS_SUBBYTE_TYPE_PADDED
    );
    assert_eq!(copy.view().unwrap().as_bytes().unwrap(), [1, 2, 3]);
    // int4, packed, rank 2.
    let int4 = DataType::new(DLDataTypeCode::INT, 4, 1);
    let (tensor, _) = Foreign::bytes(&[0xff, 0x0f, 0x12], int4, &[2, 3]).import();
    assert_eq!(tensor.unwrap().view().unwrap().byte_range(), 0..3);
}

#[test]
fn from_dlpack_sources_and_targets() {
    let v = vec![1.5_f32, 2.5, 3.5];
    let t: ManagedTensor = from_dlpack(&v).unwrap();
    assert_eq!(t.flags(), Flags::IS_COPIED);
    assert_eq!(t.view().unwrap().shape(), [3]);
    let t: ManagedTensor = from_dlpack(&v[1..]).unwrap();
    assert_eq!(t.view().unwrap().as_slice::<f32>().unwrap(), [2.5, 3.5]);
    let boxed: Box<[f32]> = v.clone().into_boxed_slice();
    let t: LegacyManagedTensor = from_dlpack(&boxed).unwrap();
    assert_eq!(t.view().unwrap().as_slice::<f32>().unwrap(), v);
    let shared: Arc<[f32]> = v.clone().into();
    let t: ManagedTensor = from_dlpack(&shared).unwrap();
    assert_eq!(t.flags(), Flags::READ_ONLY);
    assert_eq!(
        t.view().unwrap().as_slice::<f32>().unwrap().as_ptr(),
        shared.as_ptr(),
        "shared, not copied"
    );
    let copied: ManagedTensor = from_dlpack(&t).unwrap();
    assert_eq!(copied.flags(), Flags::IS_COPIED);
    let view: TensorView<'_> = t.view().unwrap();
    let again: Vec<f32> = from_dlpack(&view).unwrap();
    assert_eq!(again, v);
    // The dtype and device read off a view convert like any others.
    let dt: DataType = from_dlpack(&view.dtype()).unwrap();
    let dev: Device = from_dlpack(&view.device()).unwrap();
    assert_eq!((dt, dev), (DataType::F32, Device::CPU));
    // A wrong element type is an error, not a reinterpretation.
    let wrong: Result<Vec<u32>, _> = from_dlpack(&t);
    assert!(wrong.is_err());
}

#[test]
fn legacy_null_strides_are_compact() {
    let (tensor, released) = Foreign::of(&[1_i16, 2, 3, 4, 5, 6], &[3, 2])
        .strides(None)
        .import_legacy();
    let view = tensor.view().unwrap();
    assert_eq!(view.strides(), [2, 1]);
    assert_eq!(view.as_slice::<i16>().unwrap(), [1, 2, 3, 4, 5, 6]);
    drop(view);
    let versioned = tensor.into_versioned().unwrap();
    assert_eq!(released.get(), 0);
    assert!(
        !versioned.as_raw().dl_tensor.strides.is_null(),
        "1.3 exports carry strides"
    );
    assert_eq!(versioned.view().unwrap().strides(), [2, 1]);
    drop(versioned);
    assert_eq!(released.get(), 1);
}

#[test]
fn debug_output() {
    let tensor = ManagedTensor::from_vec(vec![0_u8; 2], &[2]).unwrap();
    assert_eq!(
        format!("{tensor:?}"),
        "ManagedTensor { version: 1.3, dtype: DataType(uint8), device: Device(cpu), shape: [2], strides: [1], flags: Flags(empty) }"
    );
    // The legacy struct has no version and no flags to show.
    let legacy = tensor.into_legacy().unwrap();
    assert_eq!(
        format!("{legacy:?}"),
        "LegacyManagedTensor { dtype: DataType(uint8), device: Device(cpu), shape: [2], strides: [1] }"
    );
    // Both views show the metadata they share, under their own name.
    let mut tensor = legacy.into_versioned().unwrap();
    let fields = "dtype: DataType(uint8), device: Device(cpu), shape: [2], strides: [1], byte_offset: 0, flags: Flags(empty), ..";
    let view = tensor.view().unwrap();
    assert_eq!(format!("{view:?}"), format!("TensorView {{ {fields} }}"));
    assert_eq!(format!("{:?}", *view), format!("TensorMeta {{ {fields} }}"));
    drop(view);
    let view = tensor.view_mut().unwrap();
    assert_eq!(format!("{view:?}"), format!("TensorViewMut {{ {fields} }}"));
    let mut f = Foreign::of(&[0_u8], &[-1]);
    f.flags = 1;
    let (tensor, _) = f.import();
    assert!(format!("{:?}", tensor.unwrap()).contains("invalid: shape[0] is -1;"));
}

#[test]
fn owners_may_hold_their_data_inline() {
    // The data lives inside the owner, which moves into the export's allocation: the
    // description made after the move is the one exported, so the pointer stays valid.
    struct Inline([f32; 4]);
    // SAFETY: the four elements are the owner's own array, which stays put once exported.
    unsafe impl TensorOwner for Inline {
        fn describe(&mut self) -> TensorParts<'_> {
            TensorParts::host(self.0.as_mut_ptr(), &[2_usize, 2])
        }
    }
    let mut tensor = ManagedTensor::from_owner(Inline([1.0, 2.0, 3.0, 4.0])).unwrap();
    tensor.view_mut().unwrap().as_slice_mut::<f32>().unwrap()[3] = 40.0;
    assert_eq!(
        tensor.view().unwrap().as_slice::<f32>().unwrap(),
        [1.0, 2.0, 3.0, 40.0]
    );
    let legacy = LegacyManagedTensor::from_legacy_owner(Inline([5.0; 4])).unwrap();
    assert_eq!(legacy.view().unwrap().to_vec::<f32>().unwrap(), [5.0; 4]);
}
