//! The borrow table: every view of Python-owned memory that Rust code holds — a
//! [`TensorArg`](super::TensorArg) for as long as the argument lives, a
//! [`with_tensor_view`](super::with_tensor_view) for as long as its closure runs — is
//! registered here before it is handed out, and released when it ends, on every path (a
//! panic, an error, an early return: the release is a `Drop`). A writable view that overlaps
//! any other live view of the same memory, or any view that overlaps a live writable one, is
//! refused with a `BufferError` naming both sides:
//! `scale_(): argument 'b' overlaps argument 'a', which is writable`.
//!
//! Memory is compared by the bytes the elements reach, not by base pointers: two views
//! overlap when their byte ranges intersect **and** some element of one can share a byte with
//! an element of the other. The second test is the one rust-numpy makes (the greatest common
//! divisor of both views' byte strides must divide the distance between their first
//! elements), made exact for elements wider than a byte, so that the interleaved halves of an
//! array (`x[::2]`, `x[1::2]`), or the colour planes of an image, are lent writable side by
//! side. Like rust-numpy's, it over-approximates in rare layouts (a step that does not divide
//! an axis), where it refuses what is in fact disjoint.
//!
//! **One table per process.** The first extension built on this crate that lends a view
//! publishes its table, versioned, as a capsule on the `sys` module
//! (`sys._dlpack_core_borrows`, holding a C struct of a version and two functions); every
//! later extension in the process, another build of this crate included, finds it there and
//! registers its views in it, so two extensions cannot alias one array either. An extension
//! built on a table version it does not know keeps one of its own (and says nothing: the
//! version changes only with a change of this struct). rust-numpy's table
//! (`_RUST_NUMPY_BORROW_CHECKING_API`) is not consulted: it keys NumPy arrays by their base
//! object, and a view from any other producer has none.
//!
//! What the table does not stop, as rust-numpy's does not: Python code that writes the array,
//! or replaces its storage, while the view lives (see `TensorArg`'s documentation).

use core::ffi::c_void;
use core::fmt::Write as _;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use pyo3::exceptions::PyBufferError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyCapsule;

use crate::python::error::buffer_error;
use crate::tensor::{Flags, ManagedTensor, TensorMeta};

/// Who holds a view, for the message of a refusal: the function and the argument (both
/// empty when the argument was extracted without `#[tensor_args]`), or `with_tensor_view`
/// (the function's name, and an empty argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Holder {
    pub(crate) function: &'static str,
    pub(crate) argument: &'static str,
}

impl Holder {
    /// An argument extracted without its names.
    pub(crate) const UNNAMED: Self = Self {
        function: "",
        argument: "",
    };
    /// A [`with_tensor_view`](super::with_tensor_view).
    pub(crate) const VIEW: Self = Self {
        function: "with_tensor_view",
        argument: "",
    };
    /// A tensor that [`import_tensor`](super::import_tensor) hands over.
    pub(crate) const IMPORT: Self = Self {
        function: "import_tensor",
        argument: "",
    };
    /// A tensor that `capsule_tensor` hands over.
    pub(crate) const CAPSULE: Self = Self {
        function: "capsule_tensor",
        argument: "",
    };
}

/// The memory a view reads or writes: the bytes `[start, end)`, where its elements start on
/// `first` plus multiples of `step` (0: a single element), each `item` bytes wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
struct Span {
    start: usize,
    end: usize,
    first: usize,
    step: usize,
    item: usize,
}

impl Span {
    /// What the tensor `meta` describes occupies; `None` for a tensor with no elements.
    fn of(meta: &TensorMeta<'_>) -> Option<Self> {
        let range = meta.byte_range();
        if range.is_empty() {
            return None;
        }
        let data = meta.data_ptr() as usize;
        let bits = usize::from(meta.dtype().bits) * usize::from(meta.dtype().lanes);
        let (item, step) = if bits % 8 != 0 || meta.is_packed() {
            // Packed sub-byte elements share bytes: every byte of the range may be reached.
            (1, 1)
        } else {
            let item = bits / 8;
            let step = meta
                .shape()
                .iter()
                .zip(meta.strides())
                .filter(|&(&extent, _)| extent > 1)
                .fold(0, |step, (_, &stride)| {
                    gcd(step, (stride.unsigned_abs() as usize).wrapping_mul(item))
                });
            (item, step)
        };
        Some(Self {
            start: data.wrapping_add_signed(range.start),
            end: data.wrapping_add_signed(range.end),
            first: data.wrapping_add(meta.byte_offset() as usize),
            step,
            item,
        })
    }

    /// Whether an element of `self` and one of `other` may share a byte.
    fn overlaps(&self, other: &Self) -> bool {
        if self.end <= other.start || other.end <= self.start {
            return false;
        }
        let step = gcd(self.step, other.step);
        if step == 0 {
            return true;
        }
        // Every distance `a - b` from an element `b` of `other` to an element `a` of `self` is
        // `self.first - other.first` plus a multiple of `step`; the two share a byte when it
        // lies in (-self.item, other.item). The distances nearest to zero are `r` and
        // `r - step`, `r` the distance modulo `step`.
        let r = if self.first >= other.first {
            (self.first - other.first) % step
        } else {
            (step - (other.first - self.first) % step) % step
        };
        r < other.item || step - r < self.item
    }
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    // The common case, a first stride (or one view's against none), without a division.
    if a == 0 {
        return b;
    }
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// One registered view.
#[derive(Clone, Copy)]
struct Entry {
    token: u64,
    span: Span,
    write: bool,
    holder: Holder,
}

/// The live views. They are few at any time, so a scan beats any index.
struct Table {
    next: u64,
    entries: Vec<Entry>,
}

impl Table {
    const fn new() -> Self {
        Self {
            next: 1,
            entries: Vec::new(),
        }
    }

    /// Registers `request`: its token, or the holder of a view it may not overlap.
    fn acquire(&mut self, request: &Request) -> Result<u64, Conflict> {
        if let Some(other) = self
            .entries
            .iter()
            .find(|entry| (request.write || entry.write) && entry.span.overlaps(&request.span))
        {
            return Err(Conflict {
                write: other.write,
                function: RawStr::new(other.holder.function),
                argument: RawStr::new(other.holder.argument),
            });
        }
        let token = self.next;
        self.next += 1;
        // SAFETY: the strings were made by `RawStr::new` (the `Api`'s contract).
        let holder = unsafe {
            Holder {
                function: request.function.get(),
                argument: request.argument.get(),
            }
        };
        self.entries.push(Entry {
            token,
            span: request.span,
            write: request.write,
            holder,
        });
        Ok(token)
    }

    fn release(&mut self, token: u64) {
        if let Some(i) = self.entries.iter().position(|entry| entry.token == token) {
            self.entries.swap_remove(i);
        }
    }
}

/// Releases made on a thread that may not hold the interpreter (an `Owned` argument is `Send`,
/// and may be dropped anywhere): each is left in a slot, and the next `acquire` takes them in.
struct Pending {
    slots: [AtomicU64; 32],
    /// How many slots may be filled: a hint that spares `acquire` the scan (it may run ahead
    /// of or behind the slots for a moment, and wraps rather than going below zero).
    count: AtomicUsize,
}

impl Pending {
    const fn new() -> Self {
        Self {
            slots: [const { AtomicU64::new(0) }; 32],
            count: AtomicUsize::new(0),
        }
    }

    /// Leaves `token` to be released; `false` when every slot is taken.
    fn leave(&self, token: u64) -> bool {
        for slot in &self.slots {
            if slot
                .compare_exchange(0, token, Ordering::Release, Ordering::Relaxed)
                .is_ok()
            {
                self.count.fetch_add(1, Ordering::Release);
                return true;
            }
        }
        false
    }

    /// Releases in `table` what was left.
    fn take_into(&self, table: &mut Table) {
        if self.count.load(Ordering::Acquire) == 0 {
            return;
        }
        for slot in &self.slots {
            let token = slot.swap(0, Ordering::Acquire);
            if token != 0 {
                table.release(token);
                self.count.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
}

static PENDING: Pending = Pending::new();

/// The process's table, under the interpreter's lock: `acquire` and `release` are called only
/// by threads attached to the interpreter (every view is released where it was made, but an
/// `Owned` argument's, which goes through `release_detached`), so the table needs no lock of
/// its own. A mutex here cost four atomic operations per argument, a fifth of a typed
/// argument's time.
#[cfg(not(Py_GIL_DISABLED))]
mod place {
    use core::cell::UnsafeCell;

    use super::Table;

    struct Attached(UnsafeCell<Table>);

    // SAFETY: reached only through `with`, whose callers hold the GIL, which serialises them.
    unsafe impl Sync for Attached {}

    static TABLE: Attached = Attached(UnsafeCell::new(Table::new()));

    /// # Safety
    ///
    /// The calling thread holds the GIL; `f` does not call `with` again.
    pub(super) unsafe fn with<R>(f: impl FnOnce(&mut Table) -> R) -> R {
        // SAFETY: the GIL makes this the only reference to the table (the caller's contract).
        f(unsafe { &mut *TABLE.0.get() })
    }
}

/// Without a GIL (a free-threaded build), the table takes a lock of its own.
#[cfg(Py_GIL_DISABLED)]
mod place {
    use std::sync::{Mutex, PoisonError};

    use super::Table;

    static TABLE: Mutex<Table> = Mutex::new(Table::new());

    /// # Safety
    ///
    /// None: the lock serialises the callers.
    pub(super) unsafe fn with<R>(f: impl FnOnce(&mut Table) -> R) -> R {
        f(&mut TABLE.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// A `&'static str` as it crosses between extensions.
#[derive(Clone, Copy)]
#[repr(C)]
struct RawStr {
    ptr: *const u8,
    len: usize,
}

impl RawStr {
    fn new(s: &'static str) -> Self {
        Self {
            ptr: s.as_ptr(),
            len: s.len(),
        }
    }

    /// # Safety
    ///
    /// Made by [`RawStr::new`], in this extension or another one of the process (whose
    /// `&'static str`s live as long as the process: CPython never unloads an extension).
    unsafe fn get(self) -> &'static str {
        // SAFETY: as the caller promises, the bytes of a `&'static str`.
        unsafe { core::str::from_utf8_unchecked(core::slice::from_raw_parts(self.ptr, self.len)) }
    }
}

/// What an extension asks the table to register.
#[repr(C)]
struct Request {
    span: Span,
    write: bool,
    function: RawStr,
    argument: RawStr,
}

/// The holder of a conflicting view, written by a refused `acquire`.
#[repr(C)]
struct Conflict {
    write: bool,
    function: RawStr,
    argument: RawStr,
}

/// The table as every extension of the process reaches it. Version 1.
#[repr(C)]
struct Api {
    version: u64,
    /// Registers `request`; a token (never 0), or 0 with `conflict` filled when it is refused.
    /// The calling thread holds the GIL.
    acquire: unsafe extern "C" fn(request: *const Request, conflict: *mut Conflict) -> u64,
    /// Ends the view the token names. The calling thread holds the GIL.
    release: unsafe extern "C" fn(token: u64),
    /// Ends the view the token names, on any thread.
    release_detached: unsafe extern "C" fn(token: u64),
}

const VERSION: u64 = 1;
const CAPSULE: &core::ffi::CStr = c"dlpack_core.borrows";
const ATTRIBUTE: &str = "_dlpack_core_borrows";

static OWN: Api = Api {
    version: VERSION,
    acquire,
    release,
    release_detached,
};

unsafe extern "C" fn acquire(request: *const Request, conflict: *mut Conflict) -> u64 {
    // SAFETY: the `Api`'s contract: `request` is readable, `conflict` writable, the GIL held.
    unsafe {
        place::with(|table| {
            PENDING.take_into(table);
            table.acquire(&*request).unwrap_or_else(|refused| {
                *conflict = refused;
                0
            })
        })
    }
}

unsafe extern "C" fn release(token: u64) {
    // SAFETY: the `Api`'s contract: the GIL is held.
    unsafe { place::with(|table| table.release(token)) }
}

unsafe extern "C" fn release_detached(token: u64) {
    if !PENDING.leave(token) {
        // Every slot is taken: as many releases came off the interpreter since the last
        // `acquire` took them in. This one waits for the interpreter instead.
        // SAFETY: attached, as `release` needs.
        Python::attach(|_| unsafe { release(token) });
    }
}

/// The process's table: the one published on `sys`, or ours, published there now.
fn api(py: Python<'_>) -> &'static Api {
    static API: PyOnceLock<&'static Api> = PyOnceLock::new();
    API.get_or_init(py, || shared(py).unwrap_or(&OWN))
}

fn shared(py: Python<'_>) -> PyResult<&'static Api> {
    let sys = py.import("sys")?;
    if let Ok(published) = sys.getattr(ATTRIBUTE) {
        let Ok(capsule) = published.cast_into::<PyCapsule>() else {
            return Ok(&OWN);
        };
        if let Ok(pointer) = capsule.pointer_checked(Some(CAPSULE)) {
            // SAFETY: a capsule of this name holds a `&'static Api` of some version, whose
            // first field is the version: read before anything else.
            let api = unsafe { &*pointer.as_ptr().cast::<Api>() };
            if api.version == VERSION {
                return Ok(api);
            }
        }
        return Ok(&OWN);
    }
    // SAFETY: `OWN` is a static, never freed nor written; the capsule has no destructor.
    let capsule = unsafe {
        PyCapsule::new_with_pointer(py, core::ptr::NonNull::from(&OWN).cast::<c_void>(), CAPSULE)?
    };
    sys.setattr(ATTRIBUTE, capsule)?;
    Ok(&OWN)
}

/// Whether the process's table holds no view, where that can be told without a call: the
/// table is this extension's own (a table another extension published is asked by `acquire`).
fn nothing_registered(py: Python<'_>) -> bool {
    // SAFETY: the thread is attached (`py`), as `with` needs, and the closure does not call it.
    core::ptr::eq(api(py), &OWN) && unsafe { place::with(|table| table.entries.is_empty()) }
}

/// An entry to release once by calling `release(token)`: the table's `release`, on the thread
/// that made it, attached; or its `release_detached`, on any thread.
#[derive(Debug)]
struct Claim {
    token: u64,
    release: unsafe extern "C" fn(u64),
}

impl Drop for Claim {
    fn drop(&mut self) {
        // SAFETY: a token `acquire` of the same table returned; this is the one call.
        unsafe { (self.release)(self.token) }
    }
}

/// A registered view, released when dropped. Holds nothing for a tensor with no elements or
/// one the import copied (no one else can reach its memory).
#[derive(Debug)]
pub(crate) struct Borrow(
    #[allow(dead_code, reason = "held for its drop, which releases the entry")] Option<Claim>,
);

impl Borrow {
    /// Nothing to release.
    pub(crate) const NONE: Self = Self(None);

    /// Registers a view of `meta` for `holder`, writable when `write`; a `BufferError` naming
    /// both sides when it overlaps a live view it may not. `send`: the borrow may be dropped
    /// on another thread, or without the interpreter (an `Owned` argument); otherwise it must
    /// be dropped on this thread, attached, which every `!Send` holder ensures.
    pub(crate) fn acquire(
        py: Python<'_>,
        meta: &TensorMeta<'_>,
        write: bool,
        send: bool,
        holder: Holder,
    ) -> PyResult<Self> {
        let Some(span) = Span::of(meta) else {
            return Ok(Self::NONE);
        };
        let api = api(py);
        let request = Request {
            span,
            write,
            function: RawStr::new(holder.function),
            argument: RawStr::new(holder.argument),
        };
        let mut conflict = Conflict {
            write: false,
            function: RawStr::new(""),
            argument: RawStr::new(""),
        };
        // SAFETY: `request` and `conflict` are a readable and a writable struct of the
        // layout `Api` was published with (its version was checked).
        let token = unsafe { (api.acquire)(&request, &mut conflict) };
        if token == 0 {
            // SAFETY: `acquire` filled `conflict` with `RawStr::new` of `&'static str`s.
            let other = unsafe {
                Holder {
                    function: conflict.function.get(),
                    argument: conflict.argument.get(),
                }
            };
            return Err(refusal(holder, write, other, conflict.write));
        }
        Ok(Self(Some(Claim {
            token,
            release: if send {
                api.release_detached
            } else {
                api.release
            },
        })))
    }
}

/// `tensor`, which a Python producer exported, as a tensor of its own for Rust code to keep:
/// refused (`BufferError`) where a live writable view overlaps it, and, unless the producer
/// copied it (`IS_COPIED`), marked to give no mutable view, since the producer may lend the
/// same memory to others ([`ManagedTensor`]'s documentation). It is not registered for its
/// lifetime: a tensor class that keeps an import and lends it on (writable) to typed
/// arguments would then refuse them.
pub(crate) fn lent(
    py: Python<'_>,
    tensor: ManagedTensor,
    holder: Holder,
) -> PyResult<ManagedTensor> {
    if tensor.flags().contains(Flags::IS_COPIED) {
        return Ok(tensor);
    }
    // No view is registered: nothing the tensor could overlap, so nothing to check it
    // against (its metadata is validated where it is viewed, as every import's is).
    if nothing_registered(py) {
        return Ok(tensor.lent_by_producer());
    }
    let view = tensor.view().map_err(buffer_error)?;
    drop(Borrow::acquire(py, &view, false, false, holder)?);
    drop(view);
    Ok(tensor.lent_by_producer())
}

/// The `BufferError` of a view of `holder` (writable when `write`) refused for `other`'s.
#[cold]
fn refusal(holder: Holder, write: bool, other: Holder, other_write: bool) -> PyErr {
    let mut message = String::new();
    if holder.function.is_empty() {
        message.push_str("a tensor argument");
    } else if holder.argument.is_empty() {
        let _ = write!(message, "{}(): the tensor", holder.function);
    } else {
        let _ = write!(
            message,
            "{}(): argument '{}'",
            holder.function, holder.argument
        );
    }
    if write && !other_write {
        message.push_str(" is writable and");
    }
    message.push_str(" overlaps ");
    if other.function.is_empty() {
        message.push_str("another tensor argument");
    } else if other.argument.is_empty() && other == Holder::VIEW {
        let _ = write!(message, "a view lent by {}()", other.function);
    } else if other.argument.is_empty() {
        let _ = write!(message, "a tensor {}() handed over", other.function);
    } else if other.function == holder.function {
        let _ = write!(message, "argument '{}'", other.argument);
    } else {
        let _ = write!(
            message,
            "argument '{}' of {}()",
            other.argument, other.function
        );
    }
    message.push_str(if other_write {
        ", which is writable"
    } else {
        ", which is being read"
    });
    message.push_str(
        ": Rust may not hold a writable view of memory that another view reads or writes \
         (pass a copy, or disjoint slices)",
    );
    PyBufferError::new_err(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(first: usize, count: usize, stride: usize, item: usize) -> Span {
        Span {
            start: first,
            end: first + (count - 1) * stride + item,
            first,
            step: if count > 1 { stride } else { 0 },
            item,
        }
    }

    #[test]
    fn interleaved_halves_are_disjoint() {
        // x[::2] and x[1::2] of a float32 array of 8.
        let even = span(1000, 4, 8, 4);
        let odd = span(1004, 4, 8, 4);
        assert!(!even.overlaps(&odd));
        assert!(!odd.overlaps(&even));
        assert!(even.overlaps(&span(1000, 8, 4, 4)));
    }

    #[test]
    fn shifted_slices_overlap() {
        // x[:4] and x[1:] of a float32 array of 8.
        assert!(span(1000, 4, 4, 4).overlaps(&span(1004, 7, 4, 4)));
        // x[:4] and x[4:]: adjacent, disjoint.
        assert!(!span(1000, 4, 4, 4).overlaps(&span(1016, 4, 4, 4)));
    }

    #[test]
    fn wider_elements_are_compared_byte_by_byte() {
        // Float64 elements every 16 bytes from 1000, float32 ones every 16 bytes from 1004:
        // the distance (4) is no multiple of 16, yet each float32 lies inside a float64.
        let wide = span(1000, 4, 16, 8);
        let narrow = span(1004, 4, 16, 4);
        assert!(wide.overlaps(&narrow));
        assert!(narrow.overlaps(&wide));
        // From 1008 the float32s lie between the float64s.
        assert!(!wide.overlaps(&span(1008, 4, 16, 4)));
    }

    #[test]
    fn single_elements_overlap_by_range() {
        assert!(span(1000, 1, 0, 4).overlaps(&span(1002, 1, 0, 4)));
        assert!(!span(1000, 1, 0, 4).overlaps(&span(1004, 1, 0, 4)));
        // A single element inside a strided view, on and off its elements.
        assert!(span(1008, 1, 0, 4).overlaps(&span(1000, 4, 8, 4)));
        assert!(!span(1004, 1, 0, 4).overlaps(&span(1000, 4, 8, 4)));
    }

    /// The span of a tensor at `first` of `shape` and element `strides`, `item` bytes wide, as
    /// `Span::of` makes it, and the bytes its elements cover.
    fn strided(
        first: usize,
        shape: &[usize],
        strides: &[isize],
        item: usize,
    ) -> (Span, Vec<usize>) {
        let mut bytes = Vec::new();
        let mut index = vec![0; shape.len()];
        'elements: loop {
            let offset: isize = index
                .iter()
                .zip(strides)
                .map(|(&i, &s)| i as isize * s)
                .sum();
            let at = first.wrapping_add_signed(offset * item as isize);
            bytes.extend(at..at + item);
            for axis in (0..shape.len()).rev() {
                index[axis] += 1;
                if index[axis] < shape[axis] {
                    continue 'elements;
                }
                index[axis] = 0;
            }
            break;
        }
        let step = shape
            .iter()
            .zip(strides)
            .filter(|&(&extent, _)| extent > 1)
            .fold(0, |step, (_, &stride)| {
                gcd(step, stride.unsigned_abs() * item)
            });
        let span = Span {
            start: *bytes.iter().min().unwrap(),
            end: bytes.iter().max().unwrap() + 1,
            first,
            step,
            item,
        };
        (span, bytes)
    }

    #[test]
    fn no_overlap_is_missed() {
        // A small generator, so that the cases are the same on every run.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let (mut disjoint, mut overlapping) = (0, 0);
        let cases = if cfg!(miri) { 400 } else { 20_000 };
        for _ in 0..cases {
            let tensor = |next: &mut dyn FnMut(usize) -> usize| {
                let ndim = 1 + next(2);
                let shape: Vec<usize> = (0..ndim).map(|_| 1 + next(4)).collect();
                let strides: Vec<isize> = (0..ndim).map(|_| next(9) as isize - 4).collect();
                let item = [1, 2, 4, 8][next(4)];
                strided(1000 + next(64), &shape, &strides, item)
            };
            let (a, a_bytes) = tensor(&mut next);
            let (b, b_bytes) = tensor(&mut next);
            let shared = a_bytes.iter().any(|byte| b_bytes.contains(byte));
            assert_eq!(a.overlaps(&b), b.overlaps(&a), "{a:?} {b:?}");
            if shared {
                overlapping += 1;
                assert!(a.overlaps(&b), "missed: {a:?} {b:?}");
            } else if !a.overlaps(&b) {
                disjoint += 1;
            }
        }
        // The test means something: both answers occur.
        assert!(
            overlapping > cases / 20 && disjoint > cases / 20,
            "{overlapping} {disjoint}"
        );
    }

    #[test]
    fn the_table_refuses_writers_beside_anything_and_takes_releases_from_any_thread() {
        // A table of this test's own: the process's is the interpreter's to serialise.
        let mut table = Table::new();
        let ask = |table: &mut Table, span, write, argument| {
            let request = Request {
                span,
                write,
                function: RawStr::new("f"),
                argument: RawStr::new(argument),
            };
            match table.acquire(&request) {
                Ok(token) => (token, ("", "")),
                // SAFETY: filled from `&'static str`s.
                Err(other) => (0, unsafe { (other.function.get(), other.argument.get()) }),
            }
        };
        let x = span(1000, 8, 4, 4);
        let (a, _) = ask(&mut table, x, false, "a");
        let (b, _) = ask(&mut table, x, false, "b");
        assert!(a != 0 && b != 0, "two readers share");
        let (c, other) = ask(&mut table, x, true, "c");
        assert_eq!((c, other), (0, ("f", "a")));
        table.release(a);
        // A release from another thread, left for the next `acquire` to take in.
        let pending = Pending::new();
        std::thread::scope(|scope| {
            scope.spawn(|| assert!(pending.leave(b)));
        });
        assert_eq!(ask(&mut table, x, true, "c").0, 0, "not taken in yet");
        pending.take_into(&mut table);
        let (c, _) = ask(&mut table, x, true, "c");
        assert_ne!(c, 0);
        let (d, other) = ask(&mut table, span(1004, 1, 0, 4), false, "d");
        assert_eq!((d, other), (0, ("f", "c")));
        table.release(c);
        assert!(table.entries.is_empty());
        // Full slots refuse more, until they are taken in.
        for token in 1..=32 {
            assert!(pending.leave(token));
        }
        assert!(!pending.leave(33));
        pending.take_into(&mut table);
        assert!(pending.leave(33));
    }

    #[test]
    fn messages_name_both_sides() {
        let a = Holder {
            function: "scale_",
            argument: "a",
        };
        let b = Holder {
            function: "scale_",
            argument: "b",
        };
        pyo3::Python::initialize();
        pyo3::Python::attach(|py| {
            let text = |err: PyErr| err.value(py).to_string();
            assert!(
                text(refusal(b, true, a, true)).starts_with(
                    "scale_(): argument 'b' overlaps argument 'a', which is writable:"
                )
            );
            assert!(text(refusal(b, true, a, false)).starts_with(
                "scale_(): argument 'b' is writable and overlaps argument 'a', which is being read:"
            ));
            let outer = Holder {
                function: "outer",
                argument: "x",
            };
            assert!(
                text(refusal(Holder::VIEW, false, outer, true)).starts_with(
                    "with_tensor_view(): the tensor overlaps argument 'x' of outer(), which is writable:"
                )
            );
            assert!(
                text(refusal(Holder::UNNAMED, true, Holder::UNNAMED, false)).starts_with(
                    "a tensor argument is writable and overlaps another tensor argument, which is being read:"
                )
            );
        });
    }
}
