//! A tour of dlpack-core: `cargo run --example tour`.

use dlpack_core::{DataType, Device, from_dlpack, same_device};

fn main() -> Result<(), dlpack_core::Error> {
    // Data types are the C struct `DLDataType`, named as TVM FFI names them.
    let bf16: DataType = "bfloat16".parse()?;
    println!(
        "{bf16}: code {} bits {} lanes {}",
        bf16.code.0, bf16.bits, bf16.lanes
    );
    println!("f32 alias -> {}", "f32".parse::<DataType>()?);
    println!(
        "float4_e2m1fn is {} bits",
        DataType::FLOAT4_E2M1FN.size_in_bits()
    );

    // Bad names say what was wrong.
    if let Err(e) = "flaot32".parse::<DataType>() {
        println!("error: {e}");
    }

    // Devices are the C struct `DLDevice`.
    let gpu: Device = "cuda:1".parse()?;
    println!(
        "{gpu} can read pinned memory: {}",
        gpu.can_access(Device::CUDA_HOST)
    );
    println!("cpu can read {gpu}: {}", Device::CPU.can_access(gpu));
    println!("same device: {}", same_device(&gpu, &Device::cuda(1)));

    // `from_dlpack` dispatches at compile time on what it is given.
    let dt: DataType = from_dlpack(&DataType::F16)?;
    println!("from_dlpack(float16) -> {dt}");
    Ok(())
}
