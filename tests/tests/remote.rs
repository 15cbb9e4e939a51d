//! `#[dlpack(remote = "…")]`: mirrors of types from another crate (`dlpack_tests::foreign`,
//! foreign here), converted both ways, through `from_dlpack` and `assert_convertible!`.

use dlpack_core::{
    DataType, Device, DlpackDataType, DlpackDevice, Error, assert_convertible, from_dlpack,
};
use dlpack_tests::foreign;

/// The mirror of a `#[non_exhaustive]` enum: its future variants convert to an error.
#[derive(Debug, Clone, Copy, PartialEq, DlpackDataType)]
#[dlpack(remote = "foreign::DType", non_exhaustive = "error")]
enum DType {
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

/// The mirror of an exhaustive enum, written as a path rather than a string.
#[derive(Debug, PartialEq, DlpackDataType)]
#[dlpack(remote = foreign::Precision)]
enum Precision {
    #[dlpack("float16")]
    Half,
    #[dlpack("float32")]
    Single,
    #[dlpack("float64")]
    Double,
}

#[derive(Debug, PartialEq, DlpackDevice)]
#[dlpack(remote = "foreign::Location")]
enum Location {
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

#[derive(Debug, Default, PartialEq, DlpackDevice)]
#[dlpack(remote = "foreign::Gpu", cuda, default)]
struct Gpu {
    #[dlpack(id)]
    ordinal: u16,
    exclusive: bool,
}

#[test]
fn an_exhaustive_mirror_converts_both_ways() -> Result<(), Error> {
    for (theirs, data_type) in [
        (foreign::Precision::Half, DataType::F16),
        (foreign::Precision::Single, DataType::F32),
        (foreign::Precision::Double, DataType::F64),
    ] {
        assert_eq!(Precision::from(&theirs).dlpack_data_type()?, data_type);
        let back: foreign::Precision = from_dlpack::<Precision>(&data_type)?.into();
        assert_eq!(back, theirs);
    }
    let refused = Precision::from_dlpack_data_type(DataType::BF16).unwrap_err();
    assert!(refused.to_string().contains("bfloat16"), "{refused}");
    Ok(())
}

#[test]
fn a_non_exhaustive_mirror_converts_with_try_from() -> Result<(), Error> {
    let theirs = [
        foreign::DType::U8,
        foreign::DType::F16,
        foreign::DType::BF16,
        foreign::DType::F32,
        foreign::DType::F8E4M3,
    ];
    for dtype in theirs {
        let data_type = DType::try_from(&dtype)?.dlpack_data_type()?;
        let back: foreign::DType = from_dlpack::<DType>(&data_type)?.into();
        assert_eq!(back, dtype);
    }
    assert_eq!(
        DType::try_from(&foreign::DType::F8E4M3)?.dlpack_data_type()?,
        DataType::FLOAT8_E4M3FN
    );
    Ok(())
}

#[test]
fn mirrors_of_devices_carry_their_ids() -> Result<(), Error> {
    for (theirs, device) in [
        (foreign::Location::Cpu, Device::CPU),
        (foreign::Location::Cuda(3), Device::cuda(3)),
        (foreign::Location::Metal { gpu_id: 1 }, Device::metal(1)),
    ] {
        assert_eq!(Location::from(&theirs).dlpack_device()?, device);
        let back: foreign::Location = from_dlpack::<Location>(&device)?.into();
        assert_eq!(back, theirs);
    }
    let gpu = foreign::Gpu {
        ordinal: 2,
        exclusive: true,
    };
    assert_eq!(Gpu::from(&gpu).dlpack_device()?, Device::cuda(2));
    // What DLPack does not carry comes back by the mirror's policy (`default`).
    let back: foreign::Gpu = from_dlpack::<Gpu>(&Device::cuda(2))?.into();
    assert_eq!(
        back,
        foreign::Gpu {
            ordinal: 2,
            exclusive: false
        }
    );
    Ok(())
}

#[test]
fn mirrors_join_assert_convertible() {
    assert_convertible!(Precision => DataType);
    assert_convertible!(Location => Device);
    assert_convertible!(Precision => DType2);
}

/// A second mirror's target: every `Precision` but float64 converts, so a smaller target
/// would fail `assert_convertible!` at compile time.
#[derive(DlpackDataType)]
enum DType2 {
    #[dlpack("float16")]
    F16,
    #[dlpack("float32")]
    F32,
    #[dlpack("float64")]
    F64,
}

#[test]
fn impl_remote_gives_the_foreign_type_the_trait() -> Result<(), Error> {
    use dlpack_tests::foreign::Backend;

    assert_eq!(Backend::Gpu(1).dlpack_device()?, Device::cuda(1));
    assert_eq!(from_dlpack::<Backend>(&Device::cuda(4))?, Backend::Gpu(4));
    assert_eq!(from_dlpack::<Device>(&Backend::Host)?, Device::CPU);
    assert!(<Backend as DlpackDevice>::ACCEPTS.contains(Device::cuda(255)));
    assert!(!<Backend as DlpackDevice>::ACCEPTS.contains(Device::cuda(256)));
    assert_convertible!(Backend => Device);
    // Its errors name the type the caller converts, not the mirror it never sees.
    let err = from_dlpack::<Backend>(&Device::rocm(0)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "foreign::Backend has no DLPack device for rocm:0; it supports: cpu, cuda:0..=255"
    );
    Ok(())
}
