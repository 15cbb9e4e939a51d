//! The candle bridge against candle itself: every dtype both ways, candle's layouts (strided,
//! narrowed, transposed, broadcast) exported (copied, and shared through `share`) and read
//! back, foreign layouts (negative and zero strides, padded sub-byte elements) imported, and
//! the refusals with their messages. What candle's in-place writes can and cannot reach is in
//! `bridges_candle_soundness.rs`.
#![cfg(feature = "candle")]

use candle_core::{
    CpuStorage, DType, Device as CandleDevice, DeviceLocation, IndexOp, Storage, Tensor, Var,
};
use dlpack_core::bridges::candle::share;
use dlpack_core::tensor::{Flags, TensorOwner, TensorParts, ToDlpackTensor};
use dlpack_core::{
    DataType, Device, DlpackDataType, DlpackDevice, ManagedTensor, assert_convertible, from_dlpack,
};

#[path = "support/readme.rs"]
mod readme;

/// Every variant candle 0.11 has, with the DLPack data type the bridge documents.
const EVERY_DTYPE: [(DType, DataType); 14] = [
    (DType::U8, DataType::U8),
    (DType::U32, DataType::U32),
    (DType::I16, DataType::I16),
    (DType::I32, DataType::I32),
    (DType::I64, DataType::I64),
    (DType::BF16, DataType::BF16),
    (DType::F16, DataType::F16),
    (DType::F32, DataType::F32),
    (DType::F64, DataType::F64),
    (DType::F8E4M3, DataType::FLOAT8_E4M3FN),
    (DType::F6E2M3, DataType::FLOAT6_E2M3FN),
    (DType::F6E3M2, DataType::FLOAT6_E3M2FN),
    (DType::F4, DataType::FLOAT4_E2M1FN),
    (DType::F8E8M0, DataType::FLOAT8_E8M0FNU),
];

/// The dtypes candle computes with (the others are raw bytes to candle).
fn is_numeric(dtype: DType) -> bool {
    !matches!(
        dtype,
        DType::F6E2M3 | DType::F6E3M2 | DType::F4 | DType::F8E8M0
    )
}

/// The bytes of a candle tensor's whole storage, read through candle's own types.
fn storage_bytes(t: &Tensor) -> Vec<u8> {
    let (storage, _) = t.storage_and_layout();
    let Storage::Cpu(cpu) = &*storage else {
        panic!("not a CPU tensor")
    };
    match cpu {
        CpuStorage::U8(v) => v.clone(),
        CpuStorage::U32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        CpuStorage::I16(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        CpuStorage::I32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        CpuStorage::I64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        CpuStorage::BF16(v) => v.iter().flat_map(|x| x.to_bits().to_ne_bytes()).collect(),
        CpuStorage::F16(v) => v.iter().flat_map(|x| x.to_bits().to_ne_bytes()).collect(),
        CpuStorage::F32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        CpuStorage::F64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
        CpuStorage::F8E4M3(v) => v.iter().map(|x| x.to_bits()).collect(),
        CpuStorage::F6E2M3(v)
        | CpuStorage::F6E3M2(v)
        | CpuStorage::F4(v)
        | CpuStorage::F8E8M0(v) => v.clone(),
    }
}

/// Where candle keeps the first element of `t`'s storage.
fn candle_first(t: &Tensor) -> *const core::ffi::c_void {
    let (storage, _) = t.storage_and_layout();
    let Storage::Cpu(cpu) = &*storage else {
        panic!("not a CPU tensor")
    };
    match cpu {
        CpuStorage::U8(v)
        | CpuStorage::F4(v)
        | CpuStorage::F6E2M3(v)
        | CpuStorage::F6E3M2(v)
        | CpuStorage::F8E8M0(v) => v.as_ptr().cast(),
        CpuStorage::U32(v) => v.as_ptr().cast(),
        CpuStorage::I16(v) => v.as_ptr().cast(),
        CpuStorage::I32(v) => v.as_ptr().cast(),
        CpuStorage::I64(v) => v.as_ptr().cast(),
        CpuStorage::BF16(v) => v.as_ptr().cast(),
        CpuStorage::F16(v) => v.as_ptr().cast(),
        CpuStorage::F32(v) => v.as_ptr().cast(),
        CpuStorage::F64(v) => v.as_ptr().cast(),
        CpuStorage::F8E4M3(v) => v.as_ptr().cast(),
    }
}

/// A small contiguous tensor of `dtype`: computed values for the numeric dtypes, raw bytes for
/// the others (packed, as candle's safetensors loader makes them).
fn sample(dtype: DType) -> Tensor {
    let cpu = CandleDevice::Cpu;
    if is_numeric(dtype) {
        let values = Tensor::new(&[0_f32, 1.0, 2.0, 3.0, 4.0, 5.0], &cpu).unwrap();
        return values.to_dtype(dtype).unwrap().reshape((2, 3)).unwrap();
    }
    // 8 elements: 4 bytes of F4, 6 of F6, 8 of F8E8M0.
    let bits = dtype.dlpack_data_type().unwrap().bits as usize;
    let bytes: Vec<u8> = (0..8 * bits / 8)
        .map(|i| 0x11_u8.wrapping_mul(i as u8 + 1))
        .collect();
    Tensor::from_raw_buffer(&bytes, dtype, &[2, 4], &cpu).unwrap()
}

#[test]
fn every_dtype_maps_as_documented_both_ways() {
    for (dtype, data_type) in EVERY_DTYPE {
        assert_eq!(dtype.dlpack_data_type().unwrap(), data_type, "{dtype:?}");
        assert_eq!(DType::from_dlpack_data_type(data_type).unwrap(), dtype);
        // Through the dispatcher, whose tag the bridge provides by hand.
        assert_eq!(from_dlpack::<DType>(&data_type).unwrap(), dtype);
        assert_eq!(from_dlpack::<DataType>(&dtype).unwrap(), data_type);
    }
    // The codes themselves: float8_e4m3fn is code 10, not float8_e4m3 (code 8).
    let e4m3 = DType::F8E4M3.dlpack_data_type().unwrap();
    assert_eq!((e4m3.code.0, e4m3.bits, e4m3.lanes), (10, 8, 1));
    assert_eq!(
        DType::F8E8M0.dlpack_data_type().unwrap().to_string(),
        "float8_e8m0fnu"
    );
    assert_eq!(
        DType::F4.dlpack_data_type().unwrap().to_string(),
        "float4_e2m1fn"
    );
    // Every DLPack data type of candle is a candle dtype, proven at compile time.
    assert_convertible!(DType => DataType);
}

#[test]
fn data_types_candle_lacks_are_refused_with_the_list() {
    for data_type in [
        DataType::BOOL,
        DataType::I8,
        DataType::U16,
        DataType::C64,
        DataType::F32.with_lanes(4),
        DataType::FLOAT8_E4M3,
    ] {
        let err = from_dlpack::<DType>(&data_type).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "candle_core::DType has no DLPack data type for {data_type}; it supports: uint8, \
                 uint32, int16, int32, int64, bfloat16, float16, float32, float64, float8_e4m3fn, \
                 float6_e2m3fn, float6_e3m2fn, float4_e2m1fn, float8_e8m0fnu"
            )
        );
    }
}

#[test]
fn devices_and_locations_map_as_documented() {
    assert_eq!(CandleDevice::Cpu.dlpack_device().unwrap(), Device::CPU);
    assert!(from_dlpack::<CandleDevice>(&Device::CPU).unwrap().is_cpu());
    let locations = [
        (DeviceLocation::Cpu, Device::CPU),
        (DeviceLocation::Cuda { gpu_id: 0 }, Device::cuda(0)),
        (DeviceLocation::Cuda { gpu_id: 7 }, Device::cuda(7)),
        (DeviceLocation::Metal { gpu_id: 1 }, Device::metal(1)),
    ];
    for (location, device) in locations {
        assert_eq!(location.dlpack_device().unwrap(), device);
        assert_eq!(from_dlpack::<DeviceLocation>(&device).unwrap(), location);
    }
    // A location converts to any device type that accepts all of them, proven at compile time.
    assert_convertible!(DeviceLocation => Device);
    assert_convertible!(CandleDevice => DeviceLocation);
}

#[test]
fn devices_candle_cannot_be_made_from_are_refused() {
    // A candle CUDA or Metal device is a context of its own: never made behind `from_dlpack`.
    for device in [Device::cuda(0), Device::metal(0), Device::CUDA_HOST] {
        let err = from_dlpack::<CandleDevice>(&device).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("candle_core::Device has no DLPack device for {device}; it supports: cpu")
        );
    }
    let err = from_dlpack::<DeviceLocation>(&Device::rocm(0)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "candle_core::DeviceLocation has no DLPack device for rocm:0; it supports: cpu, cuda:<id>, metal:<id>"
    );
    let huge = DeviceLocation::Cuda { gpu_id: 1 << 40 };
    assert_eq!(
        huge.dlpack_device().unwrap_err().to_string(),
        "device id 1099511627776 is out of range for candle_core::DeviceLocation: expected 0 to 2147483647"
    );
}

#[test]
fn every_dtype_exports_as_a_compact_copy_of_its_own() {
    for (dtype, data_type) in EVERY_DTYPE {
        let t = sample(dtype);
        let exported = t.to_dlpack_tensor().unwrap();
        assert_eq!(exported.flags(), Flags::IS_COPIED, "{dtype:?}");
        let view = exported.view().unwrap();
        assert_eq!((view.dtype(), view.device()), (data_type, Device::CPU));
        let shape: Vec<i64> = t.dims().iter().map(|&d| d as i64).collect();
        assert_eq!(view.shape(), shape);
        assert!(view.is_compact());
        // candle's bytes, in memory of the export's own.
        assert_eq!(view.as_bytes().unwrap(), storage_bytes(&t), "{dtype:?}");
        assert_ne!(view.data_ptr(), candle_first(&t), "{dtype:?}");
        assert_eq!(view.is_packed(), data_type.bits < 8);
        // The consumer owns the copy alone: it may write it.
        let mut exported = exported;
        assert!(exported.view_mut().is_ok(), "{dtype:?}");
    }
}

#[test]
fn every_dtype_is_shared_zero_copy_and_read_only_on_request() {
    for (dtype, data_type) in EVERY_DTYPE {
        let t = sample(dtype);
        // SAFETY: nothing writes `t` in place in this test.
        let exported = unsafe { share(&t) }.unwrap();
        assert_eq!(exported.flags(), Flags::READ_ONLY, "{dtype:?}");
        let view = exported.view().unwrap();
        assert_eq!(view.dtype(), data_type);
        assert_eq!(view.device(), Device::CPU);
        let shape: Vec<i64> = t.dims().iter().map(|&d| d as i64).collect();
        assert_eq!(view.shape(), shape);
        // candle's own bytes, where candle keeps them.
        assert_eq!(view.as_bytes().unwrap(), storage_bytes(&t), "{dtype:?}");
        assert_eq!(
            view.data_ptr(),
            candle_first(&t),
            "{dtype:?}: the export is candle's memory"
        );
        // Sub-byte dtypes are packed, as candle stores them.
        assert_eq!(view.is_packed(), data_type.bits < 8);
        assert!(!exported.flags().contains(Flags::IS_SUBBYTE_TYPE_PADDED));
    }
}

#[test]
fn typed_values_match_candles_to_vec() {
    let t = sample(DType::U32);
    let exported = t.to_dlpack_tensor().unwrap();
    assert_eq!(
        exported.view().unwrap().as_slice::<u32>().unwrap(),
        t.flatten_all().unwrap().to_vec1::<u32>().unwrap()
    );
    let t = sample(DType::I64);
    assert_eq!(
        from_dlpack::<Vec<i64>>(&t).unwrap(),
        t.flatten_all().unwrap().to_vec1::<i64>().unwrap()
    );
    let t = sample(DType::F64);
    assert_eq!(
        from_dlpack::<Vec<f64>>(&t).unwrap(),
        [0., 1., 2., 3., 4., 5.]
    );
}

#[test]
fn every_dtype_round_trips_through_dlpack() {
    for (dtype, _) in EVERY_DTYPE {
        let t = sample(dtype);
        let back: Tensor = from_dlpack(&t).unwrap();
        assert_eq!(back.dtype(), dtype);
        assert_eq!(back.dims(), t.dims());
        assert_eq!(storage_bytes(&back), storage_bytes(&t), "{dtype:?}");
        // The values, by candle's own conversion; not for F8E4M3, whose conversion to any
        // other dtype recurses for ever in candle 0.11.1 (`WithDType::to_f64` calls itself).
        if is_numeric(dtype) && dtype != DType::F8E4M3 {
            let values = |t: &Tensor| {
                t.to_dtype(DType::F64)
                    .unwrap()
                    .flatten_all()
                    .unwrap()
                    .to_vec1::<f64>()
                    .unwrap()
            };
            assert_eq!(values(&back), values(&t), "{dtype:?}");
        }
    }
}

/// A candle view shared as it is, and copied compact, each checked against candle's own
/// reading of the same view.
fn check_view(view: &Tensor, strides: &[i64], byte_offset: u64) {
    // SAFETY: nothing writes these tensors in place in the tests.
    let exported = unsafe { share(view) }.unwrap();
    let dl = exported.view().unwrap();
    assert_eq!(dl.strides(), strides);
    assert_eq!(dl.byte_offset(), byte_offset);
    let expected = view.flatten_all().unwrap().to_vec1::<f32>().unwrap();
    assert_eq!(dl.to_vec::<f32>().unwrap(), expected);
    let copied = view.to_dlpack_tensor().unwrap();
    assert_eq!(copied.view().unwrap().as_slice::<f32>().unwrap(), expected);
    // And back into candle, compact.
    let back: Tensor = from_dlpack(&exported).unwrap();
    assert!(back.is_contiguous());
    assert_eq!(
        back.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
        expected
    );
}

#[test]
fn candle_layouts_are_exported_as_they_are() {
    let t = Tensor::arange(0_f32, 24., &CandleDevice::Cpu)
        .unwrap()
        .reshape((2, 3, 4))
        .unwrap();
    check_view(&t, &[12, 4, 1], 0);
    // Transposed: candle's strides, swapped.
    check_view(&t.transpose(1, 2).unwrap(), &[12, 1, 4], 0);
    // Narrowed: candle's start offset becomes the byte offset.
    check_view(&t.narrow(2, 1, 2).unwrap(), &[12, 4, 1], 4);
    check_view(
        &t.narrow(0, 1, 1).unwrap().narrow(1, 2, 1).unwrap(),
        &[12, 4, 1],
        (12 + 8) * 4,
    );
    // Indexed and stepped through: a column of the last matrix.
    check_view(&t.i((1, .., 3)).unwrap(), &[4], (12 + 3) * 4);
    // Broadcast: stride 0 along the new axes.
    let row = Tensor::new(&[1_f32, 2., 3.], &CandleDevice::Cpu).unwrap();
    check_view(&row.broadcast_as((4, 3)).unwrap(), &[0, 1], 0);
    check_view(
        &row.reshape((3, 1)).unwrap().broadcast_as((3, 5)).unwrap(),
        &[1, 0],
        0,
    );
    // Permuted and narrowed at once.
    check_view(
        &t.permute((2, 0, 1)).unwrap().narrow(0, 3, 1).unwrap(),
        &[1, 12, 4],
        12,
    );
    // Empty and rank 0.
    check_view(&t.narrow(1, 0, 0).unwrap(), &[12, 4, 1], 0);
    let scalar = Tensor::new(2.5_f32, &CandleDevice::Cpu).unwrap();
    check_view(&scalar, &[], 0);
}

#[test]
fn a_variable_is_exported_as_a_copy_like_any_tensor() {
    let cpu = CandleDevice::Cpu;
    let var = Var::new(&[[1_f32, 2.], [3., 4.]], &cpu).unwrap();
    let snapshot = var.as_tensor().to_dlpack_tensor().unwrap();
    assert_eq!(snapshot.flags(), Flags::IS_COPIED);
    var.set(&Tensor::new(&[[5_f32, 6.], [7., 8.]], &cpu).unwrap())
        .unwrap();
    assert_eq!(
        snapshot.view().unwrap().to_vec::<f32>().unwrap(),
        [1., 2., 3., 4.]
    );
    assert_eq!(
        var.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
        [5., 6., 7., 8.]
    );
}

#[test]
fn a_shared_export_keeps_the_storage_alive_on_any_thread() {
    let t = Tensor::arange(0_i64, 4, &CandleDevice::Cpu).unwrap();
    // SAFETY: nothing writes `t` in place: it is dropped below.
    let exported = unsafe { share(&t) }.unwrap();
    drop(t);
    let values = std::thread::spawn(move || exported.view().unwrap().to_vec::<i64>().unwrap())
        .join()
        .unwrap();
    assert_eq!(values, [0, 1, 2, 3]);
}

#[test]
fn sub_byte_views_export_only_on_byte_boundaries() {
    let cpu = CandleDevice::Cpu;
    // SAFETY: nothing writes these tensors in place.
    let share = |t: &Tensor| unsafe { share(t) };
    // Eight F4 values in four bytes, packed.
    let t = Tensor::from_raw_buffer(&[0x10, 0x32, 0x54, 0x76], DType::F4, &[8], &cpu).unwrap();
    let tail = share(&t.narrow(0, 4, 4).unwrap()).unwrap();
    let view = tail.view().unwrap();
    assert_eq!(
        (view.byte_offset(), view.as_bytes().unwrap()),
        (2, &[0x54, 0x76][..])
    );
    let copied = t.narrow(0, 4, 4).unwrap().to_dlpack_tensor().unwrap();
    assert_eq!(copied.view().unwrap().as_bytes().unwrap(), [0x54, 0x76]);
    let err = t.narrow(0, 1, 4).unwrap().to_dlpack_tensor().unwrap_err();
    assert_eq!(
        err.to_string(),
        "a candle float4_e2m1fn tensor of shape [4], strides [1] and start offset 1 cannot be \
         exported: its first element starts at bit 4, not on a byte"
    );
    let square = t.reshape((2, 4)).unwrap();
    let err = square.t().unwrap().to_dlpack_tensor().unwrap_err();
    assert!(
        err.to_string()
            .contains("only contiguous tensors are exported"),
        "{err}"
    );
    // Four F6 values in three bytes: the second group of four starts at byte 3.
    let six = Tensor::from_raw_buffer(&[1, 2, 3, 4, 5, 6], DType::F6E2M3, &[8], &cpu).unwrap();
    let tail = share(&six.narrow(0, 4, 4).unwrap()).unwrap();
    assert_eq!(tail.view().unwrap().as_bytes().unwrap(), [4, 5, 6]);
    // A storage shorter than its packed size is refused, not read past.
    let short = Tensor::from_raw_buffer(&[1, 2], DType::F6E3M2, &[4], &cpu).unwrap();
    let err = share(&short).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("it needs 3 packed bytes, and its storage has 2"),
        "{err}"
    );
    // The copy refuses what sharing refuses: it reads the same description.
    let err = short.to_dlpack_tensor().unwrap_err();
    assert!(
        err.to_string()
            .ends_with("it needs 3 packed bytes, and its storage has 2"),
        "{err}"
    );
}

/// Host memory of any data type, layout and flags, as a foreign producer exports it.
struct Foreign {
    bytes: Vec<u8>,
    dtype: DataType,
    device: Device,
    shape: Vec<usize>,
    strides: Vec<i64>,
    byte_offset: u64,
    flags: Flags,
}

// SAFETY: each test below describes only bytes inside `bytes` (or, for a non-CPU device, an
// address nobody reads), owned by the value alone.
unsafe impl TensorOwner for Foreign {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(
            self.bytes.as_mut_ptr().cast(),
            self.device,
            self.dtype,
            &self.shape,
        )
        .with_strides(&self.strides)
        .with_byte_offset(self.byte_offset)
        .with_flags(self.flags)
    }
}

fn foreign(
    bytes: Vec<u8>,
    dtype: DataType,
    shape: &[usize],
    strides: &[i64],
    byte_offset: u64,
) -> ManagedTensor {
    ManagedTensor::from_owner(Foreign {
        bytes,
        dtype,
        device: Device::CPU,
        shape: shape.to_vec(),
        strides: strides.to_vec(),
        byte_offset,
        flags: Flags::EMPTY,
    })
    .unwrap()
}

#[test]
fn negative_and_zero_strides_are_imported_by_a_copy() {
    let values: Vec<u8> = (0..6_i16).flat_map(|x| x.to_ne_bytes()).collect();
    // [0, 1, 2, 3, 4, 5] as 2 x 3, both axes reversed: first element is the last one.
    let reversed = foreign(values.clone(), DataType::I16, &[2, 3], &[-3, -1], 10);
    let t: Tensor = from_dlpack(&reversed).unwrap();
    assert_eq!(t.to_vec2::<i16>().unwrap(), [[5, 4, 3], [2, 1, 0]]);
    // Rows reversed, a zero stride repeating each column.
    let mixed = foreign(values.clone(), DataType::I16, &[2, 2, 3], &[-3, 0, 1], 6);
    let t: Tensor = from_dlpack(&mixed).unwrap();
    assert_eq!(
        t.to_vec3::<i16>().unwrap(),
        [[[3, 4, 5], [3, 4, 5]], [[0, 1, 2], [0, 1, 2]]]
    );
    // Column-major.
    let fortran = foreign(values, DataType::I16, &[3, 2], &[1, 3], 0);
    let t: Tensor = from_dlpack(&fortran).unwrap();
    assert_eq!(t.to_vec2::<i16>().unwrap(), [[0, 3], [1, 4], [2, 5]]);
}

#[test]
fn every_dtype_imports_from_a_foreign_reversed_layout() {
    for (dtype, data_type) in EVERY_DTYPE {
        if data_type.bits < 8 {
            continue; // packed elements have no strides; see the padded test below
        }
        let t = sample(dtype).flatten_all().unwrap();
        let bytes = storage_bytes(&t);
        let size = data_type.itemsize();
        let n = bytes.len() / size;
        let reversed = foreign(
            bytes.clone(),
            data_type,
            &[n],
            &[-1],
            ((n - 1) * size) as u64,
        );
        let back: Tensor = from_dlpack(&reversed).unwrap();
        let expected: Vec<u8> = bytes.chunks(size).rev().flatten().copied().collect();
        assert_eq!(storage_bytes(&back), expected, "{dtype:?}");
    }
}

#[test]
fn padded_sub_byte_elements_are_packed_for_candle() {
    let padded = ManagedTensor::from_owner(Foreign {
        flags: Flags::IS_SUBBYTE_TYPE_PADDED,
        bytes: vec![1, 2, 3, 4, 5],
        dtype: DataType::FLOAT4_E2M1FN,
        device: Device::CPU,
        shape: vec![5],
        strides: vec![1],
        byte_offset: 0,
    })
    .unwrap();
    let t: Tensor = from_dlpack(&padded).unwrap();
    assert_eq!((t.dtype(), t.dims()), (DType::F4, &[5][..]));
    assert_eq!(storage_bytes(&t), [0x21, 0x43, 0x05]);
    // Six-bit elements cross bytes: 0b000001, 0b000010, 0b000011, 0b111111.
    let six = ManagedTensor::from_owner(Foreign {
        flags: Flags::IS_SUBBYTE_TYPE_PADDED,
        bytes: vec![1, 2, 3, 0x3f],
        dtype: DataType::FLOAT6_E3M2FN,
        device: Device::CPU,
        shape: vec![4],
        strides: vec![1],
        byte_offset: 0,
    })
    .unwrap();
    let t: Tensor = from_dlpack(&six).unwrap();
    assert_eq!(storage_bytes(&t), [0b1000_0001, 0b0011_0000, 0b1111_1100]);
    // A byte with bits above the element's is refused, not masked.
    let dirty = ManagedTensor::from_owner(Foreign {
        flags: Flags::IS_SUBBYTE_TYPE_PADDED,
        bytes: vec![1, 0x91],
        dtype: DataType::FLOAT4_E2M1FN,
        device: Device::CPU,
        shape: vec![2],
        strides: vec![1],
        byte_offset: 0,
    })
    .unwrap();
    assert_eq!(
        from_dlpack::<Tensor>(&dirty).unwrap_err().to_string(),
        "a padded float4_e2m1fn element holds its value in the low 4 bits; element 1 is 0x91"
    );
}

#[test]
fn tensors_the_cpu_cannot_read_are_refused() {
    let on_gpu = ManagedTensor::from_owner(Foreign {
        bytes: vec![0; 8],
        dtype: DataType::F32,
        device: Device::cuda(0),
        shape: vec![2],
        strides: vec![1],
        byte_offset: 0,
        flags: Flags::EMPTY,
    })
    .unwrap();
    let err = from_dlpack::<Tensor>(&on_gpu).unwrap_err();
    assert!(err.to_string().contains("cuda:0"), "{err}");
    // Of a data type candle lacks, before anything is read.
    let int8 = foreign(vec![1, 2], DataType::I8, &[2], &[1], 0);
    assert_eq!(
        from_dlpack::<Tensor>(&int8).unwrap_err().to_string(),
        "candle_core::DType has no DLPack data type for int8; it supports: uint8, uint32, int16, \
         int32, int64, bfloat16, float16, float32, float64, float8_e4m3fn, float6_e2m3fn, \
         float6_e3m2fn, float4_e2m1fn, float8_e8m0fnu"
    );
}

/// The README's candle block is this bridge's module example (which runs as a doctest), line
/// for line without the hidden ones, so that the README stays true.
#[test]
fn the_readme_shows_the_module_example() {
    readme::assert_readme_shows_module_example(
        include_str!("../../README.md"),
        include_str!("../src/bridges/candle.rs"),
    );
}
