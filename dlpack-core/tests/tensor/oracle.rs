//! An independent statement of the documented import rules (the tensor module docs,
//! "Validation" and what reading adds), written from the docs and not from the code under
//! test: which headers a consumer accepts, the bytes each element occupies, and why each read
//! of an accepted header succeeds or fails, in the documented order.
//!
//! It names no item of `dlpack_core`, only integers, so that the fuzz targets include this very
//! file (`fuzz/src/lib.rs`, with `#[path]`) and hold fuzzed headers to the same rules.

/// A header as a producer writes it, field by field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    /// A `DLManagedTensor` (no version, no flags) rather than a `DLManagedTensorVersioned`.
    pub(crate) legacy: bool,
    /// `(major, minor)`, versioned only.
    pub(crate) version: (u32, u32),
    /// The flags word, versioned only.
    pub(crate) flags: u64,
    pub(crate) ndim: i32,
    /// `(code, bits, lanes)`.
    pub(crate) dtype: (u8, u8, u16),
    /// `(device_type, device_id)`.
    pub(crate) device: (i32, i32),
    /// `None` for a null pointer; otherwise the values the pointer reaches (one per dimension
    /// whenever `ndim` is 0 to 64).
    pub(crate) shape: Option<Vec<i64>>,
    pub(crate) strides: Option<Vec<i64>>,
    /// A shape or strides pointer one byte off the alignment of `int64_t`.
    pub(crate) misaligned: Misaligned,
    pub(crate) byte_offset: u64,
}

/// Which metadata pointer, if any, is misaligned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Misaligned {
    Neither,
    Shape,
    Strides,
}

/// The documented rule a header breaks first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Rule {
    /// `from_raw`: the major version is not 1.
    Version,
    /// 1. `ndim` is 0 to 64.
    Ndim,
    /// 2. The data type is one DLPack allows.
    DataType,
    /// 3. `shape` non-null and aligned, no negative dimension, at most `isize::MAX` elements.
    Shape,
    /// 4. `strides` non-null (from DLPack 1.2) and aligned.
    Strides,
    /// 5. Packed sub-byte elements need compact row-major strides.
    Packed,
    /// 6. The extent spans at most `isize::MAX` bytes, and `byte_offset` plus it stays in `isize`.
    Extent,
}

/// Why a read of an accepted header fails first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Fault {
    /// A mutable view of a `READ_ONLY` tensor.
    ReadOnly,
    /// Strides that do not nest, for a mutable `ndarray` view of a disjoint layout.
    NotNested,
    /// The Rust type's data type is not the tensor's.
    DataType,
    /// Mutable access to strides that reach an element from two indices.
    Overlapping,
    /// A slice of strides that are not compact row-major.
    NotContiguous,
    /// Memory the CPU cannot read.
    Device,
    /// Null data with elements.
    NullData,
    /// The extent leaves the address space.
    Address,
    /// `data + byte_offset` not aligned for the Rust type.
    Align,
    /// A `bool` element with a byte other than 0 or 1.
    Bool,
}

/// What the rules say of an accepted header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Verdict {
    pub(crate) shape: Vec<i64>,
    /// The strides given, or compact row-major ones for a null pointer.
    pub(crate) strides: Vec<i64>,
    pub(crate) count: u128,
    /// Bytes per element when elements are byte-aligned.
    pub(crate) itemsize: usize,
    /// Sub-byte elements sharing bytes.
    pub(crate) packed: bool,
    /// Compact row-major (axes of extent 1 aside; any empty tensor).
    pub(crate) contiguous: bool,
    /// The bytes the elements reach, relative to `data` (`byte_offset` included).
    pub(crate) lo: i128,
    pub(crate) hi: i128,
    pub(crate) read_only: bool,
    /// Whether the CPU can read the device's memory.
    pub(crate) host: bool,
    /// A Rust type of the data type, `(code, bits, lanes)`, is compared against this.
    pub(crate) dtype: (u8, u8, u16),
}

/// `(itemsize, sub-byte)` of a data type DLPack allows, or `None`. Codes 0 to 18 are known:
/// int, uint, float and handle take any non-zero width; bfloat 16; complex an even one; bool
/// 8; the eight float8 codes 8; the two float6 codes 6; float4 4; bcomplex 32. Lanes are
/// non-zero.
fn data_type((code, bits, lanes): (u8, u8, u16)) -> Option<(usize, bool)> {
    let width_ok = match code {
        0..=3 => bits != 0,
        4 => bits == 16,
        5 => bits != 0 && bits % 2 == 0,
        6..=14 => bits == 8,
        15 | 16 => bits == 6,
        17 => bits == 4,
        18 => bits == 32,
        _ => false,
    };
    if !width_ok || lanes == 0 {
        return None;
    }
    let size = u32::from(bits) * u32::from(lanes);
    Some((size.div_ceil(8) as usize, size < 8))
}

/// The flags DLPack 1.3 names.
const READ_ONLY: u64 = 1;
const IS_SUBBYTE_TYPE_PADDED: u64 = 4;

/// Device types whose memory the CPU reads: cpu, cuda_host, rocm_host, cuda_managed, tpu_host.
fn host_readable(device_type: i32) -> bool {
    matches!(device_type, 1 | 3 | 11 | 13 | 20)
}

/// The rules, in the documented order.
pub(crate) fn judge(h: &Header) -> Result<Verdict, Rule> {
    if !h.legacy && h.version.0 != 1 {
        return Err(Rule::Version);
    }
    let ndim = usize::try_from(h.ndim)
        .ok()
        .filter(|&n| n <= 64)
        .ok_or(Rule::Ndim)?;
    let (itemsize, sub_byte) = data_type(h.dtype).ok_or(Rule::DataType)?;
    let shape: Vec<i64> = if ndim == 0 {
        Vec::new()
    } else {
        match &h.shape {
            Some(_) if h.misaligned == Misaligned::Shape => return Err(Rule::Shape),
            Some(shape) => shape[..ndim].to_vec(),
            None => return Err(Rule::Shape),
        }
    };
    if shape.iter().any(|&d| d < 0) {
        return Err(Rule::Shape);
    }
    let mut nonzero: u128 = 1;
    for &d in shape.iter().filter(|&&d| d != 0) {
        nonzero *= d as u128;
        if nonzero > isize::MAX as u128 {
            return Err(Rule::Shape);
        }
    }
    let count = if shape.contains(&0) { 0 } else { nonzero };
    // Compact row-major strides, a zero extent counting as one.
    let mut compact = vec![0_i64; ndim];
    let mut step: i128 = 1;
    for k in (0..ndim).rev() {
        compact[k] = step as i64;
        step *= i128::from(shape[k].max(1));
    }
    let strides = if ndim == 0 {
        Vec::new()
    } else {
        match &h.strides {
            Some(_) if h.misaligned == Misaligned::Strides => return Err(Rule::Strides),
            Some(strides) => strides[..ndim].to_vec(),
            None if !h.legacy && (h.version.0, h.version.1) >= (1, 2) => {
                return Err(Rule::Strides);
            }
            None => compact.clone(),
        }
    };
    let flags = if h.legacy { 0 } else { h.flags };
    let packed = sub_byte && flags & IS_SUBBYTE_TYPE_PADDED == 0;
    let contiguous = count == 0 || (0..ndim).all(|k| shape[k] == 1 || strides[k] == compact[k]);
    if packed && !contiguous {
        return Err(Rule::Packed);
    }
    let (lo, hi) = if count == 0 {
        (0, 0)
    } else if packed {
        (
            0,
            (count * u128::from(h.dtype.1) * u128::from(h.dtype.2)).div_ceil(8) as i128,
        )
    } else {
        // The corners of the index box: each axis adds its most negative or most positive
        // reach. Anything past i128 is past isize too.
        let mut lo: i128 = 0;
        let mut hi: i128 = 0;
        for (&d, &s) in shape.iter().zip(&strides) {
            let reach = i128::from(s) * i128::from(d - 1);
            if reach < 0 {
                lo = lo.checked_add(reach).ok_or(Rule::Extent)?;
            } else {
                hi = hi.checked_add(reach).ok_or(Rule::Extent)?;
            }
        }
        let size = itemsize as i128;
        let lo = lo.checked_mul(size).ok_or(Rule::Extent)?;
        let hi = hi
            .checked_add(1)
            .and_then(|hi| hi.checked_mul(size))
            .ok_or(Rule::Extent)?;
        (lo, hi)
    };
    if hi - lo > isize::MAX as i128 {
        return Err(Rule::Extent);
    }
    let offset = i128::from(h.byte_offset);
    let (lo, hi) = (offset + lo, offset + hi);
    if offset > isize::MAX as i128 || hi > isize::MAX as i128 || lo < isize::MIN as i128 {
        return Err(Rule::Extent);
    }
    Ok(Verdict {
        shape,
        strides,
        count,
        itemsize,
        packed,
        contiguous,
        lo,
        hi,
        read_only: flags & READ_ONLY != 0,
        host: host_readable(h.device.0),
        dtype: h.dtype,
    })
}

impl Verdict {
    /// The byte offset of every element from `data`, in row-major index order, or `None`
    /// beyond `limit` elements (and for packed elements, which have no byte address).
    pub(crate) fn offsets(&self, byte_offset: u64, limit: u128) -> Option<Vec<i128>> {
        if self.packed || self.count > limit {
            return None;
        }
        let ndim = self.shape.len();
        let mut offsets = Vec::with_capacity(self.count as usize);
        let mut index = vec![0_i64; ndim];
        for _ in 0..self.count {
            let elements: i128 = index
                .iter()
                .zip(&self.strides)
                .map(|(&i, &s)| i128::from(i) * i128::from(s))
                .sum();
            offsets.push(i128::from(byte_offset) + elements * self.itemsize as i128);
            for k in (0..ndim).rev() {
                index[k] += 1;
                if index[k] < self.shape[k] {
                    break;
                }
                index[k] = 0;
            }
        }
        Some(offsets)
    }

    /// The first fault of reading the memory at `address` from the host (empty tensors are
    /// read without touching memory).
    fn host_fault(&self, address: usize) -> Option<Fault> {
        if !self.host {
            return Some(Fault::Device);
        }
        if self.count == 0 {
            return None;
        }
        if address == 0 {
            return Some(Fault::NullData);
        }
        let inside = |o: i128| (0..=usize::MAX as i128).contains(&(address as i128 + o));
        if !inside(self.lo) || !inside(self.hi) {
            return Some(Fault::Address);
        }
        None
    }

    /// How typed access as a Rust type of data type `ty` and alignment `align` ends, in the
    /// documented order: the data type, contiguity for a slice, the device and address,
    /// alignment, then for `bool` each element's byte. `bool_ok` says whether every element's
    /// bytes are 0 or 1 (asked only when it matters).
    pub(crate) fn typed(
        &self,
        ty: (u8, u8, u16),
        align: usize,
        slice: bool,
        address: usize,
        byte_offset: u64,
        bool_ok: impl FnOnce() -> bool,
    ) -> Result<(), Fault> {
        if ty != self.dtype {
            return Err(Fault::DataType);
        }
        if slice && !self.contiguous {
            return Err(Fault::NotContiguous);
        }
        self.reach(address, byte_offset, align, ty.0 == 6, bool_ok)
    }

    /// The checks after the type and layout: the device and address, alignment, bools.
    fn reach(
        &self,
        address: usize,
        byte_offset: u64,
        align: usize,
        bool_typed: bool,
        bool_ok: impl FnOnce() -> bool,
    ) -> Result<(), Fault> {
        if let Some(fault) = self.host_fault(address) {
            return Err(fault);
        }
        if self.count == 0 {
            return Ok(());
        }
        if (address as u128 + u128::from(byte_offset)) % align as u128 != 0 {
            return Err(Fault::Align);
        }
        if bool_typed && !bool_ok() {
            return Err(Fault::Bool);
        }
        Ok(())
    }

    /// The raw bytes of a compact tensor: contiguity, then the device and address.
    pub(crate) fn bytes(&self, address: usize) -> Result<(), Fault> {
        if !self.contiguous {
            return Err(Fault::NotContiguous);
        }
        self.host_fault(address).map_or(Ok(()), Err)
    }

    /// A copy: the device and address only.
    pub(crate) fn copy(&self, address: usize) -> Result<(), Fault> {
        self.host_fault(address).map_or(Ok(()), Err)
    }

    /// Mutable element access: the data type, then each element reached from one index only
    /// (`distinct`, asked only when it matters), then as [`typed`](Self::typed).
    pub(crate) fn typed_mut(
        &self,
        ty: (u8, u8, u16),
        align: usize,
        address: usize,
        byte_offset: u64,
        distinct: impl FnOnce() -> bool,
        bool_ok: impl FnOnce() -> bool,
    ) -> Result<(), Fault> {
        if ty != self.dtype {
            return Err(Fault::DataType);
        }
        if !distinct() {
            return Err(Fault::Overlapping);
        }
        self.reach(address, byte_offset, align, ty.0 == 6, bool_ok)
    }

    /// A mutable `ndarray` view: strides that nest (sorted by size, each steps past everything
    /// the smaller ones reach; axes of extent 1 aside), else overlapping or not nesting; then
    /// as [`typed`](Self::typed) without contiguity.
    #[cfg(feature = "ndarray")]
    pub(crate) fn array_mut(
        &self,
        ty: (u8, u8, u16),
        align: usize,
        address: usize,
        byte_offset: u64,
        distinct: impl FnOnce() -> bool,
        bool_ok: impl FnOnce() -> bool,
    ) -> Result<(), Fault> {
        if !self.nests() {
            return Err(if distinct() {
                Fault::NotNested
            } else {
                Fault::Overlapping
            });
        }
        self.typed(ty, align, false, address, byte_offset, bool_ok)
    }

    #[cfg(feature = "ndarray")]
    fn nests(&self) -> bool {
        if self.count == 0 {
            return true;
        }
        let mut axes: Vec<(u128, u128)> = self
            .shape
            .iter()
            .zip(&self.strides)
            .filter(|&(&d, _)| d > 1)
            .map(|(&d, &s)| (u128::from(s.unsigned_abs()), d as u128 - 1))
            .collect();
        axes.sort_unstable();
        let mut reach = 0;
        axes.into_iter().all(|(s, last)| {
            let past = s > reach;
            reach = reach.saturating_add(s * last);
            past
        })
    }
}
