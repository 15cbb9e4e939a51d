//! `ndarray` views of imported tensors and exports of `ndarray` arrays.

use ndarray::{ArcArray, Array, Array2, ArrayD, Axis, IxDyn, arr0, s};

use super::Foreign;
use dlpack_core::tensor::{Flags, TensorError};
use dlpack_core::{Error, ManagedTensor, from_dlpack};

#[test]
fn exports_keep_the_array_layout() {
    let a = Array2::from_shape_fn((3, 4), |(i, j)| (10 * i + j) as i64);
    let expected: Vec<i64> = a.iter().copied().collect();

    // Standard layout.
    let t = ManagedTensor::from_owner(a.clone()).unwrap();
    let v = t.view().unwrap();
    assert_eq!((v.shape(), v.strides()), (&[3, 4][..], &[4, 1][..]));
    assert_eq!(v.as_slice::<i64>().unwrap(), expected);

    // Transposed, inverted and stepped arrays export their strides as they are.
    let cases: Vec<(Array<i64, _>, Vec<i64>)> = vec![
        (a.clone().reversed_axes(), vec![1, 4]),
        (
            {
                let mut b = a.clone();
                b.invert_axis(Axis(0));
                b
            },
            vec![-4, 1],
        ),
        (a.slice(s![.., ..;2]).to_owned(), vec![2, 1]),
        (
            {
                let mut b = a.clone();
                b.slice_axis_inplace(Axis(1), ndarray::Slice::new(0, None, -3));
                b
            },
            vec![4, -3],
        ),
    ];
    for (array, strides) in cases {
        let items: Vec<i64> = array.iter().copied().collect();
        let t = ManagedTensor::from_owner(array.clone()).unwrap();
        let v = t.view().unwrap();
        assert_eq!(v.strides(), strides);
        assert_eq!(v.iter::<i64>().unwrap().collect::<Vec<_>>(), items);
        assert_eq!(v.as_array::<i64>().unwrap(), array.view().into_dyn());
    }
}

#[test]
fn arc_arrays_are_shared_read_only() {
    let shared = ArcArray::from_shape_vec((2, 2), vec![1.0_f32, 2.0, 3.0, 4.0]).unwrap();
    let mut t = ManagedTensor::from_owner(shared.clone()).unwrap();
    assert_eq!(t.flags(), Flags::READ_ONLY);
    assert_eq!(
        t.view().unwrap().as_slice::<f32>().unwrap().as_ptr(),
        shared.as_ptr()
    );
    assert_eq!(
        t.view_mut().unwrap_err(),
        Error::Tensor(TensorError::ReadOnly)
    );
    let t: ManagedTensor = from_dlpack(&shared).unwrap();
    assert_eq!(t.flags(), Flags::READ_ONLY);
}

#[test]
fn arrays_by_reference_are_copied() {
    let a = Array::from_shape_vec((2, 3), (0..6).collect::<Vec<u8>>()).unwrap();
    let t: ManagedTensor = from_dlpack(&a).unwrap();
    assert_eq!(t.flags(), Flags::IS_COPIED);
    assert_ne!(
        t.view().unwrap().as_slice::<u8>().unwrap().as_ptr(),
        a.as_ptr()
    );
    let t: ManagedTensor = from_dlpack(&a.t()).unwrap();
    assert_eq!(t.flags(), Flags::IS_COPIED);
    assert_eq!(
        t.view().unwrap().as_array::<u8>().unwrap(),
        a.t().into_dyn()
    );
    let back: ArrayD<u8> = from_dlpack(&t).unwrap();
    assert_eq!(back, a.t().into_dyn());
}

#[test]
fn views_of_foreign_strides() {
    let data: Vec<i32> = (0..12).collect();
    let mut f = Foreign::of(&data, &[3, 4]).strides(Some(&[-4, -1]));
    f.byte_offset = 44;
    let (t, released) = f.import();
    let mut t = t.unwrap();
    {
        let v = t.view().unwrap();
        let a = v.as_array::<i32>().unwrap();
        assert_eq!(a.shape(), [3, 4]);
        assert_eq!(a[[0, 0]], 11);
        assert_eq!(a[[2, 3]], 0);
        assert_eq!(
            a.iter().copied().collect::<Vec<_>>(),
            (0..12).rev().collect::<Vec<_>>()
        );
    }
    // Writes through a mutable view land where the strides say.
    let mut v = t.view_mut().unwrap();
    let mut a = v.as_array_mut::<i32>().unwrap();
    a[[0, 0]] = -1;
    a.index_axis_mut(Axis(0), 2).fill(-2);
    let mut iter = v.view().iter::<i32>().unwrap();
    assert_eq!(iter.next(), Some(-1));
    let raw: Vec<i32> = t.view().unwrap().to_vec().unwrap();
    assert_eq!(&raw[8..], [-2, -2, -2, -2]);
    drop(t);
    assert_eq!(released.get(), 1);
}

#[test]
fn broadcasts_read_but_do_not_write() {
    let (t, _) = Foreign::of(&[1_u16, 2, 3], &[2, 3])
        .strides(Some(&[0, 1]))
        .import();
    let mut t = t.unwrap();
    let a = t.view().unwrap().as_array::<u16>().unwrap().to_owned();
    assert_eq!(
        a,
        Array::from_shape_vec(IxDyn(&[2, 3]), vec![1, 2, 3, 1, 2, 3]).unwrap()
    );
    assert!(matches!(
        t.view_mut().unwrap().as_array_mut::<u16>(),
        Err(Error::Tensor(TensorError::Overlapping { .. }))
    ));
}

#[test]
fn empty_rank_zero_and_bool_arrays() {
    let t = ManagedTensor::from_owner(Array::<f64, _>::zeros((0, 3))).unwrap();
    assert_eq!(t.view().unwrap().as_array::<f64>().unwrap().shape(), [0, 3]);
    let t = ManagedTensor::from_owner(arr0(2.5_f64)).unwrap();
    let v = t.view().unwrap();
    assert_eq!(v.ndim(), 0);
    assert_eq!(v.as_array::<f64>().unwrap()[IxDyn(&[])], 2.5);
    let (t, _) = Foreign::bytes(&[1, 0, 3], dlpack_core::DataType::BOOL, &[3]).import();
    assert_eq!(
        t.unwrap().view().unwrap().as_array::<bool>().unwrap_err(),
        Error::Tensor(TensorError::InvalidBool { index: 2, byte: 3 })
    );
}

#[test]
fn into_array_mut_outlives_the_view() {
    let mut t = ManagedTensor::from_vec(vec![0_i8; 4], &[2, 2]).unwrap();
    let mut a = t.view_mut().unwrap().into_array_mut::<i8>().unwrap();
    a[[1, 0]] = 5;
    assert_eq!(t.view().unwrap().as_slice::<i8>().unwrap(), [0, 0, 5, 0]);
}
