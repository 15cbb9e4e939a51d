//! What candle's safe in-place writes can reach of an export, through the safe API: nothing.
//!
//! Each test is a way safe code writes, replaces or frees a candle storage while a DLPack
//! tensor made from it is being read — `slice_set`, `zero_set`/`const_set`, `Var::set`
//! through a `detach()`ed or `narrow`ed handle, a write on another thread, an `InplaceOp1`
//! that replaces the storage's `Vec` — and fails if a `&[T]` held across the write sees it;
//! and an `InplaceOp1` that leaves a storage of another type or length under the tensor's
//! layout, which every read must refuse.
//! They run under Miri in CI (`.ci/run`), where a read of freed memory or a data race is
//! reported as undefined behaviour even when the values happen to look right.
#![cfg(feature = "candle")]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};

use candle_core::{CpuStorage, DType, Device, InplaceOp1, Layout, Tensor, Var};
use dlpack_core::bridges::candle::share;
use dlpack_core::tensor::{Flags, FromDlpackTensor, ToDlpackTensor};
use dlpack_core::{ManagedTensor, from_dlpack};

const CPU: Device = Device::Cpu;

fn ones(n: usize) -> Tensor {
    Tensor::ones(n, DType::F32, &CPU).unwrap()
}

#[test]
fn slice_set_does_not_reach_a_slice_of_the_export() {
    let cache = Tensor::zeros((2, 3), DType::F32, &CPU).unwrap();
    let exported = cache.to_dlpack_tensor().unwrap();
    let view = exported.view().unwrap();
    let slice = view.as_slice::<f32>().unwrap();
    assert_eq!(slice, [0.; 6]);
    // A KV cache's write, through a shared reference to the same tensor.
    cache
        .slice_set(&Tensor::ones((1, 3), DType::F32, &CPU).unwrap(), 0, 1)
        .unwrap();
    assert_eq!(slice, [0.; 6]);
    assert_eq!(
        cache.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
        [0., 0., 0., 1., 1., 1.]
    );
}

#[test]
fn zero_set_and_const_set_do_not_reach_a_slice_of_the_export() {
    let t = ones(4);
    let exported = t.to_dlpack_tensor().unwrap();
    let view = exported.view().unwrap();
    let slice = view.as_slice::<f32>().unwrap();
    t.zero_set().unwrap();
    assert_eq!(slice, [1.; 4]);
    t.const_set(7_f32.into()).unwrap();
    assert_eq!(slice, [1.; 4]);
    // A view of the same storage writes it too; the export still holds what it held.
    t.narrow(0, 1, 2).unwrap().const_set(9_f32.into()).unwrap();
    assert_eq!(slice, [1.; 4]);
    assert_eq!(t.to_vec1::<f32>().unwrap(), [7., 9., 9., 7.]);
}

#[test]
fn var_set_through_a_detached_or_narrowed_handle_does_not_reach_the_export() {
    let var = Var::new(&[1_f32, 2., 3., 4.], &CPU).unwrap();
    let detached = var.as_tensor().detach();
    let tail = var.narrow(0, 2, 2).unwrap();
    assert!(!detached.is_variable() && !tail.is_variable());
    let of_detached = detached.to_dlpack_tensor().unwrap();
    let of_tail = tail.to_dlpack_tensor().unwrap();
    let (detached_view, tail_view) = (of_detached.view().unwrap(), of_tail.view().unwrap());
    let (detached_slice, tail_slice) = (
        detached_view.as_slice::<f32>().unwrap(),
        tail_view.as_slice::<f32>().unwrap(),
    );
    var.set(&Tensor::new(&[5_f32, 6., 7., 8.], &CPU).unwrap())
        .unwrap();
    assert_eq!(detached_slice, [1., 2., 3., 4.]);
    assert_eq!(tail_slice, [3., 4.]);
    // candle's own handles see the write: they share the storage, the export does not.
    assert_eq!(detached.to_vec1::<f32>().unwrap(), [5., 6., 7., 8.]);
}

/// An in-place op that replaces the storage's `Vec` with a longer one, freeing the old one:
/// what a safe `InplaceOp1` may do.
struct Regrow;

impl InplaceOp1 for Regrow {
    fn name(&self) -> &'static str {
        "regrow"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, _: &Layout) -> candle_core::Result<()> {
        if let CpuStorage::F32(data) = storage {
            *data = vec![-1.; data.len() * 4];
        }
        Ok(())
    }
}

#[test]
fn an_in_place_op_that_replaces_the_storage_frees_nothing_the_export_reads() {
    let t = ones(3);
    let exported = t.to_dlpack_tensor().unwrap();
    let view = exported.view().unwrap();
    let slice = view.as_slice::<f32>().unwrap();
    t.inplace_op1(&Regrow).unwrap();
    // Under Miri, a slice into the freed `Vec` is a use after free here.
    assert_eq!(slice, [1.; 3]);
    assert_eq!(t.to_vec1::<f32>().unwrap(), [-1.; 3]);
    // And a view lent by the tensor reads the new storage, whole.
    let mut seen = Vec::new();
    t.lend_view(&mut |view| {
        seen = view.as_slice::<f32>()?.to_vec();
        Ok(())
    })
    .unwrap();
    assert_eq!(seen, [-1.; 3]);
}

/// Writes `t` in place with `const_set` from another thread until told to stop, alternating
/// two values, while `read` runs on this one (from after the first write on).
fn while_another_thread_writes(t: &Tensor, rounds: usize, read: impl Fn() -> Vec<f32>) {
    let writer = t.clone();
    let first_write = Arc::new(Barrier::new(2));
    let stop = Arc::new(AtomicBool::new(false));
    let thread = {
        let (first_write, stop) = (Arc::clone(&first_write), Arc::clone(&stop));
        std::thread::spawn(move || {
            writer.const_set(2_f32.into()).unwrap();
            first_write.wait();
            let mut value = 3_f32;
            while !stop.load(Ordering::Relaxed) {
                writer.const_set(value.into()).unwrap();
                value = 5. - value; // 3, 2, 3, …
            }
        })
    };
    first_write.wait();
    for _ in 0..rounds {
        let values = read();
        // Whole writes only: every element holds the same value.
        assert!(values.windows(2).all(|w| w[0] == w[1]), "{values:?}");
    }
    stop.store(true, Ordering::Relaxed);
    thread.join().unwrap();
}

#[test]
fn a_write_on_another_thread_races_with_no_read_of_the_export() {
    let t = ones(64);
    let exported = t.to_dlpack_tensor().unwrap();
    let view = exported.view().unwrap();
    let slice = view.as_slice::<f32>().unwrap();
    while_another_thread_writes(&t, 8, || {
        // Under Miri, a read of memory the writer thread writes is a data race.
        assert_eq!(slice, [1.; 64]);
        slice.to_vec()
    });
    // Exports made while the writer runs are whole snapshots: candle's lock is held.
    while_another_thread_writes(&t, 8, || {
        let copy = t.to_dlpack_tensor().unwrap();
        copy.view().unwrap().to_vec::<f32>().unwrap()
    });
    // So are imports and lent views.
    while_another_thread_writes(&t, 8, || {
        let back: Tensor = from_dlpack(&t).unwrap();
        back.to_vec1::<f32>().unwrap()
    });
    while_another_thread_writes(&t, 8, || {
        let mut seen = Vec::new();
        t.lend_view(&mut |view| {
            seen = view.as_slice::<f32>()?.to_vec();
            Ok(())
        })
        .unwrap();
        seen
    });
}

#[test]
fn a_consumer_of_the_raw_export_reads_what_was_exported() {
    // A C consumer holds the raw struct; candle writes in place meanwhile.
    let t = ones(2);
    let raw = t.to_dlpack_tensor().unwrap().into_raw();
    t.const_set(4_f32.into()).unwrap();
    // SAFETY: `raw` came from `into_raw`, and is owned by nobody else.
    let back = unsafe { ManagedTensor::from_raw(raw) }.unwrap();
    assert_eq!(back.flags(), Flags::IS_COPIED);
    assert_eq!(back.view().unwrap().as_slice::<f32>().unwrap(), [1., 1.]);
}

// ---- A storage that no longer matches its layout. ----
// An `InplaceOp1` is safe to implement, and candle checks nothing after it runs: it may leave
// a storage of another type, or shorter, under the tensor's dtype and layout. Every path that
// reads the storage (export, lent view, import into candle, the `unsafe` share, whose promise
// is about writes, not about this) must see the mismatch and refuse it, never read past the
// storage: under Miri, a read of the 4-byte `u8` storage as 16 bytes of `f32` is out of
// bounds.

/// An in-place op that puts `storage` in place of whatever the tensor held.
struct Swap(CpuStorage);

impl InplaceOp1 for Swap {
    fn name(&self) -> &'static str {
        "swap"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, _: &Layout) -> candle_core::Result<()> {
        *storage = self.0.clone();
        Ok(())
    }
}

/// A CPU tensor of `dtype` and `n` elements whose storage `Swap` has replaced with `storage`.
fn swapped(dtype: DType, n: usize, storage: CpuStorage) -> Tensor {
    let t = Tensor::zeros(n, dtype, &CPU).unwrap();
    t.inplace_op1(&Swap(storage)).unwrap();
    t
}

/// Every way to read a candle tensor refuses `t`, with `message`.
fn every_read_refuses(t: &Tensor, message: &str) {
    let err = t.to_dlpack_tensor().unwrap_err();
    assert_eq!(err.to_string(), message, "to_dlpack_tensor");
    let err = from_dlpack::<ManagedTensor>(t).unwrap_err();
    assert_eq!(err.to_string(), message, "from_dlpack::<ManagedTensor>");
    let mut called = false;
    let err = t
        .lend_view(&mut |_| {
            called = true;
            Ok(())
        })
        .unwrap_err();
    assert_eq!(err.to_string(), message, "with_tensor_view");
    assert!(!called, "no view is lent");
    let err = from_dlpack::<Tensor>(t).unwrap_err();
    assert_eq!(err.to_string(), message, "from_dlpack::<Tensor>");
    let err = <Tensor as FromDlpackTensor>::from_dlpack_source(t).unwrap_err();
    assert_eq!(err.to_string(), message, "from_dlpack_source");
    // SAFETY: nothing writes `t` while the (refused) export would live.
    let err = unsafe { share(t) }.unwrap_err();
    assert_eq!(err.to_string(), message, "share");
}

#[test]
fn a_storage_swapped_for_another_type_is_refused_on_every_read() {
    // 4 bytes of `u8` under an `f32` tensor of 4 elements: 16 bytes would be read.
    let t = swapped(DType::F32, 4, CpuStorage::U8(vec![1, 2, 3, 4]));
    every_read_refuses(
        &t,
        "a candle tensor of dtype f32 and shape [4] is stored as u8 with 4 elements: its \
         storage does not match its layout",
    );
    // `f64` over packed sub-byte bytes: 8 bytes per element read from a 2-byte `Vec`.
    let t = swapped(DType::F64, 2, CpuStorage::F4(vec![0x21, 0x43]));
    every_read_refuses(
        &t,
        "a candle tensor of dtype f64 and shape [2] is stored as f4 with 2 bytes: its \
         storage does not match its layout",
    );
    // Same size, other type: no read past the end, but not the values the tensor claims.
    let t = swapped(DType::U32, 2, CpuStorage::F32(vec![1.5, 2.5]));
    every_read_refuses(
        &t,
        "a candle tensor of dtype u32 and shape [2] is stored as f32 with 2 elements: its \
         storage does not match its layout",
    );
}

#[test]
fn a_storage_swapped_for_a_shorter_one_is_refused_on_every_read() {
    let t = swapped(DType::F32, 4, CpuStorage::F32(vec![1., 2.]));
    every_read_refuses(
        &t,
        "a candle tensor of dtype f32 and shape [4] is stored as f32 with 2 elements: its \
         layout reaches element 3",
    );
    // A view into it reaches past the end through its start offset alone.
    let t = Tensor::zeros(8, DType::I64, &CPU).unwrap();
    let tail = t.narrow(0, 6, 2).unwrap();
    t.inplace_op1(&Swap(CpuStorage::I64(vec![0; 7]))).unwrap();
    every_read_refuses(
        &tail,
        "a candle tensor of dtype i64 and shape [2] is stored as i64 with 7 elements: its \
         layout reaches element 7",
    );
    // A longer storage of the right type is read as the layout says.
    let t = swapped(DType::F32, 2, CpuStorage::F32(vec![1., 2., 3.]));
    assert_eq!(
        t.to_dlpack_tensor()
            .unwrap()
            .view()
            .unwrap()
            .as_slice::<f32>()
            .unwrap(),
        [1., 2.]
    );
}
