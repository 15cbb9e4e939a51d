//! safetensors 0.8 (feature `safetensors`): [`Dtype`](::safetensors::Dtype) as a DLPack data
//! type, and the tensors of a `.safetensors` file as read-only DLPack tensors over a buffer you
//! own.
//!
//! ```
//! use std::sync::Arc;
//! use dlpack_core::{DataType, bridges::safetensors};
//! use ::safetensors::{Dtype, tensor::TensorView};
//!
//! // A file in memory (a `Vec<u8>`; an `Arc<[u8]>` or a memory map work the same way).
//! let weights: Vec<u8> = [1.5_f32, -2.0, 0.25, 4.0].iter().flat_map(|x| x.to_le_bytes()).collect();
//! let file = ::safetensors::serialize(
//!     [("weight", TensorView::new(Dtype::F32, vec![2, 2], &weights).unwrap())],
//!     None,
//! ).unwrap();
//!
//! let buffer = Arc::new(file);
//! for (name, tensor) in safetensors::tensors(&buffer)? {
//!     let view = tensor.view()?;
//!     assert_eq!((name.as_str(), view.shape(), view.dtype()), ("weight", &[2, 2][..], DataType::F32));
//!     # #[cfg(target_endian = "little")]
//!     assert_eq!(view.as_slice::<f32>()?, [1.5, -2.0, 0.25, 4.0]); // the file's own bytes
//! }
//! # Ok::<(), dlpack_core::Error>(())
//! ```
//!
//! # The tensors
//!
//! [`Tensors::new`] parses the header once (safetensors' own parser, which checks that every
//! tensor's offsets match its shape and data type and that the tensors cover the data exactly;
//! each export checks it again, before it describes the bytes: the byte range's length against
//! the data type times the shape, packed for the sub-byte types, and the range against the
//! buffer as `AsRef` gives it then, since a safe `AsRef` may give another slice each time);
//! [`Tensors::get`] exports one tensor, [`tensors`] all of them in file order. Each export
//! holds a clone of your `Arc`, so the buffer lives as long as the last tensor:
//!
//! - **Zero-copy, `READ_ONLY`.** The tensor is the file's bytes where they lie, compact
//!   row-major, on [`Device::CPU`](crate::Device::CPU). Nothing writes them: the `Arc` gives no
//!   `&mut` while a clone lives. A memory map is as stable as the file behind it: the same
//!   contract as `memmap2::Mmap::map`, whose caller promises that the file is not modified.
//! - **Alignment.** safetensors stores a tensor at any byte offset its writer chose. Writers
//!   in practice (the `safetensors` crate, PyTorch's) sort tensors by alignment and pad the
//!   header to 8 bytes, so offsets are aligned *relative to the file*; whether the elements
//!   are aligned *in memory* depends on your buffer too (a `Vec<u8>` promises alignment 1;
//!   a memory map is page-aligned). Typed readers need aligned elements: a Rust slice is
//!   undefined behaviour otherwise (dlpack_core's `as_slice` refuses it), and NumPy marks such
//!   arrays unaligned and copies them in most operations. So a tensor whose first element is
//!   not aligned to its element size (capped at 8) is exported as a compact copy in
//!   64-byte-aligned memory, flagged `IS_COPIED` (and writable, since it is yours alone);
//!   [`flags`](crate::ManagedTensor::flags) tells the two cases apart.
//! - **Little-endian.** safetensors stores little-endian values, which are the host's values
//!   on every target this crate is used on in practice; on a big-endian host the bytes are
//!   still exported as they are, so typed reads there see byte-swapped values.
//! - **Sub-byte types** (`F4`, `F6_E2M3`, `F6_E3M2`): safetensors packs them (its sizes are
//!   `⌈elements · bits / 8⌉` bytes), so they are exported packed, DLPack's default, without
//!   `IS_SUBBYTE_TYPE_PADDED`. safetensors does not say in which bit order it packs; the
//!   bytes are passed through unchanged, and DLPack reads them little bit-endian (the first
//!   element in the lowest bits), which is how PyTorch's `float4_e2m1fn_x2` stores them.
//!
//! # The data type mapping
//!
//! | `safetensors::Dtype` | DLPack | | `safetensors::Dtype` | DLPack |
//! |---|---|---|---|---|
//! | `BOOL` | `bool` | | `F16` | `float16` |
//! | `U8`, `I8` | `uint8`, `int8` | | `BF16` | `bfloat16` |
//! | `U16`, `I16` | `uint16`, `int16` | | `F32` | `float32` |
//! | `U32`, `I32` | `uint32`, `int32` | | `F64` | `float64` |
//! | `U64`, `I64` | `uint64`, `int64` | | `C64` | `complex64` |
//! | `F8_E4M3` | `float8_e4m3fn` | | `F8_E5M2` | `float8_e5m2` |
//! | `F8_E4M3FNUZ` | `float8_e4m3fnuz` | | `F8_E5M2FNUZ` | `float8_e5m2fnuz` |
//! | `F8_E8M0` | `float8_e8m0fnu` | | `F4` | `float4_e2m1fn` |
//! | `F6_E2M3` | `float6_e2m3fn` | | `F6_E3M2` | `float6_e3m2fn` |
//!
//! `F8_E4M3` is the finite-only format (PyTorch's `float8_e4m3fn`, which safetensors' Python
//! binding writes as `F8_E4M3`), not DLPack's IEEE-like `float8_e4m3`; `F4`, `F6_*` and
//! `F8_E8M0` are the OCP microscaling element types. The mapping is one-to-one, both ways.
//! `Dtype` is `#[non_exhaustive]`: a variant a later safetensors adds has no DLPack data type
//! here until this table names it (an error naming the type, on export).
//!
//! The mapping is written with the derive's `remote` mode (a mirror of `Dtype`, checked
//! against it at compile time), so `Dtype` implements [`DlpackDataType`] and takes part in
//! [`from_dlpack`](crate::from_dlpack) and [`assert_convertible!`](crate::assert_convertible):
//!
//! ```
//! use dlpack_core::{DataType, DlpackDataType, assert_convertible, from_dlpack};
//! use safetensors::Dtype;
//!
//! assert_eq!(Dtype::F8_E4M3.dlpack_data_type()?, DataType::FLOAT8_E4M3FN);
//! assert_eq!(from_dlpack::<Dtype>(&DataType::BF16)?, Dtype::BF16);
//! assert_convertible!(Dtype => DataType);
//! let err = Dtype::from_dlpack_data_type(DataType::C128).unwrap_err();
//! assert!(err.to_string().starts_with("safetensors::Dtype has no DLPack data type for complex128"));
//! # Ok::<(), dlpack_core::Error>(())
//! ```

use alloc::sync::Arc;
use alloc::{borrow::ToOwned, string::String, vec::Vec};

use ::safetensors::SafeTensors;
use ::safetensors::tensor::Metadata;

use super::SharedBytes;
use crate::{DlpackDataType, Error, ManagedTensor};

// ---- safetensors::Dtype <-> DataType: the mirror. ----
// Written with the `remote` derive (see `bridges::candle`): `__impl_remote` gives `Dtype` the
// trait and the tags `from_dlpack` dispatches on, and the derive proves the mirror matches.

/// The mirror of `safetensors::Dtype`: the table in the [module docs](self#the-data-type-mapping),
/// in safetensors' variant order. `Dtype` is `#[non_exhaustive]`; a variant a later
/// safetensors adds is an error on export (it has no DLPack data type here until this mirror
/// lists it), never a guess.
#[derive(dlpack_derive::DlpackDataType)]
#[dlpack(
    crate = "crate",
    remote = "::safetensors::Dtype",
    non_exhaustive = "error",
    __impl_remote
)]
#[allow(non_camel_case_types, clippy::upper_case_acronyms)] // safetensors' own names, which the derive checks against
enum DtypeMirror {
    #[dlpack("bool")]
    BOOL,
    /// Packed, as safetensors stores it, like the two `F6` below.
    #[dlpack("float4_e2m1fn")]
    F4,
    #[dlpack("float6_e2m3fn")]
    F6_E2M3,
    #[dlpack("float6_e3m2fn")]
    F6_E3M2,
    #[dlpack("uint8")]
    U8,
    #[dlpack("int8")]
    I8,
    #[dlpack("float8_e5m2")]
    F8_E5M2,
    /// The finite-only format (PyTorch's `float8_e4m3fn`), not DLPack's `float8_e4m3`.
    #[dlpack("float8_e4m3fn")]
    F8_E4M3,
    #[dlpack("float8_e8m0fnu")]
    F8_E8M0,
    #[dlpack("float8_e4m3fnuz")]
    F8_E4M3FNUZ,
    #[dlpack("float8_e5m2fnuz")]
    F8_E5M2FNUZ,
    #[dlpack("int16")]
    I16,
    #[dlpack("uint16")]
    U16,
    #[dlpack("float16")]
    F16,
    #[dlpack("bfloat16")]
    BF16,
    #[dlpack("int32")]
    I32,
    #[dlpack("uint32")]
    U32,
    #[dlpack("float32")]
    F32,
    #[dlpack("complex64")]
    C64,
    #[dlpack("float64")]
    F64,
    #[dlpack("int64")]
    I64,
    #[dlpack("uint64")]
    U64,
}

// ---- The file's tensors. ----

/// The tensors of one safetensors file in a buffer you own, parsed once: look them up by name
/// ([`get`](Self::get)), list them ([`names`](Self::names)), or export them all
/// ([`tensors`]). `B` is anything that derefs to the file's bytes behind an `Arc`: `Vec<u8>`,
/// `[u8]` (an `Arc<[u8]>`), `memmap2::Mmap`, `bytes::Bytes`.
///
/// ```
/// use std::sync::Arc;
/// use dlpack_core::{DataType, bridges::safetensors::Tensors, tensor::Flags};
/// use safetensors::{Dtype, tensor::TensorView};
///
/// let file = safetensors::serialize(
///     [
///         ("bias", TensorView::new(Dtype::I16, vec![2], &[1, 0, 2, 0]).unwrap()),
///         ("mask", TensorView::new(Dtype::BOOL, vec![3], &[1, 0, 1]).unwrap()),
///     ],
///     None,
/// ).unwrap();
/// let buffer: Arc<[u8]> = file.into();
/// let tensors = Tensors::new(Arc::clone(&buffer))?;
/// assert_eq!(tensors.names().collect::<Vec<_>>(), ["bias", "mask"]); // file order
///
/// let mask = tensors.get("mask")?;
/// assert_eq!(mask.flags(), Flags::READ_ONLY);
/// assert_eq!(mask.view()?.as_slice::<bool>()?, [true, false, true]);
/// assert!(buffer[8..].as_ptr_range().contains(&mask.view()?.as_bytes()?.as_ptr())); // no copy
///
/// let err = tensors.get("weight").unwrap_err();
/// assert_eq!(err.to_string(), "the safetensors file has no tensor `weight`; it has: bias, mask");
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub struct Tensors<B: ?Sized> {
    buffer: Arc<B>,
    /// Where the data section starts: after the 8-byte length and the header.
    data_start: usize,
    metadata: Metadata,
    /// The names in file order (by offset).
    names: Vec<String>,
}

impl<B: ?Sized + AsRef<[u8]> + Send + Sync + 'static> Tensors<B> {
    /// Parses the header of the file in `buffer`: an error naming what is wrong when it is
    /// not a safetensors file or the data section does not match the header (safetensors' own
    /// message). A tensor whose data type has no DLPack equivalent (a `Dtype` newer than this
    /// bridge) is refused when it is asked for, not here, so the rest of the file stays
    /// readable.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dlpack_core::bridges::safetensors::Tensors;
    ///
    /// let err = Tensors::new(Arc::new(vec![1_u8, 2, 3])).err().unwrap();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "not a safetensors file (3 bytes): header too small"
    /// );
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn new(buffer: Arc<B>) -> Result<Self, Error> {
        let bytes = (*buffer).as_ref();
        let (header_len, metadata) = SafeTensors::read_metadata(bytes).map_err(|err| {
            Error::msg(format_args!(
                "not a safetensors file ({} bytes): {err}",
                bytes.len()
            ))
        })?;
        let names = metadata.offset_keys();
        Ok(Self {
            // `read_metadata` checked that 8 + header + data is the buffer's length.
            data_start: 8 + header_len,
            buffer,
            metadata,
            names,
        })
    }

    /// The tensor called `name`, zero-copy and `READ_ONLY` (or an aligned copy, see the
    /// [module docs](self#the-tensors)); an error listing the names there are when there is
    /// none.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dlpack_core::{DataType, bridges::safetensors::Tensors};
    /// use safetensors::{Dtype, tensor::TensorView};
    ///
    /// // Four float4_e2m1fn values, packed two to a byte as safetensors stores them.
    /// let file = safetensors::serialize(
    ///     [("q", TensorView::new(Dtype::F4, vec![2, 2], &[0x21, 0x43]).unwrap())],
    ///     None,
    /// ).unwrap();
    /// let q = Tensors::new(Arc::new(file))?.get("q")?;
    /// let view = q.view()?;
    /// assert_eq!((view.dtype(), view.is_packed()), (DataType::FLOAT4_E2M1FN, true));
    /// assert_eq!(view.as_bytes()?, [0x21, 0x43]);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn get(&self, name: &str) -> Result<ManagedTensor, Error> {
        let Some(info) = self.metadata.info(name) else {
            return Err(Error::msg(format_args!(
                "the safetensors file has no tensor `{name}`; it has: {}",
                self.names.join(", ")
            )));
        };
        let (start, end) = info.data_offsets;
        if end < start {
            return Err(Error::msg(format_args!(
                "the safetensors header gives tensor `{name}` the bytes {start}..{end}, which \
                 end before they start"
            )));
        }
        let dtype = info.dtype.dlpack_data_type()?;
        SharedBytes::export(
            &self.buffer,
            self.data_start.saturating_add(start),
            end - start,
            dtype,
            &info.shape,
        )
    }

    /// The tensors' names, in the order of their data in the file.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dlpack_core::bridges::safetensors::Tensors;
    ///
    /// let empty = safetensors::serialize(Vec::<(&str, safetensors::tensor::TensorView)>::new(), None).unwrap();
    /// assert_eq!(Tensors::new(Arc::new(empty))?.names().count(), 0);
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.names.iter().map(String::as_str)
    }

    /// The buffer the tensors lie in.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dlpack_core::bridges::safetensors::Tensors;
    ///
    /// let empty = safetensors::serialize(Vec::<(&str, safetensors::tensor::TensorView)>::new(), None).unwrap();
    /// let buffer = Arc::new(empty);
    /// assert!(Arc::ptr_eq(Tensors::new(Arc::clone(&buffer))?.buffer(), &buffer));
    /// # Ok::<(), dlpack_core::Error>(())
    /// ```
    pub fn buffer(&self) -> &Arc<B> {
        &self.buffer
    }
}

/// Every tensor of the safetensors file in `buffer`, with its name, in file order: zero-copy
/// and `READ_ONLY` (or aligned copies, see the [module docs](self#the-tensors)). The same as
/// [`Tensors::new`] then [`Tensors::get`] for each name.
///
/// ```
/// use std::sync::Arc;
/// use dlpack_core::{DataType, bridges::safetensors};
/// use ::safetensors::{Dtype, tensor::TensorView};
///
/// let file = ::safetensors::serialize(
///     [("b", TensorView::new(Dtype::U8, vec![1], &[7]).unwrap()),
///      ("a", TensorView::new(Dtype::U8, vec![2], &[8, 9]).unwrap())],
///     None,
/// ).unwrap();
/// let all = safetensors::tensors(&Arc::new(file))?;
/// let names: Vec<&str> = all.iter().map(|(name, _)| name.as_str()).collect();
/// assert_eq!(names.len(), 2);
/// assert!(all.iter().all(|(_, t)| t.dtype() == DataType::U8));
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub fn tensors<B>(buffer: &Arc<B>) -> Result<Vec<(String, ManagedTensor)>, Error>
where
    B: ?Sized + AsRef<[u8]> + Send + Sync + 'static,
{
    let file = Tensors::new(Arc::clone(buffer))?;
    file.names()
        .map(|name| Ok((name.to_owned(), file.get(name)?)))
        .collect()
}
