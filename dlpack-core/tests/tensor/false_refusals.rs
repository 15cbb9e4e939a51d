//! Regressions for two valid tensors that were refused: packed sub-byte extents whose bit count
//! leaves `usize` while their byte count fits, and mutable access to disjoint layouts whose
//! strides do not nest.

use super::{Data, Foreign};
use dlpack_core::ffi::DLDataTypeCode;
use dlpack_core::tensor::{CheckedLayout, TensorError, TensorParts};
use dlpack_core::{DataType, Device, Error, ManagedTensor};

/// An address with no memory behind it: these tests check metadata and never read it.
const NOWHERE: usize = 0x1000;

fn int3() -> DataType {
    DataType::new(DLDataTypeCode::INT, 3, 1)
}

/// A packed tensor of one dimension at [`NOWHERE`], imported and viewed.
fn packed_view(dtype: DataType, len: i64, byte_offset: u64) -> Result<(isize, isize), Error> {
    let mut f = Foreign::bytes(&[], dtype, &[len]);
    f.data = Data::Addr(NOWHERE);
    f.byte_offset = byte_offset;
    let (tensor, released) = f.import();
    let tensor = tensor?;
    let range = tensor.view().map(|view| {
        assert!(view.is_packed());
        assert_eq!(view.len() as i64, len);
        let range = view.byte_range();
        (range.start, range.end)
    });
    drop(tensor);
    assert_eq!(released.get(), 1);
    range
}

#[test]
fn packed_extents_within_isize_are_accepted() {
    // float4_e2m1fn [2^62]: 2^61 bytes, though 2^62 * 4 bits leaves u64.
    assert_eq!(
        packed_view(DataType::FLOAT4_E2M1FN, 1 << 62, 0).unwrap(),
        (0, 1 << 61)
    );
    // int3 [i64::MAX]: ceil(3 * (2^63 - 1) / 8) = 3 * 2^60 bytes, about 3.5e18.
    assert_eq!(packed_view(int3(), i64::MAX, 0).unwrap(), (0, 3 << 60));
    // float6_e3m2fn [i64::MAX]: 6 * 2^60 bytes, with the byte offset that ends it exactly at
    // isize::MAX, and one byte further.
    let six = DataType::FLOAT6_E3M2FN;
    let bytes: i64 = 6 << 60;
    let room = (isize::MAX as i64 - bytes) as u64;
    assert_eq!(
        packed_view(six, i64::MAX, room).unwrap(),
        (room as isize, isize::MAX)
    );
    assert_eq!(
        packed_view(six, i64::MAX, room + 1).unwrap_err(),
        Error::Tensor(TensorError::ByteOffsetOverflow {
            byte_offset: room + 1
        })
    );
}

#[test]
fn packed_extents_within_isize_are_exported() {
    let address = core::ptr::without_provenance_mut(NOWHERE);
    for (dtype, len, bytes) in [
        (DataType::FLOAT4_E2M1FN, 1_i64 << 62, 1_i64 << 61),
        (int3(), i64::MAX, 3 << 60),
    ] {
        let shape = [len];
        let parts = TensorParts::new(address, Device::cuda(0), dtype, &shape[..]);
        let layout = CheckedLayout::new(&parts).unwrap();
        assert_eq!((layout.shape(), layout.strides()), (&[len][..], &[1][..]));
        assert_eq!(dtype.packed_size(len as usize), Some(bytes as usize));
    }
}

/// `[3, 2]` bytes with strides `[2, 3]`, over 8 bytes: offsets 0, 3, 2, 5, 4, 7.
fn interleaved(strides: [i64; 2], byte_offset: u64) -> ManagedTensor {
    let mut f = Foreign::bytes(&[0; 8], DataType::U8, &[3, 2]).strides(Some(&strides));
    f.byte_offset = byte_offset;
    f.import().0.unwrap()
}

#[test]
fn disjoint_strides_that_do_not_nest_are_writable() {
    let mut t = interleaved([2, 3], 0);
    for (i, x) in t.view_mut().unwrap().iter_mut::<u8>().unwrap().enumerate() {
        *x = 10 + i as u8;
    }
    let mut raw = [0_u8; 8];
    for (at, x) in [0, 3, 2, 5, 4, 7].into_iter().zip(10..) {
        raw[at] = x;
    }
    // Each element written once where its offset says; bytes 1 and 6 belong to no element.
    let view = t.view().unwrap();
    assert_eq!(view.to_vec::<u8>().unwrap(), [10, 11, 12, 13, 14, 15]);
    // SAFETY: the producer's buffer holds 16 bytes from the data pointer, unwritten meanwhile.
    let bytes = unsafe { core::slice::from_raw_parts(view.data_ptr().cast::<u8>(), 8) };
    assert_eq!(bytes, raw);

    // Mirrored: the first axis runs backwards from byte 4.
    let mut t = interleaved([-2, 3], 4);
    for (i, x) in t.view_mut().unwrap().iter_mut::<u8>().unwrap().enumerate() {
        *x = i as u8;
    }
    assert_eq!(
        t.view().unwrap().to_vec::<u8>().unwrap(),
        [0, 1, 2, 3, 4, 5]
    );
}

#[test]
fn overlapping_strides_are_still_refused_with_the_exact_reason() {
    // [4, 3] with strides [2, 3]: index (3, 0) and (0, 2) both reach offset 6.
    let (t, _) = Foreign::bytes(&[0; 16], DataType::U8, &[4, 3])
        .strides(Some(&[2, 3]))
        .import();
    let mut t = t.unwrap();
    let err = t.view_mut().unwrap().iter_mut::<u8>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "strides [2, 3] for shape [4, 3] reach some elements from two indices; a mutable view needs each element once"
    );
}

// Two million steps of pure integer search before the refusal; nothing unsafe to check.
#[cfg(not(miri))]
#[test]
fn layouts_beyond_the_search_bound_are_refused_saying_so() {
    // Three disjoint copies of [n, 2] with strides [2, 3], scaled apart.
    let (n, m) = (20_000_i64, 40_003_i64);
    let shape = [n, 2, n, 2, n, 2];
    let strides = [2, 3, 2 * m, 3 * m, 2 * m * m, 3 * m * m];
    let mut f = Foreign::bytes(&[], DataType::U8, &shape).strides(Some(&strides));
    f.data = Data::Addr(NOWHERE);
    let mut t = f.import().0.unwrap();
    // Refused before any byte is touched.
    let err = t.view_mut().unwrap().iter_mut::<u8>().unwrap_err();
    assert!(matches!(
        err,
        Error::Tensor(TensorError::OverlapUndecided { .. })
    ));
    assert_eq!(
        err.to_string(),
        format!(
            "strides {strides:?} for shape {shape:?} do not nest, and whether they reach some element from two indices is not decided within 1048576 search steps; a mutable view needs each element once (read the tensor, or copy it)"
        )
    );
}

#[cfg(feature = "ndarray")]
#[test]
fn ndarray_mutable_views_need_nesting_and_say_so() {
    let mut t = interleaved([2, 3], 0);
    let err = t.view_mut().unwrap().as_array_mut::<u8>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "strides [2, 3] for shape [3, 2] do not nest (sorted by size, each must step past everything the smaller ones reach), which an ndarray mutable view requires; use iter_mut"
    );
    // Reading is fine, and overlapping layouts keep their own reason.
    let a = t.view().unwrap().as_array::<u8>().unwrap().to_owned();
    assert_eq!(a.shape(), [3, 2]);
    let (t, _) = Foreign::bytes(&[0; 16], DataType::U8, &[4, 3])
        .strides(Some(&[2, 3]))
        .import();
    assert!(matches!(
        t.unwrap().view_mut().unwrap().as_array_mut::<u8>(),
        Err(Error::Tensor(TensorError::Overlapping { .. }))
    ));
}

/// Found by the two-way property test: `ndarray`'s constructors from a pointer assert bounds
/// (in debug builds) that empty arrays of some shapes fail, whatever strides they are given.
#[cfg(feature = "ndarray")]
#[test]
fn empty_ndarray_views_of_any_shape() {
    for shape in [[1_i64 << 62, 0], [2, 0], [0, 2], [i64::MAX, 0]] {
        let (t, released) = Foreign::bytes(&[], DataType::U32, &shape).import();
        let mut t = t.unwrap();
        let expected = [shape[0] as usize, shape[1] as usize];
        assert_eq!(
            t.view().unwrap().as_array::<u32>().unwrap().shape(),
            expected
        );
        let mut view = t.view_mut().unwrap();
        let mut array = view.as_array_mut::<u32>().unwrap();
        assert_eq!(array.shape(), expected);
        assert_eq!(array.iter_mut().count(), 0);
        drop(view);
        drop(t);
        assert_eq!(released.get(), 1);
    }
}
