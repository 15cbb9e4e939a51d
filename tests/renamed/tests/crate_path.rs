//! The derives' output names dlpack-core only through `#[dlpack(crate = "…")]`.

use dlpack::{DataType, Device as DlDevice, DlpackDataType, DlpackDevice, from_dlpack};
use dlpack_tests_renamed::{DType, Device, Raw, Rocm};

#[test]
fn conversions_through_the_renamed_crate() {
    assert_eq!(DType::U8.dlpack_data_type(), Ok(DataType::U8));
    assert_eq!(
        DType::from_dlpack_data_type(DataType::I8),
        Ok(DType::Other(DataType::I8))
    );
    assert_eq!(Device::Cuda(2).dlpack_device(), Ok(DlDevice::cuda(2)));
    assert_eq!(from_dlpack::<Device>(&DlDevice::CPU), Ok(Device::Cpu));
    assert_eq!(DlDevice::from(Rocm { ordinal: 4 }), DlDevice::rocm(4));
    assert_eq!(
        Rocm::from_dlpack_device(DlDevice::rocm(4)),
        Ok(Rocm { ordinal: 4 })
    );
    assert!(Rocm::from_dlpack_device(DlDevice::rocm(256)).is_err());
    assert_eq!(DataType::from(Raw { code: 2, bits: 32 }), DataType::F32);
    assert!(Raw::from_dlpack_data_type(DataType::F32.with_lanes(4)).is_err());
    assert_eq!(DType::F32.to_dlpack_data_type(), Some(DataType::F32));
}

/// Another crate's dtype, as seen from here.
mod their_crate {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) enum Precision {
        Half,
        Single,
    }
}

/// A `remote` mirror whose conversions and `__impl_remote` impls name dlpack-core only through
/// `crate = "dlpack"` (`__impl_remote` is allowed: the foreign type is this crate's).
#[derive(Debug, PartialEq, DlpackDataType)]
#[dlpack(crate = "dlpack", remote = "their_crate::Precision", __impl_remote)]
enum Precision {
    #[dlpack("float16")]
    Half,
    #[dlpack("float32")]
    Single,
}

#[test]
fn remote_through_the_renamed_crate() {
    assert_eq!(
        Precision::from(&their_crate::Precision::Half).dlpack_data_type(),
        Ok(DataType::F16)
    );
    assert_eq!(
        from_dlpack::<their_crate::Precision>(&DataType::F32),
        Ok(their_crate::Precision::Single)
    );
    assert_eq!(
        their_crate::Precision::from(Precision::Half),
        their_crate::Precision::Half
    );
}
