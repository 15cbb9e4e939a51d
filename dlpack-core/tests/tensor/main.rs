//! Tests of tensor exchange: hand-built foreign tensors with a counting deleter, round trips,
//! every validation rule, release on every path, and a property test of validation in both
//! directions against an independent oracle (`oracle.rs`, `exercise.rs`, `two_way.rs`, shared
//! with the fuzz targets under `fuzz/`).

use core::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use dlpack_core::ffi::{DLManagedTensor, DLManagedTensorVersioned, DLPackVersion, DLTensor};
use dlpack_core::{DataType, Device, Element, Error, LegacyManagedTensor, ManagedTensor};
use exercise::empty_tensor;

mod borrowed;
mod exercise;
mod false_refusals;
mod malformed;
#[cfg(feature = "ndarray")]
mod ndarray;
mod oracle;
mod pinned;
mod release;
mod roundtrip;
mod two_way;

/// The crate under the paths the fuzz targets know it by, for the files they share with these
/// tests (`oracle.rs`, `exercise.rs`).
mod dlpack {
    pub(crate) use dlpack_core::{
        DataType, Device, Element, Error, LegacyManagedTensor, ManagedTensor, TensorView,
        TensorViewMut, ffi, tensor,
    };
}

/// Counts deleter calls (or owner drops).
#[derive(Clone, Default)]
pub(crate) struct Counter(Arc<AtomicUsize>);

impl Counter {
    pub(crate) fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
    fn bump(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Where a hand-built tensor's data pointer points.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Data {
    /// The start of the buffer.
    Buffer,
    /// Null.
    Null,
    /// An address with no memory behind it (never dereferenced by a passing test).
    Addr(usize),
}

/// A foreign tensor, built by hand the way a C producer would, field by field.
#[derive(Clone, Debug)]
pub(crate) struct Foreign {
    pub(crate) buffer: Vec<u128>,
    pub(crate) data: Data,
    pub(crate) device: Device,
    pub(crate) dtype: DataType,
    pub(crate) ndim: Option<i32>,
    pub(crate) shape: Option<Vec<i64>>,
    pub(crate) strides: Option<Vec<i64>>,
    pub(crate) byte_offset: u64,
    pub(crate) flags: u64,
    pub(crate) version: DLPackVersion,
    /// Misalign the shape or strides pointer by one byte.
    pub(crate) misalign: Option<&'static str>,
}

impl Foreign {
    /// `bytes` (16-byte aligned, enough for every `Element`) as a compact tensor of `dtype` and `shape`, with strides,
    /// version 1.3.
    pub(crate) fn bytes(bytes: &[u8], dtype: DataType, shape: &[i64]) -> Self {
        let mut buffer = vec![0u128; bytes.len().div_ceil(16).max(1)];
        let raw = buffer.as_mut_ptr().cast::<u8>();
        for (i, b) in bytes.iter().enumerate() {
            // SAFETY: `i < bytes.len() <= buffer.len() * 16`.
            unsafe { raw.add(i).write(*b) };
        }
        Self {
            buffer,
            data: Data::Buffer,
            device: Device::CPU,
            dtype,
            ndim: None,
            shape: Some(shape.to_vec()),
            strides: Some(compact_strides(shape)),
            byte_offset: 0,
            flags: 0,
            version: DLPackVersion::CURRENT,
            misalign: None,
        }
    }

    /// Elements of `T` as a compact tensor of `shape`.
    pub(crate) fn of<T: Element>(values: &[T], shape: &[i64]) -> Self {
        // SAFETY: `Element` types are plain data whose bytes are all initialised.
        let bytes = unsafe {
            core::slice::from_raw_parts(values.as_ptr().cast::<u8>(), size_of_val(values))
        };
        Self::bytes(bytes, T::DATA_TYPE, shape)
    }

    pub(crate) fn strides(mut self, strides: Option<&[i64]>) -> Self {
        self.strides = strides.map(<[i64]>::to_vec);
        self
    }

    /// Builds the `DLTensor` pointing into `parts`' vectors.
    fn dl_tensor(
        &self,
        buffer: &mut Vec<u128>,
        shape: &mut Vec<i64>,
        strides: &mut Vec<i64>,
    ) -> DLTensor {
        let shift = |p: *mut i64, field: &str| -> *mut i64 {
            if self.misalign == Some(field) {
                p.cast::<u8>().wrapping_add(1).cast()
            } else {
                p
            }
        };
        DLTensor {
            data: match self.data {
                Data::Buffer => buffer.as_mut_ptr().cast::<c_void>(),
                Data::Null => core::ptr::null_mut(),
                Data::Addr(a) => core::ptr::without_provenance_mut(a),
            },
            device: self.device,
            ndim: self
                .ndim
                .unwrap_or(self.shape.as_ref().map_or(0, |s| s.len() as i32)),
            dtype: self.dtype,
            shape: match self.shape {
                Some(_) => shift(shape.as_mut_ptr(), "shape"),
                None => core::ptr::null_mut(),
            },
            strides: match self.strides {
                Some(_) => shift(strides.as_mut_ptr(), "strides"),
                None => core::ptr::null_mut(),
            },
            byte_offset: self.byte_offset,
        }
    }

    /// Hands the tensor over as a `DLManagedTensorVersioned`, with a deleter that counts.
    pub(crate) fn versioned(self) -> (*mut DLManagedTensorVersioned, Counter) {
        let counter = Counter::default();
        let mut b = Box::new(Versioned {
            managed: DLManagedTensorVersioned {
                version: self.version,
                manager_ctx: core::ptr::null_mut(),
                deleter: Some(release_versioned),
                flags: self.flags,
                dl_tensor: empty_tensor(),
            },
            buffer: self.buffer.clone(),
            shape: self.shape.clone().unwrap_or_default(),
            strides: self.strides.clone().unwrap_or_default(),
            released: counter.clone(),
        });
        let v = &mut *b;
        v.managed.dl_tensor = self.dl_tensor(&mut v.buffer, &mut v.shape, &mut v.strides);
        (Box::into_raw(b).cast(), counter)
    }

    /// Hands the tensor over as a legacy `DLManagedTensor` (version and flags ignored).
    pub(crate) fn legacy(self) -> (*mut DLManagedTensor, Counter) {
        let counter = Counter::default();
        let mut b = Box::new(Legacy {
            managed: DLManagedTensor {
                dl_tensor: empty_tensor(),
                manager_ctx: core::ptr::null_mut(),
                deleter: Some(release_legacy),
            },
            buffer: self.buffer.clone(),
            shape: self.shape.clone().unwrap_or_default(),
            strides: self.strides.clone().unwrap_or_default(),
            released: counter.clone(),
        });
        let v = &mut *b;
        v.managed.dl_tensor = self.dl_tensor(&mut v.buffer, &mut v.shape, &mut v.strides);
        (Box::into_raw(b).cast(), counter)
    }

    /// Imports the tensor as a versioned one: the result of `from_raw` and the counter.
    pub(crate) fn import(self) -> (Result<ManagedTensor, Error>, Counter) {
        let (ptr, counter) = self.versioned();
        // SAFETY: a freshly built tensor handed over once.
        (unsafe { ManagedTensor::from_raw(ptr) }, counter)
    }

    /// Imports the tensor as a legacy one.
    pub(crate) fn import_legacy(self) -> (LegacyManagedTensor, Counter) {
        let (ptr, counter) = self.legacy();
        // SAFETY: a freshly built tensor handed over once.
        let tensor = unsafe { LegacyManagedTensor::from_raw(ptr) }.expect("non-null");
        (tensor, counter)
    }
}

/// The producer's context: the managed struct first, so the deleter can cast back.
#[repr(C)]
struct Versioned {
    managed: DLManagedTensorVersioned,
    buffer: Vec<u128>,
    shape: Vec<i64>,
    strides: Vec<i64>,
    released: Counter,
}

#[repr(C)]
struct Legacy {
    managed: DLManagedTensor,
    buffer: Vec<u128>,
    shape: Vec<i64>,
    strides: Vec<i64>,
    released: Counter,
}

unsafe extern "C" fn release_versioned(p: *mut DLManagedTensorVersioned) {
    // SAFETY: `p` came from `Box::into_raw` of a `Versioned` (first field), released once.
    let b = unsafe { Box::from_raw(p.cast::<Versioned>()) };
    b.released.bump();
}

unsafe extern "C" fn release_legacy(p: *mut DLManagedTensor) {
    // SAFETY: as above, for `Legacy`.
    let b = unsafe { Box::from_raw(p.cast::<Legacy>()) };
    b.released.bump();
}

/// An owner for exports that counts its drops and can misbehave.
pub(crate) struct Probe {
    pub(crate) data: Vec<u8>,
    pub(crate) dtype: DataType,
    pub(crate) shape: Vec<i64>,
    pub(crate) strides: Option<Vec<i64>>,
    pub(crate) flags: dlpack_core::tensor::Flags,
    /// Panic on the nth call of `describe` (1-based).
    pub(crate) panic_on: Option<usize>,
    /// Describe one more dimension from the second call on.
    pub(crate) grow: bool,
    pub(crate) calls: usize,
    pub(crate) _drops: Dropped,
}

/// Counts its own drop.
pub(crate) struct Dropped(Counter);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.bump();
    }
}

impl Probe {
    pub(crate) fn new(shape: &[i64], drops: &Counter) -> Self {
        let count: i64 = shape.iter().product();
        Self {
            data: vec![7; count.max(0) as usize],
            dtype: DataType::U8,
            shape: shape.to_vec(),
            strides: None,
            flags: dlpack_core::tensor::Flags::EMPTY,
            panic_on: None,
            grow: false,
            calls: 0,
            _drops: Dropped(drops.clone()),
        }
    }
}

// SAFETY: the Vec's bytes are all the elements any test's shape and strides reach (tests that
// describe more are refused before the memory is touched), owned by the probe alone.
unsafe impl dlpack_core::tensor::TensorOwner for Probe {
    fn describe(&mut self) -> dlpack_core::tensor::TensorParts<'_> {
        self.calls += 1;
        if self.panic_on == Some(self.calls) {
            panic!("describe panicked on call {}", self.calls);
        }
        let shape: &[i64] = if self.grow && self.calls > 1 {
            self.shape.push(1);
            &self.shape
        } else {
            &self.shape
        };
        let parts = dlpack_core::tensor::TensorParts::new(
            self.data.as_mut_ptr().cast(),
            Device::CPU,
            self.dtype,
            shape,
        )
        .with_flags(self.flags);
        match &self.strides {
            Some(s) => parts.with_strides(s),
            None => parts,
        }
    }
}

/// Compact row-major strides of `shape`, as an importer reads null strides (a dimension of 0
/// or 1 counts as 1).
pub(crate) fn compact_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![0; shape.len()];
    let mut step: i64 = 1;
    for (stride, &dim) in strides.iter_mut().zip(shape).rev() {
        *stride = step;
        step = step.saturating_mul(dim.max(1));
    }
    strides
}
