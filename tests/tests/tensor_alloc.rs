//! An export costs one heap allocation: the managed struct, the owner, and the shape and
//! strides share it. A counting global allocator (per thread, so parallel tests do not
//! interfere) measures it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use dlpack_core::tensor::{TensorOwner, TensorParts};
use dlpack_core::{LegacyManagedTensor, ManagedTensor};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static RELEASES: Cell<usize> = const { Cell::new(0) };
}

fn bump(counter: &'static std::thread::LocalKey<Cell<usize>>) {
    // `try_with`: the allocator may run while the thread's locals are being torn down.
    let _ = counter.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump(&ALLOCATIONS);
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump(&ALLOCATIONS);
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump(&ALLOCATIONS);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        bump(&RELEASES);
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns its result with the allocations and releases it made on this thread.
fn counted<R>(f: impl FnOnce() -> R) -> (R, usize, usize) {
    let (a, r) = (ALLOCATIONS.get(), RELEASES.get());
    let out = f();
    (out, ALLOCATIONS.get() - a, RELEASES.get() - r)
}

#[test]
fn exports_allocate_once() {
    let data: Vec<f32> = (0..24).map(|i| i as f32).collect();
    let (tensor, allocs, _) = counted(|| ManagedTensor::from_vec(data, &[2, 3, 4]).unwrap());
    assert_eq!(allocs, 1, "from_vec");

    let boxed: Box<[u8]> = vec![0; 6].into_boxed_slice();
    let (versioned, allocs, _) = counted(|| ManagedTensor::from_boxed(boxed, &[6]).unwrap());
    assert_eq!(allocs, 1, "from_boxed");
    // The legacy struct wraps the versioned export: its header is one more allocation.
    let (legacy, allocs, _) = counted(|| versioned.into_legacy().unwrap());
    assert_eq!(allocs, 1, "into_legacy");

    let shared: Arc<[i64]> = vec![1, 2, 3, 4].into();
    let (arc, allocs, _) = counted(|| ManagedTensor::from_arc(shared.clone(), &[2, 2]).unwrap());
    assert_eq!(allocs, 1, "from_arc");

    struct Strided(Vec<u16>);
    // SAFETY: the six elements the shape and strides reach lie in the Vec, owned alone.
    unsafe impl TensorOwner for Strided {
        fn describe(&mut self) -> TensorParts<'_> {
            TensorParts::host(self.0.as_mut_ptr(), &[3_usize, 2]).with_strides(&[1_i64, 3])
        }
    }
    let owner = Strided(vec![0; 6]);
    let (owned, allocs, _) = counted(|| ManagedTensor::from_owner(owner).unwrap());
    assert_eq!(allocs, 1, "from_owner");

    // Reading metadata and data, and handing the pointer across, allocate nothing.
    let ((), allocs, _) = counted(|| {
        let view = tensor.view().unwrap();
        assert_eq!(view.strides(), [12, 4, 1]);
        assert_eq!(view.as_slice::<f32>().unwrap()[23], 23.0);
        assert_eq!(owned.view().unwrap().shape(), [3, 2]);
    });
    assert_eq!(allocs, 0, "views and slices");
    // Strided iteration keeps its position (the index and the steps) on the heap: two
    // allocations, whatever the size.
    let ((), allocs, _) = counted(|| {
        assert_eq!(owned.view().unwrap().iter::<u16>().unwrap().len(), 6);
    });
    assert_eq!(allocs, 2, "iteration");
    let (tensor, allocs, _) = counted(|| {
        // SAFETY: straight from `into_raw`.
        unsafe { ManagedTensor::from_raw(tensor.into_raw()) }.unwrap()
    });
    assert_eq!(allocs, 0, "into_raw and from_raw");

    // Releasing frees the header and the owner's own buffer; the Arc keeps the shared data.
    let ((), _, releases) = counted(|| drop(tensor));
    assert_eq!(releases, 2, "header and Vec buffer");
    let ((), _, releases) = counted(|| drop::<LegacyManagedTensor>(legacy));
    assert_eq!(
        releases, 3,
        "legacy header, versioned header and boxed slice"
    );
    let ((), _, releases) = counted(|| drop(arc));
    assert_eq!(releases, 1, "header only; the slice is still shared");
    assert_eq!(Arc::strong_count(&shared), 1);
    drop(owned);
}
