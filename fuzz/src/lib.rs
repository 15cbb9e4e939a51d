//! The fuzz targets' bodies, so that `cargo test` can replay the corpus on stable without
//! libFuzzer (`tests/replay.rs`) and `fuzz_targets/` holds one line per target.
//!
//! - [`import`]: an arbitrary versioned or legacy header over real memory, imported, validated
//!   and read through every data accessor, each result held to the oracle that `cargo test`
//!   uses too (`dlpack-core/tests/tensor/oracle.rs` and `exercise.rs`, included here).
//! - [`names`]: the data type and device parsers and printers: parse, print, parse again.

use arbitrary::{Result, Unstructured};
use dlpack_core::ffi::{DLDataTypeCode, DLDeviceType};
use dlpack_core::{DataType, Device};

/// The crate under the paths the shared files use.
mod dlpack {
    pub(crate) use dlpack_core::{
        DataType, Device, Element, Error, LegacyManagedTensor, ManagedTensor, TensorView,
        TensorViewMut, ffi, tensor,
    };
}

#[path = "../../dlpack-core/tests/tensor/oracle.rs"]
mod oracle;

#[path = "../../dlpack-core/tests/tensor/exercise.rs"]
mod exercise;

use exercise::{Case, DEVICES, INVALID_DTYPES, OTHER_DTYPES, RUST_DTYPES, rearranged};
use oracle::{Header, Misaligned};

/// Bytes of memory behind a fuzzed data pointer.
const MEMORY: usize = 1024;

/// Runs one fuzzed header through import and every accessor; panics where the crate and the
/// oracle disagree, or on a deleter not run exactly once.
pub fn import(data: &[u8]) {
    if let Ok(case) = case(data) {
        exercise::run(&case);
    }
}

/// A case from fuzzer bytes: each field picks a small or structured value most of the time
/// and takes raw bits otherwise, so that most headers are valid and every field can be wrong.
fn case(data: &[u8]) -> Result<Case> {
    let mut u = Unstructured::new(data);
    let legacy = u.ratio(1, 4)?;
    let version = if u.ratio(1, 16)? {
        (u.arbitrary()?, u.arbitrary()?)
    } else {
        (1, u.int_in_range(0..=4)?)
    };
    let mut flags = u64::from(u.int_in_range(0..=7_u8)?);
    if u.ratio(1, 16)? {
        flags |= u.arbitrary::<u64>()?;
    }
    let dtype = match u.int_in_range(0..=15_u8)? {
        0 => u.arbitrary()?,
        1 => *u.choose(INVALID_DTYPES)?,
        2..=4 => *u.choose(OTHER_DTYPES)?,
        _ => *u.choose(RUST_DTYPES)?,
    };
    let device = match u.int_in_range(0..=15_u8)? {
        0 => u.arbitrary()?,
        1..=3 => *u.choose(DEVICES)?,
        _ => (1, 0),
    };
    let rank = if u.ratio(1, 32)? {
        u.int_in_range(0..=64)?
    } else {
        u.int_in_range(0..=5)?
    };
    let mut shape = Vec::with_capacity(rank);
    for _ in 0..rank {
        shape.push(if u.ratio(1, 16)? {
            u.arbitrary()?
        } else {
            u.int_in_range(0..=5)?
        });
    }
    let strides = strides(&mut u, &shape)?;
    let ndim = if u.ratio(1, 32)? {
        // Only values refused before the shape is read: the arrays hold `rank` values.
        let n: i32 = u.arbitrary()?;
        if (0..=64).contains(&n) { -1 } else { n }
    } else {
        rank as i32
    };
    let null_shape = u.ratio(1, 32)?;
    let misaligned = if u.ratio(1, 16)? {
        *u.choose(&[Misaligned::Shape, Misaligned::Strides])?
    } else {
        Misaligned::Neither
    };
    let byte_offset = if u.ratio(1, 16)? {
        u.arbitrary()?
    } else {
        u.int_in_range(0..=64)?
    };
    let data_at = if u.ratio(1, 32)? {
        None
    } else if u.ratio(1, 8)? {
        Some(u.int_in_range(0..=MEMORY)?)
    } else {
        Some(MEMORY / 2 + u.int_in_range(0..=8)?)
    };
    let bits = u.arbitrary::<bool>()?;
    let fill = u.take_rest();
    let memory = (0..MEMORY)
        .map(|i| {
            let b = fill.get(i % fill.len().max(1)).copied().unwrap_or(i as u8);
            if bits { b & 1 } else { b }
        })
        .collect();
    Ok(Case {
        header: Header {
            legacy,
            version,
            flags,
            ndim,
            dtype,
            device,
            shape: (!null_shape).then_some(shape),
            strides,
            misaligned,
            byte_offset,
        },
        memory,
        data_at,
    })
}

/// Null, compact ones rearranged (rotated, mirrored, scaled, one broadcast), small, or raw.
fn strides(u: &mut Unstructured<'_>, shape: &[i64]) -> Result<Option<Vec<i64>>> {
    let n = shape.len();
    Ok(match u.int_in_range(0..=15_u8)? {
        0 => None,
        1..=7 => {
            let rotate = usize::from(u.arbitrary::<u8>()?);
            let mirror = u.arbitrary()?;
            let scale = i64::from(u.int_in_range(1..=3_u8)?);
            let broadcast = if n > 0 && u.ratio(1, 4)? {
                Some(u.choose_index(n)?)
            } else {
                None
            };
            Some(rearranged(shape, rotate, mirror, scale, broadcast))
        }
        8..=13 => Some(
            (0..n)
                .map(|_| u.int_in_range(-8..=8_i64))
                .collect::<Result<_>>()?,
        ),
        _ => Some((0..n).map(|_| u.arbitrary()).collect::<Result<_>>()?),
    })
}

/// Parses, prints and parses again data types and devices, from text or from raw fields.
/// Whatever parses prints as a name that parses back to the same value; whatever a valid
/// value prints parses back; an invalid value prints as something no parser accepts; no
/// input panics, and every refusal says something.
pub fn names(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => {
            let text = String::from_utf8_lossy(rest);
            text_round_trip(&text);
        }
        1 => {
            let mut u = Unstructured::new(rest);
            let (Ok(code), Ok(bits), Ok(lanes)) = (u.arbitrary(), u.arbitrary(), u.arbitrary())
            else {
                return;
            };
            let dtype = DataType::new(DLDataTypeCode(code), bits, lanes);
            let printed = dtype.to_string();
            match dtype.check() {
                Ok(()) => assert_eq!(printed.parse::<DataType>().ok(), Some(dtype), "{printed}"),
                Err(_) => assert!(printed.parse::<DataType>().is_err(), "{printed}"),
            }
        }
        _ => {
            let mut u = Unstructured::new(rest);
            let (Ok(device_type), Ok(id)) = (u.arbitrary(), u.arbitrary()) else {
                return;
            };
            let device = Device::new(DLDeviceType(device_type), id);
            let printed = device.to_string();
            match device.check() {
                Ok(()) => assert_eq!(printed.parse::<Device>().ok(), Some(device), "{printed}"),
                Err(_) => assert!(printed.parse::<Device>().is_err(), "{printed}"),
            }
        }
    }
}

fn text_round_trip(text: &str) {
    round_trip::<DataType>(text, DataType::check);
    round_trip::<Device>(text, Device::check);
}

/// Whatever `text` parses to is valid and prints as a name that parses back to it.
fn round_trip<T>(text: &str, check: fn(&T) -> Result<(), dlpack_core::Error>)
where
    T: core::str::FromStr<Err = dlpack_core::Error>
        + core::fmt::Display
        + PartialEq
        + core::fmt::Debug,
{
    match text.parse::<T>() {
        Ok(value) => {
            assert!(
                check(&value).is_ok(),
                "{text:?} parsed to an invalid {value:?}"
            );
            let printed = value.to_string();
            assert_eq!(printed.parse::<T>().ok(), Some(value), "{text:?}");
        }
        Err(err) => assert!(!err.to_string().is_empty()),
    }
}
