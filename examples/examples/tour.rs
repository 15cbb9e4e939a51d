//! A tour of dlpack-core and its derives: `cargo run --example tour`.

use dlpack_core::{
    DataType, Device, DlpackDataType, DlpackDevice, ManagedTensor, assert_convertible, from_dlpack,
    same_device,
};

/// A framework's own dtype enum, mapped to DLPack by annotations.
#[derive(Debug, Clone, Copy, PartialEq, DlpackDataType)]
enum DType {
    #[dlpack("float32")]
    F32,
    #[dlpack(code = bfloat, bits = 16)]
    BF16,
    #[dlpack(element = u8)] // taken from `u8: Element`, checked at compile time
    U8,
    #[dlpack("float32", export_only)] // exports float32; importing float32 picks F32
    Flex32,
    #[dlpack(skip)] // no DLPack equivalent: an error, not a panic
    QInt8,
}

/// A framework's own device type.
#[derive(Debug, Clone, Copy, PartialEq, DlpackDevice)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(usize), // the one integer field is the device id
}

/// Another framework's device type, for cross-framework comparisons.
#[derive(Debug, PartialEq, DlpackDevice)]
#[dlpack(cuda)]
struct CudaDevice {
    #[dlpack(id)]
    index: u32,
}

// Proven at compile time: every Place is a DLPack device, every DType a DLPack data type.
assert_convertible!(Place => Device);
assert_convertible!(DType => DataType);

fn main() -> Result<(), dlpack_core::Error> {
    // The value types are the C structs, with the names TVM FFI prints.
    let bf16: DataType = "bfloat16".parse()?;
    println!(
        "{bf16} = (code {}, bits {}, lanes {})",
        bf16.code.0, bf16.bits, bf16.lanes
    );
    println!(
        "\"flaot32\" -> {}",
        "flaot32".parse::<DataType>().unwrap_err()
    );

    // Derived conversions, both ways.
    println!(
        "DType::Flex32 exports {}",
        DType::Flex32.dlpack_data_type()?
    );
    println!(
        "bfloat16 imports as {:?}",
        DType::from_dlpack_data_type(bf16)?
    );
    println!(
        "DType::QInt8: {}",
        DType::QInt8.dlpack_data_type().unwrap_err()
    );
    println!(
        "float64 -> DType: {}",
        DType::from_dlpack_data_type(DataType::F64).unwrap_err()
    );

    // `from_dlpack` dispatches at compile time: a dtype from any dtype, a device from any device.
    let place: Place = from_dlpack(&CudaDevice { index: 1 })?;
    println!("CudaDevice {{ index: 1 }} -> {place:?}");
    println!(
        "same device: {}",
        same_device(&Place::Cuda(1), &CudaDevice { index: 1 })
    );
    println!(
        "cuda:1 reads pinned host memory: {}",
        Device::cuda(1).can_access(Device::CUDA_HOST)
    );

    // Tensors: zero-copy export in one allocation, validated import.
    let tensor = ManagedTensor::from_vec(vec![1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    let raw = tensor.into_raw(); // hand it to C, or to Python as a capsule
    // SAFETY: `raw` came from `into_raw` just above and nothing else owns it.
    let tensor = unsafe { ManagedTensor::from_raw(raw)? };
    let view = tensor.view()?;
    let dtype = DType::from_dlpack_data_type(view.dtype())?;
    println!(
        "tensor: shape {:?}, strides {:?}, {dtype:?} on {}, data {:?}",
        view.shape(),
        view.strides(),
        view.device(),
        view.as_slice::<f32>()?
    );
    Ok(())
}
