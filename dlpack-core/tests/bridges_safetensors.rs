//! The safetensors bridge against safetensors' own writer and reader: every dtype, zero-copy
//! over each kind of buffer, the alignment rule, and the refusals with their messages.
#![cfg(feature = "safetensors")]

use std::sync::Arc;

use dlpack_core::bridges::safetensors::{Tensors, tensors};
use dlpack_core::tensor::Flags;
use dlpack_core::{DataType, DlpackDataType, from_dlpack};
use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensors};

/// Every variant safetensors 0.8 has, with the DLPack data type the bridge documents.
const EVERY_DTYPE: [(Dtype, DataType); 22] = [
    (Dtype::BOOL, DataType::BOOL),
    (Dtype::F4, DataType::FLOAT4_E2M1FN),
    (Dtype::F6_E2M3, DataType::FLOAT6_E2M3FN),
    (Dtype::F6_E3M2, DataType::FLOAT6_E3M2FN),
    (Dtype::U8, DataType::U8),
    (Dtype::I8, DataType::I8),
    (Dtype::F8_E5M2, DataType::FLOAT8_E5M2),
    (Dtype::F8_E4M3, DataType::FLOAT8_E4M3FN),
    (Dtype::F8_E8M0, DataType::FLOAT8_E8M0FNU),
    (Dtype::F8_E4M3FNUZ, DataType::FLOAT8_E4M3FNUZ),
    (Dtype::F8_E5M2FNUZ, DataType::FLOAT8_E5M2FNUZ),
    (Dtype::I16, DataType::I16),
    (Dtype::U16, DataType::U16),
    (Dtype::F16, DataType::F16),
    (Dtype::BF16, DataType::BF16),
    (Dtype::I32, DataType::I32),
    (Dtype::U32, DataType::U32),
    (Dtype::F32, DataType::F32),
    (Dtype::C64, DataType::C64),
    (Dtype::F64, DataType::F64),
    (Dtype::I64, DataType::I64),
    (Dtype::U64, DataType::U64),
];

/// A file with one tensor of every dtype, shape [2, 4] (8 elements), with distinct bytes.
fn every_dtype_file() -> Vec<u8> {
    let payloads: Vec<(String, Dtype, Vec<u8>)> = EVERY_DTYPE
        .iter()
        .enumerate()
        .map(|(k, &(dtype, _))| {
            let len = 8 * dtype.bitsize() / 8;
            let bytes = (0..len)
                .map(|i| {
                    if dtype == Dtype::BOOL {
                        (i % 2) as u8
                    } else {
                        (i * 7 + k) as u8
                    }
                })
                .collect();
            (format!("t{k:02}_{dtype}"), dtype, bytes)
        })
        .collect();
    let views = payloads.iter().map(|(name, dtype, bytes)| {
        (
            name.clone(),
            TensorView::new(*dtype, vec![2, 4], bytes).unwrap(),
        )
    });
    safetensors::serialize(views, None).unwrap()
}

#[test]
fn every_dtype_maps_as_documented_both_ways() {
    for (dtype, data_type) in EVERY_DTYPE {
        assert_eq!(dtype.dlpack_data_type().unwrap(), data_type, "{dtype:?}");
        assert_eq!(from_dlpack::<Dtype>(&data_type).unwrap(), dtype);
        assert_eq!(from_dlpack::<DataType>(&dtype).unwrap(), data_type);
        // Sizes agree: safetensors' bits are DLPack's.
        assert_eq!(dtype.bitsize(), data_type.size_in_bits() as usize);
    }
    let err = from_dlpack::<Dtype>(&DataType::FLOAT8_E4M3).unwrap_err();
    assert!(
        err.to_string().starts_with("safetensors::Dtype has no DLPack data type for float8_e4m3; it supports: bool, float4_e2m1fn"),
        "{err}"
    );
}

#[test]
fn every_tensor_matches_safetensors_own_reader() {
    let file = every_dtype_file();
    let reference = SafeTensors::deserialize(&file).unwrap();
    let buffer = Arc::new(file.clone());
    let exported = tensors(&buffer).unwrap();
    assert_eq!(exported.len(), EVERY_DTYPE.len());
    for (name, tensor) in &exported {
        let expected = reference.tensor(name).unwrap();
        let view = tensor.view().unwrap();
        assert_eq!(
            view.dtype(),
            expected.dtype().dlpack_data_type().unwrap(),
            "{name}"
        );
        assert_eq!(view.shape(), [2, 4]);
        assert_eq!(view.as_bytes().unwrap(), expected.data(), "{name}");
        assert_eq!(view.is_packed(), expected.dtype().bitsize() < 8);
        // Where the bytes lie decides the flags: the buffer itself, or an aligned copy.
        let inside = buffer
            .as_ptr_range()
            .contains(&view.as_bytes().unwrap().as_ptr());
        let flags = if inside {
            Flags::READ_ONLY
        } else {
            Flags::IS_COPIED
        };
        assert_eq!(tensor.flags(), flags, "{name}");
    }
    // The order is the file's.
    let names: Vec<&str> = exported.iter().map(|(name, _)| name.as_str()).collect();
    let mut by_offset: Vec<(&str, usize)> = reference
        .iter()
        .map(|(name, view)| (name, view.data().as_ptr().addr()))
        .collect();
    by_offset.sort_by_key(|&(_, at)| at);
    assert_eq!(
        names,
        by_offset.iter().map(|&(name, _)| name).collect::<Vec<_>>()
    );
}

#[test]
fn typed_values_read_in_place() {
    let weights: Vec<u8> = [1.5_f32, -2.0, 0.25, 4.0, 8.0, 9.5]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let ids: Vec<u8> = [7_i64, -1].iter().flat_map(|x| x.to_le_bytes()).collect();
    let file = safetensors::serialize(
        [
            ("ids", TensorView::new(Dtype::I64, vec![2], &ids).unwrap()),
            (
                "weights",
                TensorView::new(Dtype::F32, vec![3, 2], &weights).unwrap(),
            ),
        ],
        None,
    )
    .unwrap();
    // An `Arc<[u8]>` this time.
    let buffer: Arc<[u8]> = file.into();
    let file = Tensors::new(Arc::clone(&buffer)).unwrap();
    let w = file.get("weights").unwrap();
    if cfg!(target_endian = "little") {
        assert_eq!(
            w.view().unwrap().as_slice::<f32>().unwrap(),
            [1.5, -2.0, 0.25, 4.0, 8.0, 9.5]
        );
        assert_eq!(
            from_dlpack::<Vec<i64>>(&file.get("ids").unwrap()).unwrap(),
            [7, -1]
        );
    }
    // `safetensors::serialize` aligns tensors relative to the file; an `Arc<[u8]>`'s bytes
    // follow its counts, 8-aligned in practice, so nothing was copied.
    if buffer.as_ptr().addr() % 8 == 0 {
        assert_eq!(w.flags(), Flags::READ_ONLY);
    }
    // The buffer lives as long as the last tensor.
    let count = Arc::strong_count(&buffer);
    drop(file);
    assert_eq!(Arc::strong_count(&buffer), count - 1);
    drop(w);
    assert_eq!(Arc::strong_count(&buffer), count - 2);
}

/// A file at an offset of its own inside a larger buffer: what a memory map of an archive
/// member, or any container, hands out.
struct Window {
    bytes: Vec<u8>,
    start: usize,
    len: usize,
}

impl AsRef<[u8]> for Window {
    fn as_ref(&self) -> &[u8] {
        &self.bytes[self.start..self.start + self.len]
    }
}

#[test]
fn misaligned_payloads_are_copied_into_aligned_memory() {
    let values: Vec<u8> = [1_u32, 2, 3].iter().flat_map(|x| x.to_ne_bytes()).collect();
    let file = safetensors::serialize(
        [("x", TensorView::new(Dtype::U32, vec![3], &values).unwrap())],
        None,
    )
    .unwrap();
    // One allocation, the file moved through its first 8 bytes: every address residue, whatever
    // alignment the allocator gave the buffer.
    let mut bytes = vec![0_u8; 8 + file.len()];
    let mut seen = [false, false];
    for pad in 0..8 {
        bytes.fill(0);
        bytes[pad..pad + file.len()].copy_from_slice(&file);
        let window = &bytes[pad..pad + file.len()];
        let payload = SafeTensors::deserialize(window)
            .unwrap()
            .tensor("x")
            .unwrap()
            .data()
            .as_ptr();
        let aligned = payload.addr() % 4 == 0;
        let buffer = Arc::new(Window {
            bytes,
            start: pad,
            len: file.len(),
        });
        let x = Tensors::new(Arc::clone(&buffer)).unwrap().get("x").unwrap();
        let view = x.view().unwrap();
        // Typed reads work either way: that is what the copy is for.
        assert_eq!(view.as_slice::<u32>().unwrap(), [1, 2, 3]);
        let in_place = (*buffer)
            .as_ref()
            .as_ptr_range()
            .contains(&view.as_bytes().unwrap().as_ptr());
        assert_eq!(in_place, aligned, "pad {pad}");
        assert_eq!(
            x.flags(),
            if aligned {
                Flags::READ_ONLY
            } else {
                Flags::IS_COPIED
            }
        );
        seen[usize::from(aligned)] = true;
        drop(x);
        bytes = Arc::into_inner(buffer).expect("the tensors are gone").bytes;
    }
    assert_eq!(seen, [true, true], "both cases ran");
}

#[test]
fn broken_files_and_missing_names_are_refused_with_the_reason() {
    let err = Tensors::new(Arc::new(vec![0_u8; 3])).err().unwrap();
    assert_eq!(
        err.to_string(),
        "not a safetensors file (3 bytes): header too small"
    );
    let mut truncated = every_dtype_file();
    truncated.pop();
    let err = tensors(&Arc::new(truncated)).unwrap_err();
    assert!(
        err.to_string().starts_with("not a safetensors file ("),
        "{err}"
    );
    assert!(
        err.to_string()
            .ends_with("incomplete metadata, file not fully covered"),
        "{err}"
    );

    let file = safetensors::serialize(
        [("only", TensorView::new(Dtype::U8, vec![1], &[1]).unwrap())],
        None,
    )
    .unwrap();
    let file = Tensors::new(Arc::new(file)).unwrap();
    assert_eq!(
        file.get("other").unwrap_err().to_string(),
        "the safetensors file has no tensor `other`; it has: only"
    );
}

#[test]
fn an_empty_tensor_and_an_empty_file() {
    let file = safetensors::serialize(
        [(
            "none",
            TensorView::new(Dtype::F64, vec![0, 3], &[]).unwrap(),
        )],
        None,
    )
    .unwrap();
    let all = tensors(&Arc::new(file)).unwrap();
    let view = all[0].1.view().unwrap();
    assert_eq!((view.shape(), view.len()), (&[0, 3][..], 0));
    assert_eq!(view.as_bytes().unwrap(), [] as [u8; 0]);
    let empty = safetensors::serialize(Vec::<(&str, TensorView)>::new(), None).unwrap();
    assert!(tensors(&Arc::new(empty)).unwrap().is_empty());
}

/// safetensors → DLPack → candle equals candle's own safetensors loader, tensor by tensor,
/// for every dtype candle has.
#[cfg(feature = "candle")]
#[test]
fn candle_reads_the_bridge_as_it_reads_the_file() {
    use candle_core::safetensors::Load;
    use candle_core::{CpuStorage, DType, Device as CandleDevice, Storage, Tensor};

    /// The storage's bytes, through candle's own types.
    fn bytes(t: &Tensor) -> Vec<u8> {
        let (storage, _) = t.storage_and_layout();
        let Storage::Cpu(cpu) = &*storage else {
            panic!("not a CPU tensor")
        };
        match cpu {
            CpuStorage::U8(v)
            | CpuStorage::F6E2M3(v)
            | CpuStorage::F6E3M2(v)
            | CpuStorage::F4(v)
            | CpuStorage::F8E8M0(v) => v.clone(),
            CpuStorage::U32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            CpuStorage::I16(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            CpuStorage::I32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            CpuStorage::I64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            CpuStorage::BF16(v) => v.iter().flat_map(|x| x.to_bits().to_ne_bytes()).collect(),
            CpuStorage::F16(v) => v.iter().flat_map(|x| x.to_bits().to_ne_bytes()).collect(),
            CpuStorage::F32(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            CpuStorage::F64(v) => v.iter().flat_map(|x| x.to_ne_bytes()).collect(),
            CpuStorage::F8E4M3(v) => v.iter().map(|x| x.to_bits()).collect(),
        }
    }

    let file = every_dtype_file();
    let reference = SafeTensors::deserialize(&file).unwrap();
    let mut compared = 0;
    for (name, tensor) in tensors(&Arc::new(file.clone())).unwrap() {
        let Ok(dtype) = from_dlpack::<DType>(&tensor.dtype()) else {
            continue; // bool, int8, uint16, …: no candle dtype
        };
        let theirs = reference
            .tensor(&name)
            .unwrap()
            .load(&CandleDevice::Cpu)
            .unwrap();
        let ours: Tensor = from_dlpack(&tensor).unwrap();
        assert_eq!(
            (ours.dtype(), ours.dims()),
            (dtype, theirs.dims()),
            "{name}"
        );
        assert_eq!(theirs.dtype(), dtype, "{name}");
        assert_eq!(bytes(&ours), bytes(&theirs), "{name}");
        compared += 1;
    }
    assert_eq!(compared, 14, "every candle dtype");
}

/// A buffer whose `AsRef` (a safe trait) gives the whole file once, then nothing: the export
/// asks again, and must check what it is given, not what the parse saw.
struct Shrinking {
    file: Vec<u8>,
    calls: std::sync::atomic::AtomicUsize,
}

impl AsRef<[u8]> for Shrinking {
    fn as_ref(&self) -> &[u8] {
        let call = self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if call == 0 {
            &self.file
        } else {
            &self.file[..8]
        }
    }
}

#[test]
fn a_buffer_that_shrinks_between_calls_is_refused_not_read_past() {
    let values: Vec<u8> = (0..16).collect();
    let file = safetensors::serialize(
        [("w", TensorView::new(Dtype::U8, vec![16], &values).unwrap())],
        None,
    )
    .unwrap();
    let len = file.len();
    let buffer = Arc::new(Shrinking {
        file,
        calls: 0.into(),
    });
    let tensors = Tensors::new(buffer).unwrap();
    let err = tensors.get("w").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "a tensor at bytes {}..{len} lies outside the buffer of 8 bytes",
            len - 16
        )
    );
}
