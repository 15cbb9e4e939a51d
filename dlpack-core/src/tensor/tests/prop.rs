//! A bounded property test of import validation: arbitrary `DLTensor` metadata over a buffer
//! the test owns. Validation must never panic, and an accepted view must report exactly the
//! bytes its elements reach, computed here independently, so that it never reads outside them.
//! When those bytes lie inside the buffer, every element is read back and compared.

use proptest::prelude::*;

use super::Foreign;
use crate::ffi::{DLDataTypeCode, DLPackVersion};
use crate::tensor::{Flags, MAX_NDIM};
use crate::{DataType, Error};

const BUFFER: usize = 256;

fn dim() -> impl Strategy<Value = i64> {
    prop_oneof![8 => 0..4_i64, 1 => -3..0_i64, 1 => any::<i64>()]
}

fn stride() -> impl Strategy<Value = i64> {
    prop_oneof![8 => -9..9_i64, 1 => any::<i64>()]
}

fn dtype() -> impl Strategy<Value = DataType> {
    prop::sample::select(vec![
        DataType::U8,
        DataType::BOOL,
        DataType::I16,
        DataType::F32,
        DataType::F64,
        DataType::C128,
        DataType::F16.with_lanes(3),
        DataType::FLOAT4_E2M1FN,
        DataType::FLOAT6_E3M2FN,
        DataType::new(DLDataTypeCode::INT, 4, 1),
        DataType::new(DLDataTypeCode(99), 8, 1),
        DataType::new(DLDataTypeCode::FLOAT, 0, 1),
    ])
}

#[derive(Clone, Debug)]
struct Meta {
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    ndim_override: Option<i32>,
    dtype: DataType,
    byte_offset: u64,
    flags: u64,
    minor: u32,
}

fn meta() -> impl Strategy<Value = Meta> {
    (0..5_usize)
        .prop_flat_map(|ndim| {
            (
                prop::collection::vec(dim(), ndim),
                prop::option::weighted(0.9, prop::collection::vec(stride(), ndim)),
                prop::option::weighted(0.05, any::<i32>()),
                dtype(),
                prop_oneof![8 => 0..64_u64, 1 => any::<u64>()],
                0..8_u64,
                prop::sample::select(vec![0_u32, 1, 2, 3]),
            )
        })
        .prop_map(
            |(shape, strides, ndim_override, dtype, byte_offset, flags, minor)| Meta {
                shape,
                strides,
                // Only values validation refuses before reading the shape: a rank that lies
                // within range would make the test itself read past its shape array.
                ndim_override: ndim_override.filter(|&n| !(0..=MAX_NDIM as i32).contains(&n)),
                dtype,
                byte_offset,
                flags,
                minor,
            },
        )
}

/// The bytes the elements reach, from `data`, as the lowest and highest corner of the index
/// box give them (or `None` for an empty tensor), and, for small tensors, every element's byte
/// offset in row-major order, by enumeration.
fn reach(m: &Meta, strides: &[i64], packed: bool) -> (Option<(i128, i128)>, Option<Vec<i128>>) {
    let count: i128 = m.shape.iter().map(|&d| i128::from(d)).product();
    if count == 0 {
        return (None, Some(Vec::new()));
    }
    let offset = i128::from(m.byte_offset);
    if packed {
        let bits = count * i128::from(m.dtype.size_in_bits());
        return (Some((offset, offset + (bits + 7) / 8)), None);
    }
    let itemsize = m.dtype.itemsize() as i128;
    let at = |index: &[i64]| -> i128 {
        let elements: i128 = index
            .iter()
            .zip(strides)
            .map(|(&i, &s)| i128::from(i) * i128::from(s))
            .sum();
        offset + elements * itemsize
    };
    let ndim = m.shape.len();
    let corners: Vec<i128> = (0..1_u32 << ndim)
        .map(|bits| {
            let index: Vec<i64> = (0..ndim)
                .map(|axis| {
                    if bits >> axis & 1 == 1 {
                        m.shape[axis] - 1
                    } else {
                        0
                    }
                })
                .collect();
            at(&index)
        })
        .collect();
    let extent = (
        *corners.iter().min().unwrap(),
        *corners.iter().max().unwrap() + itemsize,
    );
    if count > 4096 {
        return (Some(extent), None);
    }
    let mut offsets = Vec::with_capacity(count as usize);
    let mut index = vec![0_i64; ndim];
    for _ in 0..count {
        offsets.push(at(&index));
        for axis in (0..ndim).rev() {
            index[axis] += 1;
            if index[axis] < m.shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    (Some(extent), Some(offsets))
}

fn check(m: Meta) -> Result<(), TestCaseError> {
    let bytes: Vec<u8> = (0..BUFFER).map(|i| i as u8).collect();
    let mut f = Foreign::bytes(&bytes, m.dtype, &[]);
    f.shape = Some(m.shape.clone());
    f.strides = m.strides.clone();
    f.ndim = m.ndim_override;
    f.byte_offset = m.byte_offset;
    f.flags = m.flags;
    f.version = DLPackVersion {
        major: 1,
        minor: m.minor,
    };
    let (tensor, released) = f.import();
    let tensor = tensor.expect("version 1 is accepted");
    let view = match tensor.view() {
        Ok(view) => view,
        Err(Error::Tensor(_)) => {
            drop(tensor);
            prop_assert_eq!(released.get(), 1);
            return Ok(());
        }
        Err(other) => return Err(TestCaseError::fail(format!("not a tensor error: {other}"))),
    };
    // Accepted: the metadata must be what a valid tensor has.
    prop_assert!(m.ndim_override.is_none());
    prop_assert!(m.dtype.check().is_ok());
    prop_assert!(m.shape.iter().all(|&d| d >= 0));
    let strides = view.strides().to_vec();
    prop_assert_eq!(strides.len(), m.shape.len());
    if m.strides.is_none() && !m.shape.is_empty() {
        prop_assert!(m.minor < 2, "null strides accepted for 1.{}", m.minor);
    }
    let padded = Flags::from_bits_retain(m.flags).contains(Flags::IS_SUBBYTE_TYPE_PADDED);
    let packed = m.dtype.is_sub_byte() && !padded;
    prop_assert_eq!(view.is_packed(), packed);
    let (extent, offsets) = reach(&m, &strides, packed);
    match extent {
        None => prop_assert!(view.is_empty() && view.byte_range().is_empty()),
        Some((lo, hi)) => {
            prop_assert!(hi - lo <= isize::MAX as i128 && lo >= isize::MIN as i128);
            prop_assert!(hi <= isize::MAX as i128);
            let range = view.byte_range();
            prop_assert_eq!((range.start as i128, range.end as i128), (lo, hi));
            if lo < 0 || hi > BUFFER as i128 {
                return Ok(()); // outside the buffer: the test must not read it either
            }
            let offsets = match (packed, offsets) {
                (true, _) => Vec::new(),
                (false, Some(offsets)) => offsets,
                (false, None) => return Ok(()), // too many elements to enumerate
            };
            // Inside: read everything back through the copy and compare with the buffer.
            let copy = view.to_managed_tensor().unwrap();
            let copied = copy.view().unwrap();
            let copied = copied.as_bytes().unwrap();
            if packed {
                prop_assert_eq!(copied, &bytes[lo as usize..hi as usize]);
            } else {
                let size = m.dtype.itemsize();
                for (i, &offset) in offsets.iter().enumerate() {
                    let at = offset as usize;
                    prop_assert_eq!(&copied[i * size..(i + 1) * size], &bytes[at..at + size]);
                }
                if m.dtype == DataType::U8 {
                    let items: Vec<u8> = view.iter::<u8>().unwrap().collect();
                    let expected: Vec<u8> = offsets.iter().map(|&o| bytes[o as usize]).collect();
                    prop_assert_eq!(items, expected);
                }
            }
        }
    }
    drop(view);
    drop(tensor);
    prop_assert_eq!(released.get(), 1);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 24 } else { 2048 },
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn validation_never_accepts_an_out_of_bounds_view(m in meta()) {
        check(m)?;
    }
}
