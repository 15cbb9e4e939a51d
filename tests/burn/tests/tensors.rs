//! burn tensors on `Device::flex()` across DLPack: out and in with the copies counted (by
//! address), what burn's in-place ops reach of an import (a copy of their own, never the
//! producer's memory), zero-size and 0-d shapes, the device both ways, and the refusals.

use std::sync::Arc;

use burn_std::{AllocationProperty, BoolStore, DType, TensorData};
use burn_tensor::{Bool, Device, Int, Tensor};
use dlpack_core::bridges::burn;
use dlpack_core::tensor::{Flags, ToDlpackTensor};
use dlpack_core::{DlpackDevice, ManagedTensor, from_dlpack};

fn flex() -> Device {
    Device::flex()
}

/// A read-only DLPack tensor over `values`, which the test keeps reading.
fn shared_f32(values: &Arc<[f32]>, shape: &[usize]) -> ManagedTensor {
    ManagedTensor::from_arc(Arc::clone(values), shape).unwrap()
}

#[test]
fn the_flex_device_is_the_cpu_both_ways() {
    assert_eq!(flex().dlpack_device().unwrap(), dlpack_core::Device::CPU);
    assert_eq!(
        Device::from_dlpack_device(dlpack_core::Device::CPU).unwrap(),
        flex()
    );
    assert_eq!(
        from_dlpack::<Device>(&dlpack_core::Device::CPU).unwrap(),
        flex()
    );
    assert_eq!(
        from_dlpack::<dlpack_core::Device>(&flex()).unwrap(),
        dlpack_core::Device::CPU
    );
    // A burn tensor's own device answers the same.
    let t = Tensor::<1>::from_data(TensorData::new(vec![1.0_f32], [1]), &flex());
    assert_eq!(
        t.device().dlpack_device().unwrap(),
        dlpack_core::Device::CPU
    );

    let err = from_dlpack::<Device>(&dlpack_core::Device::cuda(0)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "burn_tensor::Device has no DLPack device for cuda:0; it supports: cpu"
    );
}

#[test]
fn a_tensor_leaves_as_its_own_memory_writable() {
    let data = TensorData::new((0..6).map(|x| x as f32).collect::<Vec<_>>(), [2, 3]);
    let address = data.as_bytes().as_ptr();
    let t = Tensor::<2>::from_data(data, &flex());
    // flex keeps `TensorData`'s bytes, and gives them back to a tensor no one else holds.
    let exported = burn::tensor_to_dlpack(t).unwrap();
    let view = exported.view().unwrap();
    assert_eq!(view.data_ptr(), address.cast(), "no copy on the way out");
    assert_eq!(
        (view.shape(), exported.flags()),
        (&[2, 3][..], Flags::EMPTY)
    );
    assert_eq!(
        view.as_slice::<f32>().unwrap(),
        [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    );
}

#[test]
fn a_shared_tensor_leaves_as_a_copy_and_stays_the_callers() {
    // (`from_data` converts to the device's default int type unless told the data's own.)
    let data = TensorData::new(vec![5_i64, 6, 7], [3]);
    let address = data.as_bytes().as_ptr(); // where flex keeps `t`'s elements
    let t = Tensor::<1, Int>::from_data(data, (&flex(), DType::I64));
    let mut exported = t.to_dlpack_tensor().unwrap();
    assert_ne!(exported.view().unwrap().data_ptr(), address.cast());
    exported.view_mut().unwrap().as_slice_mut::<i64>().unwrap()[0] = 99;
    assert_eq!(t.into_data().as_slice::<i64>().unwrap(), [5, 6, 7]);
}

#[test]
fn a_tensor_arrives_over_the_producers_memory_and_burn_writes_a_copy() {
    let values: Arc<[f32]> = Arc::from([1.0, 2.0, 3.0, 4.0]);
    let t: Tensor<2> = burn::tensor_from_dlpack(shared_f32(&values, &[2, 2]), &flex()).unwrap();
    assert_eq!(t.dims(), [2, 2]);
    // Read where it lies: the unique tensor's data is the producer's bytes.
    let data = t.clone().into_data(); // shared with `t`: flex copies
    assert_eq!(data.as_slice::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    let data = t.into_data();
    assert_eq!(
        data.as_bytes().as_ptr(),
        values.as_ptr().cast(),
        "no copy on the way in"
    );
    assert_eq!(data.bytes().property(), AllocationProperty::Other);
    drop(data);
    assert_eq!(Arc::strong_count(&values), 1, "released when burn drops it");

    // An op flex may run in place (the tensor is unique) writes a copy of its own.
    let t: Tensor<2> = burn::tensor_from_dlpack(shared_f32(&values, &[2, 2]), &flex()).unwrap();
    let doubled = t.mul_scalar(2.0).add_scalar(1.0);
    assert_eq!(
        doubled.into_data().as_slice::<f32>().unwrap(),
        [3.0, 5.0, 7.0, 9.0]
    );
    assert_eq!(
        *values,
        [1.0, 2.0, 3.0, 4.0],
        "burn wrote the producer's memory"
    );
    assert_eq!(Arc::strong_count(&values), 1, "every import was released");
}

#[test]
fn from_dlpack_puts_a_tensor_on_the_default_device() {
    assert_eq!(Device::default(), flex()); // the one backend this crate links
    let t: Tensor<1, Int> = from_dlpack(&vec![1_u8, 2, 3]).unwrap();
    assert_eq!(t.device(), flex());
    assert_eq!(t.dtype(), DType::U8);
    assert_eq!(t.into_data().as_slice::<u8>().unwrap(), [1, 2, 3]);

    let mask: Tensor<1, Bool> = from_dlpack(&vec![true, false]).unwrap();
    assert_eq!(mask.dtype(), DType::Bool(BoolStore::Native));
    let back = burn::tensor_to_dlpack(mask.bool_not()).unwrap();
    assert_eq!(
        back.view().unwrap().as_slice::<bool>().unwrap(),
        [false, true]
    );

    let halves: Tensor<1> = from_dlpack(&vec![half::f16::ONE, half::f16::MAX]).unwrap();
    assert_eq!(halves.dtype(), DType::F16);
}

#[test]
fn zero_size_and_rank_zero_tensors() {
    let empty: Tensor<2> = burn::tensor_from_dlpack(
        ManagedTensor::from_vec(Vec::<f32>::new(), &[0, 3]).unwrap(),
        &flex(),
    )
    .unwrap();
    assert_eq!(empty.dims(), [0, 3]);
    let out = burn::tensor_to_dlpack(empty).unwrap();
    assert_eq!(out.view().unwrap().shape(), [0, 3]);
    assert_eq!(out.view().unwrap().len(), 0);

    // burn has no rank-0 tensor type: a 0-d tensor is refused with the rank, and the
    // `TensorData` it is made of crosses as it is.
    let scalar = ManagedTensor::from_vec(vec![4.5_f64], &[]).unwrap();
    let err = burn::tensor_from_dlpack::<1, burn_tensor::Float>(scalar, &flex()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a burn Tensor<1> has 1 dimensions; the DLPack tensor has 0 (shape [])"
    );
    let data =
        burn::data_from_dlpack(ManagedTensor::from_vec(vec![4.5_f64], &[]).unwrap()).unwrap();
    assert_eq!(
        (data.shape().num_dims(), data.as_slice::<f64>().unwrap()),
        (0, &[4.5][..])
    );
    let out = burn::data_to_dlpack(data).unwrap();
    assert_eq!(
        (out.view().unwrap().shape(), out.view().unwrap().len()),
        (&[][..], 1)
    );
}

/// burn refuses a `Tensor<0>` (its `from_data` panics: "Tried to create a 0-dim tensor"), so
/// asking for one is an error, whatever the data, before anything is read or made; a 0-d
/// DLPack tensor into a `Tensor<1>` is refused with the rank, as above.
#[test]
fn a_rank_zero_burn_tensor_is_refused_not_a_panic() {
    let message = "a burn Tensor<0> cannot be made: burn has no rank-0 tensors; take the \
                   data as TensorData with `bridges::burn::data_from_dlpack`, or reshape it \
                   to [1] first";
    let scalar = || ManagedTensor::from_vec(vec![4.5_f32], &[]).unwrap();
    let err = burn::tensor_from_dlpack::<0, burn_tensor::Float>(scalar(), &flex()).unwrap_err();
    assert_eq!(err.to_string(), message);
    let err = from_dlpack::<Tensor<0>>(&scalar()).unwrap_err();
    assert_eq!(err.to_string(), message);
    let ints = ManagedTensor::from_vec(vec![7_i32], &[]).unwrap();
    let err = burn::tensor_from_dlpack::<0, Int>(ints, &flex()).unwrap_err();
    assert_eq!(err.to_string(), message);
    let empty = ManagedTensor::from_vec(Vec::<u8>::new(), &[0]).unwrap();
    let err = burn::tensor_from_dlpack::<0, Int>(empty, &flex()).unwrap_err();
    assert_eq!(err.to_string(), message);
}

#[test]
fn the_wrong_rank_kind_or_data_is_refused_with_the_reason() {
    let matrix = || ManagedTensor::from_vec(vec![1.0_f32; 6], &[2, 3]).unwrap();
    let err = burn::tensor_from_dlpack::<3, burn_tensor::Float>(matrix(), &flex()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a burn Tensor<3> has 3 dimensions; the DLPack tensor has 2 (shape [2, 3])"
    );
    let err = burn::tensor_from_dlpack::<2, Int>(matrix(), &flex()).unwrap_err();
    assert_eq!(err.to_string(), "a burn Int tensor cannot hold F32 data");
    let err = burn::tensor_from_dlpack::<2, Bool>(matrix(), &flex()).unwrap_err();
    assert_eq!(err.to_string(), "a burn Bool tensor cannot hold F32 data");

    let err = from_dlpack::<Tensor<1>>(&vec![0_u64; 2]).unwrap_err();
    assert_eq!(err.to_string(), "a burn Float tensor cannot hold U64 data");
}

#[path = "../../../dlpack-core/tests/support/any_input.rs"]
mod any_input;

/// Any DLPack input (`dlpack-core/tests/support/any_input.rs`: every data type, ranks 0 to 4,
/// any strides, zero-size and 0-d) imported as a burn tensor of every rank 0 to 4 and every
/// kind, on flex: the right rank, data type and values, or an `Err`, never a panic.
#[test]
fn any_dlpack_input_becomes_a_burn_tensor_or_an_error() {
    fn check<const D: usize, K>(case: &any_input::Case) -> usize
    where
        K: burn_tensor::kind::TensorKind + burn_tensor::kind::Basic,
    {
        let Some(tensor) = case.tensor() else {
            return 0;
        };
        let Ok(t) = burn::tensor_from_dlpack::<D, K>(tensor, &flex()) else {
            return 0;
        };
        assert_eq!(t.dims().as_slice(), case.shape, "{case:?}");
        let data = t.into_data();
        assert_eq!(data.as_bytes(), case.expected(), "{case:?}");
        1
    }
    let ok = any_input::each_case(1, |case, _| {
        let mut ok = 0;
        macro_rules! ranks {
            ($($d:literal)*) => {$(
                ok += check::<$d, burn_tensor::Float>(case);
                ok += check::<$d, Int>(case);
                ok += check::<$d, Bool>(case);
            )*};
        }
        ranks!(0 1 2 3 4);
        ok
    });
    assert!(ok > 0, "no case was imported");
}
