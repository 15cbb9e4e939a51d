//! CUDA tensors in and out: export of device buffers, typed device views, host-device copies
//! with `from_dlpack(..., device, copy)` semantics, and `cuda_host` memory read in place.
//!
//! Tests named `gpu_*` need a GPU and skip (or, with `DLPACK_REQUIRE_GPU=1`, fail) without
//! one; the others run everywhere.
#![cfg(feature = "cuda")]

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use dlpack_core::cuda::cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DevicePtr, result, sys,
};
use dlpack_core::cuda::{self, CopyMode, CudaBuffer, CudaError, CudaTensorView, StreamArg};
use dlpack_core::ffi::{DLPackVersion, DLTensor};
use dlpack_core::tensor::{Flags, TensorError, TensorOwner, TensorParts, TensorView};
use dlpack_core::{DataType, Device, Error, ManagedTensor};
use support::{Gate, gpu, stream, two_gpus, write_u32};

/// Host memory exported under any device type and with any strides: `cuda_host` memory
/// without a driver, or a strided CPU tensor.
struct HostOwner {
    data: Vec<f32>,
    device: Device,
    shape: Vec<usize>,
    strides: Option<Vec<i64>>,
    byte_offset: u64,
}

impl HostOwner {
    fn new(data: Vec<f32>, device: Device, shape: &[usize]) -> Self {
        Self {
            data,
            device,
            shape: shape.to_vec(),
            strides: None,
            byte_offset: 0,
        }
    }
}

// SAFETY: the Vec holds every element the shape, strides and byte offset reach (each test
// builds them so), stays put while the owner lives, and nothing else touches it.
unsafe impl TensorOwner for HostOwner {
    fn describe(&mut self) -> TensorParts<'_> {
        let parts = TensorParts::new(
            self.data.as_mut_ptr().cast(),
            self.device,
            DataType::F32,
            &self.shape,
        )
        .with_byte_offset(self.byte_offset);
        match &self.strides {
            Some(strides) => parts.with_strides(strides),
            None => parts,
        }
    }
}

fn is_copy(tensor: &ManagedTensor) -> bool {
    tensor.view().unwrap().flags().contains(Flags::IS_COPIED)
}

#[test]
fn a_cpu_consumer_reads_cuda_host_memory_in_place() {
    let data = vec![1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let address = data.as_ptr();
    let tensor = ManagedTensor::from_owner(HostOwner::new(data, Device::CUDA_HOST, &[2, 3]))
        .expect("export");
    {
        let view = tensor.view().expect("view");
        assert_eq!(view.device(), Device::CUDA_HOST);
        assert!(Device::CPU.can_access(view.device()));
        let elements = view.as_slice::<f32>().expect("the CPU reads pinned memory");
        assert_eq!(elements, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(elements.as_ptr(), address, "read in place, not copied");
        // It is host memory, not a CUDA tensor to hand to kernels as device memory.
        assert!(matches!(
            CudaTensorView::<f32>::new(view.clone()),
            Err(Error::Cuda(CudaError::UnsupportedDevice { .. }))
        ));
    }
    // from_dlpack(x, device="cpu", copy=False) shares it, with no driver involved.
    let shared = cuda::to_device(tensor, Device::CPU, CopyMode::Never, None).expect("shared");
    assert!(!is_copy(&shared));
    assert_eq!(
        shared.view().unwrap().as_slice::<f32>().unwrap().as_ptr(),
        address
    );
    // copy=True makes a compact CPU copy, flagged.
    let copied = cuda::to_device(shared, Device::CPU, CopyMode::Always, None).expect("copy");
    let view = copied.view().unwrap();
    assert!(is_copy(&copied));
    assert_eq!(view.device(), Device::CPU);
    assert_eq!(
        view.as_slice::<f32>().unwrap(),
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    );
    assert_ne!(view.as_slice::<f32>().unwrap().as_ptr(), address);
}

#[test]
fn host_copies_come_out_compact() {
    // A 3 x 2 view of a 2 x 3 matrix (transposed), skipping a leading element.
    let mut owner = HostOwner::new(
        vec![-1.0, 0.0, 1.0, 2.0, 10.0, 11.0, 12.0],
        Device::CPU,
        &[3, 2],
    );
    owner.strides = Some(vec![1, 3]);
    owner.byte_offset = 4;
    let tensor = ManagedTensor::from_owner(owner).expect("export");
    let copied = cuda::to_device(tensor, Device::CPU, CopyMode::Always, None).expect("copy");
    let view = copied.view().unwrap();
    assert!(view.is_compact());
    assert_eq!(view.shape(), [3, 2]);
    assert_eq!(
        view.as_slice::<f32>().unwrap(),
        [0.0, 10.0, 1.0, 11.0, 2.0, 12.0]
    );

    // Negative strides: rows reversed.
    let mut owner = HostOwner::new(vec![1.0, 2.0, 3.0, 4.0], Device::CPU, &[2, 2]);
    owner.strides = Some(vec![-2, 1]);
    owner.byte_offset = 8;
    let tensor = ManagedTensor::from_owner(owner).expect("export");
    let copied = cuda::to_device(tensor, Device::CPU, CopyMode::Always, None).expect("copy");
    assert_eq!(
        copied.view().unwrap().as_slice::<f32>().unwrap(),
        [3.0, 4.0, 1.0, 2.0]
    );

    // Empty and scalar tensors.
    let empty = ManagedTensor::from_vec(Vec::<f32>::new(), &[0, 4]).unwrap();
    let copied = cuda::to_device(empty, Device::CPU, CopyMode::Always, None).unwrap();
    assert_eq!(copied.view().unwrap().shape(), [0, 4]);
    let scalar = ManagedTensor::from_vec(vec![7_u64], &[]).unwrap();
    let copied = cuda::to_device(scalar, Device::CPU, CopyMode::Always, None).unwrap();
    assert_eq!(copied.view().unwrap().as_slice::<u64>().unwrap(), [7]);
}

#[test]
fn copy_false_to_a_gpu_is_refused_without_touching_the_driver() {
    let tensor = ManagedTensor::from_vec(vec![1_i32, 2], &[2]).unwrap();
    let err = cuda::to_device(tensor, Device::cuda(0), CopyMode::Never, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "copy=False, but a tensor on cpu cannot be used on cuda:0 without a copy"
    );
}

#[test]
fn a_copy_to_a_gpu_without_one_is_an_error_not_a_panic() {
    if !cuda::cuda_devices().is_empty() {
        return; // covered by the gpu_ tests
    }
    let tensor = ManagedTensor::from_vec(vec![1_i32, 2], &[2]).unwrap();
    match cuda::to_device(tensor, Device::cuda(0), CopyMode::IfNeeded, None) {
        Err(Error::Cuda(CudaError::NoDriver | CudaError::DeviceNotFound { .. })) => {}
        other => panic!("{other:?}"),
    }
}

/// A bare `kDLCUDA` tensor at a made-up device address: views check metadata and never read
/// device memory, so this needs no GPU.
fn fake_cuda_tensor(
    device: Device,
    address: usize,
    dtype: DataType,
    shape: &mut [i64],
    strides: &mut [i64],
    byte_offset: u64,
) -> DLTensor {
    DLTensor {
        data: std::ptr::without_provenance_mut(address),
        device,
        ndim: shape.len() as i32,
        dtype,
        shape: shape.as_mut_ptr(),
        strides: strides.as_mut_ptr(),
        byte_offset,
    }
}

#[test]
fn cuda_views_check_metadata_without_reading_device_memory() {
    let (mut shape, mut strides) = ([4_i64, 2], [1_i64, 4]);
    for device in [Device::cuda(3), Device::CUDA_MANAGED] {
        let raw = fake_cuda_tensor(
            device,
            0x7f00_0000_0000,
            DataType::F32,
            &mut shape,
            &mut strides,
            64,
        );
        // SAFETY: shape and strides outlive the view; the device is not host-readable, so
        // no data promise is needed.
        let view =
            unsafe { TensorView::from_dl_tensor(&raw, Flags::EMPTY, DLPackVersion::CURRENT) }
                .expect("valid metadata");
        let typed = CudaTensorView::<f32>::new(view.clone()).expect("a CUDA view");
        assert_eq!(typed.device(), device);
        assert_eq!((typed.shape(), typed.strides()), (&[4, 2][..], &[1, 4][..]));
        assert_eq!(typed.device_ptr(), 0x7f00_0000_0040);
        assert!(!typed.is_compact());
        assert_eq!(typed.len(), 8);
        // Typed host access is refused: the CPU cannot read it.
        assert!(view.as_slice::<f32>().is_err());
        // Wrong element type.
        assert!(matches!(
            CudaTensorView::<i32>::new(view.clone()),
            Err(Error::Tensor(TensorError::DataTypeMismatch { .. }))
        ));
    }
}

#[test]
fn cuda_views_refuse_null_and_misaligned_data() {
    let (mut shape, mut strides) = ([3_i64], [1_i64]);
    let null = fake_cuda_tensor(
        Device::cuda(0),
        0,
        DataType::F64,
        &mut shape,
        &mut strides,
        0,
    );
    // SAFETY: as above.
    let view =
        unsafe { TensorView::from_dl_tensor(&null, Flags::EMPTY, DLPackVersion::CURRENT) }.unwrap();
    assert!(matches!(
        CudaTensorView::<f64>::new(view),
        Err(Error::Tensor(TensorError::NullData { elements: 3 }))
    ));
    let odd = fake_cuda_tensor(
        Device::cuda(0),
        0x1000,
        DataType::F64,
        &mut shape,
        &mut strides,
        4,
    );
    // SAFETY: as above.
    let view =
        unsafe { TensorView::from_dl_tensor(&odd, Flags::EMPTY, DLPackVersion::CURRENT) }.unwrap();
    assert!(matches!(
        CudaTensorView::<f64>::new(view),
        Err(Error::Tensor(TensorError::Misaligned {
            address: 0x1004,
            align: 8,
            ..
        }))
    ));
    // A READ_ONLY tensor gives no writable pointer.
    let ok = fake_cuda_tensor(
        Device::cuda(0),
        0x1000,
        DataType::F64,
        &mut shape,
        &mut strides,
        0,
    );
    // SAFETY: as above.
    let view = unsafe { TensorView::from_dl_tensor(&ok, Flags::READ_ONLY, DLPackVersion::CURRENT) }
        .unwrap();
    let mut typed = CudaTensorView::<f64>::new(view).unwrap();
    assert!(typed.flags().contains(Flags::READ_ONLY));
    assert_eq!(
        typed.device_ptr_mut(),
        Err(Error::Tensor(TensorError::ReadOnly))
    );
}

// ---- with a GPU ------------------------------------------------------------------------------

#[test]
fn gpu_export_import_round_trip() {
    let Some(device) = gpu("gpu_export_import_round_trip") else {
        return;
    };
    let (_context, stream) = stream(device);
    let values: Vec<f32> = (0..12).map(|v| v as f32 * 0.5).collect();
    let buffer = CudaBuffer::from_host(&stream, &values, &[3, 4]).expect("upload");
    let address = {
        let (ptr, _sync) = buffer.slice().device_ptr(&stream);
        ptr
    };
    let tensor = buffer.into_dlpack().expect("export");
    // Across the C ABI, as a consumer gets it.
    let raw = tensor.into_raw();
    // SAFETY: `raw` comes from `into_raw` and is taken back once.
    let tensor = unsafe { ManagedTensor::from_raw(raw) }.expect("import");
    let view = CudaTensorView::<f32>::new(tensor.view().unwrap()).expect("CUDA view");
    assert_eq!(view.device(), device);
    assert_eq!((view.shape(), view.strides()), (&[3, 4][..], &[4, 1][..]));
    assert_eq!(view.device_ptr(), address, "exported in place, not copied");
    assert_eq!(view.to_host_vec(Some(&stream)).expect("download"), values);
    // to the host with copy=None: a copy (the CPU cannot read cuda:n).
    drop(view);
    let host = cuda::to_device(tensor, Device::CPU, CopyMode::IfNeeded, Some(&stream)).unwrap();
    assert!(is_copy(&host));
    assert_eq!(host.view().unwrap().as_slice::<f32>().unwrap(), values);
}

/// A CUDA buffer whose drop is observable.
struct Tracked {
    buffer: CudaBuffer<u8>,
    dropped: Arc<AtomicBool>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

// SAFETY: forwards to `CudaBuffer`'s description, which keeps its promises while the buffer
// (owned here) lives.
unsafe impl TensorOwner for Tracked {
    fn describe(&mut self) -> TensorParts<'_> {
        self.buffer.describe()
    }
}

#[test]
fn gpu_the_owner_lives_until_the_deleter_runs() {
    let Some(device) = gpu("gpu_the_owner_lives_until_the_deleter_runs") else {
        return;
    };
    let (_context, stream) = stream(device);
    let dropped = Arc::new(AtomicBool::new(false));
    let buffer = CudaBuffer::from_host(&stream, &[1_u8, 2, 3], &[3]).unwrap();
    let tensor = ManagedTensor::from_owner(Tracked {
        buffer,
        dropped: Arc::clone(&dropped),
    })
    .unwrap();
    let raw = tensor.into_raw();
    assert!(!dropped.load(Ordering::SeqCst));
    // SAFETY: from `into_raw`, taken back once.
    let tensor = unsafe { ManagedTensor::from_raw(raw) }.unwrap();
    let view = CudaTensorView::<u8>::new(tensor.view().unwrap()).unwrap();
    assert_eq!(view.to_host_vec(Some(&stream)).unwrap(), [1, 2, 3]);
    drop(view);
    assert!(!dropped.load(Ordering::SeqCst));
    // The consumer releases the tensor: the deleter drops the owner, on another thread here.
    std::thread::spawn(move || drop(tensor)).join().unwrap();
    assert!(dropped.load(Ordering::SeqCst));
    // The context is still usable after a foreign-thread release.
    stream.synchronize().expect("stream");
}

/// The elements of a tensor in CUDA memory, read back through a host copy.
fn read<T: dlpack_core::Element + Copy>(tensor: &ManagedTensor) -> Vec<T> {
    CudaTensorView::<T>::new(tensor.view().unwrap())
        .unwrap()
        .to_host_vec(None)
        .unwrap()
}

#[test]
fn gpu_copies_between_host_and_device() {
    let Some(gpu0) = gpu("gpu_copies_between_host_and_device") else {
        return;
    };
    let (_context, stream) = stream(gpu0);
    // A strided host source (transposed) goes up compact, with its values…
    let mut owner = HostOwner::new(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], Device::CPU, &[3, 2]);
    owner.strides = Some(vec![1, 3]);
    let host = ManagedTensor::from_owner(owner).unwrap();
    let on_gpu = cuda::to_device(host, gpu0, CopyMode::IfNeeded, Some(&stream)).unwrap();
    {
        let view = on_gpu.view().unwrap();
        assert_eq!((view.device(), view.strides()), (gpu0, &[2, 1][..]));
        assert!(view.flags().contains(Flags::IS_COPIED));
    }
    assert_eq!(read::<f32>(&on_gpu), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    // …copy=None on its own device keeps it (same data pointer)…
    let before = on_gpu.view().unwrap().data_ptr();
    let kept = cuda::to_device(on_gpu, gpu0, CopyMode::IfNeeded, Some(&stream)).unwrap();
    assert_eq!(kept.view().unwrap().data_ptr(), before);
    // …copy=True on the device copies device to device, values and all…
    let twin = cuda::to_device(kept, gpu0, CopyMode::Always, Some(&stream)).unwrap();
    assert_ne!(twin.view().unwrap().data_ptr(), before);
    assert_eq!(read::<f32>(&twin), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    // …a compact host source goes up in one run…
    let host = ManagedTensor::from_vec((0..1000_i64).collect(), &[10, 100]).unwrap();
    let up = cuda::to_device(host, gpu0, CopyMode::IfNeeded, None).unwrap();
    assert_eq!(read::<i64>(&up), (0..1000).collect::<Vec<_>>());
    // …and copy=False to the host is refused, and the default stream brings it down.
    let err = cuda::to_device(twin, Device::CPU, CopyMode::Never, None).unwrap_err();
    assert_eq!(
        err,
        Error::Cuda(CudaError::CopyRequired {
            from: gpu0,
            to: Device::CPU
        })
    );
    let down = cuda::to_device(up, Device::CPU, CopyMode::IfNeeded, None).unwrap();
    assert_eq!(down.view().unwrap().as_slice::<i64>().unwrap()[999], 999);
}

/// A view of a device allocation with any layout; the allocation is freed with the owner.
struct OnDevice {
    slice: Option<CudaSlice<u8>>,
    ptr: u64,
    device: Device,
    dtype: DataType,
    shape: Vec<usize>,
    strides: Vec<i64>,
    byte_offset: u64,
}

impl OnDevice {
    /// `bytes` of device memory on `stream` (uninitialised: the test writes what it reads).
    fn new(stream: &Arc<CudaStream>, bytes: usize, dtype: DataType) -> Self {
        // SAFETY: every test writes the elements it later reads.
        let slice = cuda::with_current(stream.context(), || unsafe { stream.alloc::<u8>(bytes) })
            .unwrap()
            .expect("cuMemAlloc");
        let ptr = slice.device_ptr(stream).0;
        Self {
            slice: Some(slice),
            ptr,
            device: Device::cuda(stream.context().ordinal() as i32),
            dtype,
            shape: Vec::new(),
            strides: Vec::new(),
            byte_offset: 0,
        }
    }

    fn layout(mut self, shape: &[usize], strides: &[i64], byte_offset: u64) -> Self {
        self.shape = shape.to_vec();
        self.strides = strides.to_vec();
        self.byte_offset = byte_offset;
        self
    }
}

impl Drop for OnDevice {
    fn drop(&mut self) {
        if let Some(slice) = self.slice.take() {
            let context = Arc::clone(slice.context());
            let _ = cuda::with_current(&context, || drop(slice));
        }
    }
}

// SAFETY: each test lays out only offsets inside the allocation, which the owner keeps until
// it is dropped; the description never changes.
unsafe impl TensorOwner for OnDevice {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(
            std::ptr::without_provenance_mut(self.ptr as usize),
            self.device,
            self.dtype,
            &self.shape,
        )
        .with_strides(&self.strides)
        .with_byte_offset(self.byte_offset)
    }
}

/// `values` uploaded to a fresh device allocation on `stream`, as an `OnDevice` of `i16`s.
fn upload(stream: &Arc<CudaStream>, values: &[i16]) -> OnDevice {
    let owner = OnDevice::new(stream, values.len() * 2, DataType::I16);
    let host = ManagedTensor::from_vec(values.to_vec(), &[values.len()]).unwrap();
    let on_gpu = cuda::to_device(host, owner.device, CopyMode::Always, Some(stream)).unwrap();
    let copied = on_gpu.view().unwrap().data_ptr().addr() as u64;
    cuda::with_current(stream.context(), || {
        // SAFETY: two device allocations of `2 * len` bytes, the source complete.
        unsafe { result::memcpy_dtod_sync(owner.ptr, copied, values.len() * 2) }
    })
    .unwrap()
    .unwrap();
    owner
}

/// The elements of `owner`'s layout over `values`, in row-major order, the slow way.
fn expected(values: &[i16], shape: &[usize], strides: &[i64], first: i64) -> Vec<i16> {
    let count: usize = shape.iter().product();
    (0..count)
        .map(|n| {
            let (mut rest, mut at) = (n, first);
            for (&extent, &stride) in shape.iter().zip(strides).rev() {
                at += (rest % extent) as i64 * stride;
                rest /= extent;
            }
            values[at as usize]
        })
        .collect()
}

#[test]
fn gpu_strided_device_tensors_are_gathered() {
    let Some(device) = gpu("gpu_strided_device_tensors_are_gathered") else {
        return;
    };
    let (_context, stream) = stream(device);
    let values: Vec<i16> = (0..4 * 6 * 8).collect();
    // (shape, strides, first element): reversed rows, a column, a block, a batch of blocks
    // (one cuMemcpy3D), a transpose, a broadcast.
    let layouts: [(&[usize], &[i64], i64); 6] = [
        (&[2, 2], &[-4, 2], 4),
        (&[24], &[8], 3),
        (&[3, 5], &[8, 1], 9),
        (&[4, 2, 3], &[48, 8, 1], 2),
        (&[8, 6], &[1, 8], 0),
        (&[3, 4], &[0, 1], 5),
    ];
    for (shape, strides, first) in layouts {
        let owner = upload(&stream, &values).layout(shape, strides, first as u64 * 2);
        let tensor = ManagedTensor::from_owner(owner).unwrap();
        let want = expected(&values, shape, strides, first);
        let view = CudaTensorView::<i16>::new(tensor.view().unwrap()).unwrap();
        assert!(!view.is_compact());
        assert_eq!(
            view.to_host_vec(Some(&stream)).unwrap(),
            want,
            "{shape:?} {strides:?}"
        );
        drop(view);
        // Device to device: compact, the same values.
        let copy = cuda::to_device(tensor, device, CopyMode::Always, Some(&stream)).unwrap();
        assert!(copy.view().unwrap().is_compact());
        assert_eq!(
            read::<i16>(&copy),
            want,
            "{shape:?} {strides:?} on the device"
        );
    }
}

#[test]
fn gpu_a_strided_copy_between_devices() {
    let Some((gpu0, gpu1)) = two_gpus("gpu_a_strided_copy_between_devices") else {
        return;
    };
    let (_c1, stream1) = stream(gpu1);
    let values: Vec<i16> = (0..64).collect();
    let owner = upload(&stream1, &values).layout(&[8], &[8], 6);
    let tensor = ManagedTensor::from_owner(owner).unwrap();
    // The copy runs on cuda:1's stream (the memory it reads), into cuda:0.
    let copy = cuda::to_device(tensor, gpu0, CopyMode::IfNeeded, Some(&stream1)).unwrap();
    assert_eq!(copy.device(), gpu0);
    assert_eq!(read::<i16>(&copy), [3, 11, 19, 27, 35, 43, 51, 59]);
    // Contiguous, one run between the devices.
    let back = cuda::to_device(copy, gpu1, CopyMode::IfNeeded, None).unwrap();
    assert_eq!(back.device(), gpu1);
    assert_eq!(read::<i16>(&back), [3, 11, 19, 27, 35, 43, 51, 59]);
}

/// Whether the process's resident memory peaked more than `limit` bytes above where it was
/// when `work` started: Linux's peak RSS (`VmHWM`), reset first through `/proc/self/clear_refs`.
fn host_peak_during(work: impl FnOnce()) -> Option<usize> {
    let field = |name: &str| -> Option<usize> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|line| line.starts_with(name))?;
        let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    };
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    let before = field("VmRSS:")?;
    work();
    Some(field("VmHWM:")?.saturating_sub(before))
}

#[test]
fn gpu_a_large_strided_copy_stays_within_its_own_size_on_the_host() {
    let name = "gpu_a_large_strided_copy_stays_within_its_own_size_on_the_host";
    let Some(device) = gpu(name) else {
        return;
    };
    let (context, stream) = stream(device);
    // One column of a 32768 x 16384 u32 matrix: 128 KiB of elements in a 2 GiB span.
    let (rows, cols) = (1_usize << 15, 1_usize << 14);
    let span = rows * cols * 4;
    if context.total_mem().unwrap() < 2 * span {
        support::not_run(name, "needs 4 GiB of device memory");
        return;
    }
    let owner = OnDevice::new(&stream, span, DataType::U32).layout(&[rows], &[cols as i64], 12);
    // SAFETY: the whole allocation, then column 3 of every row (2D), on the owner's stream.
    unsafe {
        write_u32(&stream, owner.ptr, 0, rows * cols);
        cuda::with_current(&context, || {
            sys::cuMemsetD2D32Async(
                owner.ptr + 12,
                cols * 4,
                0xabcd,
                1,
                rows,
                stream.cu_stream(),
            )
            .result()
        })
        .unwrap()
        .unwrap();
    }
    let tensor = ManagedTensor::from_owner(owner).unwrap();
    let mut host = None;
    let peak = host_peak_during(|| {
        host =
            Some(cuda::to_device(tensor, Device::CPU, CopyMode::IfNeeded, Some(&stream)).unwrap());
    });
    let host = host.unwrap();
    assert!(
        host.view()
            .unwrap()
            .as_slice::<u32>()
            .unwrap()
            .iter()
            .all(|&v| v == 0xabcd)
    );
    match peak {
        // The copy itself is 128 KiB; staging the span would be 2 GiB.
        Some(peak) => assert!(
            peak < 256 << 20,
            "the host peaked {peak} bytes above its start"
        ),
        None => support::not_run(name, "cannot read /proc/self peak memory here: values only"),
    }
}

#[test]
fn gpu_managed_memory_written_by_the_gpu_is_read_after_the_write() {
    let name = "gpu_managed_memory_written_by_the_gpu_is_read_after_the_write";
    let Some(device) = gpu(name) else {
        return;
    };
    let (context, stream) = stream(device);
    let n = 1 << 20;
    let managed = Managed::new(&context, n * 4);
    let address = managed.ptr;
    // The GPU writes 7 everywhere, held behind a gate: a host read now would see zeros (or,
    // without concurrent managed access, fault).
    let gate = Gate::hold(&stream);
    // SAFETY: `n` u32s of the managed allocation, which the tensor below keeps.
    unsafe { write_u32(&stream, address, 7, n) };
    let tensor = ManagedTensor::from_owner(managed).unwrap();
    assert_eq!(tensor.device(), Device::CUDA_MANAGED);
    // A host consumer (`from_dlpack(x, device="cpu")`): shared, after the write.
    let consumer = Arc::clone(&stream);
    let read = std::thread::spawn(move || {
        let kept =
            cuda::to_device(tensor, Device::CPU, CopyMode::IfNeeded, Some(&consumer)).unwrap();
        let view = kept.view().unwrap();
        (
            view.data_ptr().addr() as u64,
            view.as_slice::<u32>().unwrap().iter().all(|&v| v == 7),
        )
    });
    std::thread::sleep(Duration::from_millis(500));
    let blocked = !read.is_finished();
    gate.open();
    let (shared, all_seven) = read.join().unwrap();
    assert!(blocked, "the host read did not wait for the GPU's write");
    assert_eq!(shared, address, "read in place");
    assert!(all_seven);
    // A copy of managed memory to the host (copy=True), and to the device.
    let managed = Managed::new(&context, n * 4);
    // SAFETY: as above.
    unsafe { write_u32(&stream, managed.ptr, 9, n) };
    let tensor = ManagedTensor::from_owner(managed).unwrap();
    let on_gpu = cuda::to_device(tensor, device, CopyMode::IfNeeded, Some(&stream)).unwrap();
    assert_eq!(
        on_gpu.device(),
        Device::CUDA_MANAGED,
        "the device reads it in place"
    );
    let copy = cuda::to_device(on_gpu, Device::CPU, CopyMode::Always, Some(&stream)).unwrap();
    assert!(
        copy.view()
            .unwrap()
            .as_slice::<u32>()
            .unwrap()
            .iter()
            .all(|&v| v == 9)
    );
}

/// `cuMemAllocManaged` memory as a `kDLCUDAManaged` tensor of `u32`s.
struct Managed {
    context: Arc<CudaContext>,
    ptr: u64,
    len: [usize; 1],
}

impl Managed {
    fn new(context: &Arc<CudaContext>, bytes: usize) -> Self {
        let ptr = cuda::with_current(context, || {
            // SAFETY: a fresh allocation; the tests write before they read.
            unsafe { result::malloc_managed(bytes, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL) }
        })
        .unwrap()
        .expect("cuMemAllocManaged");
        Self {
            context: Arc::clone(context),
            ptr,
            len: [bytes / 4],
        }
    }
}

impl Drop for Managed {
    fn drop(&mut self) {
        let ptr = self.ptr;
        // SAFETY: allocated in `new`, freed once; the tests waited for their work on it.
        let _ = cuda::with_current(&self.context, || unsafe { result::memory_free(ptr) });
    }
}

// SAFETY: the allocation holds `len` u32s (written by each test before it reads them) and
// lives as long as the owner; host pointers into managed memory come from the driver, whose
// address is exposed here for the host's reads.
unsafe impl TensorOwner for Managed {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(
            std::ptr::with_exposed_provenance_mut(self.ptr as usize),
            Device::CUDA_MANAGED,
            DataType::U32,
            &self.len[..],
        )
    }
}

/// `cuMemHostAlloc` (pinned) memory as a `kDLCUDAHost` tensor of `u32`s.
struct Pinned {
    context: Arc<CudaContext>,
    ptr: *mut std::ffi::c_void,
    len: [usize; 1],
}

// SAFETY: the allocation is owned by this value alone and freed once, in its drop.
unsafe impl Send for Pinned {}

impl Drop for Pinned {
    fn drop(&mut self) {
        let ptr = self.ptr;
        // SAFETY: allocated by `cuMemHostAlloc`, freed once.
        let _ = cuda::with_current(&self.context, || unsafe { result::free_host(ptr) });
    }
}

// SAFETY: as for `Managed`, for pinned host memory.
unsafe impl TensorOwner for Pinned {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(self.ptr, Device::CUDA_HOST, DataType::U32, &self.len[..])
    }
}

#[test]
fn gpu_pinned_memory_with_a_copy_pending_is_read_after_it() {
    let name = "gpu_pinned_memory_with_a_copy_pending_is_read_after_it";
    let Some(device) = gpu(name) else {
        return;
    };
    let (context, stream) = stream(device);
    let n = 1 << 18;
    for mode in [CopyMode::IfNeeded, CopyMode::Always] {
        let ptr = cuda::with_current(&context, || {
            // SAFETY: a fresh allocation, written by the copy below before it is read.
            unsafe { result::malloc_host(n * 4, 0) }
        })
        .unwrap()
        .expect("cuMemHostAlloc");
        let pinned = Pinned {
            context: Arc::clone(&context),
            ptr,
            len: [n],
        };
        let source = CudaBuffer::from_host(&stream, &vec![5_u32; n], &[n]).unwrap();
        let address = source.slice().device_ptr(&stream).0;
        cuda::with_current(&context, || stream.synchronize())
            .unwrap()
            .unwrap();
        // A device-to-pinned copy, pending behind a gate.
        let gate = Gate::hold(&stream);
        cuda::with_current(&context, || {
            // SAFETY: `n` u32s on both sides, alive until the stream has passed the copy.
            unsafe {
                sys::cuMemcpyAsync(
                    ptr.expose_provenance() as u64,
                    address,
                    n * 4,
                    stream.cu_stream(),
                )
            }
            .result()
        })
        .unwrap()
        .unwrap();
        let tensor = ManagedTensor::from_owner(pinned).unwrap();
        let consumer = Arc::clone(&stream);
        let read = std::thread::spawn(move || {
            let host = cuda::to_device(tensor, Device::CPU, mode, Some(&consumer)).unwrap();
            host.view()
                .unwrap()
                .as_slice::<u32>()
                .unwrap()
                .iter()
                .all(|&v| v == 5)
        });
        std::thread::sleep(Duration::from_millis(500));
        let blocked = !read.is_finished();
        gate.open();
        let all_five = read.join().unwrap();
        assert!(
            blocked,
            "{mode:?}: the host read did not wait for the pending copy"
        );
        assert!(all_five, "{mode:?}");
        drop(source);
    }
}

#[test]
fn gpu_the_release_waits_for_the_consumers_queued_work() {
    let name = "gpu_the_release_waits_for_the_consumers_queued_work";
    let Some(device) = gpu(name) else {
        return;
    };
    let (context, producer) = stream(device);
    let (_, consumer) = stream(device);
    let n = 1 << 20;
    let buffer = CudaBuffer::from_host(&producer, &vec![0_u32; n], &[n]).unwrap();
    let freed = buffer.slice().device_ptr(&producer).0;
    // SAFETY: `consumer` is a live stream of the device, alive past the release below.
    let tensor = unsafe { buffer.into_dlpack_for(StreamArg::of(&consumer)) }.unwrap();
    // The consumer queues a write (a kernel, for the driver) that is held, then releases the
    // tensor: the release must not let the memory be reused before the write has run.
    let gate = Gate::hold(&consumer);
    // SAFETY: the tensor's `n` u32s, which the ordered release keeps until the write ran.
    unsafe { write_u32(&consumer, freed, 1, n) };
    let async_alloc = context.has_async_alloc();
    let mut release = Some(std::thread::spawn(move || drop(tensor)));
    if async_alloc {
        // cuMemFreeAsync: the release returns at once, the free queued behind the wait.
        release.take().unwrap().join().unwrap();
    }
    // The producer allocates again (the pool hands back the freed block on the same stream)
    // and writes 2 there, in its order: after the free, so after the consumer's write.
    let again = cuda::with_current(&context, || producer.alloc_zeros::<u32>(n))
        .unwrap()
        .unwrap();
    let reused = again.device_ptr(&producer).0;
    // SAFETY: the new allocation's `n` u32s.
    unsafe { write_u32(&producer, reused, 2, n) };
    gate.open();
    if let Some(release) = release {
        // A synchronous free waited for the producer's stream, so for the consumer's write.
        release.join().unwrap();
    }
    let values = cuda::with_current(&context, || producer.clone_dtoh(&again))
        .unwrap()
        .unwrap();
    if reused != freed {
        support::not_run(
            name,
            "the allocator did not reuse the freed block: nothing to race",
        );
    }
    assert!(
        values.iter().all(|&v| v == 2),
        "the consumer's queued write landed after the free"
    );
    cuda::with_current(&context, || drop(again)).unwrap();
}

#[test]
fn gpu_a_stream_of_another_device_is_refused() {
    let Some((gpu0, gpu1)) = two_gpus("gpu_a_stream_of_another_device_is_refused") else {
        return;
    };
    let (_context, stream1) = stream(gpu1);
    let host = ManagedTensor::from_vec(vec![1_u8], &[1]).unwrap();
    let err = cuda::to_device(host, gpu0, CopyMode::IfNeeded, Some(&stream1)).unwrap_err();
    assert_eq!(
        err,
        Error::Cuda(CudaError::WrongStream {
            stream: gpu1,
            device: gpu0
        })
    );
}
