//! What a Python object is to DLPack, decided from its class and remembered per class: which
//! of the three DLPack protocols (tensor, data type, device) it speaks, or else which kind of
//! value of another library it is (`libraries.rs`).
//!
//! # The cache
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

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::MutexExt;
use pyo3::types::{PyCapsule, PyType};

use super::exchange::table::Table;
use super::libraries::{Recognised, recognise};
use crate::ffi::DLPackExchangeAPI;

/// What a Python object is to DLPack, decided the way TVM FFI decides it: from the object's
/// **class**, in this order.
///
/// 1. A capsule, or a class with `__dlpack__`, is a [`Tensor`](Self::Tensor) (a tensor's class
///    also has `__dlpack_device__`, which then names the tensor's device, not a device object).
/// 2. A class with `__dlpack_data_type__` is a [`DataTypeObject`](Self::DataTypeObject).
/// 3. A class with `__dlpack_device__` (and no `__dlpack__`) is a [`DeviceObject`](Self::DeviceObject).
///
/// ```
/// use dlpack_core::{Device, ManagedTensor};
/// use dlpack_core::python::{ProtocolKind, PyDevice, protocol_kind, versioned_capsule};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let gpu = Bound::new(py, PyDevice::from(Device::cuda(0)))?;
///     assert_eq!(protocol_kind(gpu.as_any())?, Some(ProtocolKind::DeviceObject));
///     let capsule = versioned_capsule(py, ManagedTensor::from_vec(vec![0_u8], &[1])?)?;
///     assert_eq!(protocol_kind(capsule.as_any())?, Some(ProtocolKind::Tensor));
///     // A class with both `__dlpack__` and `__dlpack_device__` is a tensor, not a device.
///     let globals = pyo3::types::PyDict::new(py);
///     py.run(
///         c"class T:\n    def __dlpack__(self, **kw): pass\n    def __dlpack_device__(self): return (1, 0)",
///         Some(&globals),
///         None,
///     )?;
///     let tensor = globals.get_item("T")?.unwrap().call0()?;
///     assert_eq!(protocol_kind(&tensor)?, Some(ProtocolKind::Tensor));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProtocolKind {
    /// A tensor: `__dlpack__`, or a raw DLPack capsule.
    Tensor,
    /// A data type: `__dlpack_data_type__`.
    DataTypeObject,
    /// A device: `__dlpack_device__` without `__dlpack__`.
    DeviceObject,
    // (Not `DataType`/`Device`: a second item of either name anywhere in the crate graph makes
    // rustc print `dlpack_core::DataType` in full in every diagnostic.)
}

/// Which kind of DLPack value `obj` is, or `None` for an object that speaks none of the three
/// protocols. Only the class is looked at; nothing is called.
///
/// The answer for a class is worked out once and remembered, for up to 64 classes (which are
/// then kept alive), as TVM FFI keeps its per-class decisions: looking up a method a class
/// does not have raises and clears an `AttributeError` inside CPython, which costs more than
/// the protocol call that follows. So a protocol method added to a class (or removed) after an
/// object of that class was looked at is not seen: define the protocol in the class body.
///
/// ```
/// use dlpack_core::DataType;
/// use dlpack_core::python::{ProtocolKind, protocol_kind, PyDataType};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let f16 = Bound::new(py, PyDataType::from(DataType::F16))?;
///     assert_eq!(protocol_kind(f16.as_any())?, Some(ProtocolKind::DataTypeObject));
///     assert_eq!(protocol_kind(&1.5f64.into_pyobject(py)?.into_any())?, None);
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
pub fn protocol_kind(obj: &Bound<'_, PyAny>) -> PyResult<Option<ProtocolKind>> {
    Ok(match object_kind(obj)? {
        ClassKind::Protocol(kind) => Some(kind),
        ClassKind::Recognised(_) | ClassKind::Unknown => None,
    })
}

/// How many classes the cache remembers (and keeps alive); `protocol_kind`'s documentation
/// states it.
pub(crate) const CACHED_CLASSES: usize = 64;

/// One remembered class: its address (0 while the slot is empty), its kind and, for a tensor
/// class that publishes one this crate speaks, its exchange table (null for none).
struct Slot {
    class: AtomicUsize,
    kind: AtomicU8,
    table: AtomicPtr<DLPackExchangeAPI>,
}

/// The remembered classes, filled in order and never emptied. Read without a lock: a slot's
/// kind is written before its address is published (`Release`), and read after the address
/// (`Acquire`).
static SLOTS: [Slot; CACHED_CLASSES] = [const {
    Slot {
        class: AtomicUsize::new(0),
        kind: AtomicU8::new(0),
        table: AtomicPtr::new(core::ptr::null_mut()),
    }
}; CACHED_CLASSES];

/// The classes in [`SLOTS`], in the same order, kept alive so that no other class can take
/// one's address. Writers fill slots while holding it.
static KEPT: Mutex<Vec<Py<PyType>>> = Mutex::new(Vec::new());

/// What the objects of a class are: a protocol kind, a kind of object recognised by its class, or
/// neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClassKind {
    /// The class has a protocol method.
    Protocol(ProtocolKind),
    /// The class has none, and is one `libraries.rs` recognises.
    Recognised(Recognised),
    /// Neither.
    Unknown,
}

/// What `obj` is: a capsule is a tensor, anything else is what its class is.
pub(crate) fn object_kind(obj: &Bound<'_, PyAny>) -> PyResult<ClassKind> {
    if obj.is_instance_of::<PyCapsule>() {
        return Ok(ClassKind::Protocol(ProtocolKind::Tensor));
    }
    Ok(class_info(&obj.get_type())?.0)
}

/// The protocol kind of the objects of `class`. A capsule's class is `None` here: capsules are
/// tensors by name, not by class.
pub(crate) fn class_kind(class: &Bound<'_, PyType>) -> PyResult<Option<ProtocolKind>> {
    Ok(match class_info(class)?.0 {
        ClassKind::Protocol(kind) => Some(kind),
        ClassKind::Recognised(_) | ClassKind::Unknown => None,
    })
}

/// Whether `class` is a tensor class, and if so the exchange table it publishes, if any
/// (`__dlpack_c_exchange_api__`, looked up once per class with the protocol methods).
pub(crate) fn tensor_class(class: &Bound<'_, PyType>) -> PyResult<Option<Option<Table>>> {
    Ok(match class_info(class)? {
        (ClassKind::Protocol(ProtocolKind::Tensor), table) => Some(table),
        _ => None,
    })
}

/// What the objects of `class` are, and a tensor class's table, from the cache or looked up
/// (and then remembered).
fn class_info(class: &Bound<'_, PyType>) -> PyResult<(ClassKind, Option<Table>)> {
    let address = class.as_ptr().addr();
    if let Some(info) = cached(address) {
        return Ok(info);
    }
    let kind = look_up(class)?;
    let table = match kind {
        ClassKind::Protocol(ProtocolKind::Tensor) => Table::of_class(class)?,
        _ => None,
    };
    let entry = class.clone().unbind();
    let mut kept = KEPT
        .lock_py_attached(class.py())
        .unwrap_or_else(PoisonError::into_inner);
    // Another thread may have remembered it meanwhile; no Python code runs in here.
    let spare = if kept.len() < CACHED_CLASSES && cached(address).is_none() {
        let slot = &SLOTS[kept.len()];
        kept.push(entry);
        slot.kind.store(encode(kind), Ordering::Relaxed);
        let raw = table.map_or(core::ptr::null(), |table| &raw const *table.0);
        slot.table.store(raw.cast_mut(), Ordering::Relaxed);
        slot.class.store(address, Ordering::Release);
        None
    } else {
        Some(entry)
    };
    drop(kept);
    // Released after the lock: the class is alive (`class` holds it), so this only counts down.
    drop(spare);
    Ok((kind, table))
}

/// The slot of the class found last: a program mostly looks up the same class again (a loop
/// over tensors of one library), which then costs one comparison instead of a scan.
static LAST: AtomicUsize = AtomicUsize::new(0);

/// The kind and table of the class at `address`, if it is remembered.
fn cached(address: usize) -> Option<(ClassKind, Option<Table>)> {
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
fn read(slot: &Slot) -> (ClassKind, Option<Table>) {
    let kind = decode(slot.kind.load(Ordering::Relaxed));
    // SAFETY: null or a table `Table::of_class` chose, which lives for the whole process.
    let table = unsafe { slot.table.load(Ordering::Relaxed).as_ref() };
    (kind, table.map(Table))
}

/// The first code of a recognised kind: 0 is `Unknown`, 1 to 3 the protocol kinds.
const FIRST_RECOGNISED: u8 = 4;

fn encode(kind: ClassKind) -> u8 {
    match kind {
        ClassKind::Unknown => 0,
        ClassKind::Protocol(ProtocolKind::Tensor) => 1,
        ClassKind::Protocol(ProtocolKind::DataTypeObject) => 2,
        ClassKind::Protocol(ProtocolKind::DeviceObject) => 3,
        // `Recognised::ALL` lists the kinds in declaration order, and has far fewer than 252.
        ClassKind::Recognised(recognised) => FIRST_RECOGNISED + recognised as u8,
    }
}

fn decode(kind: u8) -> ClassKind {
    match kind {
        1 => ClassKind::Protocol(ProtocolKind::Tensor),
        2 => ClassKind::Protocol(ProtocolKind::DataTypeObject),
        3 => ClassKind::Protocol(ProtocolKind::DeviceObject),
        _ => match Recognised::ALL.get(usize::from(kind.wrapping_sub(FIRST_RECOGNISED))) {
            Some(&recognised) if kind >= FIRST_RECOGNISED => ClassKind::Recognised(recognised),
            _ => ClassKind::Unknown,
        },
    }
}

/// Looks the three protocol methods up on `class`, in the order [`ProtocolKind`] gives, and
/// for a class with none of them, whether it is another library's data type or device.
fn look_up(class: &Bound<'_, PyType>) -> PyResult<ClassKind> {
    let py = class.py();
    Ok(if class.hasattr(intern!(py, "__dlpack__"))? {
        ClassKind::Protocol(ProtocolKind::Tensor)
    } else if class.hasattr(intern!(py, "__dlpack_data_type__"))? {
        ClassKind::Protocol(ProtocolKind::DataTypeObject)
    } else if class.hasattr(intern!(py, "__dlpack_device__"))? {
        ClassKind::Protocol(ProtocolKind::DeviceObject)
    } else {
        recognise(class)?.map_or(ClassKind::Unknown, ClassKind::Recognised)
    })
}

#[cfg(test)]
mod tests {
    use pyo3::types::PyDict;

    use super::*;

    const EXPECTED: [Option<ProtocolKind>; 5] = [
        Some(ProtocolKind::Tensor),
        Some(ProtocolKind::DataTypeObject),
        Some(ProtocolKind::DeviceObject),
        None,
        Some(ProtocolKind::Tensor),
    ];

    /// An object of a new class `C{i}` of kind `EXPECTED[i % 5]` (the last one inherits
    /// `__dlpack__`), so that each test looks its classes up itself.
    fn object(py: Python<'_>, i: usize) -> PyResult<Bound<'_, PyAny>> {
        let globals = PyDict::new(py);
        py.run(
            c"
def make(i):
    f = lambda self, *args, **kwargs: None
    bodies = [
        {'__dlpack__': f, '__dlpack_device__': f},
        {'__dlpack_data_type__': f},
        {'__dlpack_device__': f},
        {'__dlpack_devices__': f, 'dlpack': f},
    ]
    if i % 5 == 4:
        return type(f'C{i}', (type('Base', (), bodies[0]),), {})()
    return type(f'C{i}', (), bodies[i % 5])()
",
            Some(&globals),
            None,
        )?;
        globals.get_item("make")?.unwrap().call1((i,))
    }

    #[test]
    fn more_classes_than_the_cache_holds_are_all_read_right() {
        Python::initialize();
        Python::attach(|py| -> PyResult<()> {
            for i in 0..2 * CACHED_CLASSES {
                let obj = object(py, i)?;
                // Twice: once looked up (and maybe remembered), once from the cache (or not).
                assert_eq!(protocol_kind(&obj)?, EXPECTED[i % 5], "class {i}");
                assert_eq!(protocol_kind(&obj)?, EXPECTED[i % 5], "class {i}, again");
            }
            let kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
            assert_eq!(
                kept.len(),
                CACHED_CLASSES,
                "the cache fills up, and no further"
            );
            for (slot, class) in SLOTS.iter().zip(kept.iter()) {
                assert_eq!(slot.class.load(Ordering::Acquire), class.as_ptr().addr());
            }
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn threads_agree_on_the_kinds() {
        Python::initialize();
        let classes: Vec<Py<PyAny>> = Python::attach(|py| {
            (0..10)
                .map(|i| object(py, 100 + i).map(Bound::unbind))
                .collect::<PyResult<_>>()
        })
        .unwrap();
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    Python::attach(|py| {
                        for (i, obj) in classes.iter().enumerate() {
                            let kind = protocol_kind(obj.bind(py)).unwrap();
                            assert_eq!(kind, EXPECTED[(100 + i) % 5], "class {i}");
                        }
                    })
                });
            }
        });
    }

    #[test]
    fn kinds_round_trip_through_their_encoding() {
        let protocols = [
            ProtocolKind::Tensor,
            ProtocolKind::DataTypeObject,
            ProtocolKind::DeviceObject,
        ];
        let kinds = protocols
            .into_iter()
            .map(ClassKind::Protocol)
            .chain(Recognised::ALL.into_iter().map(ClassKind::Recognised))
            .chain([ClassKind::Unknown]);
        let mut codes = std::collections::HashSet::new();
        for kind in kinds {
            assert_eq!(decode(encode(kind)), kind);
            assert!(codes.insert(encode(kind)), "{kind:?} shares its code");
        }
        assert_eq!(decode(u8::MAX), ClassKind::Unknown);
    }
}
