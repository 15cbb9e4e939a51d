//! The producer side of `__dlpack__`: its arguments, checked ([`DlpackRequest::new`]), what
//! they ask of the producer ([`DlpackRequest::plan`]), and the capsule that answers them
//! ([`DlpackRequest::capsule`]; with feature `cuda`, [`DlpackRequest::cuda_capsule`], which
//! also makes the producer's work visible on the consumer's stream).

use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyCapsule, PyInt};

use crate::Device;
use crate::ffi::{DLDeviceType, DLPackVersion};
use crate::python::capsule::{legacy_capsule, versioned_capsule};
use crate::python::error::buffer_error;
use crate::python::ints::{Ints, Origin, check_device_pair};
use crate::python::message::{repr, type_name};
use crate::tensor::{Flags, LegacyManagedTensor, ManagedTensor, TensorOwner};

/// The keyword arguments of `__dlpack__(*, stream=None, max_version=None, dl_device=None,
/// copy=None)`, checked, as the array API standard (2023.12 and later) defines them.
///
/// Build it with [`DlpackRequest::new`] from the raw arguments of your `__dlpack__` method,
/// decide with [`plan`](Self::plan) whether the export shares or copies, then make the capsule
/// (see the module documentation for a complete producer).
///
/// ```
/// use dlpack_core::Device;
/// use dlpack_core::python::{DataAccess, DlpackRequest, ExportPlan};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let max_version = (1, 0).into_pyobject(py)?;
///     let request = DlpackRequest::new(None, Some(max_version.as_any()), None, None)?;
///     assert!(request.versioned());
///     assert_eq!(request.plan(Device::CPU, DataAccess::Writable, |_| false)?, ExportPlan::Share);
///
///     let cuda = (2, 0).into_pyobject(py)?;
///     let request = DlpackRequest::new(None, None, Some(cuda.as_any()), None)?;
///     let err = request.plan(Device::CPU, DataAccess::Writable, |target| target == Device::CPU).unwrap_err();
///     assert!(err.is_instance_of::<pyo3::exceptions::PyBufferError>(py));
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DlpackRequest {
    /// `stream`, an int when given: `-1` asks for no synchronisation, CUDA's `1` and `2` are
    /// the legacy and per-thread default streams, larger values are stream handles. `None`
    /// when not given. Only `None` and `-1` are accepted for tensors on devices without
    /// streams (see [`plan`](Self::plan)).
    pub stream: Option<i64>,
    /// `max_version`: the newest DLPack version the consumer understands. `None` means a
    /// consumer from before DLPack 1.0, which understands only the legacy capsule.
    pub max_version: Option<DLPackVersion>,
    /// `dl_device`: the device the consumer wants the tensor on; `None` for where it is.
    pub dl_device: Option<Device>,
    /// `copy`: `Some(true)` always copy, `Some(false)` never copy (a `BufferError` when one
    /// would be needed), `None` copy only when needed.
    pub copy: Option<bool>,
}

/// What a producer does to honour a [`DlpackRequest`], as [`DlpackRequest::plan`] decides.
///
/// ```
/// use dlpack_core::Device;
/// use dlpack_core::python::{DataAccess, DlpackRequest, ExportPlan};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let version = (1, 0).into_pyobject(py)?;
///     let share = DlpackRequest::new(None, Some(version.as_any()), None, None)?;
///     let copy = DlpackRequest::new(None, Some(version.as_any()), None, Some(true))?;
///     let on_cpu = |to: Device| to == Device::CPU;
///     for (request, expected) in [(share, ExportPlan::Share), (copy, ExportPlan::Copy(Device::CPU))] {
///         match request.plan(Device::CPU, DataAccess::Writable, on_cpu)? {
///             ExportPlan::Share => assert_eq!(expected, ExportPlan::Share),
///             ExportPlan::Copy(to) => assert_eq!(expected, ExportPlan::Copy(to)),
///         }
///     }
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportPlan {
    /// Export the tensor's own memory: the consumer shares it.
    Share,
    /// Copy the tensor to this device and export the copy (with the `IS_COPIED` flag on a
    /// versioned capsule).
    Copy(Device),
}

/// Whether consumers that share a tensor's memory may write it: what
/// [`DlpackRequest::plan`] needs to know of the tensor, since a legacy capsule cannot say
/// `READ_ONLY` (read-only data goes to a legacy consumer as a copy).
///
/// `READ_ONLY` binds a consumer only as far as it honours it: NumPy, JAX and TVM FFI do;
/// **PyTorch (2.15) and PaddlePaddle (3.3) import a read-only tensor as a writable one**, so
/// `torch.from_dlpack(t)[0] = 42` writes the shared memory. For data that other Rust code reads
/// as immutable (an `Arc<[T]>`, a safetensors buffer, a candle storage shared with
/// `bridges::candle::Shared`), such a write changes memory under a `&[T]`: choose
/// [`Immutable`](Self::Immutable), and every consumer gets a copy of its own.
///
/// ```
/// use dlpack_core::Device;
/// use dlpack_core::python::{DataAccess, DlpackRequest, ExportPlan};
/// use dlpack_core::tensor::Flags;
///
/// assert_eq!(DataAccess::of(Flags::READ_ONLY | Flags::IS_COPIED), DataAccess::ReadOnly);
/// assert_eq!(DataAccess::of(Flags::EMPTY), DataAccess::Writable);
/// let legacy = DlpackRequest::LEGACY;
/// let plan = legacy.plan(Device::CPU, DataAccess::ReadOnly, |to| to == Device::CPU)?;
/// assert_eq!(plan, ExportPlan::Copy(Device::CPU));
///
/// // Immutable data is never shared, whatever the consumer's version.
/// # pyo3::Python::initialize();
/// pyo3::Python::attach(|py| -> pyo3::PyResult<()> {
///     use pyo3::IntoPyObject;
///     let version = (1, 3).into_pyobject(py)?;
///     let versioned = DlpackRequest::new(None, Some(version.as_any()), None, None)?;
///     let shared = versioned.plan(Device::CPU, DataAccess::ReadOnly, |to| to == Device::CPU)?;
///     assert_eq!(shared, ExportPlan::Share);
///     let copied = versioned.plan(Device::CPU, DataAccess::Immutable, |to| to == Device::CPU)?;
///     assert_eq!(copied, ExportPlan::Copy(Device::CPU));
///     Ok(())
/// })?;
/// # Ok::<(), pyo3::PyErr>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataAccess {
    /// Consumers may write the data (no `READ_ONLY` flag).
    Writable,
    /// Consumers must not write the data (the tensor carries `READ_ONLY`); a versioned
    /// consumer shares it.
    ReadOnly,
    /// Nothing may ever write the data, whatever the consumer honours: every consumer gets a
    /// copy, and `copy=False` is a `BufferError`. For read-only data that Rust code reads
    /// meanwhile, since PyTorch and PaddlePaddle ignore `READ_ONLY`.
    Immutable,
}

impl DataAccess {
    /// The access a tensor with `flags` grants: [`ReadOnly`](Self::ReadOnly) when they hold
    /// `READ_ONLY`.
    ///
    /// ```
    /// use dlpack_core::python::DataAccess;
    /// use dlpack_core::tensor::Flags;
    ///
    /// assert_eq!(DataAccess::of(Flags::READ_ONLY), DataAccess::ReadOnly);
    /// assert_eq!(DataAccess::of(Flags::IS_COPIED), DataAccess::Writable);
    /// ```
    pub fn of(flags: Flags) -> Self {
        if flags.contains(Flags::READ_ONLY) {
            Self::ReadOnly
        } else {
            Self::Writable
        }
    }
}

impl DlpackRequest {
    /// A request with every argument left out: a legacy capsule of the tensor as it is.
    ///
    /// ```
    /// use dlpack_core::Device;
    /// use dlpack_core::python::{DataAccess, DlpackRequest, ExportPlan};
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|_py| -> PyResult<()> {
    ///     let request = DlpackRequest::LEGACY;
    ///     assert!(!request.versioned());
    ///     assert_eq!(request.plan(Device::CPU, DataAccess::Writable, |_| false)?, ExportPlan::Share);
    ///     // Read-only data cannot be shared with a legacy consumer: it gets a copy.
    ///     assert_eq!(request.plan(Device::CPU, DataAccess::ReadOnly, |_| true)?, ExportPlan::Copy(Device::CPU));
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub const LEGACY: Self = Self {
        stream: None,
        max_version: None,
        dl_device: None,
        copy: None,
    };

    /// Checks the raw keyword arguments of `__dlpack__`. `None` and a Python `None` both mean
    /// "not given".
    ///
    /// - `stream`: an int (`TypeError` otherwise), `-1` or more (`ValueError` otherwise). `0`
    ///   is ROCm's default stream and ambiguous for CUDA: [`plan`](Self::plan) decides by the
    ///   tensor's device.
    /// - `max_version`: a tuple of two non-negative ints `(major, minor)` (a list is a
    ///   `TypeError`, as NumPy has it).
    /// - `dl_device`: a tuple of two ints `(device_type, device_id)` naming a known device type
    ///   and an id in `0..=i32::MAX` (`ValueError` otherwise: never truncated).
    /// - `copy`: `True`, `False` or `None` (pass it as `Option<bool>`: PyO3 refuses anything
    ///   else with a `TypeError`).
    ///
    /// ```
    /// use dlpack_core::Device;
    /// use dlpack_core::python::DlpackRequest;
    /// use pyo3::exceptions::{PyTypeError, PyValueError};
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let (version, gpu) = ((1, 3).into_pyobject(py)?, (2, 1).into_pyobject(py)?);
    ///     let request = DlpackRequest::new(None, Some(version.as_any()), Some(gpu.as_any()), Some(false))?;
    ///     assert_eq!(request.dl_device, Some(Device::cuda(1)));
    ///     assert_eq!(request.copy, Some(false));
    ///
    ///     let list = pyo3::types::PyList::new(py, [1, 0])?;
    ///     let err = DlpackRequest::new(None, Some(list.as_any()), None, None).unwrap_err();
    ///     assert!(err.is_instance_of::<PyTypeError>(py)); // a list is not a version
    ///     let minus_two = (-2_i64).into_pyobject(py)?;
    ///     let err = DlpackRequest::new(Some(minus_two.as_any()), None, None, None).unwrap_err();
    ///     assert!(err.is_instance_of::<PyValueError>(py)); // no stream is negative but -1
    ///     let huge = (2, 1_i64 << 31).into_pyobject(py)?;
    ///     let err = DlpackRequest::new(None, None, Some(huge.as_any()), None).unwrap_err();
    ///     assert!(err.to_string().contains("device id 2147483648 is out of range"), "{err}");
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn new(
        stream: Option<&Bound<'_, PyAny>>,
        max_version: Option<&Bound<'_, PyAny>>,
        dl_device: Option<&Bound<'_, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Self> {
        let stream = given(stream).map(parse_stream).transpose()?;
        let max_version = match given(max_version) {
            None => None,
            Some(value) => {
                let [major, minor] = Ints::new(value, Origin::Argument("max_version=")).ints(
                    "(major, minor)",
                    [
                        ("major version", u32::MAX.into()),
                        ("minor version", u32::MAX.into()),
                    ],
                )?;
                // Both were range-checked against `u32` just above.
                Some(DLPackVersion {
                    major: major as u32,
                    minor: minor as u32,
                })
            }
        };
        let dl_device = match given(dl_device) {
            None => None,
            Some(value) => Some(check_device_pair(Ints::new(
                value,
                Origin::Argument("dl_device="),
            ))?),
        };
        Ok(Self {
            stream,
            max_version,
            dl_device,
            copy,
        })
    }

    /// Whether the consumer takes a versioned capsule (`"dltensor_versioned"`): it passed a
    /// `max_version` whose major version is 1 or more. Otherwise it gets a legacy
    /// `"dltensor"` capsule.
    ///
    /// A versioned capsule carries this crate's DLPack version, 1.3, whatever 1.x the consumer
    /// named (`(1, 0)`, as NumPy does, or `(2, 0)`): minor versions share one layout and only
    /// add codes, and the standard asks consumers to check the version they get.
    ///
    /// ```
    /// use dlpack_core::python::DlpackRequest;
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     for (version, versioned) in [((0, 8), false), ((1, 0), true), ((2, 0), true)] {
    ///         let version = version.into_pyobject(py)?;
    ///         let request = DlpackRequest::new(None, Some(version.as_any()), None, None)?;
    ///         assert_eq!(request.versioned(), versioned);
    ///     }
    ///     assert!(!DlpackRequest::LEGACY.versioned());
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn versioned(&self) -> bool {
        self.max_version.is_some_and(|version| version.major >= 1)
    }

    /// Decides how to export a tensor that lives on `current` (`access`: whether consumers that
    /// share its memory may write it): share its memory, or copy it to the device the consumer asked for.
    /// `can_copy_to(target)` says whether the producer can copy the tensor to `target`.
    ///
    /// Errors, as the array API standard asks:
    ///
    /// - `ValueError` for a `stream` other than `None` or `-1` when `current` has no streams
    ///   (anything but CUDA and ROCm and their host and managed memory): the standard accepts
    ///   only `None` on the CPU, and `-1` ("do not synchronise") asks for nothing a CPU
    ///   producer would do, so it is accepted too. The standard's values per device: `0` is
    ///   ambiguous for CUDA tensors (and their pinned and managed memory), and `1` and `2`
    ///   (CUDA's default streams) are not ROCm streams, where `0` is the default stream. Every
    ///   other value [`new`](Self::new) accepted passes: making the producer's work visible on
    ///   that stream is the job of the caller, before it returns the capsule (with feature
    ///   `cuda`, `cuda_capsule` plans, synchronises and makes the capsule in one call).
    /// - `BufferError` for `dl_device` on another device when `copy=False`, or when
    ///   `can_copy_to` refuses the device; and for `copy=True` when `can_copy_to(current)`
    ///   refuses.
    ///
    /// Read-only data cannot be shared with a consumer of the legacy capsule, which has no
    /// `READ_ONLY` flag: it gets a (writable) copy, or a `BufferError` when `copy=False`.
    ///
    /// ```
    /// use dlpack_core::Device;
    /// use dlpack_core::python::{DataAccess, DlpackRequest, ExportPlan};
    /// use pyo3::exceptions::{PyBufferError, PyValueError};
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let version = (1, 3).into_pyobject(py)?;
    ///     let request = |stream: Option<i64>, copy| -> PyResult<DlpackRequest> {
    ///         let stream = stream.map(|s| s.into_pyobject(py)).transpose()?;
    ///         DlpackRequest::new(stream.as_ref().map(|s| s.as_any()), Some(version.as_any()), None, copy)
    ///     };
    ///     let host_only = |to: Device| to == Device::CPU;
    ///     assert_eq!(request(None, None)?.plan(Device::CPU, DataAccess::ReadOnly, host_only)?, ExportPlan::Share);
    ///     assert_eq!(request(Some(-1), Some(true))?.plan(Device::CPU, DataAccess::Writable, host_only)?, ExportPlan::Copy(Device::CPU));
    ///     // A CPU tensor has no streams; a producer that cannot copy refuses copy=True.
    ///     let err = request(Some(1), None)?.plan(Device::CPU, DataAccess::Writable, host_only).unwrap_err();
    ///     assert!(err.is_instance_of::<PyValueError>(py));
    ///     let err = request(None, Some(true))?.plan(Device::CPU, DataAccess::Writable, |_| false).unwrap_err();
    ///     assert!(err.is_instance_of::<PyBufferError>(py));
    ///     // A CUDA tensor takes the standard's CUDA streams: synchronising is the backend's job.
    ///     assert_eq!(request(Some(1), None)?.plan(Device::cuda(0), DataAccess::Writable, host_only)?, ExportPlan::Share);
    ///     let err = request(Some(0), None)?.plan(Device::cuda(0), DataAccess::Writable, host_only).unwrap_err();
    ///     assert!(err.to_string().contains("ambiguous"), "{err}");
    ///     // ROCm's default stream is 0.
    ///     assert_eq!(request(Some(0), None)?.plan(Device::rocm(0), DataAccess::Writable, host_only)?, ExportPlan::Share);
    ///     assert!(request(Some(2), None)?.plan(Device::rocm(0), DataAccess::Writable, host_only).is_err());
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn plan(
        &self,
        current: Device,
        access: DataAccess,
        can_copy_to: impl Fn(Device) -> bool,
    ) -> PyResult<ExportPlan> {
        if let Some(stream) = self.stream.filter(|&stream| stream != -1) {
            if !has_streams(current) {
                return Err(PyValueError::new_err(format!(
                    "stream={stream} was given for a tensor on {current}, which has no streams: \
                     only stream=None (or -1) is accepted there"
                )));
            }
        }
        if let Some(stream) = self.stream {
            let refused = match current.device_type {
                DLDeviceType::CUDA | DLDeviceType::CUDA_HOST | DLDeviceType::CUDA_MANAGED
                    if stream == 0 =>
                {
                    Some(
                        "0 is ambiguous for CUDA; pass 1 for the legacy default stream, 2 for \
                         the per-thread default stream, or a stream handle",
                    )
                }
                DLDeviceType::ROCM | DLDeviceType::ROCM_HOST if stream == 1 || stream == 2 => {
                    Some("1 and 2 are CUDA's default streams; ROCm's default stream is 0 (or None)")
                }
                _ => None,
            };
            if let Some(reason) = refused {
                return Err(PyValueError::new_err(format!(
                    "stream={stream} is not allowed for a tensor on {current}: {reason}"
                )));
            }
        }
        let target = self.dl_device.unwrap_or(current);
        // (Compared only when asked for: device equality canonicalises ids.)
        let elsewhere = self.dl_device.is_some_and(|target| target != current);
        let copy_to = |why: &str| {
            if can_copy_to(target) {
                Ok(ExportPlan::Copy(target))
            } else {
                Err(PyBufferError::new_err(format!(
                    "cannot export a tensor on {current} to {target}: {why}, and this producer \
                     cannot copy it there"
                )))
            }
        };
        let forbidden = |why: &str| {
            Err(PyBufferError::new_err(format!(
                "cannot export a tensor on {current} to {target} without a copy ({why}), and \
                 copy=False forbids one"
            )))
        };
        let legacy_read_only = access == DataAccess::ReadOnly && !self.versioned();
        let immutable = access == DataAccess::Immutable;
        const IMMUTABLE: &str =
            "the data is immutable, and consumers may ignore READ_ONLY, so it is never shared";
        match self.copy {
            Some(true) => copy_to("copy=True asks for a copy"),
            Some(false) if elsewhere => forbidden("another device"),
            Some(false) if immutable => forbidden(IMMUTABLE),
            Some(false) if legacy_read_only => {
                forbidden("the data is read-only, and the legacy capsule cannot say so")
            }
            _ if elsewhere => copy_to("it is on another device"),
            _ if immutable => copy_to(IMMUTABLE),
            _ if legacy_read_only => {
                copy_to("the data is read-only, and the legacy capsule cannot say so")
            }
            _ => Ok(ExportPlan::Share),
        }
    }

    /// Exports `owner` as the capsule this request asks for: a versioned capsule (with the
    /// owner's flags) when the consumer passed a `max_version` of 1.0 or newer, a legacy one
    /// otherwise.
    ///
    /// A legacy capsule cannot say `READ_ONLY`: an owner that describes read-only data is
    /// refused with a `BufferError` there (export a writable copy instead, as
    /// [`plan`](Self::plan) decides). `IS_COPIED` is dropped, as the legacy struct has no
    /// flags.
    ///
    /// ```
    /// use dlpack_core::python::{DlpackRequest, import_tensor};
    /// use dlpack_core::tensor::{Flags, TensorOwner, TensorParts};
    /// use pyo3::prelude::*;
    ///
    /// /// Four bytes, read-only when `frozen`.
    /// struct Bytes { data: Vec<u8>, shape: [usize; 1], frozen: bool }
    ///
    /// // SAFETY: the Vec's elements stay put while the owner lives; the description never changes.
    /// unsafe impl TensorOwner for Bytes {
    ///     fn describe(&mut self) -> TensorParts<'_> {
    ///         let parts = TensorParts::host(self.data.as_mut_ptr(), &self.shape[..]);
    ///         if self.frozen { parts.with_flags(Flags::READ_ONLY) } else { parts }
    ///     }
    /// }
    /// let bytes = |frozen| Bytes { data: vec![1, 2, 3, 4], shape: [4], frozen };
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let version = (1, 3).into_pyobject(py)?;
    ///     let versioned = DlpackRequest::new(None, Some(version.as_any()), None, None)?;
    ///     let capsule = versioned.capsule(py, bytes(true))?;
    ///     assert!(capsule.is_valid_checked(Some(c"dltensor_versioned")));
    ///     assert_eq!(import_tensor(&capsule, None, None)?.view()?.as_slice::<u8>()?, [1, 2, 3, 4]);
    ///
    ///     let capsule = DlpackRequest::LEGACY.capsule(py, bytes(false))?;
    ///     assert!(capsule.is_valid_checked(Some(c"dltensor")));
    ///     // The legacy struct cannot say READ_ONLY: refused (plan a copy instead).
    ///     let err = DlpackRequest::LEGACY.capsule(py, bytes(true)).unwrap_err();
    ///     assert!(err.is_instance_of::<pyo3::exceptions::PyBufferError>(py));
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn capsule<'py, O: TensorOwner>(
        &self,
        py: Python<'py>,
        owner: O,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        if self.versioned() {
            versioned_capsule(py, ManagedTensor::from_owner(owner).map_err(buffer_error)?)
        } else {
            // One allocation, as for the versioned capsule (`into_legacy` would add one).
            let tensor = LegacyManagedTensor::export_owner(owner);
            legacy_capsule(py, tensor.map_err(|err| buffer_error(err.into()))?)
        }
    }

    /// Wraps an exported tensor in the capsule this request asks for: versioned, or legacy
    /// (refused with a `BufferError` when the legacy struct cannot describe it).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn tensor_capsule<'py>(
        &self,
        py: Python<'py>,
        tensor: ManagedTensor,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        if self.versioned() {
            versioned_capsule(py, tensor)
        } else {
            legacy_capsule(py, tensor.into_legacy().map_err(buffer_error)?)
        }
    }
}

/// An argument that was given: not left out, and not `None`.
fn given<'a, 'py>(arg: Option<&'a Bound<'py, PyAny>>) -> Option<&'a Bound<'py, PyAny>> {
    arg.filter(|arg| !arg.is_none())
}

/// Whether DLPack's `stream` argument means something for tensors on `device`.
fn has_streams(device: Device) -> bool {
    matches!(
        device.device_type,
        DLDeviceType::CUDA
            | DLDeviceType::CUDA_HOST
            | DLDeviceType::CUDA_MANAGED
            | DLDeviceType::ROCM
            | DLDeviceType::ROCM_HOST
    )
}

/// Checks a `stream` argument: an int of -1 or more (whether the device has that stream is
/// [`DlpackRequest::plan`]'s to decide).
fn parse_stream(stream: &Bound<'_, PyAny>) -> PyResult<i64> {
    if stream.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "stream={} is a bool; expected None or an int",
            repr(stream)
        )));
    }
    if !stream.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "stream={} is a {}; expected None or an int",
            repr(stream),
            type_name(stream)
        )));
    }
    let value = stream.extract::<i64>().map_err(|_| {
        PyValueError::new_err(format!(
            "stream={} is out of range: expected -1 to {}",
            repr(stream),
            i64::MAX
        ))
    })?;
    if value < -1 {
        return Err(PyValueError::new_err(format!(
            "stream={value} is not a stream: expected None, -1 (no synchronisation) or a \
             non-negative int (1 and 2 are CUDA's legacy and per-thread default streams, 0 \
             ROCm's default stream)"
        )));
    }
    Ok(value)
}

mod answer;
#[cfg(feature = "cuda")]
mod cuda;
#[cfg(test)]
mod tests;
