//! The burn bridge against burn's own crates (burn-std, burn-tensor 0.22, no backend linked):
//! every `DType` both ways and against `ACCEPTS`/`PRODUCES` (the one place burn's table is
//! tested: the test crates keep no replica of it), `TensorData` out and in without copies
//! where the layout allows, misaligned and strided imports copied once, bool stores, the
//! refusals, and what burn's writes can reach of an import (nothing: they copy). The tensor
//! and device paths that need a backend run in `tests/burn` on flex. These run under Miri in
//! CI.
#![cfg(feature = "burn")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use burn_std::{AllocationProperty, BoolStore, DType, QuantScheme, TensorData};
use dlpack_core::bridges::burn::{data_from_dlpack, data_to_dlpack};
use dlpack_core::tensor::{Flags, TensorOwner, TensorParts};
use dlpack_core::{
    DataType, Device, DlpackDataType, DlpackDevice, ManagedTensor, assert_convertible, from_dlpack,
};

#[path = "support/readme.rs"]
mod readme;

/// Every `DType` burn 0.22 has, with the DLPack data type the bridge documents (`None`: none).
fn every_dtype() -> Vec<(DType, Option<DataType>)> {
    vec![
        (DType::F64, Some(DataType::F64)),
        (DType::F32, Some(DataType::F32)),
        (DType::Flex32, Some(DataType::F32)),
        (DType::F16, Some(DataType::F16)),
        (DType::BF16, Some(DataType::BF16)),
        (DType::I64, Some(DataType::I64)),
        (DType::I32, Some(DataType::I32)),
        (DType::I16, Some(DataType::I16)),
        (DType::I8, Some(DataType::I8)),
        (DType::U64, Some(DataType::U64)),
        (DType::U32, Some(DataType::U32)),
        (DType::U16, Some(DataType::U16)),
        (DType::U8, Some(DataType::U8)),
        (DType::Bool(BoolStore::Native), Some(DataType::BOOL)),
        (DType::Bool(BoolStore::U8), Some(DataType::BOOL)),
        (DType::Bool(BoolStore::U32), None),
        (DType::QFloat(QuantScheme::default()), None),
    ]
}

#[test]
fn every_dtype_maps_as_documented_both_ways() {
    for (dtype, expected) in every_dtype() {
        match expected {
            Some(data_type) => {
                assert_eq!(dtype.dlpack_data_type().unwrap(), data_type, "{dtype:?}");
                // Back: the one variant import picks for it (Flex32 and Bool(U8) export only).
                let back = DType::from_dlpack_data_type(data_type).unwrap();
                let expected_back = match dtype {
                    DType::Flex32 => DType::F32,
                    DType::Bool(_) => DType::Bool(BoolStore::Native),
                    other => other,
                };
                assert_eq!(back, expected_back, "{dtype:?}");
            }
            None => {
                let err = dtype.dlpack_data_type().unwrap_err().to_string();
                assert!(err.starts_with("burn_std::"), "{err}");
                assert!(err.ends_with("has no DLPack data type"), "{err}");
            }
        }
    }
    assert_convertible!(DataType => DataType);
    assert_eq!(
        DType::Bool(BoolStore::U32)
            .dlpack_data_type()
            .unwrap_err()
            .to_string(),
        "burn_std::BoolStore::U32 has no DLPack data type"
    );
    let err = from_dlpack::<DType>(&DataType::C64).unwrap_err();
    assert_eq!(
        err.to_string(),
        "burn_std::DType has no DLPack data type for complex64; it supports: float64, \
         float32, float16, bfloat16, int64, int32, int16, int8, uint64, uint32, uint16, uint8, \
         bool"
    );
}

/// Every data type a producer could send that is near one burn has (each code DLPack 1.3
/// defines, each width a code takes, one and two lanes), and a few no producer should.
fn data_types_sent() -> Vec<DataType> {
    let mut sent = vec![
        DataType::from((255, 255, u16::MAX)),
        DataType::from((6, 8, 0)),
        DataType::from((2, 0, 1)),
    ];
    for code in 0..19 {
        for bits in [1, 4, 6, 8, 16, 32, 64, 128] {
            for lanes in [1, 2] {
                sent.push(DataType::from((code, bits, lanes)));
            }
        }
    }
    sent
}

/// Import never panics, takes exactly what `ACCEPTS` holds and exports back what it took, and
/// every export is in `PRODUCES`: the properties the derives promise, held by burn's own types
/// through the mirrors.
fn imports_agree_with_the_sets<T: DlpackDataType + core::fmt::Debug>(exports: &[T]) {
    for data_type in data_types_sent() {
        match T::from_dlpack_data_type(data_type) {
            Ok(value) => {
                assert_eq!(value.dlpack_data_type(), Ok(data_type), "{data_type}");
                assert!(T::ACCEPTS.contains(data_type), "{data_type} not in ACCEPTS");
            }
            Err(_) => assert!(!T::ACCEPTS.contains(data_type), "{data_type} in ACCEPTS"),
        }
    }
    for value in exports {
        if let Ok(data_type) = value.dlpack_data_type() {
            assert!(T::PRODUCES.contains(data_type), "{value:?}");
        }
    }
}

#[test]
fn imports_and_exports_agree_with_accepts_and_produces() {
    let dtypes: Vec<DType> = every_dtype().into_iter().map(|(dtype, _)| dtype).collect();
    imports_agree_with_the_sets(&dtypes);
    imports_agree_with_the_sets(&[BoolStore::Native, BoolStore::U8, BoolStore::U32]);
}

/// Typed data of each exportable dtype, of shape `shape`.
fn sample(dtype: DType, shape: &[usize]) -> TensorData {
    let n: usize = shape.iter().product();
    let shape = shape.to_vec();
    match dtype {
        DType::F64 => TensorData::new((0..n).map(|i| i as f64).collect::<Vec<_>>(), shape),
        DType::F32 | DType::Flex32 => {
            TensorData::new((0..n).map(|i| i as f32).collect::<Vec<_>>(), shape)
                .convert_dtype(dtype)
        }
        DType::F16 => TensorData::new(
            (0..n)
                .map(|i| half::f16::from_f32(i as f32))
                .collect::<Vec<_>>(),
            shape,
        ),
        DType::BF16 => TensorData::new(
            (0..n)
                .map(|i| half::bf16::from_f32(i as f32))
                .collect::<Vec<_>>(),
            shape,
        ),
        DType::I64 => TensorData::new((0..n).map(|i| i as i64).collect::<Vec<_>>(), shape),
        DType::I32 => TensorData::new((0..n).map(|i| i as i32).collect::<Vec<_>>(), shape),
        DType::I16 => TensorData::new((0..n).map(|i| i as i16).collect::<Vec<_>>(), shape),
        DType::I8 => TensorData::new((0..n).map(|i| i as i8).collect::<Vec<_>>(), shape),
        DType::U64 => TensorData::new((0..n).map(|i| i as u64).collect::<Vec<_>>(), shape),
        DType::U32 => TensorData::new((0..n).map(|i| i as u32).collect::<Vec<_>>(), shape),
        DType::U16 => TensorData::new((0..n).map(|i| i as u16).collect::<Vec<_>>(), shape),
        DType::U8 => TensorData::new((0..n).map(|i| i as u8).collect::<Vec<_>>(), shape),
        DType::Bool(store) => {
            TensorData::new((0..n).map(|i| i % 3 == 0).collect::<Vec<_>>(), shape)
                .convert_dtype(DType::Bool(store))
        }
        DType::QFloat(_) => unreachable!("not exportable"),
    }
}

#[test]
fn every_exportable_dtype_exports_its_own_bytes_writable() {
    for (dtype, expected) in every_dtype() {
        let Some(data_type) = expected else { continue };
        for shape in [&[2_usize, 3][..], &[0, 4], &[]] {
            let data = sample(dtype, shape);
            let bytes = data.as_bytes().to_vec();
            let address = data.as_bytes().as_ptr();
            let mut exported = data_to_dlpack(data).unwrap();
            assert_eq!(exported.flags(), Flags::EMPTY, "{dtype:?}");
            let view = exported.view().unwrap();
            assert_eq!(view.dtype(), data_type, "{dtype:?}");
            let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            assert_eq!(view.shape(), dims);
            assert!(view.is_compact());
            assert_eq!(view.as_bytes().unwrap(), bytes, "{dtype:?} {shape:?}");
            if !bytes.is_empty() {
                // burn's own buffer: no copy.
                assert_eq!(view.data_ptr().cast::<u8>(), address, "{dtype:?}");
            }
            // The consumer owns it: it may write.
            assert!(exported.view_mut().is_ok());
        }
    }
    for dtype in [
        DType::Bool(BoolStore::U32),
        DType::QFloat(QuantScheme::default()),
    ] {
        let data = TensorData::new(vec![0_u32; 4], [4]);
        let data = if matches!(dtype, DType::Bool(_)) {
            data.convert_dtype(dtype)
        } else {
            TensorData::from_bytes_vec(vec![0; 16], [4], dtype)
        };
        assert!(data_to_dlpack(data).is_err(), "{dtype:?}");
    }
}

#[test]
fn an_export_does_not_write_what_a_clone_of_the_data_reads() {
    let data = TensorData::new(vec![1.0_f32, 2.0], [2]);
    let kept = data.clone();
    let mut exported = data_to_dlpack(data).unwrap();
    exported.view_mut().unwrap().as_slice_mut::<f32>().unwrap()[0] = 9.0;
    assert_eq!(kept.as_slice::<f32>().unwrap(), [1.0, 2.0]);
    assert_eq!(
        exported.view().unwrap().as_slice::<f32>().unwrap(),
        [9.0, 2.0]
    );
}

/// Counts the owner's drops: the producer's deleter.
struct Counted {
    data: Arc<[u8]>,
    shape: Vec<usize>,
    strides: Vec<i64>,
    byte_offset: u64,
    dtype: DataType,
    drops: Arc<AtomicUsize>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

// SAFETY: the tests describe only bytes inside `data`, which the owner keeps and nobody
// writes (an `Arc<[u8]>`, read-only).
unsafe impl TensorOwner for Counted {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(
            self.data.as_ptr().cast_mut().cast(),
            Device::CPU,
            self.dtype,
            &self.shape[..],
        )
        .with_strides(&self.strides)
        .with_byte_offset(self.byte_offset)
        .with_flags(Flags::READ_ONLY)
    }
}

fn foreign(
    data: &Arc<[u8]>,
    dtype: DataType,
    shape: &[usize],
    strides: &[i64],
    byte_offset: u64,
) -> (ManagedTensor, Arc<AtomicUsize>) {
    let drops = Arc::new(AtomicUsize::new(0));
    let tensor = ManagedTensor::from_owner(Counted {
        data: Arc::clone(data),
        shape: shape.to_vec(),
        strides: strides.to_vec(),
        byte_offset,
        dtype,
        drops: Arc::clone(&drops),
    })
    .unwrap();
    (tensor, drops)
}

/// Four f32 values, as bytes in an `Arc` (8-byte aligned by `f64` storage, so offsets pick
/// the alignment).
fn floats() -> Arc<[u8]> {
    let values = [1.0_f32, 2.0, 3.0, 4.0];
    let words: Vec<f64> = vec![0.0; 3];
    let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
    for (i, v) in values.iter().enumerate() {
        bytes[i * 4..i * 4 + 4].copy_from_slice(&v.to_ne_bytes());
    }
    bytes.into()
}

#[test]
fn an_aligned_compact_import_is_the_producers_memory_and_released_once() {
    let memory = floats();
    let (tensor, drops) = foreign(&memory, DataType::F32, &[2, 2], &[2, 1], 0);
    let mut data = data_from_dlpack(tensor).unwrap();
    assert_eq!(data.dtype(), DType::F32);
    assert_eq!(data.shape().as_slice(), [2, 2]);
    assert_eq!(data.bytes().property(), AllocationProperty::Other);
    assert_eq!(data.as_bytes().as_ptr(), memory.as_ptr());
    assert_eq!(data.as_slice::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    // A write through burn's safe API copies first: the producer's memory stays as it was.
    data.as_mut_slice::<f32>().unwrap()[0] = 9.0;
    assert_eq!(data.as_slice::<f32>().unwrap(), [9.0, 2.0, 3.0, 4.0]);
    assert_eq!(&memory[..4], 1.0_f32.to_ne_bytes());
    assert_ne!(data.as_bytes().as_ptr(), memory.as_ptr());
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    drop(data);
    assert_eq!(
        drops.load(Ordering::SeqCst),
        1,
        "released to its producer once"
    );
}

#[test]
fn misaligned_and_strided_imports_are_copied_once_into_native_memory() {
    let memory = floats();
    // The second and third f32 (byte offset 4) are aligned for f32.
    let (aligned, _) = foreign(&memory, DataType::F32, &[2], &[1], 4);
    let data = data_from_dlpack(aligned).unwrap();
    assert_eq!(data.bytes().property(), AllocationProperty::Other);
    assert_eq!(data.as_slice::<f32>().unwrap(), [2.0, 3.0]);
    // Two bytes in: not aligned for f16's neighbour f32, but aligned for a 2-byte type.
    let (halfs, _) = foreign(&memory, DataType::I16, &[3], &[1], 2);
    assert_eq!(
        data_from_dlpack(halfs).unwrap().bytes().property(),
        AllocationProperty::Other
    );
    // One byte in: misaligned for f32, so copied.
    let (misaligned, drops) = foreign(&memory, DataType::F32, &[2], &[1], 1);
    let data = data_from_dlpack(misaligned).unwrap();
    assert_eq!(data.bytes().property(), AllocationProperty::Native);
    assert_eq!(data.as_bytes(), &memory[1..9]);
    assert_eq!(
        drops.load(Ordering::SeqCst),
        1,
        "the source is released once it is copied"
    );
    // Strided (a transposed 2 x 2): copied, compact.
    let (transposed, _) = foreign(&memory, DataType::F32, &[2, 2], &[1, 2], 0);
    let data = data_from_dlpack(transposed).unwrap();
    assert_eq!(data.bytes().property(), AllocationProperty::Native);
    assert_eq!(data.as_slice::<f32>().unwrap(), [1.0, 3.0, 2.0, 4.0]);
}

#[test]
fn empty_rank_zero_and_bool_imports() {
    let memory = floats();
    let (empty, drops) = foreign(&memory, DataType::F32, &[0, 3], &[3, 1], 0);
    let data = data_from_dlpack(empty).unwrap();
    assert_eq!(data.shape().as_slice(), [0, 3]);
    assert!(data.as_slice::<f32>().unwrap().is_empty());
    drop(data);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    let (scalar, _) = foreign(&memory, DataType::F32, &[], &[], 8);
    let data = data_from_dlpack(scalar).unwrap();
    assert_eq!(
        (data.shape().num_dims(), data.as_slice::<f32>().unwrap()),
        (0, &[3.0][..])
    );
    let bools: Arc<[u8]> = vec![1, 0, 1].into();
    let (flags, _) = foreign(&bools, DataType::BOOL, &[3], &[1], 0);
    let data = data_from_dlpack(flags).unwrap();
    assert_eq!(data.dtype(), DType::Bool(BoolStore::Native));
    assert_eq!(data.as_slice::<bool>().unwrap(), [true, false, true]);
    let dirty: Arc<[u8]> = vec![1, 2].into();
    let (dirty, drops) = foreign(&dirty, DataType::BOOL, &[2], &[1], 0);
    assert!(
        data_from_dlpack(dirty).is_err(),
        "a bool byte of 2 is refused"
    );
    assert_eq!(drops.load(Ordering::SeqCst), 1, "and the source released");
}

#[test]
fn what_burn_lacks_is_refused_with_the_reason() {
    let memory = floats();
    let (complex, _) = foreign(&memory, DataType::C64, &[2], &[1], 0);
    let err = data_from_dlpack(complex).unwrap_err().to_string();
    assert!(
        err.starts_with("burn_std::DType has no DLPack data type for complex64"),
        "{err}"
    );
    let (fp8, _) = foreign(&memory, DataType::FLOAT8_E4M3FN, &[4], &[1], 0);
    assert!(data_from_dlpack(fp8).is_err());
    let drops = Arc::new(AtomicUsize::new(0));
    let on_gpu = ManagedTensor::from_owner(OnGpu(Arc::clone(&drops))).unwrap();
    let err = data_from_dlpack(on_gpu).unwrap_err().to_string();
    assert!(err.contains("cuda:0"), "{err}");
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

/// A tensor on a GPU: an address no test reads.
struct OnGpu(Arc<AtomicUsize>);

impl Drop for OnGpu {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

// SAFETY: the address is never read (the device is not the host's).
unsafe impl TensorOwner for OnGpu {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(
            core::ptr::without_provenance_mut(0x1000),
            Device::cuda(0),
            DataType::F32,
            &[2_usize][..],
        )
    }
}

#[test]
fn tensor_data_round_trips_through_from_dlpack() {
    let data = TensorData::new(vec![1_u16, 2, 3, 4, 5, 6], [3, 2]);
    let exported: ManagedTensor = from_dlpack(&data).unwrap();
    let back: TensorData = from_dlpack(&exported).unwrap();
    assert_eq!(back, data);
    // burn's device without a backend linked: no cpu device can be made.
    assert!(burn_tensor::Device::from_dlpack_device(Device::CPU).is_err());
}

/// The README's burn block is this bridge's module example (which runs as a doctest), line
/// for line without the hidden ones, so that the README stays true.
#[test]
fn the_readme_shows_the_module_example() {
    readme::assert_readme_shows_module_example(
        include_str!("../../README.md"),
        include_str!("../src/bridges/burn.rs"),
    );
}
