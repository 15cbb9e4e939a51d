//! The producer side of `__dlpack__`: its arguments, checked ([`DlpackRequest::new`]), what
//! they ask of the producer ([`DlpackRequest::plan`]), and the capsule that answers them
//! ([`DlpackRequest::capsule`]; with feature `cuda`, [`DlpackRequest::cuda_capsule`], which
//! also makes the producer's work visible on the consumer's stream).

#[cfg(feature = "cuda")]
use std::sync::Arc;

use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyCapsule, PyInt};

use super::capsule::{legacy_capsule, versioned_capsule};
use super::error::buffer_error;
use super::ints::{Ints, Origin, check_device_pair, repr, type_name};
#[cfg(feature = "cuda")]
use crate::cuda::cudarc::driver::CudaStream;
#[cfg(feature = "cuda")]
use crate::cuda::driver::Check;
#[cfg(feature = "cuda")]
use crate::cuda::export::{Pending, ReleaseAfter};
#[cfg(feature = "cuda")]
use crate::cuda::gather::queue;
#[cfg(feature = "cuda")]
use crate::cuda::raw::Dst;
#[cfg(feature = "cuda")]
use crate::cuda::scope::{enter, preserve};
#[cfg(feature = "cuda")]
use crate::cuda::transfer::alloc_device;
#[cfg(feature = "cuda")]
use crate::cuda::{self, CopyMode, CudaError, StreamArg, Synced};
use crate::device::Device;
use crate::ffi::{DLDeviceType, DLPackVersion};
#[cfg(feature = "cuda")]
use crate::tensor::Flags;
use crate::tensor::{LegacyManagedTensor, ManagedTensor, TensorOwner};

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
    /// use dlpack_core::python::{DlpackRequest, LEGACY, VERSIONED, capsule_tensor};
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
    ///     assert!(capsule.is_valid_checked(Some(VERSIONED)));
    ///     assert_eq!(capsule_tensor(&capsule)?.view()?.as_slice::<u8>()?, [1, 2, 3, 4]);
    ///
    ///     let capsule = DlpackRequest::LEGACY.capsule(py, bytes(false))?;
    ///     assert!(capsule.is_valid_checked(Some(LEGACY)));
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

/// The producer side of the stream rule (feature `cuda`): see the module documentation of
/// [`python`](super), section "CUDA tensors and streams".
#[cfg(feature = "cuda")]
impl DlpackRequest {
    /// The `stream` argument read as CUDA reads it (`StreamArg::try_from`): `None` and
    /// `1` are the legacy default stream, `2` the per-thread default stream, `-1` asks for no
    /// synchronisation, anything larger is a stream handle of the consumer's. `0` (ROCm's
    /// default stream, which the standard calls ambiguous for CUDA) is a `ValueError` here, as
    /// are negative values other than `-1` (which [`new`](Self::new) refuses already).
    ///
    /// ```
    /// use dlpack_core::cuda::StreamArg;
    /// use dlpack_core::python::DlpackRequest;
    /// use pyo3::prelude::*;
    ///
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let request = |stream: i64| -> PyResult<DlpackRequest> {
    ///         DlpackRequest::new(Some(stream.into_pyobject(py)?.as_any()), None, None, None)
    ///     };
    ///     assert_eq!(DlpackRequest::LEGACY.cuda_stream()?, StreamArg::LegacyDefault);
    ///     assert_eq!(request(1)?.cuda_stream()?, StreamArg::LegacyDefault);
    ///     assert_eq!(request(2)?.cuda_stream()?, StreamArg::PerThreadDefault);
    ///     assert_eq!(request(-1)?.cuda_stream()?, StreamArg::NoSync);
    ///     assert_eq!(request(0x7f00_1000)?.cuda_stream()?, StreamArg::Handle(0x7f00_1000));
    ///     let err = request(0)?.cuda_stream().unwrap_err(); // ROCm's, ambiguous for CUDA
    ///     assert!(err.is_instance_of::<pyo3::exceptions::PyValueError>(py));
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub fn cuda_stream(&self) -> PyResult<StreamArg> {
        Ok(StreamArg::try_from(self.stream.map(i128::from))?)
    }

    /// The producer side of `__dlpack__(stream=…)` for a tensor whose pending work is queued
    /// on `producer`: records an event on `producer` and makes the consumer's stream wait for
    /// it ([`cuda::sync_for_consumer`]); nothing for `stream=-1` or when the consumer works on
    /// `producer` itself. The host never waits, and no other stream or device is synchronised.
    ///
    /// Call it before returning the capsule of a tensor you share (not of a copy you made and
    /// waited for). [`cuda_capsule`](Self::cuda_capsule) does it for you.
    ///
    /// # Safety
    ///
    /// When [`stream`](Self::stream) is a handle (above 2), it must be a live CUDA stream on
    /// the tensor's device. The array API standard puts that duty on the consumer that passes
    /// it, and every producer (PyTorch, CuPy) trusts it, as the driver must: a stream handle
    /// cannot be checked before it is used. A request made by [`new`](Self::new) from the
    /// arguments of `__dlpack__` carries that promise of its caller.
    ///
    /// ```
    /// use dlpack_core::cuda::{self, Synced};
    /// use dlpack_core::python::DlpackRequest;
    /// use dlpack_core::Device;
    /// use pyo3::prelude::*;
    ///
    /// let Ok(context) = cuda::context(Device::cuda(0)) else {
    ///     return Ok(()); // no CUDA device here
    /// };
    /// let producer = context.new_stream().map_err(dlpack_core::Error::from)?;
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     let legacy = 1_i64.into_pyobject(py)?;
    ///     let request = DlpackRequest::new(Some(legacy.as_any()), None, None, None)?;
    ///     // SAFETY: 1 is the legacy default stream, which is always there.
    ///     assert_eq!(unsafe { request.sync_for_consumer(&producer) }?, Synced::Waited);
    ///     let mut none = request;
    ///     none.stream = Some(-1);
    ///     // SAFETY: -1 names no stream.
    ///     assert_eq!(unsafe { none.sync_for_consumer(&producer) }?, Synced::NotRequested);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub unsafe fn sync_for_consumer(&self, producer: &CudaStream) -> PyResult<Synced> {
        let consumer = self.cuda_stream()?;
        // SAFETY: a handle in `consumer` is a live stream on the tensor's device (our contract).
        Ok(unsafe { cuda::sync_for_consumer(producer, consumer) }?)
    }

    /// `__dlpack__` for a tensor in CUDA memory (`cuda:n` or `cuda_managed`) whose pending
    /// work is queued on `producer`: decides with [`plan`](Self::plan) whether to share or
    /// copy, makes the work visible on the consumer's stream, and returns the capsule the
    /// consumer asked for (as [`capsule`](Self::capsule) does for host tensors).
    ///
    /// - Shared: the consumer's stream is made to wait for `producer`
    ///   ([`sync_for_consumer`](Self::sync_for_consumer)) before the capsule is returned, and
    ///   the release is ordered after the consumer's stream: when the consumer releases the
    ///   tensor, `producer` waits for an event recorded then on the consumer's stream before
    ///   `owner` drops, so an owner that frees in `producer`'s order (a cudarc slice of
    ///   `producer`, or [`CudaBuffer`](crate::cuda::CudaBuffer)) does not free memory the
    ///   consumer's queued kernels still read.
    /// - `copy=True` (or read-only data for a legacy consumer): a copy on the same device,
    ///   queued on `producer` after its pending work without blocking the host, ordered before
    ///   the consumer's stream (not at all for `stream=-1`), and exported flagged `IS_COPIED`.
    ///   The copy keeps `owner` until the copy is released and done.
    /// - `dl_device=(1, 0)` (the CPU): a host copy made on `producer`, complete when returned
    ///   (host memory has no stream to order it on). The interpreter is released while it runs.
    ///   Any other `dl_device` is a `BufferError`.
    ///
    /// What stays with the consumer: work on streams other than the one it named is its to
    /// finish before it releases the tensor, and with `stream=-1` all of it.
    ///
    /// Errors: a `ValueError` for a bad `stream` (see [`cuda_stream`](Self::cuda_stream)) and
    /// for a `producer` of another device than a `cuda:n` tensor's, a `BufferError` for an
    /// owner outside CUDA memory (export it with [`capsule`](Self::capsule)) and for what
    /// [`plan`](Self::plan) refuses, a `RuntimeError` for a failing driver. The context current
    /// on the calling thread before the call is current after it.
    ///
    /// # Safety
    ///
    /// A stream handle in the request is a live CUDA stream on the tensor's device, as for
    /// [`sync_for_consumer`](Self::sync_for_consumer), and still is when the consumer releases
    /// the tensor: the release records on it. (PyTorch's streams live as long as the process;
    /// a CuPy `Stream` is the consumer's to keep alive while arrays imported on it live.)
    ///
    /// ```
    /// use dlpack_core::cuda::{self, CudaBuffer};
    /// use dlpack_core::python::{DlpackRequest, capsule_tensor};
    /// use dlpack_core::tensor::Flags;
    /// use dlpack_core::Device;
    /// use pyo3::prelude::*;
    /// use pyo3::types::PyDict;
    ///
    /// let Ok(context) = cuda::context(Device::cuda(0)) else {
    ///     return Ok(()); // no CUDA device here
    /// };
    /// let stream = cuda::with_current(&context, || context.new_stream())?;
    /// let stream = stream.map_err(dlpack_core::Error::from)?;
    /// # pyo3::Python::initialize();
    /// Python::attach(|py| -> PyResult<()> {
    ///     // `__dlpack__(stream=1, max_version=(1, 3))`, as PyTorch calls it.
    ///     let (legacy, version) = (1_i64.into_pyobject(py)?, (1, 3).into_pyobject(py)?);
    ///     let request = DlpackRequest::new(Some(legacy.as_any()), Some(version.as_any()), None, None)?;
    ///     let buffer = CudaBuffer::from_host(&stream, &[1.0_f32, 2.0, 3.0], &[3])?;
    ///     // SAFETY: 1 is the legacy default stream, which is always there.
    ///     let capsule = unsafe { request.cuda_capsule(py, buffer, &stream) }?;
    ///     assert_eq!(capsule_tensor(&capsule)?.device(), Device::cuda(0));
    ///
    ///     // `dl_device=(1, 0)`: a host copy, made on `stream` and complete.
    ///     let cpu = (1, 0).into_pyobject(py)?;
    ///     let request = DlpackRequest::new(None, Some(version.as_any()), Some(cpu.as_any()), None)?;
    ///     let buffer = CudaBuffer::from_host(&stream, &[1.0_f32, 2.0, 3.0], &[3])?;
    ///     // SAFETY: no stream was named.
    ///     let capsule = unsafe { request.cuda_capsule(py, buffer, &stream) }?;
    ///     let host = capsule_tensor(&capsule)?;
    ///     assert_eq!(host.view()?.as_slice::<f32>()?, [1.0, 2.0, 3.0]);
    ///     assert!(host.flags().contains(Flags::IS_COPIED));
    ///     Ok(())
    /// })?;
    /// # Ok::<(), PyErr>(())
    /// ```
    pub unsafe fn cuda_capsule<'py, O: TensorOwner>(
        &self,
        py: Python<'py>,
        mut owner: O,
        producer: &Arc<CudaStream>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let (device, read_only) = {
            let parts = owner.describe();
            (parts.device(), parts.flags().contains(Flags::READ_ONLY))
        };
        let (export, consumer) = self.cuda_plan(device, read_only)?;
        check_producer(device, producer)?;
        let tensor = match export {
            Export::Share => {
                // SAFETY: a handle in `consumer` is a live stream on the tensor's device (our
                // contract).
                unsafe { cuda::sync_for_consumer(producer, consumer) }?;
                let owner = ReleaseAfter::new(owner, Arc::clone(producer), consumer);
                ManagedTensor::from_owner(owner).map_err(buffer_error)?
            }
            Export::Copy(target) if target == Device::CPU => {
                let tensor = ManagedTensor::from_owner(owner).map_err(buffer_error)?;
                // On the producer's stream, after its pending work; complete when it returns.
                let producer = Arc::clone(producer);
                py.detach(move || {
                    cuda::to_device(tensor, target, CopyMode::Always, Some(&producer))
                })?
            }
            Export::Copy(_) => {
                let tensor = ManagedTensor::from_owner(owner).map_err(buffer_error)?;
                let copy = copy_queued(tensor, producer, consumer)?;
                // SAFETY: as above.
                unsafe { cuda::sync_for_consumer(producer, consumer) }?;
                copy
            }
        };
        self.tensor_capsule(py, tensor)
    }

    /// What [`cuda_capsule`](Self::cuda_capsule) does for a tensor on `current`: share or copy
    /// (as [`plan`](Self::plan) decides, with copies to the CPU or to `current` itself), and
    /// the consumer's stream. Needs no driver.
    pub(crate) fn cuda_plan(
        &self,
        current: Device,
        read_only: bool,
    ) -> PyResult<(Export, StreamArg)> {
        if !matches!(
            current.device_type,
            DLDeviceType::CUDA | DLDeviceType::CUDA_MANAGED
        ) {
            return Err(PyBufferError::new_err(format!(
                "cuda_capsule exports tensors in CUDA memory (cuda:n or cuda_managed), not on \
                 {current}: export it with DlpackRequest::capsule"
            )));
        }
        let consumer = self.cuda_stream()?;
        let export = self.plan(current, read_only, |target| {
            target == Device::CPU
                || (target == current && current.device_type == DLDeviceType::CUDA)
        })?;
        Ok((export, consumer))
    }
}

#[cfg(feature = "cuda")]
/// Refuses a producer stream of another device than the `cuda:n` tensor it orders.
fn check_producer(device: Device, producer: &CudaStream) -> Result<(), crate::Error> {
    let ordinal = producer.context().ordinal();
    if device.device_type == DLDeviceType::CUDA && usize::try_from(device.device_id) != Ok(ordinal)
    {
        return Err(CudaError::WrongStream {
            stream: Device::cuda(i32::try_from(ordinal).unwrap_or(i32::MAX)),
            device,
        }
        .into());
    }
    Ok(())
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

#[cfg(feature = "cuda")]
/// A copy of a tensor in `cuda:n` memory on the same device, queued on `stream` (after the
/// work queued there) without waiting: what a producer exports for `__dlpack__(copy=True)`.
/// The copy keeps `tensor` until it is released itself and the copy is done; its memory is
/// freed on `stream`, after the work queued on `consumer`'s stream by then.
fn copy_queued(
    tensor: ManagedTensor,
    stream: &Arc<CudaStream>,
    consumer: StreamArg,
) -> Result<ManagedTensor, crate::Error> {
    let view = tensor.view()?;
    let mut out = alloc_device(view.device(), stream, &view)?;
    let copied = {
        let _scope = enter(stream.context())?;
        queue(&view, Dst::Device(out.ptr), stream)?;
        // An event after the copy: the source is released once it has passed.
        let _cudarc = preserve()?;
        stream.record_event(None).check("cuEventRecord")?
    };
    drop(view);
    out.after = Some(consumer);
    out.source = Some(Pending { tensor, copied });
    ManagedTensor::from_owner(out)
}

#[cfg(test)]
mod tests;
