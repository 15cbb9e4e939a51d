//! The classifier: what a Python object is to DLPack, decided from its class (and remembered
//! per class by the class cache, `class_cache.rs`): which of the three DLPack protocols
//! (tensor, data type, device) it speaks, or else which kind of value of another library it is
//! (`libraries.rs`), and for a tensor class, the C exchange table it publishes, or whether it
//! is `numpy.ndarray`, whose arrays the importers read through the buffer protocol (the class
//! cache remembers that class's address).
//!
//! One answer leaves the Python layer: `value_kind` (in `read.rs`), what the object means as a
//! value (names and other libraries' dtypes and devices included), and whether its class
//! carries the protocol. Inside, [`object_kind`] gives the class's [`ClassKind`] and
//! [`as_tensor`] whether it is a tensor class, with its C exchange table.
//!

use core::ffi::CStr;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyType};

use super::libraries::{Recognised, TorchTensor, recognise, torch_tensor};
use crate::ffi::DLPackExchangeAPI;
use crate::python::class_cache::{self, Entry};

/// What a Python object is to DLPack, decided the way TVM FFI decides it: from the object's
/// **class**, in this order.
///
/// 1. A capsule, or a class with `__dlpack__`, is a [`Tensor`](Self::Tensor) (a tensor's class
///    also has `__dlpack_device__`, which then names the tensor's device, not a device object).
/// 2. A class with `__dlpack_data_type__` is a [`DataTypeObject`](Self::DataTypeObject).
/// 3. A class with `__dlpack_device__` (and no `__dlpack__`) is a [`DeviceObject`](Self::DeviceObject).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ProtocolKind {
    /// A tensor: `__dlpack__`, or a raw DLPack capsule.
    Tensor,
    /// A data type: `__dlpack_data_type__`.
    DataTypeObject,
    /// A device: `__dlpack_device__` without `__dlpack__`.
    DeviceObject,
    // (Not `DataType`/`Device`: a second item of either name anywhere in the crate graph makes
    // rustc print `dlpack_core::DataType` in full in every diagnostic.)
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
pub(crate) enum AsTensor {
    /// The class has `__dlpack__`.
    Tensor {
        /// Its `__dlpack_c_exchange_api__` table, when the class itself publishes one this
        /// crate speaks (a subclass that inherits its base's table is asked through
        /// `__dlpack__`, which it may override; see [`published_table`]).
        table: Option<&'static DLPackExchangeAPI>,
        /// Whether it is `torch.Tensor` or a subclass: its tensors get the checks of
        /// `import/torch.rs`.
        torch: bool,
    },
    /// The class has no `__dlpack__`.
    NotTensor,
}

/// What `obj` is: a capsule is a tensor, anything else is what its class is.
pub(crate) fn object_kind(obj: &Bound<'_, PyAny>) -> PyResult<ClassKind> {
    if obj.is_instance_of::<PyCapsule>() {
        return Ok(ClassKind::Protocol(ProtocolKind::Tensor));
    }
    Ok(classify(&obj.get_type())?.kind)
}

/// Whether `class` is a tensor class, with the exchange table it publishes
/// (`__dlpack_c_exchange_api__`, looked up once per class with the protocol methods).
pub(crate) fn as_tensor(class: &Bound<'_, PyType>) -> PyResult<AsTensor> {
    let class = classify(class)?;
    Ok(match class.kind {
        ClassKind::Protocol(ProtocolKind::Tensor) => AsTensor::Tensor {
            table: class.table,
            torch: class.torch,
        },
        _ => AsTensor::NotTensor,
    })
}

/// What the classifier found of a class.
struct Classified {
    kind: ClassKind,
    /// A tensor class's own exchange table.
    table: Option<&'static DLPackExchangeAPI>,
    /// A tensor class that is `torch.Tensor` or a subclass.
    torch: bool,
}

/// The code's top bit marks a PyTorch tensor class; the other bits are the kind's.
const TORCH: u8 = 0x80;

/// What the objects of `class` are, and a tensor class's table, from the class cache or looked
/// up (and then remembered).
fn classify(class: &Bound<'_, PyType>) -> PyResult<Classified> {
    if let Some(entry) = class_cache::remembered(class) {
        return Ok(Classified {
            kind: decode(entry.code & !TORCH),
            table: entry.table,
            torch: entry.code & TORCH != 0,
        });
    }
    let kind = look_up(class)?;
    let (table, torch) = match kind {
        ClassKind::Protocol(ProtocolKind::Tensor) => {
            #[cfg(numpy_buffer)]
            if is_numpy_ndarray(class)? {
                class_cache::remember_ndarray(class);
            }
            match torch_tensor(class)? {
                TorchTensor::No => (published_table(class)?, false),
                TorchTensor::Exact => (published_table(class)?, true),
                TorchTensor::Subclass => (None, true),
            }
        }
        _ => (None, false),
    };
    let code = encode(kind) | if torch { TORCH } else { 0 };
    class_cache::remember(class, Entry { code, table });
    Ok(Classified { kind, table, torch })
}

/// Whether `class` is NumPy's `numpy.ndarray` itself (not a subclass, nor a class of that name
/// elsewhere) in a NumPy whose buffer export the importers' buffer path reproduces
/// (`import/buffer/`): the `ndarray` of the `numpy` module in `sys.modules`, which is never
/// imported here (an array exists only once NumPy is loaded), of version 2.1 or later. Older
/// NumPy exports DLPack 0.x alone, which refuses what a buffer describes (a read-only array,
/// and `bool` before 1.25), so its arrays keep going through `__dlpack__`.
#[cfg(numpy_buffer)]
fn is_numpy_ndarray(class: &Bound<'_, PyType>) -> PyResult<bool> {
    let py = class.py();
    if class.name()? != "ndarray" {
        return Ok(false);
    }
    let modules = py
        .import(intern!(py, "sys"))?
        .getattr(intern!(py, "modules"))?;
    let Ok(modules) = modules.cast_into::<pyo3::types::PyDict>() else {
        return Ok(false);
    };
    let Some(numpy) = modules.get_item(intern!(py, "numpy"))? else {
        return Ok(false);
    };
    let same = numpy
        .getattr_opt(intern!(py, "ndarray"))?
        .is_some_and(|ndarray| ndarray.is(class));
    let Some(version) = numpy.getattr_opt(intern!(py, "__version__"))? else {
        return Ok(false);
    };
    Ok(same && version.extract::<&str>().is_ok_and(numpy_exports_dlpack_1))
}

/// Whether a NumPy `__version__` (`2.1.0`, `2.5.0rc1`, `3.0.0.dev0+git…`) is 2.1 or later.
#[cfg(numpy_buffer)]
fn numpy_exports_dlpack_1(version: &str) -> bool {
    let mut parts = version.split('.');
    let number = |part: Option<&str>| -> Option<u32> {
        let digits = part?.split(|c: char| !c.is_ascii_digit()).next()?;
        digits.parse().ok()
    };
    match (number(parts.next()), number(parts.next())) {
        (Some(major), Some(minor)) => (major, minor) >= (2, 1),
        _ => false,
    }
}

/// The name of the capsule behind `__dlpack_c_exchange_api__`, which `dlpack.h` fixes.
///
/// ```
/// assert_eq!(dlpack_core::python::exchange::CAPSULE_NAME, c"dlpack_exchange_api");
/// ```
pub const EXCHANGE_API: &CStr = c"dlpack_exchange_api";

/// The table `class` publishes as `__dlpack_c_exchange_api__`, if it is a capsule of that name
/// holding a chain with an entry this crate speaks ([`DLPackExchangeAPI::from_chain`]: major
/// version 1, with the owning export). Anything else — no attribute, another object, a table
/// of major version 2 alone — is no table: the consumer asks `__dlpack__` instead.
///
/// A table describes the objects of the class that publishes it, as that class's `__dlpack__`
/// exports them: a subclass that overrides `__dlpack__` may export something else, which its
/// base's table would skip. So the table counts only when the class that publishes it (the
/// first in the MRO with it in its `__dict__`) is the one whose `__dlpack__` the object has; a
/// subclass that overrides `__dlpack__` and publishes no table of its own is asked through
/// `__dlpack__`. (PyTorch's subclasses get no table at all: see [`TorchTensor`].)
fn published_table(class: &Bound<'_, PyType>) -> PyResult<Option<&'static DLPackExchangeAPI>> {
    let py = class.py();
    let name = intern!(py, "__dlpack_c_exchange_api__");
    let (Some(publisher), Some(producer)) = (
        owner(class, name)?,
        owner(class, intern!(py, "__dlpack__"))?,
    ) else {
        return Ok(None);
    };
    if !publisher.is(&producer) {
        return Ok(None);
    }
    let attribute = publisher.getattr(name)?;
    let Ok(capsule) = attribute.cast_into::<PyCapsule>() else {
        return Ok(None);
    };
    let Ok(pointer) = capsule.pointer_checked(Some(EXCHANGE_API)) else {
        return Ok(None);
    };
    // SAFETY: a capsule named `dlpack_exchange_api` holds a table that lives for the whole
    // process (`dlpack.h`), whose chain does too.
    Ok(unsafe { DLPackExchangeAPI::from_chain(pointer.as_ptr().cast()) })
}

/// The first class in `class`'s MRO whose own `__dict__` holds `name`.
fn owner<'py>(
    class: &Bound<'py, PyType>,
    name: &Bound<'py, pyo3::types::PyString>,
) -> PyResult<Option<Bound<'py, PyType>>> {
    for base in class.mro().iter() {
        let Ok(base) = base.cast_into::<PyType>() else {
            continue;
        };
        if base
            .getattr(intern!(class.py(), "__dict__"))?
            .contains(name)?
        {
            return Ok(Some(base));
        }
    }
    Ok(None)
}

/// The first code of a recognised kind: 0 is `Unknown`, 1 to 3 the protocol kinds.
const FIRST_RECOGNISED: u8 = 4;

/// The kind's code, below [`TORCH`].
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
    #[cfg(numpy_buffer)]
    #[test]
    fn numpy_versions_with_dlpack_1() {
        for version in [
            "2.1.0",
            "2.1.0rc1",
            "2.5.5",
            "2.10.0",
            "3.0.0.dev0+git20260101.abc",
        ] {
            assert!(super::numpy_exports_dlpack_1(version), "{version}");
        }
        for version in ["2.0.2", "1.26.4", "1.9.3", "2", "", "x.y", "2.0rc1"] {
            assert!(!super::numpy_exports_dlpack_1(version), "{version}");
        }
    }

    use pyo3::types::PyDict;

    use super::*;

    /// Which protocol `obj`'s class speaks, as TVM FFI decides it.
    fn protocol_kind(obj: &Bound<'_, PyAny>) -> PyResult<Option<ProtocolKind>> {
        Ok(match object_kind(obj)? {
            ClassKind::Protocol(kind) => Some(kind),
            ClassKind::Recognised(_) | ClassKind::Unknown => None,
        })
    }

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
