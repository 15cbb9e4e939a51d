//! The arguments of `__dlpack__`, checked, and what they ask of the producer.

use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

use super::ints::{Ints, Origin, repr, type_name};
use super::protocol::check_device_pair;
use crate::device::Device;
use crate::ffi::{DLDeviceType, DLPackVersion};

/// The keyword arguments of `__dlpack__(*, stream=None, max_version=None, dl_device=None,
/// copy=None)`, checked, as the array API standard (2023.12 and later) defines them.
///
/// Build it with [`DlpackRequest::new`] from the raw arguments of your `__dlpack__` method,
/// decide with [`plan`](Self::plan) whether the export shares or copies, then make the capsule
/// (see the module documentation for a complete producer).
///
/// ```
/// use dlpack_core::Device;
/// use dlpack_core::python::{DlpackRequest, Export};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let max_version = (1, 0).into_pyobject(py)?;
///     let request = DlpackRequest::new(None, Some(max_version.as_any()), None, None)?;
///     assert!(request.versioned());
///     assert_eq!(request.plan(Device::CPU, false, |_| false)?, Export::Share);
///
///     let cuda = (2, 0).into_pyobject(py)?;
///     let request = DlpackRequest::new(None, None, Some(cuda.as_any()), None)?;
///     let err = request.plan(Device::CPU, false, |target| target == Device::CPU).unwrap_err();
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
/// use dlpack_core::python::{DlpackRequest, Export};
/// use pyo3::prelude::*;
///
/// # pyo3::Python::initialize();
/// Python::attach(|py| -> PyResult<()> {
///     let version = (1, 0).into_pyobject(py)?;
///     let share = DlpackRequest::new(None, Some(version.as_any()), None, None)?;
///     let copy = DlpackRequest::new(None, Some(version.as_any()), None, Some(true))?;
///     let on_cpu = |to: Device| to == Device::CPU;
///     for (request, expected) in [(share, Export::Share), (copy, Export::Copy(Device::CPU))] {
///         match request.plan(Device::CPU, false, on_cpu)? {
///             Export::Share => assert_eq!(expected, Export::Share),
///             Export::Copy(to) => assert_eq!(expected, Export::Copy(to)),
///         }
///     }
///     Ok(())
/// })?;
/// # Ok::<(), PyErr>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Export {
    /// Export the tensor's own memory: the consumer shares it.
    Share,
    /// Copy the tensor to this device and export the copy (with the `IS_COPIED` flag on a
    /// versioned capsule).
    Copy(Device),
}

impl DlpackRequest {
    /// A request with every argument left out: a legacy capsule of the tensor as it is.
    ///
    /// ```
    /// use dlpack_core::Device;
    /// use dlpack_core::python::{DlpackRequest, Export};
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|_py| -> PyResult<()> {
    ///     let request = DlpackRequest::LEGACY;
    ///     assert!(!request.versioned());
    ///     assert_eq!(request.plan(Device::CPU, false, |_| false)?, Export::Share);
    ///     // Read-only data cannot be shared with a legacy consumer: it gets a copy.
    ///     assert_eq!(request.plan(Device::CPU, true, |_| true)?, Export::Copy(Device::CPU));
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

    /// Decides how to export a tensor that lives on `current` (`read_only` when consumers must
    /// not write to it): share its memory, or copy it to the device the consumer asked for.
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
    /// use dlpack_core::python::{DlpackRequest, Export};
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
    ///     assert_eq!(request(None, None)?.plan(Device::CPU, true, host_only)?, Export::Share);
    ///     assert_eq!(request(Some(-1), Some(true))?.plan(Device::CPU, false, host_only)?, Export::Copy(Device::CPU));
    ///     // A CPU tensor has no streams; a producer that cannot copy refuses copy=True.
    ///     let err = request(Some(1), None)?.plan(Device::CPU, false, host_only).unwrap_err();
    ///     assert!(err.is_instance_of::<PyValueError>(py));
    ///     let err = request(None, Some(true))?.plan(Device::CPU, false, |_| false).unwrap_err();
    ///     assert!(err.is_instance_of::<PyBufferError>(py));
    ///     // A CUDA tensor takes the standard's CUDA streams: synchronising is the backend's job.
    ///     assert_eq!(request(Some(1), None)?.plan(Device::cuda(0), false, host_only)?, Export::Share);
    ///     let err = request(Some(0), None)?.plan(Device::cuda(0), false, host_only).unwrap_err();
    ///     assert!(err.to_string().contains("ambiguous"), "{err}");
    ///     // ROCm's default stream is 0.
    ///     assert_eq!(request(Some(0), None)?.plan(Device::rocm(0), false, host_only)?, Export::Share);
    ///     assert!(request(Some(2), None)?.plan(Device::rocm(0), false, host_only).is_err());
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn plan(
        &self,
        current: Device,
        read_only: bool,
        can_copy_to: impl Fn(Device) -> bool,
    ) -> PyResult<Export> {
        if let Some(stream) = self.stream
            && stream != -1
            && !has_streams(current)
        {
            return Err(PyValueError::new_err(format!(
                "stream={stream} was given for a tensor on {current}, which has no streams: \
                 only stream=None (or -1) is accepted there"
            )));
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
                Ok(Export::Copy(target))
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
        let legacy_read_only = read_only && !self.versioned();
        match self.copy {
            Some(true) => copy_to("copy=True asks for a copy"),
            Some(false) if elsewhere => forbidden("another device"),
            Some(false) if legacy_read_only => {
                forbidden("the data is read-only, and the legacy capsule cannot say so")
            }
            _ if elsewhere => copy_to("it is on another device"),
            _ if legacy_read_only => {
                copy_to("the data is read-only, and the legacy capsule cannot say so")
            }
            _ => Ok(Export::Share),
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
