//! Dispatch over `DataType`: every element type reaches its arm, other data types the error.

use std::prelude::rust_2024::*;

use super::{Dispatch, Kernel, Of};
use crate::{DataType, Element};

struct Name;
impl<T: Element> Kernel<Of<T>> for Name {
    type Output = DataType;
    fn run(self, _: Of<T>) -> DataType {
        T::DATA_TYPE
    }
}

#[test]
fn every_element_type_reaches_its_own_arm() {
    for &data_type in DataType::__ELEMENTS.iter().flatten() {
        assert_eq!(data_type.dispatch(Name), Ok(data_type));
    }
    assert!(DataType::__ELEMENTS.len() >= 11);
}

#[test]
fn data_types_without_an_element_type_are_an_error_that_lists_the_others() {
    let err = DataType::FLOAT8_E5M2.dispatch(Name).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with("float8_e5m2 has no Rust element type; a dispatch over DataType runs kernels on bool, int8, int16, int32, int64, uint8"),
        "{message}"
    );
    assert!(DataType::F32.with_lanes(2).dispatch(Name).is_err());
    assert_eq!(
        DataType::FLOAT8_E5M2.dispatch_or(Name, |d| *d),
        DataType::FLOAT8_E5M2
    );
}
