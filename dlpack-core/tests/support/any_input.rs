//! Any DLPack input, for the bridges' property tests (`bridges_any_input.rs`, and
//! `tests/burn`'s on a real burn backend): a deterministic grid of data type × rank × kind of
//! strides, with pseudo-random dimensions, offsets and bytes, each case an owner over a buffer
//! holding exactly the bytes its layout reaches, and the oracle of its elements' bytes.
#![allow(dead_code, unreachable_pub)] // each test file uses its own part

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use dlpack_core::ffi::DLDataTypeCode;
use dlpack_core::tensor::{Flags, TensorOwner, TensorParts};
use dlpack_core::{DataType, Device, ManagedTensor};

/// `(code, bits, lanes)`: every code the ABI names, at the widths producers send, and some
/// that are refused (a sub-byte integer, several lanes, an opaque handle, an unknown code).
pub const DTYPES: &[(u8, u8, u16)] = &[
    (0, 8, 1),
    (0, 16, 1),
    (0, 32, 1),
    (0, 64, 1),
    (0, 4, 1),
    (1, 8, 1),
    (1, 16, 1),
    (1, 32, 1),
    (1, 64, 1),
    (1, 1, 1),
    (2, 16, 1),
    (2, 32, 1),
    (2, 64, 1),
    (2, 32, 2),
    (3, 64, 1),
    (4, 16, 1),
    (5, 32, 1),
    (5, 64, 1),
    (5, 128, 1),
    (6, 8, 1),
    (7, 8, 1),
    (8, 8, 1),
    (9, 8, 1),
    (10, 8, 1),
    (11, 8, 1),
    (12, 8, 1),
    (13, 8, 1),
    (14, 8, 1),
    (15, 6, 1),
    (16, 6, 1),
    (17, 4, 1),
    (18, 32, 1),
    (19, 8, 1),
];

/// How a case lays its elements out.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Compact,
    Transposed,
    Broadcast,
    Negative,
    Gaps,
}

pub const KINDS: [Kind; 5] = [
    Kind::Compact,
    Kind::Transposed,
    Kind::Broadcast,
    Kind::Negative,
    Kind::Gaps,
];

/// splitmix64: small, deterministic, good enough to vary the cases.
pub struct Rng(u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One input: a layout over bytes that hold exactly what it reaches.
#[derive(Clone)]
pub struct Case {
    pub dtype: DataType,
    pub shape: Vec<usize>,
    pub strides: Vec<i64>,
    pub byte_offset: u64,
    pub flags: Flags,
    /// The buffer, as `u64`s so that its start is aligned for every element type.
    pub memory: Vec<u64>,
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} shape {:?} strides {:?} byte offset {} flags {:?} ({} bytes)",
            self.dtype,
            self.shape,
            self.strides,
            self.byte_offset,
            self.flags,
            self.memory.len() * 8
        )
    }
}

impl Case {
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the `u64`s' bytes, initialised, borrowed with `self`.
        unsafe { std::slice::from_raw_parts(self.memory.as_ptr().cast(), self.memory.len() * 8) }
    }

    pub fn count(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn packed(&self) -> bool {
        self.dtype.size_in_bits() < 8 && !self.flags.contains(Flags::IS_SUBBYTE_TYPE_PADDED)
    }

    /// The elements' bytes in row-major order, read from the layout: what a correct import
    /// holds. A packed sub-byte case is compact: its bytes as they lie.
    pub fn expected(&self) -> Vec<u8> {
        let bytes = self.bytes();
        let start = self.byte_offset as usize;
        if self.packed() {
            let len = self.dtype.packed_size(self.count()).unwrap();
            return bytes[start..start + len].to_vec();
        }
        let itemsize = self.dtype.itemsize();
        let mut out = Vec::with_capacity(self.count() * itemsize);
        let mut index = vec![0_usize; self.shape.len()];
        for _ in 0..self.count() {
            let offset: i64 = index
                .iter()
                .zip(&self.strides)
                .map(|(&i, &s)| i as i64 * s)
                .sum();
            let at = (start as i64 + offset * itemsize as i64) as usize;
            out.extend_from_slice(&bytes[at..at + itemsize]);
            for axis in (0..index.len()).rev() {
                index[axis] += 1;
                if index[axis] < self.shape[axis] {
                    break;
                }
                index[axis] = 0;
            }
        }
        out
    }

    /// The tensor, or `None` where the crate refuses the description itself (an unknown code,
    /// a packed sub-byte layout that is not compact): no bridge sees those (the tensor tests,
    /// `tests/tensor/`, hold the refusals themselves).
    pub fn tensor(&self) -> Option<ManagedTensor> {
        ManagedTensor::from_owner(Foreign(self.clone())).ok()
    }
}

/// A foreign producer's tensor: the case's own buffer.
pub struct Foreign(Case);

// SAFETY: `generate` sizes each buffer to hold every byte the layout reaches from the byte
// offset (packed sub-byte layouts are compact, and their buffer holds their packed size); the
// buffer is the owner's alone and never written.
unsafe impl TensorOwner for Foreign {
    fn describe(&mut self) -> TensorParts<'_> {
        let case = &mut self.0;
        TensorParts::new(
            case.memory.as_mut_ptr().cast(),
            Device::CPU,
            case.dtype,
            &case.shape,
        )
        .with_strides(&case.strides)
        .with_byte_offset(case.byte_offset)
        .with_flags(case.flags)
    }
}

pub fn generate(
    rng: &mut Rng,
    (code, bits, lanes): (u8, u8, u16),
    rank: usize,
    kind: Kind,
) -> Case {
    let dtype = DataType::new(DLDataTypeCode(code), bits, lanes);
    let sub_byte = dtype.size_in_bits() < 8;
    let padded = sub_byte && rng.below(2) == 0;
    let flags = if padded {
        Flags::IS_SUBBYTE_TYPE_PADDED
    } else {
        Flags::EMPTY
    };
    // Mostly 1 to 3, sometimes 0 (zero-size).
    let shape: Vec<usize> = (0..rank)
        .map(|_| match rng.below(8) {
            0 => 0,
            n => 1 + (n as usize % 3),
        })
        .collect();
    // Compact strides in elements, then the kind's change.
    let mut strides = vec![1_i64; rank];
    for axis in (0..rank.saturating_sub(1)).rev() {
        strides[axis] = strides[axis + 1] * shape[axis + 1].max(1) as i64;
    }
    match kind {
        Kind::Compact => {}
        Kind::Transposed => {
            // Reverse the axes' strides: column-major.
            let mut s = 1;
            for axis in 0..rank {
                strides[axis] = s;
                s *= shape[axis].max(1) as i64;
            }
        }
        Kind::Broadcast => {
            for stride in &mut strides {
                if rng.below(2) == 0 {
                    *stride = 0;
                }
            }
        }
        Kind::Negative => {
            for stride in &mut strides {
                if rng.below(2) == 0 {
                    *stride = -*stride;
                }
            }
        }
        Kind::Gaps => {
            for stride in &mut strides {
                *stride *= 2 + rng.below(2) as i64;
            }
        }
    }
    // The elements reached, in elements from the first one: [low, high].
    let mut low = 0_i64;
    let mut high = 0_i64;
    let empty = shape.contains(&0);
    for (&d, &s) in shape.iter().zip(&strides) {
        if d > 1 {
            let reach = (d as i64 - 1) * s;
            if reach < 0 {
                low += reach;
            } else {
                high += reach;
            }
        }
    }
    let itemsize = dtype.itemsize().max(1);
    // Usually aligned for the element; sometimes one byte off (misaligned), sometimes a
    // whole element further in.
    let pad = match rng.below(6) {
        0 => 1,
        1 => itemsize,
        _ => 0,
    };
    let count: usize = shape.iter().product();
    let span = if empty {
        0
    } else if sub_byte && !padded {
        dtype.packed_size(count).unwrap()
    } else {
        (high - low + 1) as usize * itemsize
    };
    let byte_offset = pad + (-low) as usize * itemsize;
    let len = byte_offset + span;
    let mut memory = vec![0_u64; len.div_ceil(8).max(1)];
    let bytes = memory.len() * 8;
    // SAFETY: the `u64`s' bytes, borrowed mutably here alone.
    let raw = unsafe { std::slice::from_raw_parts_mut(memory.as_mut_ptr().cast::<u8>(), bytes) };
    let bool_like = code == 6 || padded;
    let mask = if padded { (1_u16 << bits) as u8 - 1 } else { 1 };
    for byte in raw.iter_mut() {
        let r = rng.next() as u8;
        // Mostly valid values, sometimes a byte with bits outside the element's.
        *byte = if bool_like && rng.below(16) != 0 {
            r & mask
        } else {
            r
        };
    }
    Case {
        dtype,
        shape,
        strides,
        byte_offset: byte_offset as u64,
        flags,
        memory,
    }
}

/// Every case of the grid, `rounds` times with other random draws; under Miri, a sample.
pub fn cases(rounds: u64) -> Vec<Case> {
    let (rounds, every) = if cfg!(miri) { (1, 23) } else { (rounds, 1) };
    let mut out = Vec::new();
    for round in 0..rounds {
        let mut rng = Rng(0x5eed ^ round);
        let mut n = 0;
        for &dtype in DTYPES {
            for rank in 0..=4 {
                for kind in KINDS {
                    let case = generate(&mut rng, dtype, rank, kind);
                    if n % every == 0 {
                        out.push(case);
                    }
                    n += 1;
                }
            }
        }
    }
    out
}

/// Runs `check` on every case that the crate accepts as a tensor, failing with the case on a
/// panic; returns how many imports succeeded, so a test can see it checked values at all.
pub fn each_case(rounds: u64, mut check: impl FnMut(&Case, ManagedTensor) -> usize) -> usize {
    let mut ok = 0;
    for case in cases(rounds) {
        let Some(tensor) = case.tensor() else {
            continue;
        };
        match catch_unwind(AssertUnwindSafe(|| check(&case, tensor))) {
            Ok(n) => ok += n,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("?");
                panic!("a bridge panicked on {case:?}: {message}");
            }
        }
    }
    ok
}

/// Whether the case holds a `bool` byte other than 0 and 1 among its elements.
pub fn has_bad_bools(case: &Case) -> bool {
    case.dtype == DataType::BOOL && case.expected().iter().any(|&b| b > 1)
}
