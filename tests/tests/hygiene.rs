//! The generated code is hygienic and lint-clean in the user's crate: it names only absolute
//! paths (so it compiles without the prelude), and neither rustc's warnings nor clippy's
//! `all` and `pedantic` groups fire on it. `cargo clippy --all-targets -- -D warnings` checks
//! the clippy half; the `deny` below makes any warning a build error.
#![no_implicit_prelude]
#![deny(warnings, clippy::all, clippy::pedantic)]

use ::dlpack_core::{DataType, Device, DlpackDataType, DlpackDevice};

// User items named like what generated code might use unqualified.
#[allow(dead_code)]
struct Result;
#[allow(dead_code)]
struct Option;
#[allow(dead_code)]
struct Ok;
#[allow(dead_code)]
enum Error {}
#[allow(dead_code)]
trait Default {}

/// A public enum: the generated `const fn`s are public and documented.
#[derive(Debug, Clone, Copy, PartialEq, Eq, DlpackDataType)]
pub enum DType {
    /// f32.
    #[dlpack("float32")]
    F32,
    /// bf16 by parts.
    #[dlpack(code = bfloat, bits = 16)]
    BF16,
    /// u8 through `Element`.
    #[dlpack(element = u8)]
    U8,
    /// Exports as f32.
    #[dlpack("float32", export_only)]
    Flex32,
    /// No equivalent.
    #[dlpack(skip)]
    QInt8,
    /// Delegates.
    Other(#[dlpack(delegate)] DataType),
    /// Deprecated.
    #[deprecated]
    #[dlpack("float64")]
    Old,
}

/// A private enum with unused variants.
#[derive(DlpackDevice)]
#[allow(dead_code)]
enum Place {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(usize),
    #[dlpack(rocm, default)]
    Rocm {
        #[dlpack(id)]
        ordinal: u32,
        name: ::std::string::String,
    },
    #[dlpack(opencl, id_with = ordinal, import_with = open)]
    Handle(Context),
    #[dlpack(metal, device_with = Context::location, import_with = open)]
    Metal(Context),
    Boxed(#[dlpack(delegate)] ::std::boxed::Box<Vulkan>),
    Dispatch(#[dlpack(delegate)] Device),
    #[dlpack(skip)]
    Remote,
}

#[allow(dead_code)]
struct Context(usize);

impl Context {
    fn location(&self) -> Device {
        Device::metal(::core::convert::TryFrom::try_from(self.0).unwrap_or(0))
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn ordinal(context: &Context) -> usize {
    context.0
}

fn open(device: Device) -> ::core::result::Result<Place, ::dlpack_core::Error> {
    let ordinal =
        ::core::convert::TryFrom::try_from(device.device_id).map_err(::dlpack_core::Error::msg)?;
    ::core::result::Result::Ok(Place::Handle(Context(ordinal)))
}

/// A Vulkan device, behind a `Box` in `Place`.
#[derive(DlpackDevice)]
#[dlpack(vulkan)]
pub struct Vulkan(u8);

/// A stream that knows its device, with a payload rebuilt from `Default`.
#[derive(DlpackDevice, Default)]
#[dlpack(cuda, default)]
pub struct Stream {
    /// The device.
    #[dlpack(id)]
    pub device: u16,
    /// A payload.
    pub priority: i32,
}

/// A handle whose device comes from a function of the whole value.
#[derive(DlpackDevice)]
#[dlpack(device_with = Handle::device, export_only)]
pub struct Handle(usize);

impl Handle {
    fn device(&self) -> Device {
        Device::cuda(::core::convert::TryFrom::try_from(self.0).unwrap_or(0))
    }
}

/// A quantised data type that comes back through a function.
#[derive(DlpackDataType, Debug, PartialEq)]
#[dlpack("int8", import_with = Quantised::new)]
pub struct Quantised {
    /// The scale.
    pub scale: f32,
}

impl Quantised {
    #[allow(clippy::unnecessary_wraps)]
    fn new(_: DataType) -> ::core::result::Result<Self, ::dlpack_core::Error> {
        ::core::result::Result::Ok(Self { scale: 1.0 })
    }
}

/// A struct device.
#[derive(DlpackDevice)]
#[dlpack(cuda)]
pub struct CudaDevice {
    /// The ordinal.
    #[dlpack(id)]
    pub index: u16,
}

/// A raw data type.
#[derive(DlpackDataType)]
pub struct Raw {
    /// Code.
    #[dlpack(code)]
    pub code: u8,
    /// Bits.
    #[dlpack(bits)]
    pub bits: u8,
    /// Lanes.
    #[dlpack(lanes)]
    pub lanes: u16,
}

/// A generic newtype.
#[derive(DlpackDataType)]
pub struct Wrapper<T>(pub T);

/// A `remote` mirror of a `#[non_exhaustive]` enum, and one of every shape of variant.
#[derive(Debug, Clone, Copy, PartialEq, DlpackDataType)]
#[dlpack(remote = "::dlpack_tests::foreign::DType", non_exhaustive = "error")]
enum Mirrored {
    #[dlpack("uint8")]
    U8,
    #[dlpack("float16")]
    F16,
    #[dlpack("bfloat16")]
    BF16,
    #[dlpack("float32")]
    F32,
    #[dlpack("float8_e4m3fn")]
    F8E4M3,
}

#[derive(Debug, PartialEq, DlpackDevice)]
#[dlpack(remote = "::dlpack_tests::foreign::Location")]
enum MirroredLocation {
    #[dlpack(cpu)]
    Cpu,
    #[dlpack(cuda)]
    Cuda(#[dlpack(id)] usize),
    #[dlpack(metal)]
    Metal {
        #[dlpack(id)]
        gpu_id: usize,
    },
}

#[test]
fn generated_code_works_without_the_prelude() {
    ::std::assert_eq!(
        DType::F32.dlpack_data_type(),
        ::core::result::Result::Ok(DataType::F32)
    );
    ::std::assert_eq!(
        DType::from_dlpack_data_type(DataType::I64),
        ::core::result::Result::Ok(DType::Other(DataType::I64))
    );
    ::std::assert_eq!(
        DType::unit_from_dlpack_data_type(DataType::U8),
        ::core::option::Option::Some(DType::U8)
    );
    ::std::assert!(Place::Cuda(2).dlpack_device().is_ok());
    ::std::assert!(Place::from_dlpack_device(Device::rocm(1)).is_ok());
    ::std::assert!(::std::matches!(
        Place::from_dlpack_device(Device::opencl(2)),
        ::core::result::Result::Ok(Place::Handle(Context(2)))
    ));
    ::std::assert_eq!(
        Place::Metal(Context(1)).dlpack_device(),
        ::core::result::Result::Ok(Device::metal(1))
    );
    ::std::assert!(::std::matches!(
        Place::from_dlpack_device(Device::vulkan(3)),
        ::core::result::Result::Ok(Place::Boxed(_))
    ));
    ::std::assert_eq!(
        Stream::from_dlpack_device(Device::cuda(1)).map(|s| (s.device, s.priority)),
        ::core::result::Result::Ok((1, 0))
    );
    ::std::assert_eq!(
        Handle(2).dlpack_device(),
        ::core::result::Result::Ok(Device::cuda(2))
    );
    ::std::assert_eq!(
        Quantised::from_dlpack_data_type(DataType::I8),
        ::core::result::Result::Ok(Quantised { scale: 1.0 })
    );
    ::std::assert_eq!(
        <Device as ::core::convert::From<CudaDevice>>::from(CudaDevice { index: 3 }),
        Device::cuda(3)
    );
    ::std::assert_eq!(
        Wrapper(DType::BF16).dlpack_data_type(),
        ::core::result::Result::Ok(DataType::BF16)
    );
    let raw = Raw {
        code: 2,
        bits: 16,
        lanes: 1,
    };
    ::std::assert_eq!(
        <DataType as ::core::convert::From<Raw>>::from(raw),
        DataType::F16
    );
    ::std::assert_eq!(
        <Mirrored as ::core::convert::TryFrom<&::dlpack_tests::foreign::DType>>::try_from(
            &::dlpack_tests::foreign::DType::F16
        )
        .and_then(|m| m.dlpack_data_type()),
        ::core::result::Result::Ok(DataType::F16)
    );
    ::std::assert_eq!(
        <MirroredLocation as ::core::convert::From<&::dlpack_tests::foreign::Location>>::from(
            &::dlpack_tests::foreign::Location::Metal { gpu_id: 2 }
        )
        .dlpack_device(),
        ::core::result::Result::Ok(Device::metal(2))
    );
}
