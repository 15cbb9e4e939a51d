//! No bridge panics on any DLPack input: candle's, burn's (`TensorData`) and ndarray's imports
//! each return the right values or an `Err`, for every data type the DLPack ABI names (those
//! the framework lacks, several lanes and an unknown code included), ranks 0 to 4, and strides
//! compact, transposed, broadcast (zero), negative and with gaps, zero-size shapes and 0-d
//! tensors among them, over aligned and misaligned first elements, `bool` bytes other than 0
//! and 1, and padded sub-byte elements with bits above the element's.
//!
//! The cases (`support/any_input.rs`) are a deterministic grid (data type × rank × kind of
//! strides) with pseudo-random dimensions, offsets and bytes, built as a foreign producer
//! builds them: an owner over a buffer holding exactly the bytes the layout reaches. Every `Ok`
//! is held to an oracle that walks the layout over the same bytes. Under Miri every 23rd case
//! of one round runs.
#![cfg(any(feature = "candle", feature = "burn", feature = "ndarray"))]

#[path = "support/any_input.rs"]
mod any_input;

use any_input::{Case, each_case, has_bad_bools};

#[cfg(feature = "candle")]
#[test]
fn candle_imports_any_input_or_refuses_it() {
    use candle_core::Tensor;
    use dlpack_core::tensor::{FromDlpackTensor, ToDlpackTensor};
    use dlpack_core::{DlpackDataType, from_dlpack};

    fn check(case: &Case, t: &Tensor) {
        assert_eq!(t.dims(), case.shape, "{case:?}");
        assert_eq!(
            t.dtype().dlpack_data_type().unwrap(),
            case.dtype,
            "{case:?}"
        );
        if case.dtype.size_in_bits() >= 8 || case.packed() {
            let exported = t.to_dlpack_tensor().unwrap();
            let bytes = exported.view().unwrap().to_compact_bytes().unwrap();
            assert_eq!(bytes, case.expected(), "{case:?}");
        }
    }

    let ok = each_case(2, |case, tensor| {
        let mut ok = 0;
        // Borrowed (the source lends its view) and owned.
        if let Ok(t) = from_dlpack::<Tensor>(&tensor) {
            check(case, &t);
            ok += 1;
        }
        if let Ok(t) = Tensor::from_dlpack_tensor(tensor) {
            check(case, &t);
            ok += 1;
        }
        ok
    });
    assert!(ok > 0, "no case was imported");
}

#[cfg(feature = "burn")]
#[test]
fn burn_imports_any_input_as_tensor_data_or_refuses_it() {
    use burn_std::TensorData;
    use dlpack_core::bridges::burn::data_from_dlpack;
    use dlpack_core::from_dlpack;

    fn check(case: &Case, data: &TensorData) {
        assert_eq!(data.shape().as_slice(), case.shape, "{case:?}");
        assert_eq!(data.as_bytes(), case.expected(), "{case:?}");
        assert!(
            !has_bad_bools(case),
            "a bool byte above 1 was accepted: {case:?}"
        );
    }

    let ok = each_case(2, |case, tensor| {
        let mut ok = 0;
        if let Ok(data) = from_dlpack::<TensorData>(&tensor) {
            check(case, &data);
            ok += 1;
        }
        if let Ok(data) = data_from_dlpack(tensor) {
            check(case, &data);
            ok += 1;
        }
        ok
    });
    assert!(ok > 0, "no case was imported");
}

#[cfg(feature = "ndarray")]
#[test]
fn ndarray_imports_any_input_or_refuses_it() {
    use dlpack_core::tensor::{Flags, FromDlpackTensor};
    use dlpack_core::{DataType, Element, ManagedTensor, from_dlpack};
    use ndarray::ArrayD;

    /// The array's elements' bytes, in its logical (row-major) order.
    fn bytes_of<T: Element>(array: impl IntoIterator<Item = T>) -> Vec<u8> {
        let mut out = Vec::new();
        for x in array {
            // SAFETY: `x` is a plain `Element` (no padding, no pointers), read as its bytes.
            let bytes =
                unsafe { std::slice::from_raw_parts((&raw const x).cast::<u8>(), size_of::<T>()) };
            out.extend_from_slice(bytes);
        }
        out
    }

    /// Reads the case as `T` three ways; each must refuse another data type, and give the
    /// oracle's bytes where it succeeds.
    fn typed<T: Element>(case: &Case, tensor: &ManagedTensor) -> usize {
        let matches =
            T::DATA_TYPE == case.dtype && !case.flags.contains(Flags::IS_SUBBYTE_TYPE_PADDED);
        if cfg!(miri) && !matches && T::DATA_TYPE != DataType::U8 {
            return 0; // one mismatched type is enough to interpret
        }
        let mut ok = 0;
        let mut check = |bytes: Result<Vec<u8>, dlpack_core::Error>, shape: Option<Vec<usize>>| {
            if let Ok(bytes) = bytes {
                assert!(matches, "read as {}: {case:?}", T::DATA_TYPE);
                assert!(
                    !has_bad_bools(case),
                    "a bool byte above 1 was accepted: {case:?}"
                );
                assert_eq!(bytes, case.expected(), "{case:?}");
                if let Some(shape) = shape {
                    assert_eq!(shape, case.shape, "{case:?}");
                }
                ok += 1;
            }
        };
        let view = tensor.view().unwrap();
        check(
            view.as_array::<T>().map(|a| bytes_of(a.iter().copied())),
            None,
        );
        let borrowed = from_dlpack::<ArrayD<T>>(tensor);
        let shape = borrowed.as_ref().ok().map(|a| a.shape().to_vec());
        check(borrowed.map(|a| bytes_of(a.iter().copied())), shape);
        let owned = case.tensor().map(ArrayD::<T>::from_dlpack_tensor);
        if let Some(owned) = owned {
            let shape = owned.as_ref().ok().map(|a| a.shape().to_vec());
            check(owned.map(|a| bytes_of(a.iter().copied())), shape);
        }
        ok
    }

    let ok = each_case(1, |case, tensor| {
        let mut ok = 0;
        macro_rules! each {
            ($($t:ty),*) => { $( ok += typed::<$t>(case, &tensor); )* };
        }
        each!(bool, u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);
        #[cfg(feature = "half")]
        each!(half::f16, half::bf16);
        #[cfg(feature = "num-complex")]
        each!(num_complex::Complex<f32>, num_complex::Complex<f64>);
        ok
    });
    assert!(ok > 0, "no case was imported");
}
