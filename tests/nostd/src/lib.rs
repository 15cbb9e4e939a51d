//! A framework's dtype crate that builds without std, as burn-std does (burn's `DType` lives
//! there, behind `#![cfg_attr(not(feature = "std"), no_std)]`): its types derive the DLPack
//! traits from dlpack-core with `default-features = false, features = ["alloc", "derive"]`.
//! Each check exercises one path of the generated code (an export-only variant, a delegate
//! both ways, a skipped variant, a refusal); what burn's own types map to is the burn
//! bridge's, tested in dlpack-core.
//!
//! CI builds this crate for `x86_64-unknown-none` (no std at all) and runs
//! [`checks`] on the host (`tests/host.rs`).
#![no_std]

extern crate alloc;

use alloc::string::ToString;
use alloc::vec;
use core::cmp::Ordering;

use dlpack_core::{
    DataType, Device, DlpackDataType, DlpackDevice, Error, ManagedTensor, assert_convertible,
    from_dlpack, impl_from_dlpack,
};

/// How a framework stores booleans, with the shapes of burn's `BoolStore`: natively (DLPack's
/// `bool`), as a `u8` of 0 or 1 (exported as `bool`, never chosen on import), or as a `u32`,
/// which DLPack cannot describe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, DlpackDataType)]
pub enum BoolStore {
    /// One byte, 0 or 1.
    #[dlpack("bool")]
    Native,
    /// A `u8` holding 0 or 1: DLPack's `bool` on export.
    #[dlpack("bool", export_only)]
    U8,
    /// A `u32` holding 0 or 1: no DLPack data type.
    #[dlpack(skip)]
    U32,
}

/// A quantisation scheme: parameters no DLPack data type carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuantScheme {
    /// Bits per quantised value.
    pub bits: u8,
}

/// A framework's data type with the shapes of burn-std's `DType`: plain variants, one that
/// exports the data type of another, a tuple variant that delegates to a store enum, a skipped
/// one with a payload. The variants are what the checks below need of each shape, not burn's
/// table, which `dlpack_core::bridges::burn` mirrors and dlpack-core's `tests/bridges_burn.rs`
/// tests against burn itself: this crate proves the derives' code builds and runs without
/// std.
#[derive(Clone, Copy, Debug, PartialEq, Eq, DlpackDataType)]
pub enum DType {
    /// `float32`.
    #[dlpack("float32")]
    F32,
    /// Stored as `f32`, computed in whatever precision the backend likes: exported as
    /// `float32`, never chosen on import.
    #[dlpack("float32", export_only)]
    Flex32,
    /// `int64`.
    #[dlpack("int64")]
    I64,
    /// Booleans, in the store's data type.
    Bool(#[dlpack(delegate)] BoolStore),
    /// Quantised floats: no DLPack data type.
    #[dlpack(skip)]
    QFloat(QuantScheme),
}

/// The data types a host backend of the framework computes with: each is a `DType`, which
/// `assert_convertible!` proves at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, DlpackDataType)]
pub enum HostDType {
    /// `float32`.
    #[dlpack("float32")]
    F32,
    /// `int64`.
    #[dlpack("int64")]
    I64,
    /// `bool`.
    #[dlpack("bool")]
    Bool,
}

assert_convertible!(HostDType => DType);

/// A framework's device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, DlpackDevice)]
pub enum Place {
    /// The host.
    #[dlpack(cpu)]
    Cpu,
    /// A CUDA GPU, by ordinal.
    #[dlpack(cuda)]
    Cuda(usize),
    /// A ROCm GPU, by ordinal.
    #[dlpack(rocm)]
    Rocm(u32),
    /// A WebGPU adapter: no DLPack ordinal.
    #[dlpack(skip)]
    Wgpu(u32),
}

/// A type whose traits are written by hand, joining `from_dlpack` with `impl_from_dlpack!`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Float32Only;

impl DlpackDataType for Float32Only {
    const PRODUCES: dlpack_core::set::DataTypeSet =
        dlpack_core::set::DataTypeSet::EMPTY.with(DataType::F32);
    const ACCEPTS: dlpack_core::set::DataTypeSet = Self::PRODUCES;

    fn dlpack_data_type(&self) -> Result<DataType, Error> {
        Ok(DataType::F32)
    }

    fn from_dlpack_data_type(data_type: DataType) -> Result<Self, Error> {
        if data_type == DataType::F32 {
            Ok(Float32Only)
        } else {
            Err(Error::msg("Float32Only is float32 alone"))
        }
    }
}

impl_from_dlpack!(DlpackDataType for Float32Only);

/// A mirror of another crate's enum (`core::cmp::Ordering` stands in for a framework's
/// foreign dtype): the derive checks it against the real type and converts through it.
#[derive(DlpackDataType)]
#[dlpack(remote = "core::cmp::Ordering")]
pub enum OrderingMirror {
    /// `int8`.
    #[dlpack("int8")]
    Less,
    /// `int16`.
    #[dlpack("int16")]
    Equal,
    /// `int32`.
    #[dlpack("int32")]
    Greater,
}

/// Fails with `what` when `holds` is false.
fn check(holds: bool, what: &'static str) -> Result<(), Error> {
    if holds { Ok(()) } else { Err(Error::msg(what)) }
}

/// Every conversion a framework makes, without std: the derives both ways, `from_dlpack`
/// across types, the refusals, and a tensor exported, handed over raw and taken back.
pub fn checks() -> Result<(), Error> {
    // Data types, both ways; the delegate and the export-only variants.
    check(
        DType::Flex32.dlpack_data_type()? == DataType::F32,
        "Flex32 exports float32",
    )?;
    check(
        from_dlpack::<DType>(&DataType::F32)? == DType::F32,
        "float32 imports F32",
    )?;
    check(
        DType::Bool(BoolStore::U8).dlpack_data_type()? == DataType::BOOL,
        "a u8 bool exports bool",
    )?;
    check(
        from_dlpack::<DType>(&DataType::BOOL)? == DType::Bool(BoolStore::Native),
        "bool imports the native store",
    )?;
    check(
        from_dlpack::<DType>(&HostDType::I64)? == DType::I64,
        "across two types of the framework",
    )?;
    // What DLPack cannot describe is an error, not a panic.
    check(
        DType::QFloat(QuantScheme { bits: 4 })
            .dlpack_data_type()
            .is_err(),
        "QFloat has no data type",
    )?;
    check(
        DType::Bool(BoolStore::U32).dlpack_data_type().is_err(),
        "a u32 bool has no data type",
    )?;
    check(
        from_dlpack::<DType>(&DataType::C64).is_err(),
        "complex64 is no DType",
    )?;
    // A hand-written impl and a mirror of another crate's type, through `from_dlpack`.
    check(
        from_dlpack::<Float32Only>(&DType::F32)? == Float32Only,
        "a hand-written impl joins from_dlpack",
    )?;
    let ordering: Ordering = from_dlpack::<OrderingMirror>(&DataType::I16)?.into();
    check(
        ordering == Ordering::Equal,
        "a mirror converts the foreign type",
    )?;
    check(
        OrderingMirror::from(&Ordering::Greater).dlpack_data_type()? == DataType::I32,
        "a mirror exports the foreign type",
    )?;
    // Names: parsing, printing, and the suggestion for a misspelt one.
    check(
        "bfloat16".parse::<DataType>()? == DataType::BF16,
        "parse a name",
    )?;
    check(Device::cuda(3).to_string() == "cuda:3", "print a device")?;
    let misspelt = "flaot32".parse::<DataType>().unwrap_err().to_string();
    check(
        misspelt.contains("did you mean `float32`?"),
        "suggest the name meant",
    )?;
    // Devices.
    check(Place::Cuda(1).dlpack_device()? == Device::cuda(1), "cuda:1")?;
    check(
        from_dlpack::<Place>(&Device::rocm(2))? == Place::Rocm(2),
        "rocm:2",
    )?;
    check(
        Place::Wgpu(0).dlpack_device().is_err(),
        "wgpu has no device",
    )?;
    check(
        dlpack_core::same_device(&Place::Cpu, &Device::CPU),
        "the host",
    )?;
    // A tensor: exported, handed over as the C struct, taken back, read.
    let tensor = ManagedTensor::from_vec(vec![1.5_f32, 2.5, 3.5, 4.5], &[2, 2])?;
    let raw = tensor.into_raw();
    // SAFETY: `raw` came from `into_raw` just above, and nothing else owns it.
    let back = unsafe { ManagedTensor::from_raw(raw)? };
    let view = back.view()?;
    check(
        from_dlpack::<DType>(&view.dtype())? == DType::F32,
        "the tensor's data type",
    )?;
    check(
        view.as_slice::<f32>()? == [1.5, 2.5, 3.5, 4.5],
        "the tensor's elements",
    )?;
    check(
        from_dlpack::<Place>(&view.device())? == Place::Cpu,
        "the tensor's device",
    )?;
    Ok(())
}
