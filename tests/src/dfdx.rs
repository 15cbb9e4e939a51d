//! dfdx-style element types: the dtype is a Rust type (`f32`, `half::f16`, `AMP<F>`), so the
//! enum maps each variant through `#[dlpack(element = T)]`, checked at compile time against
//! `Element::DATA_TYPE`; and a generic marker `ElementOf<E>` maps itself through `E`.
//!
//! `usize` and `isize` have the data type of `u64`/`i64` on 64-bit targets (of `u32`/`i32` on
//! 32-bit ones), and `AMP<f16>` stores `f16`: those export only, or import would be ambiguous.

use core::marker::PhantomData;

use dlpack_core::{DlpackDataType, Element};

/// dfdx's element types, plus its mixed-precision wrapper `AMP<f16>`.
#[derive(Debug, Copy, Clone, PartialEq, Eq, Hash, DlpackDataType)]
#[allow(missing_docs)]
pub enum Dtype {
    #[dlpack(element = f32)]
    F32,
    #[dlpack(element = f64)]
    F64,
    #[dlpack(element = half::f16)]
    F16,
    #[dlpack(element = u8)]
    U8,
    #[dlpack(element = i8)]
    I8,
    #[dlpack(element = u16)]
    U16,
    #[dlpack(element = i16)]
    I16,
    #[dlpack(element = u32)]
    U32,
    #[dlpack(element = i32)]
    I32,
    #[dlpack(element = u64)]
    U64,
    #[dlpack(element = i64)]
    I64,
    #[dlpack(element = usize, export_only)]
    Usize,
    #[dlpack(element = isize, export_only)]
    Isize,
    #[dlpack(element = bool)]
    Bool,
    #[dlpack(element = half::f16, export_only)]
    AmpF16,
}

impl Dtype {
    /// Every variant.
    pub const ALL: &[Self] = &[
        Self::F32,
        Self::F64,
        Self::F16,
        Self::U8,
        Self::I8,
        Self::U16,
        Self::I16,
        Self::U32,
        Self::I32,
        Self::U64,
        Self::I64,
        Self::Usize,
        Self::Isize,
        Self::Bool,
        Self::AmpF16,
    ];
    /// The variants that export the data type of another.
    pub const EXPORT_ONLY: &[Self] = &[Self::Usize, Self::Isize, Self::AmpF16];
}

/// The data type of the Rust element type `E`, as a value: a generic marker.
#[derive(Debug, DlpackDataType)]
#[dlpack(element = E)]
pub struct ElementOf<E: Element>(PhantomData<E>);

impl<E: Element> ElementOf<E> {
    /// The marker.
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<E: Element> Default for ElementOf<E> {
    fn default() -> Self {
        Self::new()
    }
}
