// Dispatch over a derived enum with every kind of variant: natural element types, `element`,
// a name without a Rust type, `skip`, `export_only`, a delegate, generics.
use core::marker::PhantomData;

use dlpack_core::dispatch::{Dispatch, Kernel, Of};
use dlpack_core::{DataType, DlpackDataType, Element};

#[derive(Clone, Copy, Debug, PartialEq, DlpackDataType)]
enum BoolStore {
    #[dlpack("bool")]
    Byte,
}

#[derive(Clone, Copy, DlpackDataType)]
enum DType<E: Element> {
    #[dlpack("float32")]
    F32,
    #[dlpack(code = float, bits = 16)]
    F16,
    #[dlpack(element = u8)]
    U8,
    #[dlpack("float8_e4m3fn")]
    F8,
    #[dlpack("float32", export_only)]
    Flex32,
    #[dlpack(skip)]
    Quantized,
    Bool(#[dlpack(delegate)] BoolStore),
    #[dlpack(element = E, export_only)]
    Native(PhantomData<E>),
}

struct Name;
impl<T: Element> Kernel<Of<T>> for Name {
    type Output = DataType;
    fn run(self, _: Of<T>) -> DataType {
        T::DATA_TYPE
    }
}

fn main() {
    type D = DType<i16>;
    assert_eq!(D::F32.dispatch(Name).unwrap(), DataType::F32);
    assert_eq!(D::F16.dispatch(Name).unwrap(), DataType::F16); // feature `half`
    assert_eq!(D::U8.dispatch(Name).unwrap(), DataType::U8);
    assert!(D::F8.dispatch(Name).is_err());
    assert_eq!(D::Flex32.dispatch(Name).unwrap(), DataType::F32);
    assert!(D::Quantized.dispatch(Name).is_err());
    assert_eq!(D::Bool(BoolStore::Byte).dispatch(Name).unwrap(), DataType::BOOL);
    assert_eq!(D::Native(PhantomData).dispatch(Name).unwrap(), DataType::I16);
}
