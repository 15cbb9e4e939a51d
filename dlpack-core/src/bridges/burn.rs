//! burn 0.22 (feature `burn`): `burn::tensor::DType` and `Device` as DLPack data types and
//! devices, `TensorData` exported and imported without a copy, and host `Tensor`s both ways.
//!
//! ```
//! use burn_tensor::{DType, Device, Tensor, TensorData};
//! use dlpack_core::{DataType, Error, ManagedTensor, bridges::burn, from_dlpack};
//! // TensorData out: its own bytes, without a copy, writable (the export owns them).
//! let exported = burn::data_to_dlpack(TensorData::new(vec![1.0_f32, 2.0, 3.0, 4.0], [2, 2]))?;
//! assert_eq!(exported.view()?.as_slice::<f32>()?, [1.0, 2.0, 3.0, 4.0]);
//! // And in: any compact host DLPack tensor, over the producer's memory.
//! let tensor = ManagedTensor::from_vec(vec![7_i64, 8, 9], &[3])?;
//! let data: TensorData = burn::data_from_dlpack(tensor)?;
//! assert_eq!(data.as_slice::<i64>().unwrap(), [7, 8, 9]);
//! // Tensors, one call each way: no copy out of a host backend's tensor, nor into one.
//! fn round_trip(t: Tensor<2>, device: &Device) -> Result<Tensor<2>, Error> {
//!     burn::tensor_from_dlpack(burn::tensor_to_dlpack(t)?, device)
//! }
//! assert_eq!(from_dlpack::<DataType>(&DType::Flex32)?, DataType::F32); // comes back as F32
//! # assert_eq!(from_dlpack::<DType>(&DataType::F32)?, DType::F32);
//! # Ok::<(), dlpack_core::Error>(())
//! ```
//!
//! # Data types
//!
//! | `burn::tensor::DType` | DLPack | | `burn::tensor::DType` | DLPack |
//! |---|---|---|---|---|
//! | `F64` | `float64` | | `I64`, `I32`, `I16`, `I8` | `int64` … `int8` |
//! | `F32` | `float32` | | `U64`, `U32`, `U16`, `U8` | `uint64` … `uint8` |
//! | `Flex32` | `float32`, export only | | `Bool(Native)` | `bool` |
//! | `F16` | `float16` | | `Bool(U8)` | `bool`, export only |
//! | `BF16` | `bfloat16` | | `Bool(U32)`, `QFloat(_)` | none: an error naming the value |
//!
//! - **`Flex32`** is stored as `f32` and computed at whatever precision the backend likes: it
//!   exports as `float32`, and `float32` always comes back as `F32`.
//! - **`Bool(U8)`** stores one byte per element, 0 or 1: DLPack's `bool` exactly (one byte,
//!   0 or 1), so it exports as `bool`. `bool` comes back as `Bool(Native)`, burn's own store
//!   for a host tensor: a backend that keeps `u8` bools converts on `from_data`, as it does for
//!   any `bool` data.
//! - **`Bool(U32)`** (four bytes per element) and **`QFloat`** (packed values and scales) have no
//!   DLPack data type: exporting one is an error naming the value.
//!
//! The table is a `remote` mirror of burn's types, checked against them at compile time, so
//! `DType` takes part in [`from_dlpack`](crate::from_dlpack) and
//! [`assert_convertible!`](crate::assert_convertible).
//!
//! # Devices
//!
//! `burn::tensor::Device` (the runtime device of burn 0.22: `Device::flex()`, `cuda(i)`,
//! `rocm(i)`, `wgpu(..)`, …) is read through burn's device id, which names the backend and,
//! for a cubecl device, its runtime, whatever backends this build links:
//!
//! | burn | DLPack | from DLPack |
//! |---|---|---|
//! | flex, ndarray, cubecl's CPU runtime, LibTorch's CPU | `cpu` | the first host backend linked: flex, then ndarray |
//! | cubecl's CUDA runtime, LibTorch's CUDA, ordinal n | `cuda:n` | refused |
//! | cubecl's HIP runtime, ordinal n | `rocm:n` | refused |
//! | wgpu (Vulkan, Metal, WebGPU), cubecl's Metal, LibTorch's MPS and Vulkan, remote, capture | refused, naming it | — |
//!
//! A burn GPU device opens its runtime, and which runtimes a build links is the features the
//! application gave burn, which this crate cannot see: importing `cuda:n` into a burn `Device`
//! is refused, as for candle. Make the device with burn's `Device::cuda(n)` once and keep it.
//!
//! # `TensorData`
//!
//! - **Export, [`data_to_dlpack`]: no copy, writable.** The export owns the `Bytes` until its
//!   deleter runs. Writable memory must be the export's alone, so the bytes are first taken for
//!   writing through burn (`Bytes::write`): a buffer burn shares copy-on-write with another
//!   `TensorData` is copied then, once, and one the `TensorData` owns alone (a `Vec`'s,
//!   `TensorData::new`) is not. Compact row-major, as `TensorData` always is.
//! - **Import, [`data_from_dlpack`]: no copy where the layout allows.** A compact host tensor whose
//!   first element is aligned for its type becomes `TensorData` over the producer's memory,
//!   kept alive (and released to the producer) by burn's `Bytes`, whose
//!   `property()` is then `AllocationProperty::Other`. Burn never writes that memory: a write
//!   through burn's safe API (an in-place op, `as_mut_slice`) copies first, into memory of its
//!   own. A strided or misaligned tensor is copied once, into a `Vec` of its element type, and
//!   its `property()` is `Native`: that is the flag that tells the two apart. `bool` data is
//!   checked to hold only 0 and 1.
//! - [`FromDlpackTensor`] for `TensorData` takes any source through `from_dlpack`; a borrowed
//!   one is first exported as its [`ToDlpackTensor`] impl says (a copy for a `ManagedTensor`).
//!
//! # Tensors
//!
//! A burn `Tensor` is its `TensorData` on a device. [`tensor_to_dlpack`] reads the data
//! (`Tensor::try_into_data`: no copy from a host backend's tensor that no other handle shares,
//! one from the device otherwise) and exports it as above; [`tensor_from_dlpack`] makes a tensor
//! on the device you name (`Tensor::from_data`: flex keeps imported bytes as they are, ndarray
//! borrows them, a GPU backend uploads them). `from_dlpack::<Tensor<D, K>>` imports onto burn's
//! default device, and [`ToDlpackTensor`] for `Tensor` exports a copy, as any shared source
//! does. The rank `D` and kind `K` (float, int, bool) are checked against the data first, and a
//! data type the device does not support is refused: burn would panic on either. burn has no
//! rank-0 tensors (`Tensor::<0>::from_data` panics), so asking for a `Tensor<0>` is an error
//! before anything is read; a 0-d DLPack tensor crosses as `TensorData`, whose shape `[]` burn
//! keeps.
//!
//! # What is checked
//!
//! - **Export:** the data type (`Bool(U32)` and `QFloat` have none in DLPack), and the bytes
//!   burn lends against the shape times the element size, before the export describes them
//!   (burn's constructors keep the two equal; the export does not take that on trust).
//! - **Import:** the layout, validated when the DLPack tensor was made (every element inside
//!   its extent); the data type against burn's table; the alignment of the first element (else
//!   a copy); every `bool` byte (0 or 1); the length burn's `TensorData::try_from_bytes`
//!   checks again. No DLPack input makes `data_from_dlpack` panic, and a property test holds it to
//!   that.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::ffi::c_void;
use core::mem::MaybeUninit;
use core::ptr::NonNull;

use burn_dispatch::{DispatchDevice, DispatchDeviceId};
use burn_std::device::{Device as _, DeviceId};
use burn_std::{
    AccessError, AccessPolicy, AllocationController, AllocationProperty, BoolStore, Bytes, DType,
    QuantScheme, TensorData, Writer,
};
use burn_tensor::kind::{Basic, TensorKind};
use burn_tensor::{Device as BurnDevice, Tensor};

use crate::set::{DeviceRange, DeviceSet};
use crate::tensor::{FromDlpackTensor, TensorOwner, TensorParts, TensorView, ToDlpackTensor};
use crate::{DataType, Device, DlpackDataType, DlpackDevice, Element, Error, ManagedTensor};

// ---- burn's DType and BoolStore: the mirrors. ----

/// The mirror of `burn_std::BoolStore`: see the [module docs](self#data-types).
#[derive(dlpack_derive::DlpackDataType)]
#[dlpack(crate = "crate", remote = "burn_std::BoolStore", __impl_remote)]
enum BoolStoreMirror {
    #[dlpack("bool")]
    Native,
    /// The same bytes as `bool`: exported as it, never chosen on import.
    #[dlpack("bool", export_only)]
    U8,
    #[dlpack(skip)]
    U32,
}

/// The mirror of `burn_std::DType`, in burn's variant order: the table in the
/// [module docs](self#data-types).
#[derive(dlpack_derive::DlpackDataType)]
#[dlpack(crate = "crate", remote = "burn_std::DType", __impl_remote)]
enum DTypeMirror {
    #[dlpack("float64")]
    F64,
    #[dlpack("float32")]
    F32,
    /// Stored as `f32`: exported as `float32`, never chosen on import.
    #[dlpack("float32", export_only)]
    Flex32,
    #[dlpack("float16")]
    F16,
    #[dlpack("bfloat16")]
    BF16,
    #[dlpack("int64")]
    I64,
    #[dlpack("int32")]
    I32,
    #[dlpack("int16")]
    I16,
    #[dlpack("int8")]
    I8,
    #[dlpack("uint64")]
    U64,
    #[dlpack("uint32")]
    U32,
    #[dlpack("uint16")]
    U16,
    #[dlpack("uint8")]
    U8,
    Bool(#[dlpack(delegate)] BoolStore),
    #[dlpack(skip)]
    QFloat(QuantScheme),
}

// ---- burn's Device. ----

/// Where burn's device ids keep the backend (burn-dispatch 0.22: the high byte of the type id)
/// and, for a cubecl device, its runtime (cubecl 0.11: bits 5 to 7 of the low byte).
const BACKEND_SHIFT: u16 = 8;
const RUNTIME_SHIFT: u16 = 5;
const RUNTIME_MASK: u16 = 0x7;

/// A burn device's id, read as DLPack reads devices.
enum Located {
    Device(Device),
    /// No DLPack device: what burn calls it.
    Elsewhere(&'static str),
}

/// Reads a burn device id: the backend, then the runtime or the backend's own device type.
fn locate(id: DeviceId) -> Located {
    let index = i32::from(id.index_id);
    let internal = id.type_id & 0xFF;
    match id.type_id >> BACKEND_SHIFT {
        // cubecl: CUDA, HIP, Metal, wgpu, CPU.
        0 => match (internal >> RUNTIME_SHIFT) & RUNTIME_MASK {
            0 => Located::Device(Device::cuda(index)),
            1 => Located::Device(Device::rocm(index)),
            2 => Located::Elsewhere("a cubecl Metal device"),
            3 => Located::Elsewhere("a wgpu device (Vulkan, Metal, WebGPU or DirectX)"),
            4 => Located::Device(Device::CPU),
            _ => Located::Elsewhere("a device of an unknown cubecl runtime"),
        },
        // flex, ndarray: the host.
        4 | 6 => Located::Device(Device::CPU),
        // LibTorch: CUDA(n), MPS, CPU, Vulkan.
        5 => match internal {
            0 => Located::Device(Device::cuda(index)),
            2 => Located::Device(Device::CPU),
            1 => Located::Elsewhere("a LibTorch MPS device"),
            _ => Located::Elsewhere("a LibTorch Vulkan device"),
        },
        10 => Located::Elsewhere("a remote device"),
        11 => Located::Elsewhere("a capture device"),
        _ => Located::Elsewhere("a device of an unknown burn backend"),
    }
}

/// `cpu`, `cuda:n` and `rocm:n` by ordinal; `cpu` alone on import. See the
/// [module docs](self#devices).
///
/// ```
/// use burn_tensor::Device as BurnDevice;
/// use dlpack_core::{Device, DlpackDevice, from_dlpack};
///
/// // Without a backend linked (this doctest links none), no burn device can be made.
/// let err = BurnDevice::from_dlpack_device(Device::CPU).unwrap_err();
/// assert!(err.to_string().contains("links no host backend"), "{err}");
/// assert!(from_dlpack::<BurnDevice>(&Device::cuda(0)).is_err());
/// ```
impl DlpackDevice for BurnDevice {
    const PRODUCES: DeviceSet = DeviceSet::EMPTY
        .with(DeviceRange::one(Device::CPU))
        .with(DeviceRange::every(crate::ffi::DLDeviceType::CUDA))
        .with(DeviceRange::every(crate::ffi::DLDeviceType::ROCM));
    const ACCEPTS: DeviceSet = DeviceSet::EMPTY.with(DeviceRange::one(Device::CPU));

    fn dlpack_device(&self) -> Result<Device, Error> {
        match locate(self.as_dispatch().to_id()) {
            Located::Device(device) => Ok(device),
            Located::Elsewhere(what) => Err(Error::msg(format_args!(
                "burn_tensor::Device {self:?} is {what}, which has no DLPack device"
            ))),
        }
    }

    fn from_dlpack_device(device: Device) -> Result<Self, Error> {
        if device != Device::CPU {
            return Err(Error::UnsupportedDevice {
                type_name: "::burn_tensor::Device",
                device,
                supported: Box::new([DeviceRange::one(Device::CPU)]),
            });
        }
        // The host backends, in burn's order of preference; each is reachable only where
        // this build of burn links it, which `DispatchDeviceId` answers without panicking.
        for backend in [DispatchDeviceId::Flex, DispatchDeviceId::NdArray].map(u16::from) {
            if DispatchDeviceId::try_from(backend).is_ok() {
                let id = DeviceId::new(backend << BACKEND_SHIFT, 0);
                return Ok(BurnDevice::new(DispatchDevice::from_id(id)));
            }
        }
        Err(Error::msg(
            "this build of burn links no host backend (burn-tensor's `flex` or `ndarray` \
             feature), so a cpu burn_tensor::Device cannot be made",
        ))
    }
}

crate::impl_from_dlpack!(DlpackDevice for BurnDevice);

/// burn's default device, or an error where burn would panic for want of any backend.
fn default_device() -> Result<BurnDevice, Error> {
    // The backends `DispatchDevice::default` chooses among (a capture device is never chosen).
    let backends = [
        DispatchDeviceId::Cube,
        DispatchDeviceId::Flex,
        DispatchDeviceId::LibTorch,
        DispatchDeviceId::NdArray,
        DispatchDeviceId::Remote,
    ];
    if backends
        .iter()
        .any(|&backend| DispatchDeviceId::try_from(u16::from(backend)).is_ok())
    {
        Ok(BurnDevice::default())
    } else {
        Err(Error::msg(
            "this build of burn links no backend (a burn-tensor feature such as `flex`, \
             `ndarray`, `cuda` or `wgpu`), so burn has no default device to put a tensor on",
        ))
    }
}

// ---- TensorData out. ----

/// An exported `TensorData`: its bytes, held until the deleter runs.
struct ExportedData {
    /// Keeps the memory `data` points at.
    _bytes: Bytes,
    /// The first byte of the bytes, taken for writing when the export was made.
    data: *mut c_void,
    shape: Vec<usize>,
    dtype: DataType,
}

// SAFETY: `data` points into `_bytes`, which the owner keeps; `Bytes` is `Send`.
unsafe impl Send for ExportedData {}

// SAFETY: `data` is the start of `_bytes`' memory, taken through `Bytes::write`, so it is the
// export's alone (burn copied a shared buffer first) and stays put while `_bytes` is neither
// written nor grown, which nothing does: the owner is the export's alone. `TensorData`
// guarantees the length matches the shape and data type: compact row-major. Writable, since
// nothing else reads it.
unsafe impl TensorOwner for ExportedData {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(self.data, Device::CPU, self.dtype, &self.shape[..])
    }
}

/// Exports `data` without a copy (a shared buffer is made the export's alone first): writable,
/// compact row-major, on the CPU. An error names a data type DLPack cannot describe
/// (`Bool(U32)`, `QFloat`).
///
/// ```
/// use burn_std::{BoolStore, DType, TensorData};
/// use dlpack_core::{DataType, bridges::burn};
///
/// let data = TensorData::new(vec![true, false, true], [3]);
/// let address = data.as_bytes().as_ptr();
/// let exported = burn::data_to_dlpack(data)?;
/// assert_eq!(exported.view()?.data_ptr(), address.cast()); // the same memory
/// assert_eq!(exported.view()?.as_slice::<bool>()?, [true, false, true]);
///
/// let wide = TensorData::new(vec![1_u32, 0], [2]).convert_dtype(DType::Bool(BoolStore::U32));
/// assert!(burn::data_to_dlpack(wide).is_err());
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub fn data_to_dlpack(data: TensorData) -> Result<ManagedTensor, Error> {
    let dtype = data.dtype().dlpack_data_type()?;
    let (mut bytes, shape, _) = data.into_parts();
    let shape = shape.as_slice().to_vec();
    let memory = bytes
        .write(Writer::new())
        .map_err(|err| Error::msg(format_args!("burn could not lend its bytes: {err:?}")))?;
    // burn's constructors keep the bytes' length equal to the shape times the element size;
    // the export reads that many bytes, so it checks rather than trusts it.
    let expected = shape
        .iter()
        .try_fold(dtype.itemsize(), |bytes, &dim| bytes.checked_mul(dim));
    if expected != Some(memory.len()) {
        return Err(Error::msg(format_args!(
            "burn TensorData of {dtype} and shape {shape:?} holds {} bytes; its shape and data \
             type need {}",
            memory.len(),
            expected.map_or_else(
                || alloc::format!("more than {}", usize::MAX),
                |n| alloc::format!("{n}")
            ),
        )));
    }
    let data = memory.as_mut_ptr().cast();
    ManagedTensor::from_owner(ExportedData {
        _bytes: bytes,
        data,
        shape,
        dtype,
    })
}

/// A copy of the data, exported: see [`data_to_dlpack`].
///
/// ```
/// use burn_std::TensorData;
/// use dlpack_core::tensor::{Flags, ToDlpackTensor};
///
/// let data = TensorData::new(vec![1_u8, 2], [2]);
/// let exported = data.to_dlpack_tensor()?;
/// assert_eq!(exported.view()?.as_slice::<u8>()?, [1, 2]);
/// assert_eq!(exported.flags(), Flags::EMPTY);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl ToDlpackTensor for TensorData {
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
        data_to_dlpack(self.clone())
    }
}

// ---- TensorData in. ----

/// Bytes with the alignment burn's own allocations have (`MAX_ALIGN`, 16).
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Align16([u8; 16]);

/// burn's view of an imported DLPack tensor: the tensor's memory for reads, a copy of its own
/// for writes, and the tensor released to its producer when burn drops it.
struct Imported {
    /// Owns the memory `data` points at.
    _tensor: ManagedTensor,
    /// The first byte of the elements (`data + byte_offset`), aligned for their type; dangling
    /// when `len` is 0.
    data: NonNull<u8>,
    len: usize,
    align: usize,
    /// Where writes go, made on the first one.
    written: Option<Vec<Align16>>,
}

// SAFETY: `ManagedTensor` is `Send` and `Sync` (its deleter may run on any thread), `data`
// points into its memory and is only read through, and `written` is a plain `Vec`.
unsafe impl Send for Imported {}
// SAFETY: as above; `&self` gives reads only.
unsafe impl Sync for Imported {}

impl AllocationController for Imported {
    fn alloc_align(&self) -> usize {
        self.align
    }

    fn property(&self) -> AllocationProperty {
        AllocationProperty::Other
    }

    fn memory(&self, _: AccessPolicy) -> Result<&[MaybeUninit<u8>], AccessError> {
        Ok(match &self.written {
            // SAFETY: the copy's first `len` bytes, initialised when it was made.
            Some(copy) => unsafe { core::slice::from_raw_parts(copy.as_ptr().cast(), self.len) },
            // SAFETY: `len` readable bytes at `data` (checked by the view the import was made
            // from), which the producer keeps and nobody writes while `_tensor` lives (the
            // contract under which it was imported); dangling and aligned when `len` is 0.
            None => unsafe { core::slice::from_raw_parts(self.data.as_ptr().cast(), self.len) },
        })
    }

    unsafe fn memory_mut(
        &mut self,
        policy: AccessPolicy,
    ) -> Result<&mut [MaybeUninit<u8>], AccessError> {
        if self.written.is_none() {
            // The producer's memory is never written through burn: the first write copies.
            if !policy.copy_allowed() {
                return Err(AccessError::WouldCopy);
            }
            let mut copy = vec![Align16([0; 16]); self.len.div_ceil(16)];
            // SAFETY: `len` readable bytes at `data` (see `memory`), into a buffer of at least
            // `len` bytes that does not overlap it.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    self.data.as_ptr(),
                    copy.as_mut_ptr().cast::<u8>(),
                    self.len,
                );
            }
            self.written = Some(copy);
            self.align = 16;
        }
        let copy = self
            .written
            .as_mut()
            .map_or(&mut [][..], |copy| &mut copy[..]);
        // SAFETY: the copy's first `len` bytes, ours alone and borrowed mutably with `self`.
        Ok(unsafe { core::slice::from_raw_parts_mut(copy.as_mut_ptr().cast(), self.len) })
    }
}

/// The largest power of two, up to 16, that divides `address`.
fn alignment_of(address: usize) -> usize {
    if address == 0 {
        16
    } else {
        (1 << address.trailing_zeros()).min(16)
    }
}

/// `view`'s elements, compact row-major, in a new `Vec<T>`, from any strides and any address
/// (a misaligned one included: the copy goes byte by byte where it has to).
fn copy_elements<T: Element>(view: &TensorView<'_>) -> Result<Vec<T>, Error> {
    let count = view.len();
    let mut out: Vec<T> = Vec::with_capacity(count);
    let bytes = count * size_of::<T>();
    // SAFETY: the spare capacity holds `count` elements, `bytes` bytes of the Vec's own
    // allocation; zeroed first, so the byte slice over it is initialised, and borrowed alone.
    let buffer = unsafe {
        let first = out.as_mut_ptr().cast::<u8>();
        core::ptr::write_bytes(first, 0, bytes);
        core::slice::from_raw_parts_mut(first, bytes)
    };
    view.copy_compact_into(buffer)?;
    if T::DATA_TYPE == DataType::BOOL && buffer.iter().any(|&byte| byte > 1) {
        return Err(Error::msg(
            "a bool tensor holds a byte other than 0 and 1, which burn cannot read",
        ));
    }
    // SAFETY: the `count` elements are initialised: zeroed, then written with the tensor's
    // bytes, each a valid `T` (`Element`'s promise; for `bool`, checked to be 0 or 1 above).
    unsafe { out.set_len(count) };
    Ok(out)
}

/// A copy of `view`'s elements as `TensorData`: a `Vec` of the element type, so `Native`.
fn copy_data(view: &TensorView<'_>, dtype: DType, shape: Vec<usize>) -> Result<TensorData, Error> {
    Ok(match dtype {
        DType::F64 => TensorData::new(copy_elements::<f64>(view)?, shape),
        DType::F32 => TensorData::new(copy_elements::<f32>(view)?, shape),
        DType::F16 => TensorData::new(copy_elements::<half::f16>(view)?, shape),
        DType::BF16 => TensorData::new(copy_elements::<half::bf16>(view)?, shape),
        DType::I64 => TensorData::new(copy_elements::<i64>(view)?, shape),
        DType::I32 => TensorData::new(copy_elements::<i32>(view)?, shape),
        DType::I16 => TensorData::new(copy_elements::<i16>(view)?, shape),
        DType::I8 => TensorData::new(copy_elements::<i8>(view)?, shape),
        DType::U64 => TensorData::new(copy_elements::<u64>(view)?, shape),
        DType::U32 => TensorData::new(copy_elements::<u32>(view)?, shape),
        DType::U16 => TensorData::new(copy_elements::<u16>(view)?, shape),
        DType::U8 => TensorData::new(copy_elements::<u8>(view)?, shape),
        DType::Bool(_) => TensorData::new(copy_elements::<bool>(view)?, shape),
        // `from_dlpack_data_type` gives none of these.
        DType::Flex32 | DType::QFloat(_) => {
            return Err(Error::msg(format_args!(
                "burn's {dtype:?} is no import target"
            )));
        }
    })
}

/// `TensorData` over `tensor`'s memory, without a copy when it is compact and its first
/// element aligned for its type, else one copy: see the [module docs](self#tensordata).
/// Refuses, with the reason, a data type burn lacks (`int4`, complex, …), memory the CPU cannot
/// read, and `bool` bytes other than 0 and 1.
///
/// ```
/// use burn_std::{AllocationProperty, TensorData};
/// use dlpack_core::{ManagedTensor, bridges::burn};
///
/// let tensor = ManagedTensor::from_vec(vec![0.5_f32, 1.5], &[1, 2])?;
/// let address = tensor.view()?.data_ptr();
/// let data: TensorData = burn::data_from_dlpack(tensor)?;
/// assert_eq!(data.as_bytes().as_ptr(), address.cast()); // the producer's memory
/// assert_eq!(data.bytes().property(), AllocationProperty::Other);
/// assert_eq!(data.as_slice::<f32>().unwrap(), [0.5, 1.5]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub fn data_from_dlpack(tensor: ManagedTensor) -> Result<TensorData, Error> {
    let view = tensor.view()?;
    let dtype = DType::from_dlpack_data_type(view.dtype())?;
    // Validated: every dimension is non-negative and their product fits `isize`.
    let shape: Vec<usize> = view.shape().iter().map(|&dim| dim as usize).collect();
    let align = view.dtype().itemsize().clamp(1, 16);
    let bytes = match view.as_bytes() {
        Ok(bytes) if alignment_of(bytes.as_ptr().addr()) >= align => bytes,
        // Strided, or misaligned for the element type: one copy.
        _ => return copy_data(&view, dtype, shape),
    };
    if matches!(dtype, DType::Bool(_)) {
        view.as_slice::<bool>()?; // checks every byte is 0 or 1
    }
    let len = bytes.len();
    let data = NonNull::new(bytes.as_ptr().cast_mut())
        .filter(|_| len > 0)
        .unwrap_or(NonNull::<Align16>::dangling().cast());
    let align = alignment_of(data.as_ptr().addr());
    drop(view);
    let imported = Imported {
        _tensor: tensor,
        data,
        len,
        align,
        written: None,
    };
    // SAFETY: the controller's memory is `len` initialised bytes (see `Imported::memory`).
    let bytes = unsafe { Bytes::from_controller(Box::new(imported), len) };
    TensorData::try_from_bytes(bytes, shape, dtype)
        .map_err(|err| Error::msg(format_args!("burn refused the tensor's data: {err:?}")))
}

/// Any DLPack tensor source as `TensorData`: [`data_from_dlpack`] of the tensor it exports.
///
/// ```
/// use burn_std::{DType, TensorData};
/// use dlpack_core::from_dlpack;
///
/// let data: TensorData = from_dlpack(&vec![1_i16, 2, 3])?;
/// assert_eq!((data.dtype(), data.as_slice::<i16>().unwrap()), (DType::I16, &[1, 2, 3][..]));
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl FromDlpackTensor for TensorData {
    fn from_dlpack_tensor(tensor: ManagedTensor) -> Result<Self, Error> {
        data_from_dlpack(tensor)
    }
}

// ---- Tensors. ----

/// Whether a tensor of kind `K` holds data of `dtype`.
fn kind_holds<K: TensorKind>(dtype: DType) -> bool {
    match K::name() {
        "Float" => dtype.is_float(),
        "Int" => dtype.is_int() || dtype.is_uint(),
        "Bool" => dtype.is_bool(),
        _ => false,
    }
}

/// Exports a burn tensor's data: `Tensor::try_into_data` (no copy from a host backend's
/// tensor no other handle shares; a copy from a GPU), then [`data_to_dlpack`]. (The tensors of
/// these examples need a burn backend, which the application links; `tests/burn` runs them on
/// flex.)
///
/// ```
/// use burn_tensor::Tensor;
/// use dlpack_core::{Error, ManagedTensor, bridges::burn};
///
/// /// A framework op's output, handed to any DLPack consumer.
/// fn hand_over(logits: Tensor<2>) -> Result<ManagedTensor, Error> {
///     burn::tensor_to_dlpack(logits)
/// }
/// ```
pub fn tensor_to_dlpack<const D: usize, K>(tensor: Tensor<D, K>) -> Result<ManagedTensor, Error>
where
    K: TensorKind + Basic,
{
    let data = tensor
        .try_into_data()
        .map_err(|err| Error::msg(format_args!("burn could not read the tensor: {err:?}")))?;
    data_to_dlpack(data)
}

/// A burn tensor of rank `D` and kind `K` on `device`, over `tensor`'s data ([`data_from_dlpack`],
/// then `Tensor::from_data` with the data's own data type). Refuses another rank, another kind
/// (float data for an `Int` tensor), and a data type `device` does not support. burn has no
/// rank-0 tensors (its `from_data` panics on `Tensor<0>`), so `D = 0` is refused whatever the
/// data: a 0-d DLPack tensor crosses as [`TensorData`], through [`data_from_dlpack`].
///
/// ```
/// use burn_tensor::{Device, Int, Tensor};
/// use dlpack_core::{Error, ManagedTensor, bridges::burn};
///
/// /// Token ids from any producer, on the device the model runs on.
/// fn token_ids(tensor: ManagedTensor, device: &Device) -> Result<Tensor<1, Int>, Error> {
///     burn::tensor_from_dlpack(tensor, device)
/// }
/// ```
pub fn tensor_from_dlpack<const D: usize, K>(
    tensor: ManagedTensor,
    device: &BurnDevice,
) -> Result<Tensor<D, K>, Error>
where
    K: TensorKind + Basic,
{
    if D == 0 {
        // burn's `Tensor::from_data` panics on rank 0 ("Tried to create a 0-dim tensor").
        return Err(Error::msg(
            "a burn Tensor<0> cannot be made: burn has no rank-0 tensors; take the data as \
             TensorData with `bridges::burn::data_from_dlpack`, or reshape it to [1] first",
        ));
    }
    let data = data_from_dlpack(tensor)?;
    let dtype = data.dtype();
    if data.shape().num_dims() != D {
        return Err(Error::msg(format_args!(
            "a burn Tensor<{D}> has {D} dimensions; the DLPack tensor has {} (shape {:?})",
            data.shape().num_dims(),
            data.shape().as_slice()
        )));
    }
    if !kind_holds::<K>(dtype) {
        return Err(Error::msg(format_args!(
            "a burn {} tensor cannot hold {dtype:?} data",
            K::name()
        )));
    }
    if !device.supports_dtype(dtype) {
        return Err(Error::msg(format_args!(
            "burn's {device:?} does not support {dtype:?}"
        )));
    }
    Ok(Tensor::from_data(data, (device, dtype)))
}

/// A copy of the tensor's data, exported: the tensor may be shared, so its data is read from a
/// clone of the handle (`Tensor::try_into_data`, which copies from a shared tensor).
///
/// ```
/// use burn_tensor::Tensor;
/// use dlpack_core::{Error, ManagedTensor, from_dlpack};
///
/// fn snapshot(weights: &Tensor<2>) -> Result<ManagedTensor, Error> {
///     from_dlpack(weights) // the tensor stays the caller's
/// }
/// ```
impl<const D: usize, K> ToDlpackTensor for Tensor<D, K>
where
    K: TensorKind + Basic,
{
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
        tensor_to_dlpack(self.clone())
    }
}

/// A tensor on burn's default device: [`tensor_from_dlpack`] on `Device::default()`, the device
/// burn picks (`BURN_DEVICE`, else the first backend this build links in burn's order: CUDA,
/// Metal, ROCm, wgpu, CPU, LibTorch, flex, ndarray). A build that links no backend is an
/// error here, where burn's `Device::default()` would panic; a `BURN_DEVICE` naming a backend
/// the build lacks still panics, in burn, as every burn call on the default device does.
///
/// ```
/// use burn_tensor::Tensor;
/// use dlpack_core::{Error, ManagedTensor, from_dlpack};
///
/// fn load(tensor: &ManagedTensor) -> Result<Tensor<2>, Error> {
///     from_dlpack(tensor) // one copy of the source, then no more on a host backend
/// }
///
/// // This doctest links no burn backend: an error, where burn's default device panics.
/// let err = load(&ManagedTensor::from_vec(vec![1.0_f32; 4], &[2, 2])?).unwrap_err();
/// assert!(err.to_string().contains("links no backend"), "{err}");
/// # Ok::<(), Error>(())
/// ```
impl<const D: usize, K> FromDlpackTensor for Tensor<D, K>
where
    K: TensorKind + Basic,
{
    fn from_dlpack_tensor(tensor: ManagedTensor) -> Result<Self, Error> {
        tensor_from_dlpack(tensor, &default_device()?)
    }
}
