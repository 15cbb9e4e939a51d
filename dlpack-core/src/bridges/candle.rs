//! candle 0.11 (feature `candle`): `candle_core::{DType, Device, DeviceLocation}` as DLPack
//! data types and devices, and `candle_core::Tensor` as a DLPack tensor both ways.
//!
//! ```
//! use candle_core::{DType, Device, Tensor};
//! use dlpack_core::{DataType, ManagedTensor, bridges::candle, from_dlpack, tensor::{Flags, ToDlpackTensor}};
//! // Export: a compact copy, made under candle's lock; the consumer owns it alone.
//! let t = Tensor::arange(0_u32, 6, &Device::Cpu).unwrap().reshape((2, 3)).unwrap();
//! let exported = t.t().unwrap().to_dlpack_tensor()?;
//! assert_eq!(exported.view()?.as_slice::<u32>()?, [0, 3, 1, 4, 2, 5]);
//! // Or no copy, read-only. SAFETY: nothing writes `t`'s storage in place while `shared` lives.
//! let shared = unsafe { candle::share(&t)? };
//! assert_eq!(shared.flags(), Flags::READ_ONLY);
//! // Import: one copy into a new candle tensor, from any DLPack tensor.
//! let back: Tensor = from_dlpack(&ManagedTensor::from_vec(vec![1.5_f32, 2.5], &[2])?)?;
//! assert_eq!(back.to_vec1::<f32>().unwrap(), [1.5, 2.5]);
//! assert_eq!(from_dlpack::<DataType>(&DType::F8E4M3)?, DataType::FLOAT8_E4M3FN); // and devices
//! # assert_eq!(from_dlpack::<DType>(&DataType::BF16)?, DType::BF16);
//! # assert_eq!(exported.flags(), Flags::IS_COPIED);
//! # Ok::<(), dlpack_core::Error>(())
//! ```
//!
//! Feature `candle` turns on feature `half` (candle depends on `half` already), so `f16` and
//! `bf16` slices of candle's tensors read as `half::f16`/`half::bf16`; and `?` turns this
//! crate's errors into `candle_core::Error` in a function that returns `candle_core::Result`.
//!
//! # Data types
//!
//! | `candle_core::DType` | DLPack | | `candle_core::DType` | DLPack |
//! |---|---|---|---|---|
//! | `U8` | `uint8` | | `F16` | `float16` |
//! | `U32` | `uint32` | | `BF16` | `bfloat16` |
//! | `I16` | `int16` | | `F32` | `float32` |
//! | `I32` | `int32` | | `F64` | `float64` |
//! | `I64` | `int64` | | `F8E4M3` | `float8_e4m3fn` (code 10) |
//! | `F8E8M0` | `float8_e8m0fnu` | | `F4` | `float4_e2m1fn`, packed |
//! | `F6E2M3` | `float6_e2m3fn`, packed | | `F6E3M2` | `float6_e3m2fn`, packed |
//!
//! The mapping is one-to-one, both ways; any other DLPack data type (`bool`, `int8`, `uint16`,
//! complex, several lanes, …) is refused on import with an error listing these.
//!
//! - `F8E4M3` is the `float8` crate's `F8E4M3`, the OCP format with no infinities and one NaN
//!   pattern: DLPack's `float8_e4m3fn` (code 10), not the IEEE-like `float8_e4m3` (code 8).
//! - `F8E8M0` is the OCP scale format: no sign, no zero, one NaN: `float8_e8m0fnu`.
//! - `F4`, `F6E2M3`, `F6E3M2` are the OCP microscaling element types. candle keeps them as
//!   raw bytes exactly as it received them: `Tensor::from_raw_buffer` and candle's safetensors
//!   loader copy the file's bytes, and safetensors packs these types (two `F4` per byte, four
//!   `F6` in three bytes), while the layout counts elements. So they are **packed**, DLPack's
//!   default, and exported without `IS_SUBBYTE_TYPE_PADDED`. Packed elements have no byte
//!   address, so only a contiguous tensor whose first element starts a byte is exported (the
//!   others are refused, with the reason); on import, a padded tensor (one element per byte,
//!   in the low bits) is packed for candle.
//!
//! # Devices
//!
//! | candle | DLPack | `Device` from DLPack | `DeviceLocation` from DLPack |
//! |---|---|---|---|
//! | `Cpu` | `cpu` | `Device::Cpu` | `Cpu` |
//! | `Cuda`, `gpu_id` n | `cuda:n` | refused | `Cuda { gpu_id: n }` |
//! | `Metal`, `gpu_id` n | `metal:n` | refused | `Metal { gpu_id: n }` |
//!
//! [`DeviceLocation`] is a plain description and converts both ways. A candle [`Device`] is
//! more: `Device::new_cuda(n)` makes a *new* CUDA context and stream each time it is called,
//! and candle treats two of them as different devices even for the same ordinal (an operation
//! mixing their tensors fails with a device mismatch). Making one behind `from_dlpack` would
//! hand out such strangers, so importing anything but `cpu` into a `Device` is refused
//! ([`Error::UnsupportedDevice`]): make the device once with
//! candle's constructor and keep it, or convert to a `DeviceLocation`. (This bridge builds
//! candle without its `cuda` and `metal` features, which stay yours to turn on.)
//!
//! Both tables are written with the derive's `remote` mode: private mirrors of `DType`,
//! `DeviceLocation` and `Device`, checked against candle's types at compile time, whose impls
//! reach candle's own types (this crate may implement its traits for them), so that they
//! implement the traits and take part in
//! [`from_dlpack`](crate::from_dlpack) and [`assert_convertible!`](crate::assert_convertible).
//! `DType` is `#[non_exhaustive]`: a variant a later candle adds is an error on export, naming
//! the type, until the mirror lists it.
//!
//! ```
//! use candle_core::{DType, Device as CandleDevice, DeviceLocation};
//! use dlpack_core::{DataType, Device, DlpackDevice, assert_convertible, from_dlpack};
//!
//! assert_eq!(from_dlpack::<DeviceLocation>(&Device::cuda(3))?, DeviceLocation::Cuda { gpu_id: 3 });
//! assert_eq!(DeviceLocation::Metal { gpu_id: 1 }.dlpack_device()?, Device::metal(1));
//! assert!(from_dlpack::<CandleDevice>(&Device::CPU)?.is_cpu());
//! let err = from_dlpack::<CandleDevice>(&Device::cuda(0)).unwrap_err();
//! assert_eq!(err.to_string(), "candle_core::Device has no DLPack device for cuda:0; it supports: cpu");
//! let err = from_dlpack::<DType>(&DataType::BOOL).unwrap_err();
//! assert!(err.to_string().starts_with("candle_core::DType has no DLPack data type for bool; it supports: uint8, uint32"));
//! assert_convertible!(DType => DataType);
//! assert_convertible!(CandleDevice => DeviceLocation);
//! # Ok::<(), dlpack_core::Error>(())
//! ```
//!
//! # Export: a copy by default, shared on request
//!
//! candle lets any holder of a tensor write its storage in place through a shared reference:
//! `slice_set` (KV caches), `zero_set`/`one_set`/`const_set`, `scatter_set`, `Var::set` (also
//! through a `detach()`ed or `narrow`ed handle of the variable), and in-place custom ops
//! (`InplaceOp1/2/3`), which may even replace the storage's `Vec`. An export that shared the
//! storage could therefore change under a `&[T]` read from it, race with a write on another
//! thread, or point at freed memory — all from safe code. So:
//!
//! - **[`ToDlpackTensor for Tensor`](#impl-ToDlpackTensor-for-Tensor) copies.** The compact
//!   copy is made under candle's read lock (candle writes, and replaces, a storage only under
//!   its write lock, so the copy never sees half a write), is flagged `IS_COPIED`, and is
//!   writable: the consumer owns it alone. A tensor on another device is refused (move it with
//!   `to_device(&Device::Cpu)` first). [`to_python`](crate::python::to_python) and
//!   [`from_dlpack`](crate::from_dlpack) take this path.
//! - **[`share`] and [`Shared`] do not copy, and are `unsafe`.** The export is the storage
//!   where it lies, with candle's layout as it is (shape, strides, stride 0 of `broadcast_as`
//!   included, `start_offset` as the byte offset), `READ_ONLY`, and keeps a clone of the
//!   `Tensor` (a reference count) so the storage lives as long as the export, on any thread.
//!   Your promise, which the compiler cannot check: nothing writes that storage in place
//!   while the export lives. The fast path is still one call, `unsafe { candle::share(&t)? }`.
//! - **Reading without exporting needs neither.** [`lend_view`](ToDlpackTensor::lend_view)
//!   lends a view of the storage itself for a closure, under candle's read lock: zero-copy and
//!   sound, since no write can start before the closure returns.
//!
//! **What is checked before a storage is read.** Every path above (the copy, the lent view,
//! `share` and `Shared`, and the import from a candle tensor) reads the storage only after
//! comparing it, under candle's read lock, with the tensor: the storage's variant must be the
//! tensor's dtype, and it must hold the furthest element the layout reaches (start offset plus
//! each dimension's last index times its stride; the packed bytes, for the sub-byte types). A
//! user's `InplaceOp1` is safe to implement and may leave any `CpuStorage` under a tensor, and
//! candle checks nothing after it; a mismatch is an [`Error`] naming both (`a candle tensor of
//! dtype f32 and shape [4] is stored as u8 with 4 elements: its storage does not match its
//! layout`).
//!
//! Why not zero-copy by default: candle's lock guard cannot be held by an export (it borrows
//! the tensor and is not `Send`, and holding it would hang every writer, on this thread for
//! ever), and candle offers no way to learn that a storage has no other handle, which would
//! make sharing provably safe. The decision is recorded in `docs/decisions.md`.
//!
//! # Import: `FromDlpackTensor for Tensor`
//!
//! Any host-readable DLPack tensor of a data type in the table becomes a new CPU tensor by a
//! copy: one copy for a compact source, read where it lies (a `ManagedTensor`, a view, a
//! slice, an `ndarray` array, another candle tensor), two for any other strides (negative and
//! zero ones included: the source is first gathered into compact memory). A tensor on a device
//! the CPU cannot read, or of another data type, is refused with the reason. The source's
//! layout is validated before it is read (every element inside its extent; padded sub-byte
//! elements hold nothing above their bits): no DLPack input makes the import panic, and a
//! property test holds it to that.

use core::ffi::c_void;

use candle_core::backend::BackendDevice;
use candle_core::{
    CpuStorage, CudaDevice, DType, Device as CandleDevice, DeviceLocation, MetalDevice, Storage,
    Tensor,
};

use crate::tensor::convert::{lend_host, with_tensor_view};
use crate::tensor::{
    Flags, FromDlpackTensor, TensorOwner, TensorParts, TensorView, ToDlpackTensor,
};
use crate::{DataType, Device, DlpackDataType, Error, ManagedTensor};

// ---- candle_core::{DType, DeviceLocation, Device} <-> DLPack: the mirrors. ----
// Written with the `remote` derive, as a user writes a mirror of a type they do not own:
// `__impl_remote` gives candle's types the traits (dlpack-core may implement its own traits for
// them) and the tags `from_dlpack` dispatches on. The derive proves each mirror matches: a
// variant candle renames, removes or adds (to an exhaustive enum) is a compile error here.

/// The mirror of `candle_core::DType`: the table in the [module docs](self#data-types), in
/// candle's variant order. `DType` is `#[non_exhaustive]`; a variant a later candle adds is an
/// error on export (it has no DLPack data type here until this mirror lists it), never a guess.
#[derive(dlpack_derive::DlpackDataType)]
#[dlpack(
    crate = "crate",
    remote = "candle_core::DType",
    non_exhaustive = "error",
    __impl_remote
)]
enum DTypeMirror {
    #[dlpack("uint8")]
    U8,
    #[dlpack("uint32")]
    U32,
    #[dlpack("int16")]
    I16,
    #[dlpack("int32")]
    I32,
    #[dlpack("int64")]
    I64,
    #[dlpack("bfloat16")]
    BF16,
    #[dlpack("float16")]
    F16,
    #[dlpack("float32")]
    F32,
    #[dlpack("float64")]
    F64,
    /// The OCP format, finite-only: code 10, not DLPack's IEEE-like `float8_e4m3` (code 8).
    #[dlpack("float8_e4m3fn")]
    F8E4M3,
    /// Packed, as candle keeps it (see the module docs), like the two below.
    #[dlpack("float6_e2m3fn")]
    F6E2M3,
    #[dlpack("float6_e3m2fn")]
    F6E3M2,
    #[dlpack("float4_e2m1fn")]
    F4,
    #[dlpack("float8_e8m0fnu")]
    F8E8M0,
}

/// The mirror of `candle_core::DeviceLocation`: `cpu`, `cuda:n`, `metal:n`, both ways.
#[derive(dlpack_derive::DlpackDevice)]
#[dlpack(crate = "crate", remote = "candle_core::DeviceLocation", __impl_remote)]
enum DeviceLocationMirror {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda {
        #[dlpack(id)]
        gpu_id: usize,
    },
    #[dlpack(metal)]
    Metal {
        #[dlpack(id)]
        gpu_id: usize,
    },
}

/// The mirror of `candle_core::Device`: exported as its location; imported for `cpu` only
/// (`export_only` on the others), since a candle CUDA or Metal device is a context of its own
/// that `from_dlpack` must not make behind the caller's back (see the
/// [module docs](self#devices)).
#[derive(dlpack_derive::DlpackDevice)]
#[dlpack(crate = "crate", remote = "candle_core::Device", __impl_remote)]
enum DeviceMirror {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda, device_with = location::<CudaDevice>, export_only)]
    Cuda(CudaDevice),
    #[dlpack(metal, device_with = location::<MetalDevice>, export_only)]
    Metal(MetalDevice),
}

/// Where a candle backend device is: `DeviceLocation`, whose device the mirror checks to be of
/// the variant's device type.
fn location<D: BackendDevice>(device: &D) -> DeviceLocation {
    device.location()
}

// ---- Tensors. ----

/// A candle error, as this crate's.
fn candle_error(err: candle_core::Error) -> Error {
    Error::msg(format_args!("candle: {err}"))
}

/// So that `?` takes this crate's errors in a function that returns `candle_core::Result`:
/// the error is wrapped (`candle_core::Error::Wrapped`), its message unchanged.
///
/// ```
/// use candle_core::{DType, Tensor};
/// use dlpack_core::{DataType, ManagedTensor, from_dlpack};
///
/// fn load(tensor: &ManagedTensor) -> candle_core::Result<Tensor> {
///     let dtype: DType = from_dlpack(&tensor.dtype())?;
///     let t: Tensor = from_dlpack(tensor)?;
///     assert_eq!(t.dtype(), dtype);
///     Ok(t)
/// }
///
/// let tensor = ManagedTensor::from_vec(vec![1_u32, 2], &[2]).unwrap();
/// assert_eq!(load(&tensor)?.to_vec1::<u32>()?, [1, 2]);
/// let bools = ManagedTensor::from_vec(vec![true], &[1]).unwrap();
/// let err = load(&bools).unwrap_err();
/// assert!(err.to_string().starts_with("candle_core::DType has no DLPack data type for bool"));
/// # Ok::<(), candle_core::Error>(())
/// ```
impl From<Error> for candle_core::Error {
    fn from(err: Error) -> Self {
        candle_core::Error::wrap(err)
    }
}

/// The first element of a CPU storage and its length, in elements (bytes for the raw-byte
/// arms).
fn storage_data(storage: &CpuStorage) -> (*const c_void, usize) {
    // `Vec::as_ptr`, not a slice's: it hands out the buffer pointer without making a
    // reference to the elements, which a shared export keeps beyond this borrow.
    #[allow(clippy::ptr_arg)]
    fn raw<T>(data: &Vec<T>) -> (*const c_void, usize) {
        (Vec::as_ptr(data).cast(), data.len())
    }
    match storage {
        CpuStorage::U8(v) => raw(v),
        CpuStorage::U32(v) => raw(v),
        CpuStorage::I16(v) => raw(v),
        CpuStorage::I32(v) => raw(v),
        CpuStorage::I64(v) => raw(v),
        CpuStorage::BF16(v) => raw(v),
        CpuStorage::F16(v) => raw(v),
        CpuStorage::F32(v) => raw(v),
        CpuStorage::F64(v) => raw(v),
        CpuStorage::F8E4M3(v) => raw(v),
        CpuStorage::F6E2M3(v)
        | CpuStorage::F6E3M2(v)
        | CpuStorage::F4(v)
        | CpuStorage::F8E8M0(v) => raw(v),
    }
}

/// A CPU candle tensor as DLPack describes it, read under candle's lock.
#[derive(Clone, Copy)]
struct Described {
    /// The start of the storage's `Vec`.
    data: *const c_void,
    dtype: DataType,
    byte_offset: u64,
    /// Packed sub-byte elements: compact row-major, whatever candle's strides say.
    packed: bool,
}

impl Described {
    /// `tensor`'s shape, and the strides to give: candle's, or compact ones for packed
    /// elements.
    fn dims(&self, tensor: &Tensor) -> (Vec<i64>, Vec<i64>) {
        // A candle tensor's extent fits its storage, so each value fits i64.
        let shape: Vec<i64> = tensor.dims().iter().map(|&dim| dim as i64).collect();
        let strides = if self.packed {
            let mut strides = vec![1_i64; shape.len()];
            for axis in (1..shape.len()).rev() {
                strides[axis - 1] = strides[axis] * shape[axis];
            }
            strides
        } else {
            tensor
                .stride()
                .iter()
                .map(|&stride| stride as i64)
                .collect()
        };
        (shape, strides)
    }
}

/// The reason a candle layout cannot be described as it is.
fn refuse(tensor: &Tensor, dtype: DataType, what: impl core::fmt::Display) -> Error {
    Error::msg(format_args!(
        "a candle {dtype} tensor of shape {:?}, strides {:?} and start offset {} cannot be \
         exported: {what}",
        tensor.dims(),
        tensor.stride(),
        tensor.layout().start_offset()
    ))
}

/// The reason a candle storage cannot be read as its tensor's layout says: `stored` (the
/// storage's own element type) and `len` (its length, in its own elements; in bytes for the
/// packed sub-byte types) against the tensor's dtype and shape.
fn mismatch(tensor: &Tensor, stored: DType, len: usize, what: impl core::fmt::Display) -> Error {
    let unit = match stored {
        DType::F4 | DType::F6E2M3 | DType::F6E3M2 => "bytes",
        _ => "elements",
    };
    Error::msg(format_args!(
        "a candle tensor of dtype {} and shape {:?} is stored as {} with {len} {unit}: {what}",
        tensor.dtype().as_str(),
        tensor.dims(),
        stored.as_str(),
    ))
}

/// Describes `tensor`, whose `storage` the caller has locked for reading, checking that the
/// storage holds elements of the tensor's dtype (an `InplaceOp1`, safe to implement, may have
/// put any `CpuStorage` there) and that every element its layout reaches lies inside it.
fn describe(tensor: &Tensor, storage: &Storage) -> Result<Described, Error> {
    let dtype = tensor.dtype().dlpack_data_type()?;
    let Storage::Cpu(cpu) = storage else {
        return Err(Error::msg(format_args!(
            "a candle tensor on {:?} cannot be exported: this bridge exports CPU tensors; \
             copy it with `tensor.to_device(&Device::Cpu)` first",
            tensor.device().location()
        )));
    };
    // `len` counts the storage's own elements: the lengths below compare only once the
    // storage is known to hold the tensor's type.
    let (data, len) = storage_data(cpu);
    let stored = storage.dtype();
    if stored != tensor.dtype() {
        return Err(mismatch(
            tensor,
            stored,
            len,
            "its storage does not match its layout",
        ));
    }
    let layout = tensor.layout();
    let start = layout.start_offset();
    let overflow = || refuse(tensor, dtype, "its extent overflows usize");
    let mut count = 1_usize;
    for &dim in layout.dims() {
        count = count.checked_mul(dim).ok_or_else(overflow)?;
    }
    let bits = dtype.size_in_bits() as usize;
    let (byte_offset, packed) = if bits < 8 {
        if !layout.is_contiguous() {
            return Err(refuse(
                tensor,
                dtype,
                "candle stores this type packed, and packed elements have no byte address, so \
                 only contiguous tensors are exported (candle's `contiguous()` does not help: it \
                 copies these types one byte per element)",
            ));
        }
        let start_bits = start.checked_mul(bits).ok_or_else(overflow)?;
        if start_bits % 8 != 0 {
            return Err(refuse(
                tensor,
                dtype,
                format_args!("its first element starts at bit {start_bits}, not on a byte"),
            ));
        }
        let end = start.checked_add(count).ok_or_else(overflow)?;
        let needed = dtype.packed_size(end).ok_or_else(overflow)?;
        if count > 0 && needed > len {
            return Err(refuse(
                tensor,
                dtype,
                format_args!("it needs {needed} packed bytes, and its storage has {len}"),
            ));
        }
        (start_bits / 8, true)
    } else {
        if count > 0 {
            let mut last = start;
            for (&dim, &stride) in layout.dims().iter().zip(layout.stride()) {
                let reach = (dim - 1).checked_mul(stride).ok_or_else(overflow)?;
                last = last.checked_add(reach).ok_or_else(overflow)?;
            }
            if last >= len {
                return Err(mismatch(
                    tensor,
                    stored,
                    len,
                    format_args!("its layout reaches element {last}"),
                ));
            }
        }
        let byte_offset = start.checked_mul(dtype.itemsize()).ok_or_else(overflow)?;
        (byte_offset, false)
    };
    Ok(Described {
        data,
        dtype,
        byte_offset: byte_offset as u64,
        packed,
    })
}

/// A compact copy, made under candle's lock: flagged `IS_COPIED`, and writable, since the
/// copy is the consumer's alone. Sound whatever else holds the tensor: see the
/// [module docs](self#export-a-copy-by-default-shared-on-request).
///
/// ```
/// use candle_core::{Device, Tensor};
/// use dlpack_core::tensor::{Flags, ToDlpackTensor};
///
/// // A broadcast row: stride 0 along the new axis, copied compact.
/// let row = Tensor::new(&[1_i64, 2, 3], &Device::Cpu).unwrap();
/// let wide = row.broadcast_as((2, 3)).unwrap().to_dlpack_tensor()?;
/// assert_eq!((wide.view()?.strides(), wide.flags()), (&[3, 1][..], Flags::IS_COPIED));
/// assert_eq!(wide.view()?.as_slice::<i64>()?, [1, 2, 3, 1, 2, 3]);
///
/// // candle's later in-place writes do not reach it.
/// row.zero_set().unwrap();
/// assert_eq!(wide.view()?.as_slice::<i64>()?, [1, 2, 3, 1, 2, 3]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl ToDlpackTensor for Tensor {
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
        with_tensor_view(self, |view| view.to_dlpack_tensor())
    }

    /// Lends candle's storage itself, held under candle's read lock for the call: candle
    /// writes a storage in place, or replaces it, only under its write lock, so nothing
    /// changes what the view reads meanwhile. `read` must not write this tensor, nor any
    /// sharing its storage, or it waits for itself.
    fn lend_view(
        &self,
        read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let (storage, _) = self.storage_and_layout();
        let described = describe(self, &storage)?;
        let (shape, strides) = described.dims(self);
        // SAFETY: `describe` checked, under the read guard `storage` holds until this function
        // returns, that every element the layout reaches lies inside the storage at `data`;
        // candle writes a storage in place, and replaces or frees it, only under the write
        // lock, so those elements are initialised and unwritten for the call.
        unsafe {
            lend_host(
                described.data,
                described.dtype,
                &shape,
                &strides,
                described.byte_offset,
                read,
            )
        }
    }
}

/// A candle tensor whose exports share its storage: zero-copy and `READ_ONLY`, with candle's
/// layout as it is (shape, strides, stride 0 of `broadcast_as` included, `start_offset` as the
/// byte offset). Making one is `unsafe`: candle lets any holder of a tensor write its storage
/// through a shared reference, and only you can promise that none does while an export lives.
/// [`share`] exports one tensor this way in one call; `Shared` is for a source that exports
/// many times, such as [`PyTensor`](crate::python::PyTensor) (one export per `__dlpack__` call).
///
/// ```
/// use candle_core::{Device, Tensor};
/// use dlpack_core::{ManagedTensor, bridges::candle::Shared, from_dlpack, tensor::Flags};
///
/// let weights = Tensor::arange(0_f32, 4., &Device::Cpu).unwrap();
/// // SAFETY: nothing writes `weights` (or a tensor sharing its storage) in place while an
/// // export of it lives: the exports below are dropped at the end of this block.
/// let shared = unsafe { Shared::new(weights.clone()) };
/// let tensor: ManagedTensor = from_dlpack(&shared)?;
/// assert_eq!(tensor.flags(), Flags::READ_ONLY);
/// assert_eq!(tensor.view()?.as_slice::<f32>()?, [0., 1., 2., 3.]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Shared(Tensor);

impl Shared {
    /// Wraps `tensor`, whose exports share its storage.
    ///
    /// # Safety
    ///
    /// Until every export made from this value (or a clone of it) is released — dropped in
    /// Rust, or deleted by the consumer it was handed to — nothing writes the storage of
    /// `tensor` in place or replaces it: no `slice_set`, `zero_set`/`one_set`/`const_set`,
    /// `scatter_set`/`scatter_add_set`, `Var::set` or in-place custom op (`InplaceOp1/2/3`),
    /// on `tensor` or on any tensor sharing its storage (views such as `narrow`, `i(..)`,
    /// `t()`, a `detach()`ed copy of the handle, the `Var` it came from), on any thread.
    /// Reads of the export through a `&[T]` or a consumer would otherwise change under them,
    /// race, or read freed memory.
    ///
    /// ```
    /// use candle_core::{Device, Tensor};
    /// use dlpack_core::bridges::candle::Shared;
    ///
    /// let t = Tensor::ones(3, candle_core::DType::U8, &Device::Cpu).unwrap();
    /// // SAFETY: `t` is not written in place while `shared`'s exports live.
    /// let shared = unsafe { Shared::new(t) };
    /// assert_eq!(shared.tensor().dims(), [3]);
    /// ```
    pub unsafe fn new(tensor: Tensor) -> Self {
        Self(tensor)
    }

    /// The tensor.
    ///
    /// ```
    /// use candle_core::{Device, Tensor};
    /// use dlpack_core::bridges::candle::Shared;
    ///
    /// // SAFETY: no export is made.
    /// let shared = unsafe { Shared::new(Tensor::zeros(2, candle_core::DType::F32, &Device::Cpu).unwrap()) };
    /// assert_eq!(shared.tensor().elem_count(), 2);
    /// ```
    pub fn tensor(&self) -> &Tensor {
        &self.0
    }
}

/// What a shared export holds: a clone of the `Tensor` (a reference count), which keeps the
/// storage alive on any thread.
struct SharedStorage {
    tensor: Tensor,
    described: Described,
}

// SAFETY: `described.data` points into the storage that `tensor` keeps alive, and is only
// read through (the export is READ_ONLY); `Tensor` itself is `Send`.
unsafe impl Send for SharedStorage {}

// SAFETY: `describe` checked, under candle's lock, that the layout's every element lies inside
// the storage `data` starts; the storage is neither written, freed nor moved while `tensor`
// lives, which is the promise of `Shared::new` (candle itself never reallocates a storage);
// the export is READ_ONLY. Every call gives the same answer: a candle tensor's layout never
// changes.
unsafe impl TensorOwner for SharedStorage {
    fn describe(&mut self) -> TensorParts<'_> {
        let described = self.described;
        let parts = TensorParts::new(
            described.data.cast_mut(),
            Device::CPU,
            described.dtype,
            self.tensor.dims(),
        )
        .with_byte_offset(described.byte_offset)
        .with_flags(Flags::READ_ONLY);
        if described.packed {
            parts
        } else {
            parts.with_strides(self.tensor.stride())
        }
    }
}

/// The tensor's storage without a copy, `READ_ONLY`, for every export.
///
/// ```
/// use candle_core::{Device, Tensor};
/// use dlpack_core::bridges::candle::Shared;
/// use dlpack_core::tensor::{Flags, ToDlpackTensor};
///
/// let t = Tensor::new(&[1_u8, 2, 3], &Device::Cpu).unwrap();
/// // SAFETY: nothing writes `t` in place while the exports below live.
/// let shared = unsafe { Shared::new(t) };
/// let (first, second) = (shared.to_dlpack_tensor()?, shared.to_dlpack_tensor()?);
/// assert_eq!(first.view()?.data_ptr(), second.view()?.data_ptr()); // one storage, no copies
/// assert_eq!(first.flags(), Flags::READ_ONLY);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl ToDlpackTensor for Shared {
    /// The tensor's storage without a copy, `READ_ONLY`; tensors on other devices, and packed
    /// sub-byte tensors that do not start on a byte, are refused with the reason.
    fn to_dlpack_tensor(&self) -> Result<ManagedTensor, Error> {
        let described = {
            let (storage, _) = self.0.storage_and_layout();
            describe(&self.0, &storage)?
        };
        ManagedTensor::from_owner(SharedStorage {
            tensor: self.0.clone(),
            described,
        })
    }

    /// The tensor's view, lent under candle's lock as [`Tensor`]'s is.
    fn lend_view(
        &self,
        read: &mut dyn FnMut(&TensorView<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.0.lend_view(read)
    }
}

/// Exports `tensor`'s storage without a copy, `READ_ONLY`: the fast path, in one call.
///
/// ```
/// use candle_core::{Device, Tensor};
/// use dlpack_core::{bridges::candle, tensor::Flags};
///
/// let t = Tensor::arange(0_u32, 6, &Device::Cpu).unwrap().reshape((2, 3)).unwrap();
/// let transposed = t.t().unwrap();
/// // SAFETY: nothing writes `t`'s storage in place while `exported` lives.
/// let exported = unsafe { candle::share(&transposed)? };
/// let view = exported.view()?;
/// assert_eq!((view.shape(), view.strides()), (&[3, 2][..], &[1, 3][..])); // candle's strides
/// assert_eq!(exported.flags(), Flags::READ_ONLY);
/// assert_eq!(view.to_vec::<u32>()?, [0, 3, 1, 4, 2, 5]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
///
/// # Safety
///
/// [`Shared::new`]'s contract, until the returned tensor is released.
pub unsafe fn share(tensor: &Tensor) -> Result<ManagedTensor, Error> {
    // SAFETY: the caller's promise is `Shared::new`'s, for the one export made here.
    unsafe { Shared::new(tensor.clone()) }.to_dlpack_tensor()
}

/// Packs padded sub-byte elements (one per byte, in the low `bits` bits) little bit-endian, as
/// candle stores them: an error naming the first byte with bits above the element's.
fn pack(padded: &[u8], dtype: DataType) -> Result<Vec<u8>, Error> {
    let bits = dtype.size_in_bits() as usize;
    let mask = (1_u16 << bits) - 1;
    let len = dtype.packed_size(padded.len()).unwrap_or(usize::MAX);
    let mut packed = vec![0_u8; len];
    for (i, &byte) in padded.iter().enumerate() {
        let value = u16::from(byte);
        if value & !mask != 0 {
            return Err(Error::msg(format_args!(
                "a padded {dtype} element holds its value in the low {bits} bits; element {i} \
                 is {byte:#04x}"
            )));
        }
        let bit = i * bits;
        let word = value << (bit % 8);
        packed[bit / 8] |= word as u8;
        if bit % 8 + bits > 8 {
            packed[bit / 8 + 1] |= (word >> 8) as u8;
        }
    }
    Ok(packed)
}

/// A new CPU tensor holding a copy of `view`: one copy for compact elements, two for any other
/// strides (gathered compact first).
fn tensor_from_view(view: &TensorView<'_>) -> Result<Tensor, Error> {
    let dtype = DType::from_dlpack_data_type(view.dtype())?;
    // Validated: every dimension is non-negative and their product fits `isize`.
    let shape: Vec<usize> = view.shape().iter().map(|&d| d as usize).collect();
    let compact;
    let view = if view.is_compact() {
        view
    } else {
        compact = view.to_dlpack_tensor()?;
        &compact.view()?
    };
    let bytes = view.as_bytes()?;
    let repacked;
    let bytes = if view.dtype().size_in_bits() < 8
        && view.flags().contains(Flags::IS_SUBBYTE_TYPE_PADDED)
    {
        repacked = pack(bytes, view.dtype())?;
        &repacked[..]
    } else {
        bytes
    };
    Tensor::from_raw_buffer(bytes, dtype, &shape, &CandleDevice::Cpu).map_err(candle_error)
}

/// A new CPU tensor holding a copy of any host-readable DLPack tensor of a data type in the
/// [table](self#data-types), whatever its strides: one copy from a compact source (read where
/// it lies, through [`lend_view`](ToDlpackTensor::lend_view)), two from any other
/// strides.
///
/// ```
/// use candle_core::Tensor;
/// use dlpack_core::{DataType, ManagedTensor, from_dlpack};
///
/// let tensor = ManagedTensor::from_vec(vec![1_u8, 2, 3, 4, 5, 6], &[2, 3])?;
/// let t: Tensor = from_dlpack(&tensor)?;
/// assert_eq!(t.to_vec2::<u8>().unwrap(), [[1, 2, 3], [4, 5, 6]]);
///
/// let err = from_dlpack::<Tensor>(&vec![true, false]).unwrap_err();
/// assert!(err.to_string().starts_with("candle_core::DType has no DLPack data type for bool"));
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl FromDlpackTensor for Tensor {
    fn from_dlpack_tensor(tensor: ManagedTensor) -> Result<Self, Error> {
        tensor_from_view(&tensor.view()?)
    }

    fn from_dlpack_source<S: ?Sized + ToDlpackTensor>(source: &S) -> Result<Self, Error> {
        with_tensor_view(source, tensor_from_view)
    }
}
