//! Behaviours that worked but were not tested: flag bits DLPack 1.3 does not define, tensors
//! dropped on another thread and viewed from several, deleters that read their own tensor, and
//! the codes past DLPack 1.3's (data type 18 to 21 and 255, device type 18 to 21 and 255).

use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};

use dlpack_grammar::InvalidDataType;

use super::{Data, Foreign, Probe};
use dlpack_core::ffi::{
    DLDataTypeCode, DLDeviceType, DLManagedTensor, DLManagedTensorVersioned, DLPackVersion,
    DLTensor,
};
use dlpack_core::tensor::{Flags, Iter, IterMut, TensorError};
use dlpack_core::{
    DataType, Device, Error, LegacyManagedTensor, ManagedTensor, TensorView, TensorViewMut,
};

/// A flag bit DLPack 1.3 does not define.
const NEWER: u64 = 1 << 40;

#[test]
fn unknown_flag_bits_are_kept_on_import_and_refused_by_legacy_exports() {
    let mut f = Foreign::of(&[1_u8, 2], &[2]);
    f.flags = NEWER | Flags::IS_COPIED.bits();
    let (t, released) = f.import();
    let mut t = t.unwrap();
    assert_eq!(t.flags().bits(), NEWER | Flags::IS_COPIED.bits());
    assert_eq!(t.view().unwrap().flags(), t.flags());
    // Only READ_ONLY restricts a view; an unknown bit does not.
    t.view_mut().unwrap().as_slice_mut::<u8>().unwrap()[0] = 9;
    // A legacy struct would drop the bit, which might restrict use as READ_ONLY does: refused,
    // and the tensor released.
    let err = t.into_legacy().unwrap_err();
    assert_eq!(
        err,
        Error::Tensor(TensorError::LegacyFlags {
            flags: Flags::from_bits_retain(NEWER)
        })
    );
    assert_eq!(
        err.to_string(),
        "a legacy DLManagedTensor cannot carry the flags 0x10000000000; export a versioned tensor (DLPack 1.0 or later)"
    );
    assert_eq!(released.get(), 1);

    // IS_COPIED alone is dropped, harmlessly.
    let mut f = Foreign::of(&[1_u8, 2], &[2]);
    f.flags = Flags::IS_COPIED.bits();
    let legacy = f.import().0.unwrap().into_legacy().unwrap();
    assert_eq!(legacy.view().unwrap().as_slice::<u8>().unwrap(), [1, 2]);

    // An owner's description is held to the same rule, and the owner dropped.
    let drops = super::Counter::default();
    let mut probe = Probe::new(&[2], &drops);
    probe.flags = Flags::from_bits_retain(NEWER);
    let err = LegacyManagedTensor::from_legacy_owner(probe).unwrap_err();
    assert!(matches!(
        err,
        dlpack_core::Error::Tensor(TensorError::LegacyFlags { .. })
    ));
    assert_eq!(drops.get(), 1);
    let mut probe = Probe::new(&[2], &drops);
    probe.flags = Flags::from_bits_retain(NEWER);
    let t = ManagedTensor::from_owner(probe).unwrap();
    assert_eq!(t.flags().bits(), NEWER, "a versioned export keeps it");
}

/// What a [`Reading`] deleter saw of its tensor when it ran.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seen {
    thread: ThreadId,
    shape: Vec<i64>,
    strides: Vec<i64>,
    data: Vec<u32>,
    /// The version and flags of a versioned struct.
    header: Option<(DLPackVersion, u64)>,
}

type Log = Arc<Mutex<Vec<Seen>>>;

/// A producer whose deleter reads its whole tensor (shape, strides, every element) and the
/// struct's header before freeing it: a deleter may, so nothing may be released or changed
/// before it runs. Its thread is recorded too.
#[repr(C)]
struct Reading<M> {
    managed: M,
    data: Vec<u32>,
    shape: [i64; 2],
    strides: [i64; 2],
    log: Log,
}

impl<M> Reading<M> {
    /// Boxes `managed` with the data, and points its tensor (`tensor_of`) at them.
    fn boxed(managed: M, log: &Log, tensor_of: fn(*mut M) -> *mut DLTensor) -> *mut M {
        let b = Box::into_raw(Box::new(Self {
            managed,
            data: (1..=6).collect(),
            shape: [2, 3],
            strides: [1, 2],
            log: Arc::clone(log),
        }));
        // SAFETY: fresh, valid and ours; the tensor points into the same allocation.
        unsafe {
            tensor_of(&raw mut (*b).managed).write(DLTensor {
                data: (*b).data.as_mut_ptr().cast(),
                device: Device::CPU,
                ndim: 2,
                dtype: DataType::U32,
                shape: (&raw mut (*b).shape).cast(),
                strides: (&raw mut (*b).strides).cast(),
                byte_offset: 0,
            });
        }
        b.cast()
    }
}

/// Reads `tensor` as a 2-D `u32` tensor, the way a producer's deleter would.
///
/// # Safety
///
/// `tensor` must be a [`Reading`] tensor whose memory is still valid.
unsafe fn read(tensor: &DLTensor, header: Option<(DLPackVersion, u64)>) -> Seen {
    // SAFETY: the caller's contract: two dimensions and six elements, all valid.
    unsafe {
        let ndim = tensor.ndim as usize;
        let shape = core::slice::from_raw_parts(tensor.shape, ndim).to_vec();
        let strides = core::slice::from_raw_parts(tensor.strides, ndim).to_vec();
        let data = core::slice::from_raw_parts(tensor.data.cast::<u32>(), 6).to_vec();
        Seen {
            thread: thread::current().id(),
            shape,
            strides,
            data,
            header,
        }
    }
}

unsafe extern "C" fn read_versioned(p: *mut DLManagedTensorVersioned) {
    // SAFETY: `p` is the `managed` field (first, repr(C)) of a boxed `Reading`, released once.
    unsafe {
        let seen = read(&(*p).dl_tensor, Some(((*p).version, (*p).flags)));
        let b = Box::from_raw(p.cast::<Reading<DLManagedTensorVersioned>>());
        b.log.lock().unwrap().push(seen);
    }
}

unsafe extern "C" fn read_legacy(p: *mut DLManagedTensor) {
    // SAFETY: as above, for the legacy struct.
    unsafe {
        let seen = read(&(*p).dl_tensor, None);
        let b = Box::from_raw(p.cast::<Reading<DLManagedTensor>>());
        b.log.lock().unwrap().push(seen);
    }
}

fn versioned(version: DLPackVersion, flags: u64) -> (*mut DLManagedTensorVersioned, Log) {
    let log = Log::default();
    let managed = DLManagedTensorVersioned {
        version,
        manager_ctx: core::ptr::null_mut(),
        deleter: Some(read_versioned),
        flags,
        dl_tensor: super::empty_tensor(),
    };
    // SAFETY: a field projection of the valid pointer `boxed` passes.
    let ptr = Reading::boxed(managed, &log, |m| unsafe { &raw mut (*m).dl_tensor });
    (ptr, log)
}

fn legacy() -> (*mut DLManagedTensor, Log) {
    let log = Log::default();
    let managed = DLManagedTensor {
        dl_tensor: super::empty_tensor(),
        manager_ctx: core::ptr::null_mut(),
        deleter: Some(read_legacy),
    };
    // SAFETY: a field projection of the valid pointer `boxed` passes.
    let ptr = Reading::boxed(managed, &log, |m| unsafe { &raw mut (*m).dl_tensor });
    (ptr, log)
}

/// What the deleter must have seen: the tensor as it was handed over.
fn intact(header: Option<(DLPackVersion, u64)>) -> impl Fn(&Seen) -> bool {
    move |seen| {
        seen.shape == [2, 3]
            && seen.strides == [1, 2]
            && seen.data == [1, 2, 3, 4, 5, 6]
            && seen.header == header
    }
}

#[test]
fn deleters_that_read_their_tensor_find_it_intact() {
    let current = Some((DLPackVersion::CURRENT, 0));
    // Dropped after use.
    let (ptr, log) = versioned(DLPackVersion::CURRENT, 0);
    // SAFETY: a fresh tensor handed over once.
    let t = unsafe { ManagedTensor::from_raw(ptr) }.unwrap();
    assert_eq!(
        t.view().unwrap().to_vec::<u32>().unwrap(),
        [1, 3, 5, 2, 4, 6]
    );
    drop(t);
    assert!(log.lock().unwrap().iter().all(intact(current)));
    assert_eq!(log.lock().unwrap().len(), 1);

    // Refused by from_raw for its major version: released inside the call, intact.
    let two = DLPackVersion { major: 2, minor: 0 };
    let (ptr, log) = versioned(two, 0);
    // SAFETY: as above.
    assert!(unsafe { ManagedTensor::from_raw(ptr) }.is_err());
    assert!(log.lock().unwrap().iter().all(intact(Some((two, 0)))));
    assert_eq!(log.lock().unwrap().len(), 1);

    // Wrapped as legacy: the wrapper's deleter releases the original, still intact.
    let (ptr, log) = versioned(DLPackVersion::CURRENT, Flags::IS_COPIED.bits());
    // SAFETY: as above.
    let t = unsafe { ManagedTensor::from_raw(ptr) }.unwrap();
    let wrapped = t.into_legacy().unwrap();
    assert_eq!(wrapped.view().unwrap().strides(), [1, 2]);
    drop(wrapped);
    let copied = Some((DLPackVersion::CURRENT, Flags::IS_COPIED.bits()));
    assert!(log.lock().unwrap().iter().all(intact(copied)));
    assert_eq!(log.lock().unwrap().len(), 1);

    // Refused by into_legacy: released at once, intact.
    let (ptr, log) = versioned(DLPackVersion::CURRENT, Flags::READ_ONLY.bits());
    // SAFETY: as above.
    let t = unsafe { ManagedTensor::from_raw(ptr) }.unwrap();
    assert!(t.into_legacy().is_err());
    let read_only = Some((DLPackVersion::CURRENT, Flags::READ_ONLY.bits()));
    assert!(log.lock().unwrap().iter().all(intact(read_only)));
    assert_eq!(log.lock().unwrap().len(), 1);

    // Legacy, wrapped as versioned, released through the wrapper.
    let (ptr, log) = legacy();
    // SAFETY: as above.
    let t = unsafe { LegacyManagedTensor::from_raw(ptr) }.unwrap();
    let wrapped = t.into_versioned().unwrap();
    assert_eq!(wrapped.view().unwrap().shape(), [2, 3]);
    drop(wrapped);
    assert!(log.lock().unwrap().iter().all(intact(None)));
    assert_eq!(log.lock().unwrap().len(), 1);
}

#[test]
fn tensors_and_views_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<ManagedTensor>();
    send_sync::<LegacyManagedTensor>();
    send_sync::<TensorView<'_>>();
    send_sync::<TensorViewMut<'_>>();
    send_sync::<Iter<'_, u32>>();
    send_sync::<IterMut<'_, u32>>();

    let here = thread::current().id();
    let (ptr, log) = versioned(DLPackVersion::CURRENT, 0);
    // SAFETY: a fresh tensor handed over once.
    let mut t = unsafe { ManagedTensor::from_raw(ptr) }.unwrap();
    // Concurrent views: each thread validates its own, and one is moved in.
    let view = t.view().unwrap();
    thread::scope(|s| {
        let readers: Vec<_> = (0..3)
            .map(|_| s.spawn(|| t.view().unwrap().iter::<u32>().unwrap().sum::<u32>()))
            .collect();
        let moved = view.clone();
        let copier = s.spawn(move || moved.to_vec::<u32>().unwrap());
        for reader in readers {
            assert_eq!(reader.join().unwrap(), 21);
        }
        assert_eq!(copier.join().unwrap(), [1, 3, 5, 2, 4, 6]);
    });
    drop(view);
    // A mutable view written from another thread.
    let mut writer = t.view_mut().unwrap();
    thread::scope(|s| {
        s.spawn(|| writer.iter_mut::<u32>().unwrap().for_each(|x| *x *= 10));
    });
    assert_eq!(
        t.view().unwrap().to_vec::<u32>().unwrap(),
        [10, 30, 50, 20, 40, 60]
    );
    // Dropped on another thread: the deleter runs there, once.
    let there = thread::spawn(move || {
        drop(t);
        thread::current().id()
    })
    .join()
    .unwrap();
    assert_ne!(there, here);
    let seen = log.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].thread, there);
    assert_eq!(seen[0].data, [10, 20, 30, 40, 50, 60]);

    // A legacy tensor too.
    let (ptr, log) = legacy();
    // SAFETY: as above.
    let t = unsafe { LegacyManagedTensor::from_raw(ptr) }.unwrap();
    let there = thread::spawn(move || {
        assert_eq!(t.view().unwrap().len(), 6);
        drop(t);
        thread::current().id()
    })
    .join()
    .unwrap();
    assert_eq!(log.lock().unwrap()[0].thread, there);
}

#[test]
fn data_type_codes_past_dlpack_1_3() {
    // 18 is bcomplex (two bfloat16): 32 bits only.
    let bcomplex = DataType::new(DLDataTypeCode(18), 32, 1);
    let (t, _) = Foreign::bytes(&[1, 2, 3, 4, 5, 6, 7, 8], bcomplex, &[2]).import();
    let t = t.unwrap();
    let view = t.view().unwrap();
    assert_eq!(view.dtype(), DataType::BCOMPLEX32);
    assert_eq!(view.byte_range(), 0..8);
    assert_eq!(view.as_bytes().unwrap(), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert!(matches!(
        view.as_slice::<u32>().unwrap_err(),
        Error::Tensor(TensorError::DataTypeMismatch { .. })
    ));
    let narrow = DataType::new(DLDataTypeCode(18), 16, 1);
    let (t, _) = Foreign::bytes(&[0; 8], narrow, &[2]).import();
    assert_eq!(
        t.unwrap().view().unwrap_err().to_string(),
        "dtype is invalid(code=18, bits=16, lanes=1): bcomplex takes 32 bits, not 16"
    );
    // 19 to 21 and 255 are unknown: refused with the code, before anything else is read.
    for code in [19, 20, 21, 255] {
        let dtype = DataType::new(DLDataTypeCode(code), 8, 1);
        let mut f = Foreign::bytes(&[0; 8], dtype, &[2]);
        f.shape = None; // never read
        f.ndim = Some(2);
        let (t, released) = f.import();
        let t = t.unwrap();
        assert_eq!(
            t.view().unwrap_err(),
            Error::Tensor(TensorError::InvalidDataType {
                dtype,
                reason: InvalidDataType::UnknownCode(code),
            })
        );
        assert_eq!(t.dtype(), dtype, "kept as the producer wrote it");
        drop(t);
        assert_eq!(released.get(), 1);
    }
}

#[test]
fn device_types_past_dlpack_1_3() {
    // trn, tpu, tpu_host, ascend, and one nobody has named yet.
    for (device_type, readable) in [
        (18, false),
        (19, false),
        (20, true),
        (21, false),
        (255, false),
    ] {
        let device = Device::new(DLDeviceType(device_type), 1);
        let mut f = Foreign::of(&[7_u16, 8], &[2]);
        f.device = device;
        let (t, released) = f.import();
        let t = t.unwrap();
        let view = t.view().expect("metadata of any device can be viewed");
        assert_eq!(view.device(), device);
        assert_eq!((view.shape(), view.len()), (&[2][..], 2));
        match view.as_slice::<u16>() {
            Ok(values) => {
                assert!(readable, "{device}");
                assert_eq!(values, [7, 8]);
            }
            Err(err) => {
                assert!(!readable, "{device}: {err}");
                assert_eq!(
                    err,
                    Error::Tensor(TensorError::NotHostAccessible { device })
                );
                assert!(err.to_string().contains(&device.to_string()));
            }
        }
        drop(view);
        drop(t);
        assert_eq!(released.get(), 1);
    }
    // Refused before the address is looked at.
    let mut f = Foreign::of(&[1_u8], &[1]);
    f.device = Device::new(DLDeviceType(255), 0);
    f.data = Data::Null;
    let (t, _) = f.import();
    assert!(matches!(
        t.unwrap().view().unwrap().iter::<u8>().unwrap_err(),
        Error::Tensor(TensorError::NotHostAccessible { .. })
    ));
}
