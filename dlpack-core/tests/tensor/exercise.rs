//! One header, built in real memory the way a C producer builds it, run through import,
//! validation and every data accessor, each result held to the [oracle](super::oracle): a
//! header is accepted exactly when the oracle accepts it (refused for the rule the oracle
//! names), every read succeeds or fails as the oracle says, every successful read returns the
//! oracle's bytes, writes land on the oracle's bytes and nowhere else, and the deleter runs
//! exactly once.
//!
//! Reads are made only when the oracle places every byte the elements reach inside the case's
//! memory (or when nothing is read: an empty tensor, another device, null data), and element
//! by element only up to [`LIMIT`] elements: a broadcast may name 2^60 elements in 8 bytes.
//!
//! Written against the crate's public paths (`super::dlpack`), so that the fuzz targets include
//! this file as the `cargo test` suite does.

use core::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::dlpack::ffi::{
    DLDataTypeCode, DLDeviceType, DLManagedTensor, DLManagedTensorVersioned, DLPackVersion,
    DLTensor,
};
use super::dlpack::tensor::{Flags, TensorError, ToDlpackTensor};
use super::dlpack::{
    DataType, Device, Element, Error, LegacyManagedTensor, ManagedTensor, TensorView, TensorViewMut,
};
use super::oracle::{self, Fault, Header, Misaligned, Rule, Verdict};

/// Element-wise reads and mutable access stop here.
pub(crate) const LIMIT: u128 = 4096;

/// Calls `$each! { type = code, bits; ... }` with every Rust element type and its data type.
macro_rules! element_types {
    ($each:ident) => {
        $each! {
            bool = 6, 8; u8 = 1, 8; i8 = 0, 8; u16 = 1, 16; i16 = 0, 16; u32 = 1, 32;
            i32 = 0, 32; u64 = 1, 64; i64 = 0, 64; f32 = 2, 32; f64 = 2, 64;
        }
        #[cfg(feature = "half")]
        $each! { half::f16 = 2, 16; half::bf16 = 4, 16; }
        #[cfg(feature = "num-complex")]
        $each! { num_complex::Complex<f32> = 5, 64; num_complex::Complex<f64> = 5, 128; }
    };
}

/// Data types worth generating, `(code, bits, lanes)`: those of the Rust element types...
pub(crate) const RUST_DTYPES: &[(u8, u8, u16)] = &[
    (6, 8, 1),
    (1, 8, 1),
    (0, 8, 1),
    (1, 16, 1),
    (0, 16, 1),
    (1, 32, 1),
    (0, 32, 1),
    (1, 64, 1),
    (0, 64, 1),
    (2, 16, 1),
    (2, 32, 1),
    (2, 64, 1),
    (4, 16, 1),
    (5, 64, 1),
    (5, 128, 1),
];

/// ...other valid ones: fp8, bcomplex, handle, lanes, sub-byte (int4, uint1, int3, fp6, fp4)...
pub(crate) const OTHER_DTYPES: &[(u8, u8, u16)] = &[
    (7, 8, 1),
    (14, 8, 1),
    (18, 32, 1),
    (3, 64, 1),
    (2, 16, 3),
    (2, 32, 4),
    (0, 4, 1),
    (1, 1, 1),
    (0, 3, 1),
    (15, 6, 1),
    (16, 6, 1),
    (17, 4, 1),
    (17, 4, 2),
];

/// ...and invalid ones: codes past 18, zero bits and lanes, widths a code does not take.
pub(crate) const INVALID_DTYPES: &[(u8, u8, u16)] = &[
    (19, 8, 1),
    (20, 8, 1),
    (21, 8, 1),
    (255, 8, 1),
    (2, 0, 1),
    (2, 32, 0),
    (4, 32, 1),
    (5, 63, 1),
    (6, 1, 1),
    (7, 16, 1),
    (17, 8, 1),
    (18, 16, 1),
];

/// Devices, `(device_type, id)`: host-readable (cpu, cuda_host, rocm_host, cuda_managed,
/// tpu_host) and not (cuda, rocm, trn, tpu, ascend, an unknown type).
pub(crate) const DEVICES: &[(i32, i32)] = &[
    (1, 0),
    (1, 7),
    (3, 0),
    (11, 0),
    (13, 0),
    (20, 0),
    (2, 0),
    (10, 1),
    (18, 0),
    (19, 0),
    (21, 1),
    (255, 0),
];

/// Compact row-major strides for `shape` rearranged as producers rearrange them: axes rotated
/// by `rotate`, those whose bit is set in `mirror` reversed, all scaled by `scale`, and one
/// broadcast (stride 0).
pub(crate) fn rearranged(
    shape: &[i64],
    rotate: usize,
    mirror: u64,
    scale: i64,
    broadcast: Option<usize>,
) -> Vec<i64> {
    let n = shape.len();
    let mut compact = vec![0_i64; n];
    let mut step = 1_i64;
    for k in (0..n).rev() {
        compact[k] = step;
        step = step.saturating_mul(shape[k].max(1));
    }
    let mut strides: Vec<i64> = (0..n)
        .map(|k| compact[(k + rotate) % n].saturating_mul(scale))
        .collect();
    for (k, s) in strides.iter_mut().enumerate() {
        if mirror >> (k % 64) & 1 == 1 {
            *s = -*s;
        }
    }
    if let Some(b) = broadcast.filter(|&b| b < n) {
        strides[b] = 0;
    }
    strides
}

/// A header and the memory its data pointer points into.
#[derive(Clone, Debug)]
pub(crate) struct Case {
    pub(crate) header: Header,
    /// The producer's bytes, kept 16-byte aligned.
    pub(crate) memory: Vec<u8>,
    /// `data` is `memory + at`, or null for `None`.
    pub(crate) data_at: Option<usize>,
}

/// What a case came to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// The rule a refused header broke.
    pub(crate) refused: Option<Rule>,
    /// Whether the accepted view's bytes were read.
    pub(crate) read: bool,
    /// Reads that succeeded, and each fault seen.
    pub(crate) reads: usize,
    pub(crate) faults: Vec<Fault>,
    /// Mutable element accesses that wrote every element.
    pub(crate) writes: usize,
}

/// Runs `case`; panics where the crate and the oracle disagree.
pub(crate) fn run(case: &Case) -> Outcome {
    let released = Arc::new(AtomicUsize::new(0));
    let verdict = oracle::judge(&case.header);
    let mut outcome = Outcome::default();
    if case.header.legacy {
        let built = build(case, &released, legacy_header());
        // SAFETY: a freshly built tensor handed over once.
        let tensor = unsafe { LegacyManagedTensor::from_raw(built.managed) };
        exercise(
            case,
            &verdict,
            tensor.expect("non-null"),
            &built,
            &mut outcome,
        );
    } else {
        let h = &case.header;
        let header = versioned_header(h.version, h.flags);
        let built = build(case, &released, header);
        // SAFETY: as above.
        match unsafe { ManagedTensor::from_raw(built.managed) } {
            Ok(tensor) => {
                assert_eq!(tensor.flags().bits(), h.flags, "flags are kept");
                exercise(case, &verdict, tensor, &built, &mut outcome);
            }
            Err(err) => {
                assert_eq!(verdict, Err(Rule::Version), "from_raw refused it: {err}");
                assert_eq!(rule_of(&err), Some(Rule::Version), "{err}");
                outcome.refused = Some(Rule::Version);
            }
        }
    }
    assert_eq!(released.load(Ordering::SeqCst), 1, "released exactly once");
    outcome
}

/// What the versioned and the legacy tensor share.
trait Tensor {
    fn view(&self) -> Result<TensorView<'_>, Error>;
    fn view_mut(&mut self) -> Result<TensorViewMut<'_>, Error>;
}

impl Tensor for ManagedTensor {
    fn view(&self) -> Result<TensorView<'_>, Error> {
        ManagedTensor::view(self)
    }
    fn view_mut(&mut self) -> Result<TensorViewMut<'_>, Error> {
        ManagedTensor::view_mut(self)
    }
}

impl Tensor for LegacyManagedTensor {
    fn view(&self) -> Result<TensorView<'_>, Error> {
        LegacyManagedTensor::view(self)
    }
    fn view_mut(&mut self) -> Result<TensorViewMut<'_>, Error> {
        LegacyManagedTensor::view_mut(self)
    }
}

/// The view and its refusals, every read, then mutable access; drops the tensor.
fn exercise<T: Tensor, M>(
    case: &Case,
    verdict: &Result<Verdict, Rule>,
    mut tensor: T,
    built: &Built<M>,
    outcome: &mut Outcome,
) {
    let h = &case.header;
    let refused_mutably = tensor.view_mut().err();
    let view = tensor.view();
    let v = match (view, verdict) {
        (Err(err), Err(rule)) => {
            assert_eq!(
                rule_of(&err),
                Some(*rule),
                "refused for another rule: {err}"
            );
            // A mutable view refuses READ_ONLY before anything else.
            let read_only = !h.legacy && h.flags & 1 == 1;
            let err = refused_mutably.expect("a refused header has no mutable view");
            if read_only {
                assert_eq!(fault_of(&err), Some(Fault::ReadOnly), "{err}");
            } else {
                assert_eq!(rule_of(&err), Some(*rule), "mutable view: {err}");
            }
            outcome.refused = Some(*rule);
            return;
        }
        (Ok(view), Ok(v)) => {
            metadata(case, v, &view, built.address);
            if readable(case, v) {
                outcome.read = true;
                reads(
                    &Reader::new(case, v, &case.memory),
                    &view,
                    built.address,
                    outcome,
                );
            }
            v
        }
        (Ok(view), Err(rule)) => panic!("accepted, though it breaks {rule:?}: {view:?}"),
        (Err(err), Ok(_)) => panic!("refused, though the oracle accepts it: {err}"),
    };
    match refused_mutably {
        None => assert!(!v.read_only, "a mutable view of a READ_ONLY tensor"),
        Some(err) => {
            assert!(v.read_only, "mutable view refused: {err}");
            assert_eq!(fault_of(&err), Some(Fault::ReadOnly), "{err}");
            outcome.faults.push(Fault::ReadOnly);
            return;
        }
    }
    if readable(case, v) {
        let mut memory = case.memory.clone();
        let view = tensor.view_mut().expect("checked above");
        writes(case, v, view, built, &mut memory, outcome);
    }
}

/// The metadata, as the oracle reads it.
fn metadata(case: &Case, v: &Verdict, view: &TensorView<'_>, address: usize) {
    let h = &case.header;
    assert_eq!(view.shape(), v.shape);
    assert_eq!(view.strides(), v.strides);
    assert_eq!((view.ndim(), view.len() as u128), (v.shape.len(), v.count));
    assert_eq!(view.is_empty(), v.count == 0);
    let (code, bits, lanes) = h.dtype;
    assert_eq!(
        view.dtype(),
        DataType::new(DLDataTypeCode(code), bits, lanes)
    );
    assert_eq!(
        view.device(),
        Device::new(DLDeviceType(h.device.0), h.device.1)
    );
    let flags = if h.legacy { 0 } else { h.flags };
    assert_eq!(view.flags(), Flags::from_bits_retain(flags));
    assert_eq!(view.byte_offset(), h.byte_offset);
    let range = view.byte_range();
    assert_eq!((range.start as i128, range.end as i128), (v.lo, v.hi));
    assert_eq!(
        (view.is_compact(), view.is_packed()),
        (v.contiguous, v.packed)
    );
    assert_eq!(view.data_ptr().addr(), address);
}

/// Whether reading is safe: nothing is read, or every byte lies in the case's memory.
fn readable(case: &Case, v: &Verdict) -> bool {
    let Some(at) = case.data_at else {
        return true; // null: refused, or empty
    };
    if v.count == 0 || !v.host {
        return true;
    }
    let at = at as i128;
    at + v.lo >= 0 && at + v.hi <= case.memory.len() as i128
}

/// The oracle's bytes of an accepted, readable case, from `memory` (the case's, as written
/// so far).
struct Reader<'c> {
    v: &'c Verdict,
    memory: &'c [u8],
    at: usize,
    byte_offset: u64,
    offsets: Option<Vec<i128>>,
}

impl<'c> Reader<'c> {
    fn new(case: &Case, v: &'c Verdict, memory: &'c [u8]) -> Self {
        Self {
            v,
            memory,
            at: case.data_at.unwrap_or(0),
            byte_offset: case.header.byte_offset,
            offsets: v.offsets(case.header.byte_offset, LIMIT),
        }
    }

    fn range(&self, offset: i128) -> core::ops::Range<usize> {
        let start = (self.at as i128 + offset) as usize;
        start..start + self.v.itemsize
    }

    fn offsets(&self) -> &[i128] {
        self.offsets.as_deref().expect("enumerated")
    }

    /// Every element's bytes, in row-major index order.
    fn elements(&self) -> Vec<u8> {
        let ranges = self.offsets().iter().map(|&o| self.range(o));
        ranges
            .flat_map(|r| self.memory[r].iter().copied())
            .collect()
    }

    fn bools_ok(&self) -> bool {
        match &self.offsets {
            Some(offsets) => offsets
                .iter()
                .all(|&o| self.memory[self.range(o)].iter().all(|&b| b <= 1)),
            None => true, // not asked: past LIMIT only early faults are compared
        }
    }

    fn distinct(&self) -> bool {
        match &self.offsets {
            Some(offsets) => {
                let mut sorted = offsets.clone();
                sorted.sort_unstable();
                sorted.windows(2).all(|w| w[0] != w[1])
            }
            None => true, // as above
        }
    }

    /// The bytes from the lowest to one past the highest the elements reach.
    fn span(&self) -> &'c [u8] {
        if self.v.count == 0 {
            return &[];
        }
        let at = self.at as i128;
        &self.memory[(at + self.v.lo) as usize..(at + self.v.hi) as usize]
    }

    /// Whether an accessor with this prediction may be called: the elements are enumerated,
    /// or it fails before reaching them (a broadcast may name 2^60 elements).
    fn callable(&self, predicted: Result<(), Fault>, early: &[Fault]) -> bool {
        self.offsets.is_some() || predicted.is_err_and(|f| early.contains(&f))
    }
}

/// Faults found before any element is reached.
const EARLY: &[Fault] = &[
    Fault::DataType,
    Fault::NotContiguous,
    Fault::Device,
    Fault::NullData,
    Fault::Address,
    Fault::Align,
];

/// Every read of a view: typed as each Rust element type, raw bytes, and a copy.
fn reads(r: &Reader<'_>, view: &TensorView<'_>, address: usize, outcome: &mut Outcome) {
    macro_rules! each {
        ($($t:ty = $code:expr, $bits:expr;)*) => {$(
            typed::<$t>(r, ($code, $bits, 1), view, address, outcome);
        )*};
    }
    element_types!(each);

    let v = r.v;
    expect(outcome, v.bytes(address), view.as_bytes(), |bytes| {
        assert_eq!(bytes, r.span());
    });
    if v.count <= LIMIT {
        expect(outcome, v.copy(address), view.to_dlpack_tensor(), |copy| {
            assert_eq!(
                copy.flags() - Flags::IS_SUBBYTE_TYPE_PADDED,
                Flags::IS_COPIED
            );
            let copied = copy.view().expect("a copy is valid");
            assert_eq!(copied.shape(), v.shape);
            let expected = if v.packed {
                r.span().to_vec()
            } else {
                r.elements()
            };
            assert_eq!(copied.as_bytes().expect("compact"), expected);
        });
    }
}

/// `as_slice`, `iter`, `to_vec` and `as_array` as `T`, whose data type is `ty`.
fn typed<T: Element>(
    r: &Reader<'_>,
    ty: (u8, u8, u16),
    view: &TensorView<'_>,
    address: usize,
    outcome: &mut Outcome,
) {
    assert_eq!(
        T::DATA_TYPE,
        DataType::new(DLDataTypeCode(ty.0), ty.1, ty.2)
    );
    let (v, align, offset) = (r.v, align_of::<T>(), r.byte_offset);
    let slice = v.typed(ty, align, true, address, offset, || r.bools_ok());
    if r.callable(slice, EARLY) {
        expect(outcome, slice, view.as_slice::<T>(), |s| {
            assert_eq!(bytes_of(s), r.elements());
        });
    }
    let strided = v.typed(ty, align, false, address, offset, || r.bools_ok());
    if r.callable(strided, EARLY) {
        expect(outcome, strided, view.iter::<T>(), |iter| {
            assert_eq!(bytes_of(&iter.collect::<Vec<T>>()), r.elements());
        });
        expect(outcome, strided, view.to_vec::<T>(), |values| {
            assert_eq!(bytes_of(&values), r.elements());
        });
        #[cfg(feature = "ndarray")]
        expect(outcome, strided, view.as_array::<T>(), |array| {
            let values: Vec<T> = array.iter().copied().collect();
            assert_eq!(bytes_of(&values), r.elements());
        });
    }
}

/// Mutable access: slices, raw bytes, and every element written once through `iter_mut` and
/// a mutable `ndarray` view, each checked against the memory afterwards.
fn writes<M>(
    case: &Case,
    v: &Verdict,
    mut view: TensorViewMut<'_>,
    built: &Built<M>,
    memory: &mut [u8],
    outcome: &mut Outcome,
) {
    macro_rules! each {
        ($($t:ty = $code:expr, $bits:expr;)*) => {$(
            typed_mut::<$t, M>(case, v, ($code, $bits, 1), &mut view, built, memory, outcome);
        )*};
    }
    element_types!(each);

    let r = Reader::new(case, v, memory);
    expect(
        outcome,
        v.bytes(built.address),
        view.as_bytes_mut(),
        |bytes| {
            assert_eq!(bytes, r.span());
        },
    );
}

/// `as_slice_mut`, `iter_mut` and `as_array_mut` as `T`.
fn typed_mut<T: Element, M>(
    case: &Case,
    v: &Verdict,
    ty: (u8, u8, u16),
    view: &mut TensorViewMut<'_>,
    built: &Built<M>,
    memory: &mut [u8],
    outcome: &mut Outcome,
) {
    let (address, align, offset) = (built.address, align_of::<T>(), case.header.byte_offset);
    let r = Reader::new(case, v, memory);
    let slice = v.typed(ty, align, true, address, offset, || r.bools_ok());
    if r.callable(slice, EARLY) {
        expect(outcome, slice, view.as_slice_mut::<T>(), |s| {
            assert_eq!(bytes_of(s), r.elements());
        });
    }
    // Written: each byte inverted (a bool's lowest bit, so that it stays a bool).
    let flip = |b: u8| if ty.0 == 6 { b ^ 1 } else { !b };
    let each = v.typed_mut(ty, align, address, offset, || r.distinct(), || r.bools_ok());
    let mut wrote = false;
    if r.callable(each, &[Fault::DataType]) {
        expect(outcome, each, view.iter_mut::<T>(), |iter| {
            iter.for_each(|x| flip_bytes(x, flip));
            wrote = true;
        });
    }
    #[cfg(feature = "ndarray")]
    let mut wrote_array = false;
    #[cfg(feature = "ndarray")]
    {
        let array = v.array_mut(ty, align, address, offset, || r.distinct(), || r.bools_ok());
        if r.callable(array, &[Fault::DataType]) {
            expect(outcome, array, view.as_array_mut::<T>(), |mut a| {
                a.iter_mut().for_each(|x| flip_bytes(x, flip));
                wrote_array = true;
            });
        }
    }
    #[cfg(not(feature = "ndarray"))]
    let wrote_array = false;
    let passes = usize::from(wrote) + usize::from(wrote_array);
    if passes > 0 {
        let offsets = r.offsets().to_vec();
        let ranges: Vec<_> = offsets.iter().map(|&o| r.range(o)).collect();
        for _ in 0..passes {
            for range in &ranges {
                memory[range.clone()].iter_mut().for_each(|b| *b = flip(*b));
            }
        }
        // SAFETY: the producer's memory lives until the tensor is dropped, and no reference
        // into it is alive: the mutable iterator and array have ended.
        let now = unsafe { core::slice::from_raw_parts(built.memory, case.memory.len()) };
        assert_eq!(now, &*memory, "each element written once, nothing else");
        outcome.writes += passes;
    }
}

/// Applies `flip` to each byte of `x`.
fn flip_bytes<T: Element>(x: &mut T, flip: impl Fn(u8) -> u8) {
    let p = (x as *mut T).cast::<u8>();
    for i in 0..size_of::<T>() {
        // SAFETY: within `x`; the result is a valid `T` (every bit pattern of the Rust element
        // types but `bool`, whose lowest bit alone `flip` changes).
        unsafe { p.add(i).write(flip(p.add(i).read())) };
    }
}

/// The bytes of plain-data values.
fn bytes_of<T: Element>(values: &[T]) -> Vec<u8> {
    // SAFETY: `Element` types are plain data, every byte initialised.
    unsafe { core::slice::from_raw_parts(values.as_ptr().cast::<u8>(), size_of_val(values)) }
        .to_vec()
}

/// Compares an accessor's result with the oracle's prediction; `ok` checks a success.
fn expect<X>(
    outcome: &mut Outcome,
    predicted: Result<(), Fault>,
    actual: Result<X, Error>,
    ok: impl FnOnce(X),
) {
    match (predicted, actual) {
        (Ok(()), Ok(x)) => {
            ok(x);
            outcome.reads += 1;
        }
        (Err(fault), Err(err)) => {
            assert_eq!(
                fault_of(&err),
                Some(fault),
                "refused for another reason: {err}"
            );
            outcome.faults.push(fault);
        }
        (Ok(()), Err(err)) => panic!("refused, though the oracle allows it: {err}"),
        (Err(fault), Ok(_)) => panic!("allowed, though the oracle expects {fault:?}"),
    }
}

/// The rule a validation error reports.
fn rule_of(err: &Error) -> Option<Rule> {
    let Error::Tensor(err) = err else {
        return None;
    };
    Some(match err {
        TensorError::UnsupportedVersion { .. } => Rule::Version,
        TensorError::Ndim { .. } => Rule::Ndim,
        TensorError::InvalidDataType { .. } => Rule::DataType,
        TensorError::NullShape { .. }
        | TensorError::NegativeDim { .. }
        | TensorError::TooManyElements { .. }
        | TensorError::MisalignedMetadata { field: "shape", .. } => Rule::Shape,
        TensorError::NullStrides { .. } | TensorError::MisalignedMetadata { .. } => Rule::Strides,
        TensorError::PackedStrides { .. } => Rule::Packed,
        TensorError::ExtentOverflow { .. } | TensorError::ByteOffsetOverflow { .. } => Rule::Extent,
        _ => return None,
    })
}

/// The fault a read error reports.
fn fault_of(err: &Error) -> Option<Fault> {
    let Error::Tensor(err) = err else {
        return None;
    };
    Some(match err {
        TensorError::ReadOnly => Fault::ReadOnly,
        TensorError::NotNested { .. } => Fault::NotNested,
        TensorError::DataTypeMismatch { .. } => Fault::DataType,
        TensorError::Overlapping { .. } => Fault::Overlapping,
        TensorError::NotContiguous { .. } => Fault::NotContiguous,
        TensorError::NotHostAccessible { .. } => Fault::Device,
        TensorError::NullData { .. } => Fault::NullData,
        TensorError::AddressOverflow { .. } => Fault::Address,
        TensorError::Misaligned { .. } => Fault::Align,
        TensorError::InvalidBool { .. } => Fault::Bool,
        _ => return None,
    })
}

/// A built producer: the managed struct to hand over, and what the test keeps to look at.
struct Built<M> {
    managed: *mut M,
    /// The data pointer's address.
    address: usize,
    /// The start of the producer's memory, to compare after writes.
    memory: *const u8,
}

/// The producer's allocation: the managed struct first, so the deleter can cast back.
#[repr(C)]
struct Producer<M> {
    managed: M,
    memory: Vec<u128>,
    shape: Vec<i64>,
    strides: Vec<i64>,
    released: Arc<AtomicUsize>,
}

/// Builds `case` around `managed`.
fn build<M: Managed>(case: &Case, released: &Arc<AtomicUsize>, managed: M) -> Built<M> {
    let h = &case.header;
    let mut memory = vec![0_u128; case.memory.len().div_ceil(16).max(1)];
    // SAFETY: the Vec holds at least `case.memory.len()` bytes.
    unsafe {
        core::ptr::copy_nonoverlapping(
            case.memory.as_ptr(),
            memory.as_mut_ptr().cast::<u8>(),
            case.memory.len(),
        );
    }
    // One spare value behind each array, so that a misaligned pointer still points inside.
    let padded = |v: &Option<Vec<i64>>| v.iter().flatten().copied().chain([0]).collect();
    let b = Box::into_raw(Box::new(Producer {
        managed,
        memory,
        shape: padded(&h.shape),
        strides: padded(&h.strides),
        released: Arc::clone(released),
    }));
    // SAFETY: fresh and ours; every pointer stored points into the same allocation.
    unsafe {
        let array = |v: &mut Vec<i64>, given: bool, misaligned: bool| -> *mut i64 {
            match (given, misaligned) {
                (false, _) => core::ptr::null_mut(),
                (true, false) => v.as_mut_ptr(),
                (true, true) => v.as_mut_ptr().cast::<u8>().wrapping_add(1).cast(),
            }
        };
        let base = (*b).memory.as_mut_ptr().cast::<u8>();
        let data: *mut c_void = match case.data_at {
            Some(at) => base.wrapping_add(at).cast(),
            None => core::ptr::null_mut(),
        };
        let shape = array(
            &mut (*b).shape,
            h.shape.is_some(),
            h.misaligned == Misaligned::Shape,
        );
        let strides = array(
            &mut (*b).strides,
            h.strides.is_some(),
            h.misaligned == Misaligned::Strides,
        );
        M::tensor(&raw mut (*b).managed).write(DLTensor {
            data,
            device: Device::new(DLDeviceType(h.device.0), h.device.1),
            ndim: h.ndim,
            dtype: DataType::new(DLDataTypeCode(h.dtype.0), h.dtype.1, h.dtype.2),
            shape,
            strides,
            byte_offset: h.byte_offset,
        });
        M::set_deleter(&raw mut (*b).managed);
        Built {
            managed: b.cast(),
            address: data.addr(),
            memory: base,
        }
    }
}

/// The two managed structs: where the tensor is, and a deleter that frees the [`Producer`].
///
/// # Safety (of both functions)
///
/// `managed` is the first field of a live, boxed `Producer<Self>`.
trait Managed: Sized {
    unsafe fn tensor(managed: *mut Self) -> *mut DLTensor;
    unsafe fn set_deleter(managed: *mut Self);
}

impl Managed for DLManagedTensorVersioned {
    unsafe fn tensor(managed: *mut Self) -> *mut DLTensor {
        // SAFETY: the caller's contract.
        unsafe { &raw mut (*managed).dl_tensor }
    }
    unsafe fn set_deleter(managed: *mut Self) {
        // SAFETY: the caller's contract.
        unsafe { (*managed).deleter = Some(release::<Self>) };
    }
}

impl Managed for DLManagedTensor {
    unsafe fn tensor(managed: *mut Self) -> *mut DLTensor {
        // SAFETY: the caller's contract.
        unsafe { &raw mut (*managed).dl_tensor }
    }
    unsafe fn set_deleter(managed: *mut Self) {
        // SAFETY: the caller's contract.
        unsafe { (*managed).deleter = Some(release::<Self>) };
    }
}

unsafe extern "C" fn release<M>(managed: *mut M) {
    // SAFETY: `managed` is the first field (repr(C)) of a `Producer<M>` from `Box::into_raw`,
    // released once.
    let b = unsafe { Box::from_raw(managed.cast::<Producer<M>>()) };
    b.released.fetch_add(1, Ordering::SeqCst);
}

fn versioned_header((major, minor): (u32, u32), flags: u64) -> DLManagedTensorVersioned {
    DLManagedTensorVersioned {
        version: DLPackVersion { major, minor },
        manager_ctx: core::ptr::null_mut(),
        deleter: None,
        flags,
        dl_tensor: empty_tensor(),
    }
}

fn legacy_header() -> DLManagedTensor {
    DLManagedTensor {
        dl_tensor: empty_tensor(),
        manager_ctx: core::ptr::null_mut(),
        deleter: None,
    }
}

/// A rank-0 tensor with null pointers, to be overwritten.
pub(crate) fn empty_tensor() -> DLTensor {
    DLTensor {
        data: core::ptr::null_mut(),
        device: Device::CPU,
        ndim: 0,
        dtype: DataType::U8,
        shape: core::ptr::null_mut(),
        strides: core::ptr::null_mut(),
        byte_offset: 0,
    }
}
