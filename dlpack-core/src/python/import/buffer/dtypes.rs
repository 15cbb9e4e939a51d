//! The dtype cache: what the format of a NumPy dtype's buffers maps to, remembered per dtype
//! object, so that a buffer is asked for without its format once the array's dtype has been
//! seen.
//!
//! NumPy builds the format string anew on every `PyObject_GetBuffer` that asks for it, and
//! compares it with the one it keeps (`_buffer_format_string`, a `malloc` and a `strcmp`): a
//! third of the buffer path's cost. The format is a function of the dtype: where an array's
//! alignment changes its spelling (`f`, or `=f` with standard sizes), the data type it maps to
//! is the same, and a dtype NumPy refuses to describe (`cannot include dtype 'E' in a buffer`,
//! ml_dtypes' bfloat16) is refused for every array. So the answer for one array of a dtype
//! object, read from its format ([`buffer_data_type`](super::format::buffer_data_type)), is the
//! answer for all, and the next array of that dtype object (NumPy's built-in dtypes are one
//! object each) is asked for without the format.
//!
//! Up to [`CACHED_DTYPES`] dtype objects are remembered, kept alive so that no other object can
//! take one's address, as the class cache keeps its classes; the dtypes of a program that
//! makes more go on asking for the format, with the same answers. Read without a lock: a
//! slot's answer is written before its address is published (`Release`) and read after it
//! (`Acquire`).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use pyo3::prelude::*;
use pyo3::sync::MutexExt;

use crate::DataType;
use crate::ffi::DLDataTypeCode;

/// How many dtype objects the cache remembers (and keeps alive).
const CACHED_DTYPES: usize = 32;

/// One remembered dtype: its address (0 while the slot is empty) and its [`encode`]d answer.
struct Slot {
    dtype: AtomicUsize,
    answer: AtomicU64,
}

/// The remembered dtypes, filled in order and never emptied.
static SLOTS: [Slot; CACHED_DTYPES] = [const {
    Slot {
        dtype: AtomicUsize::new(0),
        answer: AtomicU64::new(0),
    }
}; CACHED_DTYPES];

/// The dtypes in [`SLOTS`], in the same order, kept alive. Writers fill slots while holding it.
static KEPT: Mutex<Vec<Py<PyAny>>> = Mutex::new(Vec::new());

/// The answer "no data type": the buffer path is not taken for arrays of the dtype.
const NONE: u64 = 1 << 32;

fn encode(answer: Option<DataType>) -> u64 {
    match answer {
        None => NONE,
        Some(data_type) => {
            u64::from(data_type.code.0)
                | u64::from(data_type.bits) << 8
                | u64::from(data_type.lanes) << 16
        }
    }
}

fn decode(answer: u64) -> Option<DataType> {
    if answer == NONE {
        return None;
    }
    // The low 32 bits hold what `encode` wrote: truncation drops nothing.
    let [code, bits, lanes @ ..] = (answer as u32).to_le_bytes();
    Some(DataType::new(
        DLDataTypeCode(code),
        bits,
        u16::from_le_bytes(lanes),
    ))
}

/// What is remembered of `dtype`: `Some(answer)` once an array of it was asked for its
/// format, `None` before.
#[inline]
pub(crate) fn remembered(dtype: &Bound<'_, PyAny>) -> Option<Option<DataType>> {
    let address = dtype.as_ptr().addr();
    for slot in &SLOTS {
        match slot.dtype.load(Ordering::Acquire) {
            0 => return None,
            found if found == address => {
                return Some(decode(slot.answer.load(Ordering::Relaxed)));
            }
            _ => {}
        }
    }
    None
}

/// Remembers `answer` for `dtype` while there is room; a dtype past [`CACHED_DTYPES`] (or one
/// another thread remembered meanwhile) is not remembered again.
pub(crate) fn remember(dtype: &Bound<'_, PyAny>, answer: Option<DataType>) {
    let address = dtype.as_ptr().addr();
    let kept_dtype = dtype.clone().unbind();
    let mut kept = KEPT
        .lock_py_attached(dtype.py())
        .unwrap_or_else(PoisonError::into_inner);
    let spare = if kept.len() < CACHED_DTYPES && remembered(dtype).is_none() {
        let slot = &SLOTS[kept.len()];
        kept.push(kept_dtype);
        slot.answer.store(encode(answer), Ordering::Relaxed);
        slot.dtype.store(address, Ordering::Release);
        None
    } else {
        Some(kept_dtype)
    };
    drop(kept);
    // Released after the lock: `dtype` holds the object, so this only counts down.
    drop(spare);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_round_trip() {
        for answer in [
            None,
            Some(DataType::BOOL),
            Some(DataType::U8),
            Some(DataType::I64),
            Some(DataType::F16),
            Some(DataType::C128),
            Some(DataType::F32.with_lanes(u16::MAX)),
        ] {
            assert_eq!(decode(encode(answer)), answer);
        }
    }

    #[test]
    fn a_dtype_is_remembered_once_and_kept_alive() {
        Python::initialize();
        Python::attach(|py| {
            // Objects of a class of their own stand for dtypes: the cache reads nothing of them.
            let first = pyo3::types::PyList::empty(py).into_any();
            let second = pyo3::types::PyList::empty(py).into_any();
            assert_eq!(remembered(&first), None);
            remember(&first, Some(DataType::F32));
            remember(&second, None);
            // The first answer stays.
            remember(&first, Some(DataType::F64));
            assert_eq!(remembered(&first), Some(Some(DataType::F32)));
            assert_eq!(remembered(&second), Some(None));
            // The cache holds a reference of its own.
            // SAFETY: a live object; the thread is attached.
            assert_eq!(unsafe { pyo3::ffi::Py_REFCNT(first.as_ptr()) }, 2);
        });
    }
}
