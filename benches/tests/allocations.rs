//! Heap allocations, counted by a global allocator: derived conversions make none, exporting a
//! tensor makes exactly one (header, owner, shape and strides together), whether it owns a
//! vector or a clone of shared storage, and importing, validating and slicing a tensor makes
//! none.
//!
//! The counter is per thread, so tests running in parallel do not disturb each other.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

use dlpack_benches::data_type::{self, HandDType};
use dlpack_benches::derived::{DType, Dev};
use dlpack_benches::device::{self, HandDevice};
use dlpack_core::{DlpackDataType, DlpackDevice};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: the allocator may run while this thread's locals are being torn down.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; counting
// touches only a const-initialised thread-local `Cell`, which never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: forwarded unchanged; the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: as above; `ptr` came from this allocator, hence from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns its result with the number of heap allocations it made on this thread.
fn allocations<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let result = f();
    (result, ALLOCATIONS.with(Cell::get) - before)
}

#[test]
fn the_counter_counts() {
    let (b, n) = allocations(|| black_box(Box::new(7_u64)));
    assert_eq!((*b, n), (7, 1));
    let (v, n) = allocations(|| black_box(vec![1_u8; 3]).len());
    assert_eq!((v, n), (3, 1));
    let ((), n) = allocations(|| ());
    assert_eq!(n, 0);
}

#[test]
fn derived_data_type_conversions_do_not_allocate() {
    let stream = data_type::variant_stream(1);
    let values = data_type::data_type_stream(1);
    let ((), n) = allocations(|| {
        for &v in &stream {
            let dt = black_box(DType::from_hand(v)).dlpack_data_type().unwrap();
            assert_eq!(Ok(dt), v.dlpack_data_type());
        }
        for &dt in &values {
            let v = DType::from_dlpack_data_type(black_box(dt)).unwrap();
            assert_eq!(v as u8, HandDType::from_dlpack_data_type(dt).unwrap() as u8);
        }
    });
    assert_eq!(n, 0, "derived dtype conversions allocated {n} times");
}

/// Dispatch allocates nothing, on the success path nor on the error of a value without a Rust
/// element type; and it agrees with the hand-written match on every value.
#[test]
fn dispatch_does_not_allocate() {
    use dlpack_benches::dispatch::{self, Bytes};
    let stream = data_type::variant_stream(3);
    let ((), n) = allocations(|| {
        for &v in &stream {
            let v = black_box(DType::from_hand(v));
            let derived = dispatch::derived(&v, Bytes(3));
            let hand = dispatch::hand(&v, Bytes(3));
            assert_eq!(derived.is_ok(), hand.is_ok());
            if let (Ok(a), Ok(b)) = (derived, hand) {
                assert_eq!(a, b);
            }
        }
    });
    assert_eq!(n, 0, "dispatch allocated {n} times");
}

#[test]
fn derived_device_conversions_do_not_allocate() {
    let stream = device::variant_stream(2);
    let values = device::device_stream(2);
    let ((), n) = allocations(|| {
        for &v in &stream {
            let d = black_box(Dev::from_hand(v)).dlpack_device().unwrap();
            assert_eq!(Ok(d), v.dlpack_device());
        }
        for &d in &values {
            let v = Dev::from_dlpack_device(black_box(d)).unwrap();
            assert_eq!(v.tag(), HandDevice::from_dlpack_device(d).unwrap().tag());
        }
    });
    assert_eq!(n, 0, "derived device conversions allocated {n} times");
}

#[test]
fn exporting_a_tensor_allocates_once() {
    use dlpack_benches::tensor::{self, RANKS};
    for rank in RANKS {
        let shape = tensor::shape(rank);
        let data = tensor::data();
        let (exported, n) = allocations(|| tensor::export_ours(data, &shape));
        let exported = exported.unwrap();
        assert_eq!(n, 1, "exporting at rank {rank} allocated {n} times");
        assert_eq!(exported.view().unwrap().ndim(), rank);
        let ((), n) = allocations(|| drop(exported));
        assert_eq!(
            n, 0,
            "dropping an export at rank {rank} allocated {n} times"
        );
    }
    // Shared storage: the clone moves into the same single allocation.
    let storage = tensor::shared_data();
    for rank in RANKS {
        let shape = tensor::shape(rank);
        let clone = storage.clone();
        let (exported, n) = allocations(|| tensor::export_ours_shared(clone, &shape));
        let exported = exported.unwrap();
        assert_eq!(
            n, 1,
            "exporting shared storage at rank {rank} allocated {n} times"
        );
        let ((), n) = allocations(|| drop(exported));
        assert_eq!(
            n, 0,
            "dropping a shared export at rank {rank} allocated {n} times"
        );
        assert_eq!(
            std::sync::Arc::strong_count(&storage),
            1,
            "the clone was released"
        );
    }
}

#[test]
fn importing_validating_and_slicing_do_not_allocate() {
    use dlpack_benches::tensor::{self, RANKS};
    for rank in RANKS {
        let shape = tensor::shape(rank);
        // A foreign tensor: dlpark's export.
        let raw = tensor::export_dlpark(tensor::data(), &shape)
            .unwrap()
            .into_raw();
        // SAFETY: `raw` is live and ours; `import_ours` hands it back.
        let (result, n) = allocations(|| unsafe { tensor::import_ours(raw.cast()) });
        let (sum, back) = result.unwrap();
        assert_eq!(n, 0, "importing at rank {rank} allocated {n} times");
        assert_eq!(sum, tensor::ELEMENTS); // 64 elements, the first is 0.0
        // SAFETY: `back` is the live tensor handed back; dropped once.
        drop(unsafe { tensor::ParkTensor::from_raw(back.cast()) }.unwrap());
    }
}
