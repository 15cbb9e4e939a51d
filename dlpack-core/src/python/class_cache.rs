//! The class cache: what a class was found to be, remembered per class for the life of the
//! process, for up to [`CACHED_CLASSES`] classes. What the remembered code means is the
//! classifier's (`values/classify.rs`); this file only keeps it, with the C exchange table a
//! tensor class publishes, and reads it back without a lock.
//!
//! Looking a name up on a class that does not have it raises and clears an `AttributeError`
//! inside CPython (for classes with a metaclass of their own, such as every pybind11 class,
//! PaddlePaddle's dtypes among them, on every Python version), which costs more than the
//! protocol call that follows; recognising another library's class walks its bases. So the
//! kind of a class is worked out once and remembered, for up to [`CACHED_CLASSES`] classes,
//! which the cache keeps alive; classes past that are looked at each time, with the same
//! result. TVM FFI dispatches the same way: it decides what to do with an argument once per
//! class and keeps the decision for the life of the process.
//!
//! A consequence: adding `__dlpack__`, `__dlpack_data_type__` or `__dlpack_device__` to a
//! class (or removing one) after an object of that class was looked at is not seen. Define
//! the protocol methods in the class body, as every framework does.

use std::sync::atomic::{AtomicPtr, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use pyo3::prelude::*;
use pyo3::sync::MutexExt;
use pyo3::types::PyType;

use crate::ffi::DLPackExchangeAPI;

/// How many classes the cache remembers (and keeps alive); `protocol_kind`'s documentation
/// states it.
pub(crate) const CACHED_CLASSES: usize = 64;

/// What the cache remembers of a class.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    /// The classifier's code for what the class is.
    pub(crate) code: u8,
    /// The C exchange table the class publishes, for a tensor class with one this crate
    /// speaks. Tables live for the whole process (`dlpack.h` requires it).
    pub(crate) table: Option<&'static DLPackExchangeAPI>,
}

/// One remembered class: its address (0 while the slot is empty), its code and its table
/// (null for none).
struct Slot {
    class: AtomicUsize,
    code: AtomicU8,
    table: AtomicPtr<DLPackExchangeAPI>,
}

/// The remembered classes, filled in order and never emptied. Read without a lock: a slot's
/// code and table are written before its address is published (`Release`), and read after
/// the address (`Acquire`).
static SLOTS: [Slot; CACHED_CLASSES] = [const {
    Slot {
        class: AtomicUsize::new(0),
        code: AtomicU8::new(0),
        table: AtomicPtr::new(core::ptr::null_mut()),
    }
}; CACHED_CLASSES];

/// The classes in [`SLOTS`], in the same order, kept alive so that no other class can take
/// one's address. Writers fill slots while holding it.
static KEPT: Mutex<Vec<Py<PyType>>> = Mutex::new(Vec::new());

/// The slot of the class found last: a program mostly looks up the same class again (a loop
/// over tensors of one library), which then costs one comparison instead of a scan.
static LAST: AtomicUsize = AtomicUsize::new(0);

/// What is remembered of `class`, if it is.
pub(crate) fn remembered(class: &Bound<'_, PyType>) -> Option<Entry> {
    cached(class.as_ptr().addr())
}

/// Remembers `entry` for `class` while there is room; a class past [`CACHED_CLASSES`] (or
/// one another thread remembered meanwhile) is not remembered again.
pub(crate) fn remember(class: &Bound<'_, PyType>, entry: Entry) {
    let address = class.as_ptr().addr();
    let kept_class = class.clone().unbind();
    let mut kept = KEPT
        .lock_py_attached(class.py())
        .unwrap_or_else(PoisonError::into_inner);
    // Another thread may have remembered it meanwhile; no Python code runs in here.
    let spare = if kept.len() < CACHED_CLASSES && cached(address).is_none() {
        let slot = &SLOTS[kept.len()];
        kept.push(kept_class);
        slot.code.store(entry.code, Ordering::Relaxed);
        let raw = entry
            .table
            .map_or(core::ptr::null(), |table| &raw const *table);
        slot.table.store(raw.cast_mut(), Ordering::Relaxed);
        slot.class.store(address, Ordering::Release);
        None
    } else {
        Some(kept_class)
    };
    drop(kept);
    // Released after the lock: the class is alive (`class` holds it), so this only counts down.
    drop(spare);
}

/// The address of `numpy.ndarray` once the classifier has met the class (0 before): the
/// one class whose objects the importers read through the buffer protocol
/// (`import/buffer/`), recognised by one comparison of type pointers. The class is kept
/// alive in [`NDARRAY_KEPT`], so no other class can take its address.
#[cfg(numpy_buffer)]
static NDARRAY: AtomicUsize = AtomicUsize::new(0);

/// `numpy.ndarray`, kept alive for [`NDARRAY`].
#[cfg(numpy_buffer)]
static NDARRAY_KEPT: std::sync::OnceLock<Py<PyType>> = std::sync::OnceLock::new();

/// Remembers `class`, which the classifier found to be `numpy.ndarray` itself.
#[cfg(numpy_buffer)]
pub(crate) fn remember_ndarray(class: &Bound<'_, PyType>) {
    // NumPy is loaded once per process, so the first class found is the only one.
    let kept = NDARRAY_KEPT.get_or_init(|| class.clone().unbind());
    NDARRAY.store(kept.as_ptr().addr(), Ordering::Relaxed);
}

/// Whether the type at `class` is `numpy.ndarray` itself, once the classifier has met it.
#[cfg(numpy_buffer)]
#[inline]
pub(crate) fn is_ndarray(class: *mut pyo3::ffi::PyTypeObject) -> bool {
    let ndarray = NDARRAY.load(Ordering::Relaxed);
    ndarray != 0 && class.addr() == ndarray
}

/// What is remembered of the class at `address`.
fn cached(address: usize) -> Option<Entry> {
    let last = LAST.load(Ordering::Relaxed);
    if SLOTS[last].class.load(Ordering::Acquire) == address && address != 0 {
        return Some(read(&SLOTS[last]));
    }
    for (index, slot) in SLOTS.iter().enumerate() {
        match slot.class.load(Ordering::Acquire) {
            0 => return None,
            class if class == address => {
                LAST.store(index, Ordering::Relaxed);
                return Some(read(slot));
            }
            _ => {}
        }
    }
    None
}

/// What a filled slot remembers.
fn read(slot: &Slot) -> Entry {
    // SAFETY: null or a table the classifier found published, which lives for the whole
    // process.
    let table = unsafe { slot.table.load(Ordering::Relaxed).as_ref() };
    Entry {
        code: slot.code.load(Ordering::Relaxed),
        table,
    }
}

/// The addresses of the remembered classes, slot by slot, and of the classes kept alive, for
/// tests that check the two agree.
#[cfg(test)]
pub(crate) fn filled() -> (Vec<usize>, Vec<usize>) {
    let kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    let slots = SLOTS
        .iter()
        .map(|slot| slot.class.load(Ordering::Acquire))
        .take_while(|&class| class != 0)
        .collect();
    (
        slots,
        kept.iter().map(|class| class.as_ptr().addr()).collect(),
    )
}
