//! The classifier: what a Python object is to DLPack, decided from its class (and remembered
//! per class by the class cache, `class_cache.rs`): which of the three DLPack protocols
//! (tensor, data type, device) it speaks, or else which kind of value of another library it is
//! (`libraries.rs`), and for a tensor class, the C exchange table it publishes.
//!
//! Two public answers come from it, with two types since they answer two questions:
//! [`protocol_kind`] (a [`ProtocolKind`]: which protocol the class speaks) and, in `read.rs`,
//! `value_kind` (a `ValueKind`: what the object means as a value, names and other libraries'
//! dtypes and devices included).
//!

use core::ffi::CStr;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyType};

use super::libraries::{Recognised, recognise};
use crate::ffi::DLPackExchangeAPI;
use crate::python::class_cache::{self, Entry};

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

/// What the objects of a class are, for an import: a tensor class (and the C exchange table it
/// publishes, if one this crate speaks), or not a tensor class.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TensorClass {
    /// The class has `__dlpack__`.
    Tensor {
        /// Its `__dlpack_c_exchange_api__` table, when it publishes one this crate speaks.
        table: Option<&'static DLPackExchangeAPI>,
    },
    /// The class has no `__dlpack__`.
    NotTensor,
}

/// What `obj` is: a capsule is a tensor, anything else is what its class is.
pub(crate) fn object_kind(obj: &Bound<'_, PyAny>) -> PyResult<ClassKind> {
    if obj.is_instance_of::<PyCapsule>() {
        return Ok(ClassKind::Protocol(ProtocolKind::Tensor));
    }
    Ok(classify(&obj.get_type())?.0)
}

/// The protocol kind of the objects of `class`. A capsule's class is `None` here: capsules are
/// tensors by name, not by class.
pub(crate) fn class_kind(class: &Bound<'_, PyType>) -> PyResult<Option<ProtocolKind>> {
    Ok(match classify(class)?.0 {
        ClassKind::Protocol(kind) => Some(kind),
        ClassKind::Recognised(_) | ClassKind::Unknown => None,
    })
}

/// Whether `class` is a tensor class, with the exchange table it publishes
/// (`__dlpack_c_exchange_api__`, looked up once per class with the protocol methods).
pub(crate) fn tensor_class(class: &Bound<'_, PyType>) -> PyResult<TensorClass> {
    Ok(match classify(class)? {
        (ClassKind::Protocol(ProtocolKind::Tensor), table) => TensorClass::Tensor { table },
        _ => TensorClass::NotTensor,
    })
}

/// What the objects of `class` are, and a tensor class's table, from the class cache or looked
/// up (and then remembered).
fn classify(
    class: &Bound<'_, PyType>,
) -> PyResult<(ClassKind, Option<&'static DLPackExchangeAPI>)> {
    if let Some(entry) = class_cache::remembered(class) {
        return Ok((decode(entry.code), entry.table));
    }
    let kind = look_up(class)?;
    let table = match kind {
        ClassKind::Protocol(ProtocolKind::Tensor) => published_table(class)?,
        _ => None,
    };
    class_cache::remember(
        class,
        Entry {
            code: encode(kind),
            table,
        },
    );
    Ok((kind, table))
}

/// The name of the capsule behind `__dlpack_c_exchange_api__`, which `dlpack.h` fixes.
///
/// ```
/// assert_eq!(dlpack_core::python::EXCHANGE_API, c"dlpack_exchange_api");
/// ```
pub const EXCHANGE_API: &CStr = c"dlpack_exchange_api";

/// The table `class` publishes as `__dlpack_c_exchange_api__`, if it is a capsule of that name
/// holding a chain with an entry this crate speaks ([`DLPackExchangeAPI::from_chain`]: major
/// version 1, with the owning export). Anything else — no attribute, another object, a table
/// of major version 2 alone — is no table: the consumer asks `__dlpack__` instead.
fn published_table(class: &Bound<'_, PyType>) -> PyResult<Option<&'static DLPackExchangeAPI>> {
    let py = class.py();
    let name = intern!(py, "__dlpack_c_exchange_api__");
    if !class.hasattr(name)? {
        return Ok(None);
    }
    let Ok(capsule) = class.getattr(name)?.cast_into::<PyCapsule>() else {
        return Ok(None);
    };
    let Ok(pointer) = capsule.pointer_checked(Some(EXCHANGE_API)) else {
        return Ok(None);
    };
    // SAFETY: a capsule named `dlpack_exchange_api` holds a table that lives for the whole
    // process (`dlpack.h`), whose chain does too.
    Ok(unsafe { DLPackExchangeAPI::from_chain(pointer.as_ptr().cast()) })
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
            for i in 0..2 * class_cache::CACHED_CLASSES {
                let obj = object(py, i)?;
                // Twice: once looked up (and maybe remembered), once from the cache (or not).
                assert_eq!(protocol_kind(&obj)?, EXPECTED[i % 5], "class {i}");
                assert_eq!(protocol_kind(&obj)?, EXPECTED[i % 5], "class {i}, again");
            }
            let (slots, kept) = class_cache::filled();
            assert_eq!(
                kept.len(),
                class_cache::CACHED_CLASSES,
                "the cache fills up, and no further"
            );
            assert_eq!(slots, kept);
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
