//! Bridges to other crates' types, one file per crate, each behind the feature of that crate's
//! name.
//!
//! - [`burn`] (feature `burn`): burn's `DType` and `Device` as DLPack values, `TensorData`
//!   exported and imported without a copy, host `Tensor`s both ways.
//! - [`candle`] (feature `candle`): `candle_core::{DType, Device, DeviceLocation}` as DLPack
//!   values, and `candle_core::Tensor` exported as a copy (or, `unsafe`, shared) and imported
//!   by one.
//! - [`safetensors`] (feature `safetensors`): `safetensors::Dtype` as a DLPack value, and the
//!   tensors of a `.safetensors` file as read-only DLPack tensors over a buffer you own.
//!
//! A bridge builds on the crate's tensor API ([`ManagedTensor`](crate::ManagedTensor),
//! [`TensorOwner`](crate::tensor::TensorOwner), the protocol traits), so a new framework is a new
//! file here and nothing else. The byte-buffer owner below is shared by the file formats: a
//! second format (GGUF, `.npy`) needs only its header parser.
//!
//! # The pattern a bridge follows
//!
//! A fourth bridge (cubecl, tch, ort) is written in these four parts, in this order of
//! preference; each existing bridge has the parts its framework needs:
//!
//! 1. **Values**: the framework's dtype and device types as `remote` mirrors of the derives,
//!    checked against the real enums at compile time, so that `from_dlpack` and
//!    `assert_convertible!` take them (all three bridges).
//! 2. **Tensors, safely**: [`ToDlpackTensor`](crate::tensor::ToDlpackTensor) and
//!    [`FromDlpackTensor`](crate::tensor::FromDlpackTensor) for the framework's tensor types,
//!    the path `from_dlpack`, `python::to_python` and `PyTensor` take. An export shares memory
//!    only where no safe call of the framework can write or free it while the export lives
//!    (a burn `TensorData` the export owns, an `Arc`), and otherwise copies under the
//!    framework's lock; every path checks the storage it reads against the tensor's data type
//!    and layout first (candle, burn).
//! 3. **What needs the caller's promise**: an `unsafe fn`, with the contract where the
//!    `unsafe` is (candle's `share` and `Shared`, zero-copy over storage candle may write).
//! 4. **Free functions**, only for what a trait method cannot say: an argument the traits have
//!    no room for, or ownership they cannot take (burn's `data_to_dlpack(data)` consumes the
//!    `TensorData` to share its bytes, where `to_dlpack_tensor(&self)` must copy; burn's
//!    `tensor_from_dlpack(tensor, &device)` names the device), or a file format with no
//!    tensor type of its own (safetensors' `Tensors` and `tensors`). Their names say which
//!    way they go, as `from_dlpack` does: `<burn's type>_to_dlpack`, `<burn's type>_from_dlpack`.
//!
//! A bridge's module page says, for each path, what it copies and what it checks.
//!
//! ```
//! # #[cfg(feature = "safetensors")] {
//! use std::sync::Arc;
//! use dlpack_core::{DataType, bridges::safetensors::Tensors};
//!
//! let file = ::safetensors::serialize(
//!     [("w", ::safetensors::tensor::TensorView::new(::safetensors::Dtype::U8, vec![2], &[1, 2]).unwrap())],
//!     None,
//! ).unwrap();
//! let tensors = Tensors::new(Arc::new(file))?;
//! assert_eq!(tensors.get("w")?.view()?.dtype(), DataType::U8);
//! # }
//! # Ok::<(), dlpack_core::Error>(())
//! ```

#[cfg(feature = "burn")]
#[cfg_attr(docsrs, doc(cfg(feature = "burn")))]
pub mod burn;
#[cfg(feature = "candle")]
#[cfg_attr(docsrs, doc(cfg(feature = "candle")))]
pub mod candle;
#[cfg(feature = "safetensors")]
#[cfg_attr(docsrs, doc(cfg(feature = "safetensors")))]
pub mod safetensors;

#[cfg(feature = "safetensors")]
pub(crate) use bytes::SharedBytes;

/// A tensor that lies in a byte buffer shared through an `Arc`: what a file format's bridge
/// exports for each tensor of a file it has parsed.
#[cfg(feature = "safetensors")]
mod bytes {
    use alloc::sync::Arc;
    use alloc::vec::Vec;
    use core::ffi::c_void;

    use crate::tensor::{Flags, TensorOwner, TensorParts, ToDlpackTensor};
    use crate::{DataType, Device, Error, ManagedTensor};

    /// `len` bytes at `offset` in `buffer`, read as a compact row-major tensor of `dtype` and
    /// `shape`.
    pub(crate) struct SharedBytes<B: ?Sized> {
        /// Keeps the bytes alive and unmoved; never mutated through (`Arc` gives no `&mut`
        /// while this clone exists).
        _buffer: Arc<B>,
        /// The start of the buffer, as `AsRef` gave it once: an implementation may give a
        /// different slice on a second call, so the export never asks again.
        base: *const u8,
        offset: usize,
        dtype: DataType,
        shape: Vec<usize>,
    }

    // SAFETY: `base` points into `buffer`, which the owner keeps alive; the bytes are only
    // read (the export is READ_ONLY), and `Arc<B>` is `Send` for `B: Send + Sync`.
    unsafe impl<B: ?Sized + Send + Sync> Send for SharedBytes<B> {}

    // SAFETY: the bytes `offset..offset + len` of the buffer, checked to lie inside it by
    // `export`, hold the tensor's elements; they stay where they are while the `Arc` lives
    // (nothing gets `&mut B` while a clone exists), and READ_ONLY forbids consumers to write
    // them. Every call gives the same answer.
    unsafe impl<B: ?Sized + AsRef<[u8]> + Send + Sync + 'static> TensorOwner for SharedBytes<B> {
        fn describe(&mut self) -> TensorParts<'_> {
            TensorParts::new(
                self.base.cast_mut().cast::<c_void>(),
                Device::CPU,
                self.dtype,
                &self.shape,
            )
            .with_byte_offset(self.offset as u64)
            .with_flags(Flags::READ_ONLY)
        }
    }

    impl<B: ?Sized + AsRef<[u8]> + Send + Sync + 'static> SharedBytes<B> {
        /// The tensor of `dtype` and `shape` in `buffer[offset..offset + len]`: shared and
        /// `READ_ONLY` when its first element is aligned for `dtype` (a power-of-two
        /// `itemsize`, at most 8), else a copy into aligned memory flagged `IS_COPIED`, since
        /// typed readers (a Rust slice, a NumPy ufunc) need the alignment. `len` must be the
        /// tensor's packed byte size, and the range must lie inside the buffer: both are
        /// checked here (a file format's parser checks them too, but the export reads exactly
        /// what `dtype` and `shape` describe, so it does not take that on trust).
        pub(crate) fn export(
            buffer: &Arc<B>,
            offset: usize,
            len: usize,
            dtype: DataType,
            shape: &[usize],
        ) -> Result<ManagedTensor, Error> {
            let needed = shape
                .iter()
                .try_fold(1_usize, |count, &dim| count.checked_mul(dim))
                .and_then(|count| dtype.packed_size(count));
            if needed != Some(len) {
                return Err(Error::msg(format_args!(
                    "a tensor of {dtype} and shape {shape:?} needs {} bytes; its byte range \
                     {offset}..{} holds {len}",
                    needed.map_or_else(
                        || alloc::format!("more than {}", usize::MAX),
                        |n| alloc::format!("{n}")
                    ),
                    offset.saturating_add(len),
                )));
            }
            let bytes = (**buffer).as_ref();
            let inside = offset
                .checked_add(len)
                .is_some_and(|end| end <= bytes.len());
            if !inside {
                return Err(Error::msg(format_args!(
                    "a tensor at bytes {offset}..{} lies outside the buffer of {} bytes",
                    offset.saturating_add(len),
                    bytes.len()
                )));
            }
            let base = bytes.as_ptr();
            let owner = SharedBytes {
                _buffer: Arc::clone(buffer),
                base,
                offset,
                dtype,
                shape: shape.to_vec(),
            };
            let tensor = ManagedTensor::from_owner(owner)?;
            let align = dtype.itemsize().clamp(1, 8);
            if base.addr().wrapping_add(offset) % align == 0 {
                Ok(tensor)
            } else {
                // The compact copy lands in 64-byte-aligned memory.
                tensor.view()?.to_dlpack_tensor()
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use alloc::string::ToString;
        use alloc::sync::Arc;
        use alloc::vec;
        use alloc::vec::Vec;

        use super::SharedBytes;
        use crate::DataType;

        /// The export reads what `dtype` and `shape` describe, so a byte range of another
        /// length is refused, whatever the parser said, and so is one outside the buffer.
        #[test]
        fn a_byte_range_that_does_not_match_dtype_and_shape_is_refused() {
            let buffer: Arc<Vec<u8>> = Arc::new(vec![0; 16]);
            let ok = SharedBytes::export(&buffer, 8, 8, DataType::F32, &[2]).unwrap();
            assert_eq!(ok.view().unwrap().shape(), [2]);
            let err = SharedBytes::export(&buffer, 8, 4, DataType::F32, &[2])
                .err()
                .unwrap();
            assert_eq!(
                err.to_string(),
                "a tensor of float32 and shape [2] needs 8 bytes; its byte range 8..12 holds 4"
            );
            let err = SharedBytes::export(&buffer, 0, 0, DataType::F64, &[usize::MAX, 2])
                .err()
                .unwrap();
            assert!(err.to_string().contains("needs more than"), "{err}");
            // Packed: three float4 elements are two bytes.
            assert!(SharedBytes::export(&buffer, 0, 2, DataType::FLOAT4_E2M1FN, &[3]).is_ok());
            assert!(SharedBytes::export(&buffer, 0, 3, DataType::FLOAT4_E2M1FN, &[3]).is_err());
            let err = SharedBytes::export(&buffer, 12, 8, DataType::F32, &[2])
                .err()
                .unwrap();
            assert_eq!(
                err.to_string(),
                "a tensor at bytes 12..20 lies outside the buffer of 16 bytes"
            );
        }
    }
}
