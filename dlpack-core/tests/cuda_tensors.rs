//! CUDA tensors in and out: export of device buffers, typed device views, host-device copies
//! with `from_dlpack(..., device, copy)` semantics, and `cuda_host` memory read in place.
//!
//! Tests named `gpu_*` need a GPU and skip (or, with `DLPACK_REQUIRE_GPU=1`, fail) without
//! one; the others run everywhere.
#![cfg(feature = "cuda")]

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use dlpack_core::cuda::cudarc::driver::{CudaSlice, DevicePtr};
use dlpack_core::cuda::{self, CopyMode, CudaBuffer, CudaError, CudaTensorView};
use dlpack_core::ffi::{DLPackVersion, DLTensor};
use dlpack_core::tensor::{Flags, TensorError, TensorOwner, TensorParts, TensorView};
use dlpack_core::{DataType, Device, Error, ManagedTensor};
use support::{gpu, stream};

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
    assert!(view.is_contiguous());
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
        assert!(!typed.is_contiguous());
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

#[test]
fn gpu_copies_between_host_and_device() {
    let Some(gpu0) = gpu("gpu_copies_between_host_and_device") else {
        return;
    };
    let (_context, stream) = stream(gpu0);
    // A strided host source (transposed) goes up compact…
    let mut owner = HostOwner::new(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], Device::CPU, &[3, 2]);
    owner.strides = Some(vec![1, 3]);
    let host = ManagedTensor::from_owner(owner).unwrap();
    let on_gpu = cuda::to_device(host, gpu0, CopyMode::IfNeeded, Some(&stream)).unwrap();
    {
        let view = on_gpu.view().unwrap();
        assert_eq!((view.device(), view.strides()), (gpu0, &[2, 1][..]));
        assert!(view.flags().contains(Flags::IS_COPIED));
    }
    // …copy=None on its own device keeps it (same data pointer)…
    let before = on_gpu.view().unwrap().data_ptr();
    let kept = cuda::to_device(on_gpu, gpu0, CopyMode::IfNeeded, Some(&stream)).unwrap();
    assert_eq!(kept.view().unwrap().data_ptr(), before);
    // …copy=True on the device copies device to device…
    let twin = cuda::to_device(kept, gpu0, CopyMode::Always, Some(&stream)).unwrap();
    assert_ne!(twin.view().unwrap().data_ptr(), before);
    // …copy=False to the host is refused, and the default stream brings it down.
    let err = cuda::to_device(twin, Device::CPU, CopyMode::Never, None).unwrap_err();
    assert_eq!(
        err,
        Error::Cuda(CudaError::CopyRequired {
            from: gpu0,
            to: Device::CPU
        })
    );
}

/// A strided view of a device allocation: every other element of a 2 x 4 matrix, reversed
/// along the rows.
struct StridedDevice {
    _slice: CudaSlice<i16>,
    ptr: u64,
    device: Device,
}

// SAFETY: the 8 elements of the allocation cover every offset of shape [2, 2] with strides
// [-4, 2] from byte offset 8 (element 4); the slice is owned here and dropped with the owner.
unsafe impl TensorOwner for StridedDevice {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::new(
            std::ptr::without_provenance_mut(self.ptr as usize),
            self.device,
            DataType::I16,
            &[2_usize, 2],
        )
        .with_strides(&[-4_i64, 2])
        .with_byte_offset(8)
    }
}

#[test]
fn gpu_strided_device_tensors_are_gathered() {
    let Some(device) = gpu("gpu_strided_device_tensors_are_gathered") else {
        return;
    };
    let (_context, stream) = stream(device);
    let slice = stream.clone_htod(&[0_i16, 1, 2, 3, 4, 5, 6, 7]).unwrap();
    let ptr = {
        let (ptr, _sync) = slice.device_ptr(&stream);
        ptr
    };
    let tensor = ManagedTensor::from_owner(StridedDevice {
        _slice: slice,
        ptr,
        device,
    })
    .unwrap();
    let view = CudaTensorView::<i16>::new(tensor.view().unwrap()).unwrap();
    assert!(!view.is_contiguous());
    // Row 0 is elements 4 and 6, row 1 is elements 0 and 2.
    assert_eq!(view.to_host_vec(Some(&stream)).unwrap(), [4, 6, 0, 2]);
    drop(view);
    // Device to device: compact.
    let copy = cuda::to_device(tensor, device, CopyMode::Always, Some(&stream)).unwrap();
    let view = CudaTensorView::<i16>::new(copy.view().unwrap()).unwrap();
    assert!(view.is_contiguous());
    assert_eq!(view.to_host_vec(None).unwrap(), [4, 6, 0, 2]);
}

#[test]
fn gpu_a_stream_of_another_device_is_refused() {
    let devices = cuda::cuda_devices();
    if devices.len() < 2 {
        support::not_run(
            "gpu_a_stream_of_another_device_is_refused",
            &format!("needs two CUDA devices, found {}", devices.len()),
        );
        return;
    }
    let (_context, stream1) = stream(devices[1]);
    let host = ManagedTensor::from_vec(vec![1_u8], &[1]).unwrap();
    let err = cuda::to_device(host, devices[0], CopyMode::IfNeeded, Some(&stream1)).unwrap_err();
    assert_eq!(
        err,
        Error::Cuda(CudaError::WrongStream {
            stream: devices[1],
            device: devices[0]
        })
    );
}
