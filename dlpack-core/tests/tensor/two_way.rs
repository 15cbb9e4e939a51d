//! The property test of import in both directions: random headers, mostly valid and each
//! invalid in one way or a few, run through [`exercise`](super::exercise) against the
//! [oracle](super::oracle). A header is accepted exactly when the oracle accepts it, refused
//! for the rule the oracle names, and every read, as every Rust element type, returns the
//! oracle's bytes or the oracle's fault; writes land on the oracle's bytes alone.
//!
//! The test also checks that it tests something: enough headers accepted and refused, every
//! rule broken, reads and writes made, and each kind of fault met.

use std::cell::RefCell;
use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use super::exercise::{
    self, Case, DEVICES, INVALID_DTYPES, OTHER_DTYPES, Outcome, RUST_DTYPES, rearranged,
};
use super::oracle::{Fault, Header, Misaligned, Rule};

const MEMORY: usize = 1024;

/// Data types: mostly those of Rust element types, some other valid ones, some invalid ones,
/// and any triple.
fn dtype() -> impl Strategy<Value = (u8, u8, u16)> {
    prop_oneof![
        12 => prop::sample::select(RUST_DTYPES),
        4 => prop::sample::select(OTHER_DTYPES),
        1 => prop::sample::select(INVALID_DTYPES),
        1 => any::<(u8, u8, u16)>(),
    ]
}

fn dim() -> impl Strategy<Value = i64> {
    prop_oneof![
        20 => 1..5_i64,
        2 => Just(0_i64),
        1 => -3..0_i64,
        1 => prop::sample::select(&[1_i64 << 31, 1 << 40, 1 << 62, i64::MAX][..]),
    ]
}

/// How the strides are made from the shape.
#[derive(Clone, Debug)]
enum Strides {
    Null,
    /// Compact strides, axes permuted (by rotation), some mirrored, scaled, one broadcast.
    Structured {
        rotate: usize,
        mirror: u8,
        scale: i64,
        broadcast: Option<usize>,
    },
    Small(Vec<i64>),
    Wild(Vec<i64>),
}

fn strides() -> impl Strategy<Value = Strides> {
    let structured = (
        0..5_usize,
        any::<u8>(),
        1..4_i64,
        prop::option::weighted(0.2, 0..5_usize),
    )
        .prop_map(|(rotate, mirror, scale, broadcast)| Strides::Structured {
            rotate,
            mirror,
            scale,
            broadcast,
        });
    let wild = prop_oneof![3 => -4..5_i64, 1 => any::<i64>()];
    prop_oneof![
        1 => Just(Strides::Null),
        6 => structured,
        4 => prop::collection::vec(-6..7_i64, 5).prop_map(Strides::Small),
        1 => prop::collection::vec(wild, 5).prop_map(Strides::Wild),
    ]
}

fn make_strides(shape: &[i64], how: &Strides) -> Option<Vec<i64>> {
    match how {
        Strides::Null => None,
        &Strides::Structured {
            rotate,
            mirror,
            scale,
            broadcast,
        } => Some(rearranged(
            shape,
            rotate,
            u64::from(mirror),
            scale,
            broadcast,
        )),
        Strides::Small(v) | Strides::Wild(v) => Some(v[..shape.len()].to_vec()),
    }
}

#[derive(Clone, Debug)]
struct Raw {
    legacy: bool,
    version: (u32, u32),
    flags: u64,
    ndim: Option<i32>,
    dtype: (u8, u8, u16),
    device: (i32, i32),
    shape: Vec<i64>,
    null_shape: bool,
    strides: Strides,
    misaligned: Misaligned,
    byte_offset: u64,
    data_at: Option<usize>,
    /// Memory of bytes 0 and 1 only (so that bools read), or a byte pattern.
    bits: bool,
    seed: u8,
}

fn raw() -> impl Strategy<Value = Raw> {
    let header = (
        prop::bool::weighted(0.25),
        prop_oneof![
            12 => (Just(1_u32), 0..4_u32),
            1 => (prop::sample::select(&[0_u32, 2, u32::MAX][..]), 0..2_u32),
        ],
        prop_oneof![
            8 => 0..8_u64,
            1 => (0..8_u64).prop_map(|f| f | 1 << 40),
        ],
        prop::option::weighted(
            0.03,
            prop::sample::select(&[-1, 65, 1000, i32::MIN, i32::MAX][..]),
        ),
        dtype(),
        prop_oneof![12 => Just((1, 0)), 2 => prop::sample::select(DEVICES)],
    );
    let layout = (
        prop::collection::vec(dim(), 0..6),
        prop::bool::weighted(0.03),
        strides(),
        prop_oneof![
            30 => Just(Misaligned::Neither),
            1 => Just(Misaligned::Shape),
            1 => Just(Misaligned::Strides),
        ],
        prop_oneof![8 => 0..64_u64, 1 => Just(0_u64), 1 => any::<u64>()],
        prop_oneof![
            16 => (512..520_usize).prop_map(Some),
            2 => (0..MEMORY).prop_map(Some),
            1 => Just(None),
        ],
        any::<bool>(),
        any::<u8>(),
    );
    (header, layout).prop_map(
        |(
            (legacy, version, flags, ndim, dtype, device),
            (shape, null_shape, strides, misaligned, byte_offset, data_at, bits, seed),
        )| Raw {
            legacy,
            version,
            flags,
            ndim,
            dtype,
            device,
            shape,
            null_shape,
            strides,
            misaligned,
            byte_offset,
            data_at,
            bits,
            seed,
        },
    )
}

fn case(raw: &Raw) -> Case {
    let memory = (0..MEMORY)
        .map(|i| {
            let x = (i as u8).wrapping_mul(37).wrapping_add(raw.seed);
            if raw.bits {
                // 0 and 1, and one byte in 64 a 2, so that some bool reads are refused.
                if x % 64 == 63 { 2 } else { x & 1 }
            } else {
                x
            }
        })
        .collect();
    Case {
        header: Header {
            legacy: raw.legacy,
            version: raw.version,
            flags: raw.flags,
            ndim: raw.ndim.unwrap_or(raw.shape.len() as i32),
            dtype: raw.dtype,
            device: raw.device,
            shape: (!raw.null_shape).then(|| raw.shape.clone()),
            strides: make_strides(&raw.shape, &raw.strides),
            misaligned: raw.misaligned,
            byte_offset: raw.byte_offset,
        },
        memory,
        data_at: raw.data_at,
    }
}

/// What the cases came to.
#[derive(Debug, Default)]
struct Tally {
    cases: usize,
    accepted: usize,
    read: usize,
    reads: usize,
    writes: usize,
    refused: BTreeMap<Rule, usize>,
    faults: BTreeMap<Fault, usize>,
}

impl Tally {
    fn add(&mut self, o: &Outcome) {
        self.cases += 1;
        match o.refused {
            Some(rule) => *self.refused.entry(rule).or_default() += 1,
            None => self.accepted += 1,
        }
        self.read += usize::from(o.read);
        self.reads += o.reads;
        self.writes += o.writes;
        for &f in &o.faults {
            *self.faults.entry(f).or_default() += 1;
        }
    }
}

#[test]
fn headers_are_accepted_exactly_when_the_oracle_accepts_them() {
    let cases = if cfg!(miri) { 24 } else { 4096 };
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let tally = RefCell::new(Tally::default());
    let result = TestRunner::new(config).run(&raw(), |raw| {
        let outcome = exercise::run(&case(&raw));
        tally.borrow_mut().add(&outcome);
        Ok(())
    });
    if let Err(err) = result {
        panic!("{err}");
    }
    let t = tally.into_inner();
    eprintln!("{t:#?}");
    assert!(t.cases >= cases as usize);
    if cfg!(miri) {
        return; // too few cases for the shares below
    }
    // Both directions, in earnest: over a third accepted and read, a fifth refused.
    assert!(t.accepted * 3 > t.cases, "{t:?}");
    assert!(t.read * 3 > t.cases, "{t:?}");
    assert!((t.cases - t.accepted) * 5 > t.cases, "{t:?}");
    let rules = [
        Rule::Version,
        Rule::Ndim,
        Rule::DataType,
        Rule::Shape,
        Rule::Strides,
        Rule::Packed,
        Rule::Extent,
    ];
    for rule in rules {
        assert!(
            t.refused.contains_key(&rule),
            "no header broke {rule:?}: {t:?}"
        );
    }
    let faults = [
        Fault::ReadOnly,
        Fault::NotNested,
        Fault::DataType,
        Fault::Overlapping,
        Fault::NotContiguous,
        Fault::Device,
        Fault::NullData,
        Fault::Align,
        Fault::Bool,
    ];
    for fault in faults {
        // Only a mutable ndarray view refuses strides for not nesting.
        if fault != Fault::NotNested || cfg!(feature = "ndarray") {
            assert!(
                t.faults.contains_key(&fault),
                "no read met {fault:?}: {t:?}"
            );
        }
    }
    assert!(t.reads > t.cases && t.writes > t.cases / 20, "{t:?}");
}
