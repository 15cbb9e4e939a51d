//! Bounded property tests of export. An export checks each rule once, on the values as it
//! writes them, and trusts `from_vec`'s shape once it is checked against the data's length;
//! these tests hold that to the importer's validation (`validate::layout`, itself tested
//! against an independent statement of the rules in `oracle.rs`, both ways, in `two_way.rs`):
//!
//! - an owner's description exports exactly when an importer would accept the same metadata,
//!   with the first error in the documented order (conversions, the shape, null data, what
//!   the legacy struct cannot carry, then the importer's rules), and the export says what it
//!   was given;
//! - a [`CheckedLayout`] is made exactly when the importer accepts the description (its data
//!   pointer and the legacy struct aside), and an export from it is the export of the
//!   description given field by field;
//! - `from_vec` and `from_arc` accept a shape exactly when it holds the data's length and fits
//!   DLPack, computed here in `u128`, report the first error in the order of the general path,
//!   and export compact row-major strides.

use alloc::sync::Arc;
use alloc::{format, vec, vec::Vec};

use proptest::prelude::*;

use crate::ffi::{DLDataTypeCode, DLTensor};
use crate::tensor::import::validate::{self, StridesRule};
use crate::tensor::{CheckedLayout, Flags, MAX_NDIM, TensorError, TensorOwner, TensorParts};
use crate::{DataType, Device, Error, LegacyManagedTensor, ManagedTensor};

/// The integer type an owner stores its dimensions in.
#[derive(Clone, Copy, Debug)]
enum Kind {
    I64,
    Usize,
    Isize,
}

/// An owner's description, with dimensions as `i64` values (a negative one stored as `usize`
/// becomes a value past `int64_t`).
#[derive(Clone, Debug)]
struct Desc {
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    shape_kind: Kind,
    strides_kind: Kind,
    dtype: DataType,
    byte_offset: u64,
    flags: Flags,
    null: bool,
    legacy: bool,
}

/// Exports `Desc` as a CUDA tensor at an address nothing on the host ever reads: export and
/// views check metadata only, and a view refuses host access to CUDA memory.
struct Owner {
    desc: Desc,
    shape: Stored,
    strides: Option<Stored>,
}

enum Stored {
    I64(Vec<i64>),
    Usize(Vec<usize>),
    Isize(Vec<isize>),
}

impl Stored {
    fn new(values: &[i64], kind: Kind) -> Self {
        match kind {
            Kind::I64 => Self::I64(values.to_vec()),
            Kind::Usize => Self::Usize(values.iter().map(|&v| v as usize).collect()),
            Kind::Isize => Self::Isize(values.iter().map(|&v| v as isize).collect()),
        }
    }

    fn dims(&self) -> crate::tensor::Dims<'_> {
        match self {
            Self::I64(v) => v.into(),
            Self::Usize(v) => v.into(),
            Self::Isize(v) => v.into(),
        }
    }
}

// SAFETY: the address is in CUDA memory that does not exist; nothing dereferences it (the
// tests read metadata only, and host access to a CUDA tensor is refused). Same answer each
// time.
unsafe impl TensorOwner for Owner {
    fn describe(&mut self) -> TensorParts<'_> {
        let data = if self.desc.null {
            core::ptr::null_mut()
        } else {
            core::ptr::without_provenance_mut(0x1000)
        };
        let parts = TensorParts::new(data, Device::cuda(0), self.desc.dtype, self.shape.dims())
            .with_byte_offset(self.desc.byte_offset)
            .with_flags(self.desc.flags);
        match &self.strides {
            Some(s) => parts.with_strides(s.dims()),
            None => parts,
        }
    }
}

fn dim() -> impl Strategy<Value = i64> {
    prop_oneof![8 => 0..4_i64, 1 => -2..0_i64, 1 => any::<i64>()]
}

fn stride() -> impl Strategy<Value = i64> {
    prop_oneof![8 => -9..9_i64, 1 => any::<i64>()]
}

fn kind() -> impl Strategy<Value = Kind> {
    prop::sample::select(vec![Kind::I64, Kind::Usize, Kind::Isize])
}

fn desc() -> impl Strategy<Value = Desc> {
    (0..5_usize)
        .prop_flat_map(|ndim| {
            (
                prop::collection::vec(dim(), ndim),
                prop::option::weighted(0.7, prop::collection::vec(stride(), ndim)),
                (kind(), kind()),
                prop::sample::select(vec![
                    DataType::U8,
                    DataType::F32,
                    DataType::C128,
                    DataType::F16.with_lanes(3),
                    DataType::FLOAT4_E2M1FN,
                    DataType::new(DLDataTypeCode::INT, 4, 1),
                    DataType::new(DLDataTypeCode(99), 8, 1),
                ]),
                prop_oneof![8 => 0..64_u64, 1 => any::<u64>()],
                0..8_u64,
                prop::bool::weighted(0.1),
                any::<bool>(),
            )
        })
        .prop_map(
            |(
                shape,
                strides,
                (shape_kind, strides_kind),
                dtype,
                byte_offset,
                flags,
                null,
                legacy,
            )| {
                Desc {
                    shape,
                    strides,
                    shape_kind,
                    strides_kind,
                    dtype,
                    byte_offset,
                    flags: Flags::from_bits_retain(flags),
                    null,
                    legacy,
                }
            },
        )
}

/// The first value a `usize` store turns past `int64_t`, as the export reports it.
fn out_of_range(values: &[i64], kind: Kind, field: &'static str) -> Result<(), TensorError> {
    match (kind, values.iter().position(|&v| v < 0)) {
        (Kind::Usize, Some(axis)) => Err(TensorError::DimOutOfRange {
            field,
            axis,
            value: values[axis] as usize as i128,
        }),
        _ => Ok(()),
    }
}

/// What an export of `d` must give, from the importer's rules.
fn expected(d: &Desc) -> Result<(), TensorError> {
    out_of_range(&d.shape, d.shape_kind, "shape")?;
    if let Some(strides) = &d.strides {
        out_of_range(strides, d.strides_kind, "strides")?;
    }
    let count = validate::check_shape(&d.shape)?;
    if count > 0 && d.null {
        return Err(TensorError::NullData { elements: count });
    }
    let mut flags = d.flags;
    if d.legacy {
        let mut lost = flags & Flags::READ_ONLY;
        if d.dtype.is_sub_byte() {
            lost |= flags & Flags::IS_SUBBYTE_TYPE_PADDED;
        }
        if !lost.is_empty() {
            return Err(TensorError::LegacyFlags { flags: lost });
        }
        flags = Flags::EMPTY; // the legacy struct has no flags
    }
    let mut shape = d.shape.clone();
    let mut strides = d.strides.clone();
    let tensor = DLTensor {
        data: core::ptr::without_provenance_mut(0x1000),
        device: Device::cuda(0),
        ndim: shape.len() as i32,
        dtype: d.dtype,
        shape: shape.as_mut_ptr(),
        strides: strides
            .as_mut()
            .map_or(core::ptr::null_mut(), |s| s.as_mut_ptr()),
        byte_offset: d.byte_offset,
    };
    // SAFETY: shape and strides point to `ndim` values that outlive the call.
    unsafe { validate::layout(&tensor, flags, StridesRule::NullIsCompact) }.map(drop)
}

impl Owner {
    fn new(d: &Desc) -> Self {
        Self {
            shape: Stored::new(&d.shape, d.shape_kind),
            strides: d.strides.as_ref().map(|s| Stored::new(s, d.strides_kind)),
            desc: d.clone(),
        }
    }
}

/// An owner that describes itself with a layout checked beforehand, at [`Owner`]'s address.
struct Checked {
    null: bool,
    layout: CheckedLayout,
}

// SAFETY: as for `Owner`.
unsafe impl TensorOwner for Checked {
    fn describe(&mut self) -> TensorParts<'_> {
        let data = if self.null {
            core::ptr::null_mut()
        } else {
            core::ptr::without_provenance_mut(0x1000)
        };
        TensorParts::from_layout(data, Device::cuda(0), &self.layout)
    }
}

fn check_owner(d: Desc) -> Result<(), TestCaseError> {
    check_export(&d, Owner::new(&d))
}

/// A layout is made exactly when the importer's rules accept the description (the data
/// pointer and the legacy struct aside, which it does not fix), with the same first error;
/// an export from it then gives what the description given field by field gives.
fn check_layout(d: Desc) -> Result<(), TestCaseError> {
    let made = CheckedLayout::new(&Owner::new(&d).describe());
    let layout_rules = Desc {
        null: false,
        legacy: false,
        ..d.clone()
    };
    let layout = match (made, expected(&layout_rules)) {
        (Ok(layout), Ok(())) => layout,
        (Err(got), Err(want)) => {
            prop_assert_eq!(got, want);
            return Ok(());
        }
        (got, want) => {
            return Err(TestCaseError::fail(format!(
                "CheckedLayout::new gave {got:?}, the importer's rules {want:?}"
            )));
        }
    };
    let strides = d
        .strides
        .clone()
        .unwrap_or_else(|| validate::compact_strides(&d.shape));
    prop_assert_eq!(
        (layout.shape(), layout.strides()),
        (&d.shape[..], &strides[..])
    );
    prop_assert_eq!(layout.len(), validate::check_shape(&d.shape).unwrap());
    prop_assert_eq!(
        (layout.dtype(), layout.byte_offset()),
        (d.dtype, d.byte_offset)
    );
    prop_assert_eq!(layout.flags(), d.flags);
    check_export(
        &d,
        Checked {
            null: d.null,
            layout,
        },
    )
}

/// Exports `owner`, which describes `d`, and holds the result to the importer's rules.
fn check_export(d: &Desc, owner: impl TensorOwner) -> Result<(), TestCaseError> {
    let d = d.clone();
    let expect = expected(&d);
    let tensor = if d.legacy {
        LegacyManagedTensor::export_owner(owner)
            .map_err(Error::from)
            .and_then(LegacyManagedTensor::into_versioned)
    } else {
        ManagedTensor::from_owner(owner)
    };
    let tensor = match (tensor, expect) {
        (Ok(tensor), Ok(())) => tensor,
        (Err(Error::Tensor(got)), Err(want)) => {
            prop_assert_eq!(got, want);
            return Ok(());
        }
        (got, want) => {
            return Err(TestCaseError::fail(format!(
                "export gave {:?}, the importer's rules {want:?}",
                got.map(drop)
            )));
        }
    };
    let view = tensor.view().unwrap();
    prop_assert_eq!(view.shape(), &d.shape[..]);
    let strides = d
        .strides
        .clone()
        .unwrap_or_else(|| validate::compact_strides(&d.shape));
    prop_assert_eq!(view.strides(), &strides[..]);
    prop_assert_eq!((view.dtype(), view.byte_offset()), (d.dtype, d.byte_offset));
    if !d.legacy {
        prop_assert_eq!(view.flags(), d.flags);
    }
    Ok(())
}

/// What `from_vec(data of len, shape)` must give, in `u128`: a length mismatch, the rank, the
/// first dimension past `int64_t`, non-zero dimensions multiplying past `isize::MAX`.
fn expected_vec(shape: &[usize], len: usize) -> Result<Vec<i64>, TensorError> {
    let product = if shape.contains(&0) {
        Some(0)
    } else {
        shape
            .iter()
            .try_fold(1_u128, |n, &d| n.checked_mul(d as u128))
    };
    if product != Some(len as u128) {
        return Err(TensorError::ShapeMismatch {
            shape: shape.into(),
            len,
        });
    }
    if shape.len() > MAX_NDIM {
        return Err(TensorError::Ndim {
            ndim: shape.len() as i64,
        });
    }
    if let Some(axis) = shape.iter().position(|&d| d as u128 > i64::MAX as u128) {
        return Err(TensorError::DimOutOfRange {
            field: "shape",
            axis,
            value: shape[axis] as i128,
        });
    }
    let as_i64: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let mut nonzero = 1_u128;
    for &d in shape.iter().filter(|&&d| d > 0) {
        nonzero = nonzero.saturating_mul(d as u128);
    }
    if nonzero > isize::MAX as u128 {
        return Err(TensorError::TooManyElements {
            shape: as_i64.into(),
        });
    }
    // Compact row-major, a zero dimension counting as 1.
    let mut strides = vec![0_i64; shape.len()];
    let mut step = 1_i64;
    for axis in (0..shape.len()).rev() {
        strides[axis] = step;
        step *= as_i64[axis].max(1);
    }
    Ok(strides)
}

fn vec_dim() -> impl Strategy<Value = usize> {
    prop_oneof![
        12 => 0..5_usize,
        1 => Just(usize::MAX),
        1 => Just(1 << 40),
        1 => Just(isize::MAX as usize),
        1 => Just(isize::MAX as usize + 1),
    ]
}

fn vec_case() -> impl Strategy<Value = (Vec<usize>, usize)> {
    prop_oneof![
        20 => prop::collection::vec(vec_dim(), 0..6),
        1 => prop::collection::vec(0..2_usize, MAX_NDIM - 1..MAX_NDIM + 3),
    ]
    .prop_flat_map(|shape| {
        let product = shape
            .iter()
            .try_fold(1_usize, |n, &d| n.checked_mul(d))
            .filter(|&n| n <= 4096)
            .unwrap_or(0);
        let len = prop_oneof![
            4 => Just(product),
            1 => Just(product + 1),
            1 => Just(product.saturating_sub(1)),
            1 => 0..8_usize,
        ];
        (Just(shape), len)
    })
}

fn check_vec(shape: Vec<usize>, len: usize) -> Result<(), TestCaseError> {
    let data: Vec<u16> = (0..len as u16).collect();
    let expect = expected_vec(&shape, len);
    let shared: Arc<[u16]> = data.clone().into();
    for (tensor, read_only) in [
        (ManagedTensor::from_vec(data.clone(), &shape), false),
        (ManagedTensor::from_arc(shared, &shape), true),
    ] {
        match (tensor, &expect) {
            (Ok(tensor), Ok(strides)) => {
                let view = tensor.view().unwrap();
                let as_i64: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
                prop_assert_eq!(view.shape(), &as_i64[..]);
                prop_assert_eq!(view.strides(), &strides[..]);
                prop_assert_eq!(view.as_slice::<u16>().unwrap(), &data[..]);
                prop_assert_eq!(view.flags().contains(Flags::READ_ONLY), read_only);
            }
            (Err(Error::Tensor(got)), Err(want)) => prop_assert_eq!(&got, want),
            (got, want) => {
                return Err(TestCaseError::fail(format!(
                    "from_vec gave {:?}, expected {want:?}",
                    got.map(drop)
                )));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        // Under Miri a case costs about a second (every element is interpreted): 12 random
        // descriptions per test still run the export's unsafe code over varied layouts, and
        // keep CI's Miri step, which runs beside the others, off its critical path.
        cases: if cfg!(miri) { 12 } else { 2048 },
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn owner_exports_follow_the_importers_rules(d in desc()) {
        check_owner(d)?;
    }

    #[test]
    fn checked_layouts_follow_the_importers_rules(d in desc()) {
        check_layout(d)?;
    }

    #[test]
    fn from_vec_checks_its_shape_against_the_length((shape, len) in vec_case()) {
        check_vec(shape, len)?;
    }
}
