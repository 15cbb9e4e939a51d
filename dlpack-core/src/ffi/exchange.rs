//! The C exchange API of DLPack 1.3 (`__dlpack_c_exchange_api__`): a table of function
//! pointers a Python tensor type publishes so that C/C++/Rust consumers exchange tensors without
//! going through Python calls. Every function returns 0 on success and -1 on failure (the
//! allocator reports its failure through `set_error` instead of a Python exception).

use core::ffi::{c_char, c_int, c_void};
use core::mem::{align_of, offset_of, size_of};

use super::{DLDeviceType, DLManagedTensorVersioned, DLPackVersion, DLTensor};

/// The `SetError` callback of [`DLPackManagedTensorAllocator`]: `kind` names the error class
/// (such as `"MemoryError"`), `message` says what went wrong; both are NUL-terminated.
///
/// ```
/// use dlpack_core::ffi::DLPackSetError;
/// use std::ffi::{CStr, c_char, c_void};
///
/// unsafe extern "C" fn record(ctx: *mut c_void, kind: *const c_char, message: *const c_char) {
///     // SAFETY: the caller passes our `String` as the context and two C strings.
///     unsafe {
///         let out = &mut *ctx.cast::<String>();
///         *out = format!(
///             "{}: {}",
///             CStr::from_ptr(kind).to_string_lossy(),
///             CStr::from_ptr(message).to_string_lossy()
///         );
///     }
/// }
///
/// let set_error: DLPackSetError = record;
/// let mut error = String::new();
/// // SAFETY: the context is a live `String`, the strings are NUL-terminated.
/// unsafe { set_error((&raw mut error).cast(), c"MemoryError".as_ptr(), c"out of memory".as_ptr()) };
/// assert_eq!(error, "MemoryError: out of memory");
/// ```
pub type DLPackSetError =
    unsafe extern "C" fn(error_ctx: *mut c_void, kind: *const c_char, message: *const c_char);

/// `DLPackManagedTensorAllocator`: allocate a new tensor like `prototype` (only its dtype,
/// ndim, shape and device are read) and store it in `*out`; on failure call `set_error` with
/// `error_ctx` and return -1.
///
/// ```
/// use dlpack_core::ffi::{DLManagedTensorVersioned, DLPackManagedTensorAllocator, DLPackSetError, DLTensor};
/// use std::ffi::{c_int, c_void};
///
/// /// A producer that cannot allocate anything says so through `set_error`.
/// unsafe extern "C" fn refuse(
///     _prototype: *mut DLTensor,
///     _out: *mut *mut DLManagedTensorVersioned,
///     error_ctx: *mut c_void,
///     set_error: Option<DLPackSetError>,
/// ) -> c_int {
///     if let Some(set_error) = set_error {
///         // SAFETY: the caller's callback, with the caller's context and two C strings.
///         unsafe { set_error(error_ctx, c"BufferError".as_ptr(), c"no allocator".as_ptr()) };
///     }
///     -1
/// }
///
/// let allocate: DLPackManagedTensorAllocator = refuse;
/// let mut out = std::ptr::null_mut();
/// // SAFETY: `refuse` reads none of its pointers.
/// let status = unsafe { allocate(std::ptr::null_mut(), &mut out, std::ptr::null_mut(), None) };
/// assert_eq!((status, out.is_null()), (-1, true));
/// ```
pub type DLPackManagedTensorAllocator = unsafe extern "C" fn(
    prototype: *mut DLTensor,
    out: *mut *mut DLManagedTensorVersioned,
    error_ctx: *mut c_void,
    set_error: Option<DLPackSetError>,
) -> c_int;

/// `DLPackManagedTensorFromPyObjectNoSync`: export the Python tensor `py_object` (a
/// `PyObject *` of the type that published the table) as an owned managed tensor in `*out`,
/// without synchronising streams.
///
/// ```
/// use dlpack_core::ffi::{DLManagedTensorVersioned, DLPackManagedTensorFromPyObjectNoSync};
/// use std::ffi::{c_int, c_void};
///
/// unsafe extern "C" fn export(_py: *mut c_void, out: *mut *mut DLManagedTensorVersioned) -> c_int {
///     // SAFETY: the caller passes a writable `out`. (A real producer sets a Python error.)
///     unsafe { *out = std::ptr::null_mut() };
///     -1
/// }
/// let f: DLPackManagedTensorFromPyObjectNoSync = export;
/// let mut out = std::ptr::null_mut();
/// // SAFETY: `export` only writes `out`.
/// assert_eq!(unsafe { f(std::ptr::null_mut(), &mut out) }, -1);
/// ```
pub type DLPackManagedTensorFromPyObjectNoSync =
    unsafe extern "C" fn(py_object: *mut c_void, out: *mut *mut DLManagedTensorVersioned) -> c_int;

/// `DLPackDLTensorFromPyObjectNoSync`: fill the caller's `DLTensor` with a borrowed view of
/// the Python tensor `py_object`, valid until control returns to Python.
///
/// ```
/// use dlpack_core::ffi::{DLPackDLTensorFromPyObjectNoSync, DLTensor};
/// use std::ffi::{c_int, c_void};
///
/// unsafe extern "C" fn view(_py: *mut c_void, _out: *mut DLTensor) -> c_int {
///     -1 // this producer offers no borrowed views
/// }
/// let f: DLPackDLTensorFromPyObjectNoSync = view;
/// // SAFETY: `view` reads none of its pointers.
/// assert_eq!(unsafe { f(std::ptr::null_mut(), std::ptr::null_mut()) }, -1);
/// ```
pub type DLPackDLTensorFromPyObjectNoSync =
    unsafe extern "C" fn(py_object: *mut c_void, out: *mut DLTensor) -> c_int;

/// `DLPackCurrentWorkStream`: the producer's current stream on a device (PyTorch's
/// `torch.cuda.current_stream`), so the consumer launches its work on the same stream. A
/// CPU-only producer stores null.
///
/// ```
/// use dlpack_core::ffi::{DLDeviceType, DLPackCurrentWorkStream};
/// use std::ffi::{c_int, c_void};
///
/// unsafe extern "C" fn no_streams(_t: DLDeviceType, _id: i32, out: *mut *mut c_void) -> c_int {
///     // SAFETY: the caller passes a writable `out`.
///     unsafe { *out = std::ptr::null_mut() };
///     0
/// }
/// let current: DLPackCurrentWorkStream = no_streams;
/// let mut stream = std::ptr::NonNull::<c_void>::dangling().as_ptr();
/// // SAFETY: `no_streams` only writes `out`.
/// assert_eq!(unsafe { current(DLDeviceType::CPU, 0, &mut stream) }, 0);
/// assert!(stream.is_null());
/// ```
pub type DLPackCurrentWorkStream = unsafe extern "C" fn(
    device_type: DLDeviceType,
    device_id: i32,
    out_current_stream: *mut *mut c_void,
) -> c_int;

/// `DLPackManagedTensorToPyObjectNoSync`: take ownership of `tensor` and wrap it as a Python
/// tensor of the producer's type in `*out_py_object`.
///
/// ```
/// use dlpack_core::ffi::{DLManagedTensorVersioned, DLPackManagedTensorToPyObjectNoSync};
/// use std::ffi::{c_int, c_void};
///
/// unsafe extern "C" fn wrap(_t: *mut DLManagedTensorVersioned, out: *mut *mut c_void) -> c_int {
///     // SAFETY: the caller passes a writable `out`. (A real producer sets a Python error.)
///     unsafe { *out = std::ptr::null_mut() };
///     -1
/// }
/// let f: DLPackManagedTensorToPyObjectNoSync = wrap;
/// let mut out = std::ptr::null_mut();
/// // SAFETY: `wrap` only writes `out`.
/// assert_eq!(unsafe { f(std::ptr::null_mut(), &mut out) }, -1);
/// ```
pub type DLPackManagedTensorToPyObjectNoSync = unsafe extern "C" fn(
    tensor: *mut DLManagedTensorVersioned,
    out_py_object: *mut *mut c_void,
) -> c_int;

/// `DLPackExchangeAPIHeader`: the head of the exchange table, stable across versions. A
/// consumer checks `version.major` and, if it is newer than it understands, may walk
/// `prev_api` to an older table ([`DLPackExchangeAPI::from_chain`] does both).
///
/// ```
/// use dlpack_core::ffi::{DLPackExchangeAPIHeader, DLPackVersion};
///
/// let head = DLPackExchangeAPIHeader {
///     version: DLPackVersion::CURRENT,
///     prev_api: std::ptr::null_mut(), // a producer that speaks no older version
/// };
/// assert_eq!(head.version.major, 1);
/// ```
#[repr(C)]
#[derive(Debug)]
pub struct DLPackExchangeAPIHeader {
    /// The version of the table; check `major` before using it.
    pub version: DLPackVersion,
    /// An older table in the chain, or null.
    pub prev_api: *mut DLPackExchangeAPIHeader,
}

/// `DLPackExchangeAPI`: the function table behind `__dlpack_c_exchange_api__`, published on a
/// Python tensor type as a capsule named `"dlpack_exchange_api"` and alive for the whole
/// process.
///
/// ```
/// use dlpack_core::ffi::*;
/// use std::ffi::{c_int, c_void};
/// use std::ptr;
///
/// unsafe extern "C" fn allocate(
///     _: *mut DLTensor, _: *mut *mut DLManagedTensorVersioned, _: *mut c_void, _: Option<DLPackSetError>,
/// ) -> c_int { -1 }
/// unsafe extern "C" fn export(_: *mut c_void, _: *mut *mut DLManagedTensorVersioned) -> c_int { -1 }
/// unsafe extern "C" fn wrap(_: *mut DLManagedTensorVersioned, _: *mut *mut c_void) -> c_int { -1 }
/// unsafe extern "C" fn stream(_: DLDeviceType, _: i32, out: *mut *mut c_void) -> c_int {
///     // SAFETY: the caller passes a writable `out`.
///     unsafe { *out = ptr::null_mut() };
///     0
/// }
///
/// let api = DLPackExchangeAPI {
///     header: DLPackExchangeAPIHeader { version: DLPackVersion::CURRENT, prev_api: ptr::null_mut() },
///     managed_tensor_allocator: Some(allocate),
///     managed_tensor_from_py_object_no_sync: Some(export),
///     managed_tensor_to_py_object_no_sync: Some(wrap),
///     dltensor_from_py_object_no_sync: None, // the one optional entry
///     current_work_stream: Some(stream),
/// };
/// // The header comes first, so a consumer may read it through a header pointer.
/// let header: *const DLPackExchangeAPIHeader = (&raw const api).cast();
/// // SAFETY: `header` points to the start of `api`, which begins with the header.
/// assert_eq!(unsafe { (*header).version }, DLPackVersion::CURRENT);
/// ```
#[repr(C)]
#[derive(Debug)]
pub struct DLPackExchangeAPI {
    /// Version and chain.
    pub header: DLPackExchangeAPIHeader,
    /// Must not be null.
    pub managed_tensor_allocator: Option<DLPackManagedTensorAllocator>,
    /// Must not be null.
    pub managed_tensor_from_py_object_no_sync: Option<DLPackManagedTensorFromPyObjectNoSync>,
    /// Must not be null.
    pub managed_tensor_to_py_object_no_sync: Option<DLPackManagedTensorToPyObjectNoSync>,
    /// May be null: the producer offers no borrowed views.
    pub dltensor_from_py_object_no_sync: Option<DLPackDLTensorFromPyObjectNoSync>,
    /// Must not be null.
    pub current_work_stream: Option<DLPackCurrentWorkStream>,
}

impl DLPackExchangeAPI {
    /// The first table of the chain starting at `head` whose major version is
    /// [`DLPACK_MAJOR_VERSION`](super::DLPACK_MAJOR_VERSION), the one this crate speaks, and
    /// whose mandatory owning export (`managed_tensor_from_py_object_no_sync`) is there:
    /// `dlpack.h` lets a consumer walk `prev_api` past a newer major version it does not
    /// understand. `None` when the chain has no such table (a chain of more than 16 tables is
    /// taken to be a broken producer's cycle).
    ///
    /// ```
    /// use dlpack_core::ffi::*;
    /// use std::ffi::{c_int, c_void};
    /// use std::ptr;
    ///
    /// unsafe extern "C" fn export(_: *mut c_void, _: *mut *mut DLManagedTensorVersioned) -> c_int { -1 }
    /// let table = |major, prev_api| DLPackExchangeAPI {
    ///     header: DLPackExchangeAPIHeader { version: DLPackVersion { major, minor: 0 }, prev_api },
    ///     managed_tensor_allocator: None,
    ///     managed_tensor_from_py_object_no_sync: Some(export),
    ///     managed_tensor_to_py_object_no_sync: None,
    ///     dltensor_from_py_object_no_sync: None,
    ///     current_work_stream: None,
    /// };
    /// let mut old = table(1, ptr::null_mut());
    /// let new = table(2, (&raw mut old).cast());
    /// // SAFETY: both tables outlive the calls.
    /// let chosen = unsafe { DLPackExchangeAPI::from_chain((&raw const new).cast()) };
    /// assert!(ptr::eq(chosen.unwrap(), &old));
    /// let alone = table(2, ptr::null_mut());
    /// // SAFETY: as above.
    /// assert!(unsafe { DLPackExchangeAPI::from_chain((&raw const alone).cast()) }.is_none());
    /// ```
    ///
    /// # Safety
    ///
    /// `head` is null or the header of a live table whose `prev_api` chain is live (a
    /// published table lives for the whole process), each of major version 1 a whole
    /// `DLPackExchangeAPI`, for `'a`.
    pub unsafe fn from_chain<'a>(mut head: *const DLPackExchangeAPIHeader) -> Option<&'a Self> {
        for _ in 0..16 {
            // SAFETY: null or a live header (the caller's contract).
            let header = unsafe { head.as_ref()? };
            if header.version.major == super::DLPACK_MAJOR_VERSION {
                // SAFETY: a table of major version 1 is a whole `DLPackExchangeAPI`, which
                // starts with its header (the caller's contract).
                let table = unsafe { &*head.cast::<Self>() };
                return table
                    .managed_tensor_from_py_object_no_sync
                    .is_some()
                    .then_some(table);
            }
            head = header.prev_api;
        }
        None
    }
}

assert_layout!(DLPackExchangeAPIHeader, size 16 / 12, align 8 / 4, { version: 0 / 0, prev_api: 8 / 8 });
assert_layout!(DLPackExchangeAPI, size 56 / 32, align 8 / 4, {
    header: 0 / 0,
    managed_tensor_allocator: 16 / 12,
    managed_tensor_from_py_object_no_sync: 24 / 16,
    managed_tensor_to_py_object_no_sync: 32 / 20,
    dltensor_from_py_object_no_sync: 40 / 24,
    current_work_stream: 48 / 28,
});

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C" fn export(_: *mut c_void, _: *mut *mut DLManagedTensorVersioned) -> c_int {
        -1
    }

    fn table(
        major: u32,
        prev: *mut DLPackExchangeAPIHeader,
        with_export: bool,
    ) -> DLPackExchangeAPI {
        DLPackExchangeAPI {
            header: DLPackExchangeAPIHeader {
                version: DLPackVersion { major, minor: 0 },
                prev_api: prev,
            },
            managed_tensor_allocator: None,
            managed_tensor_from_py_object_no_sync: if with_export { Some(export) } else { None },
            managed_tensor_to_py_object_no_sync: None,
            dltensor_from_py_object_no_sync: None,
            current_work_stream: None,
        }
    }

    fn chosen(head: &DLPackExchangeAPI) -> Option<*const DLPackExchangeAPI> {
        // SAFETY: the tests' chains live on the stack for the whole call.
        unsafe { DLPackExchangeAPI::from_chain((&raw const *head).cast()) }.map(|t| &raw const *t)
    }

    #[test]
    fn the_chain_is_walked_to_a_table_of_major_version_1() {
        let mut one = table(1, core::ptr::null_mut(), true);
        let two = table(2, (&raw mut one).cast(), true);
        assert_eq!(chosen(&two), Some(&raw const one));
        assert_eq!(chosen(&one), Some(&raw const one));
        let alone = table(2, core::ptr::null_mut(), true);
        assert_eq!(chosen(&alone), None, "major version 2 alone is refused");
        let broken = table(1, core::ptr::null_mut(), false);
        assert_eq!(chosen(&broken), None, "no owning export");
        // SAFETY: null is allowed.
        assert!(unsafe { DLPackExchangeAPI::from_chain(core::ptr::null()) }.is_none());
    }

    #[test]
    fn a_cycle_of_tables_of_another_major_version_ends() {
        let mut a = table(2, core::ptr::null_mut(), true);
        let a_ptr: *mut DLPackExchangeAPI = &raw mut a;
        let mut b = table(3, a_ptr.cast(), true);
        // SAFETY: `a_ptr` points to `a`; writing through it keeps the pointer `b` holds valid.
        unsafe { (*a_ptr).header.prev_api = (&raw mut b).cast() };
        // SAFETY: both tables outlive the call.
        let chosen = unsafe { DLPackExchangeAPI::from_chain(a_ptr.cast_const().cast()) };
        assert!(chosen.is_none());
    }
}
