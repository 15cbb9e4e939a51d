//! Runtime dtype dispatch: the derived enum's `dispatch` against the `match` a framework
//! writes by hand for each op, over the same kernel, stream and enum ([`DType`], 18 variants:
//! 15 with a Rust element type (`half` and `num-complex` on), 3 without, which both sides
//! refuse with the same allocation-free error).

use dlpack_core::dispatch::{Dispatch, Kernel, Of};
use dlpack_core::{DataType, Element, Error};

use crate::derived::DType;

/// The kernel: the bytes of `n` elements and a bit of the type, for any element type; cheap,
/// so that the time is the dispatch's.
#[derive(Clone, Copy)]
pub struct Bytes(pub usize);

impl<T: Element> Kernel<Of<T>> for Bytes {
    type Output = usize;

    #[inline]
    fn run(self, _: Of<T>) -> usize {
        self.0 * size_of::<T>() + usize::from(T::DATA_TYPE.code.0)
    }
}

/// The derived dispatch.
#[inline]
pub fn derived(dtype: &DType, kernel: Bytes) -> Result<usize, Error> {
    dtype.dispatch(kernel)
}

/// The same, written by hand: one arm per variant, the kernel named with each type.
#[inline]
pub fn hand(dtype: &DType, kernel: Bytes) -> Result<usize, Error> {
    fn run<T: Element>(kernel: Bytes) -> usize {
        kernel.run(Of::<T>::new())
    }
    Ok(match dtype {
        DType::Bool => run::<bool>(kernel),
        DType::I8 => run::<i8>(kernel),
        DType::I16 => run::<i16>(kernel),
        DType::I32 => run::<i32>(kernel),
        DType::I64 => run::<i64>(kernel),
        DType::U8 => run::<u8>(kernel),
        DType::U16 => run::<u16>(kernel),
        DType::U32 => run::<u32>(kernel),
        DType::U64 => run::<u64>(kernel),
        DType::F32 => run::<f32>(kernel),
        DType::F64 => run::<f64>(kernel),
        DType::F16 => run::<half::f16>(kernel),
        DType::BF16 => run::<half::bf16>(kernel),
        DType::C64 => run::<num_complex::Complex<f32>>(kernel),
        DType::C128 => run::<num_complex::Complex<f64>>(kernel),
        DType::F8E4M3FN | DType::F8E5M2 | DType::F4E2M1FN => return Err(no_element(*dtype)),
    })
}

#[cold]
#[inline(never)]
fn no_element(dtype: DType) -> Error {
    Error::NoElement {
        type_name: "DType",
        variant: None,
        data_type: Some(DataType::from(dtype)),
        handled: <DType as Dispatch>::__ELEMENTS,
    }
}
