//! Zero-cost conversions to and from the [`dlpack_sys`] types (feature `dlpack-sys`).
//!
//! [`dlpack-sys`](https://crates.io/crates/dlpack-sys) is the bindgen binding of DLPack that
//! some crates already speak. Its structs and ours describe the same C memory, so converting is
//! a copy of the same bits (by value, for the small `Copy` structs) or a reinterpretation of a
//! reference or pointer (for managed tensors, whose address matters to their deleter). The
//! layouts are asserted identical at compile time, field by field; a mismatch is a build error.
//!
//! | ours                                | `dlpack_sys`            | how                                  |
//! |-------------------------------------|-------------------------|--------------------------------------|
//! | [`Device`] (= [`ffi::DLDevice`])     | `DLDevice`              | `From` both ways                     |
//! | [`DataType`] (= [`ffi::DLDataType`]) | `DLDataType`            | `From` both ways                     |
//! | [`ffi::DLTensor`]                   | `DLTensor`              | `From` both ways, `AsRef`/`AsMut` both ways |
//! | [`ffi::DLManagedTensor`]            | `DLManagedTensor`       | `AsRef`/`AsMut` both ways, `.cast()` of pointers |
//!
//! Values are carried bit for bit and never checked: a device type or code that neither crate
//! knows crosses unchanged (`dlpack_sys` spells `DLDeviceType` as a C `unsigned int`, so device
//! type −1 on our side is `u32::MAX` on theirs, the same four bytes).
//!
//! # Why this is optional
//!
//! `dlpack-sys` 0.1 binds DLPack **0.7**: it has no `DLManagedTensorVersioned`, no
//! `DLPackVersion`, no flags, no `kDLBool` or fp8/fp6/fp4 codes and no MAIA/Trainium devices,
//! so only the four structs above are shared, and a versioned tensor has no `dlpack_sys`
//! counterpart. It also runs bindgen in its build script, which needs libclang installed at
//! build time (`apt-get install libclang-dev`). The rest of this crate needs neither, so the
//! bridge is behind a feature.
//!
//! ```
//! use dlpack_core::{DataType, Device, ffi};
//!
//! let theirs = dlpack_sys::DLDevice {
//!     device_type: dlpack_sys::DLDeviceType_kDLCUDA,
//!     device_id: 1,
//! };
//! assert_eq!(Device::from(theirs), Device::cuda(1));
//! assert_eq!(dlpack_sys::DLDataType::from(DataType::BF16).code, 4);
//!
//! // A legacy managed tensor from a dlpack-sys producer, used through our types in place,
//! // and back: `AsRef`/`AsMut` view one struct as its twin without moving it.
//! let mut producer = dlpack_sys::DLManagedTensor::default();
//! producer.dl_tensor.ndim = 2;
//! let ours: &mut ffi::DLManagedTensor = producer.as_mut();
//! ours.dl_tensor.ndim += 1;
//! let theirs: &dlpack_sys::DLManagedTensor = ours.as_ref();
//! assert_eq!(theirs.dl_tensor.ndim, 3);
//! let tensor: &ffi::DLTensor = producer.dl_tensor.as_ref();
//! assert_eq!(tensor.ndim, 3);
//!
//! // A pointer is the same address under either type: `cast()` it. There is no by-value
//! // conversion for managed tensors: the deleter frees the struct at its own address, so a
//! // moved copy must never be handed out.
//! let raw: *mut dlpack_sys::DLManagedTensor = &raw mut producer;
//! let ours: *mut ffi::DLManagedTensor = raw.cast();
//! // SAFETY: `ours` points to `producer`, alive, with an identical layout.
//! assert_eq!(unsafe { (*ours).dl_tensor.ndim }, 3);
//! ```

use core::mem::{align_of, offset_of, size_of};

use crate::DataType;
use crate::Device;
use crate::ffi::{self, DLDataTypeCode, DLDeviceType};

/// Asserts at compile time that two structs have the same size, alignment, and, for each pair
/// of corresponding fields, the same offset and size.
macro_rules! same_layout {
    ($ours:ty, $theirs:ty, { $($field:ident),+ $(,)? }) => {
        const _: () = {
            assert!(size_of::<$ours>() == size_of::<$theirs>());
            assert!(align_of::<$ours>() == align_of::<$theirs>());
            $(assert!(offset_of!($ours, $field) == offset_of!($theirs, $field));)+
        };
    };
}

same_layout!(Device, dlpack_sys::DLDevice, { device_type, device_id });
same_layout!(DataType, dlpack_sys::DLDataType, { code, bits, lanes });
same_layout!(ffi::DLTensor, dlpack_sys::DLTensor, {
    data, device, ndim, dtype, shape, strides, byte_offset,
});
same_layout!(ffi::DLManagedTensor, dlpack_sys::DLManagedTensor, {
    dl_tensor, manager_ctx, deleter,
});
// The fields whose types differ in spelling have the same width.
const _: () = {
    assert!(size_of::<DLDeviceType>() == size_of::<dlpack_sys::DLDeviceType>());
    assert!(size_of::<DLDataTypeCode>() == size_of::<u8>());
};

/// ```
/// let theirs = dlpack_sys::DLDevice { device_type: dlpack_sys::DLDeviceType_kDLROCM, device_id: 2 };
/// assert_eq!(dlpack_core::Device::from(theirs), dlpack_core::Device::rocm(2));
/// ```
impl From<dlpack_sys::DLDevice> for Device {
    /// The same device; the device type's bits are kept as they are.
    #[inline]
    fn from(device: dlpack_sys::DLDevice) -> Self {
        // `dlpack_sys::DLDeviceType` is `c_uint` (or `c_int` where C enums are signed): the
        // cast keeps the 32 bits, so an unknown type round-trips unchanged.
        Self::new(DLDeviceType(device.device_type as i32), device.device_id)
    }
}

/// ```
/// let theirs = dlpack_sys::DLDevice::from(dlpack_core::Device::CUDA_HOST);
/// assert_eq!(theirs.device_type, dlpack_sys::DLDeviceType_kDLCUDAHost);
/// ```
impl From<Device> for dlpack_sys::DLDevice {
    /// The same device; the device type's bits are kept as they are.
    #[inline]
    fn from(device: Device) -> Self {
        Self {
            device_type: device.device_type.0 as dlpack_sys::DLDeviceType,
            device_id: device.device_id,
        }
    }
}

/// ```
/// let theirs = dlpack_sys::DLDataType { code: 2, bits: 16, lanes: 1 };
/// assert_eq!(dlpack_core::DataType::from(theirs), dlpack_core::DataType::F16);
/// ```
impl From<dlpack_sys::DLDataType> for DataType {
    /// The same triple, unchecked like [`DataType::new`].
    #[inline]
    fn from(data_type: dlpack_sys::DLDataType) -> Self {
        Self::new(
            DLDataTypeCode(data_type.code),
            data_type.bits,
            data_type.lanes,
        )
    }
}

/// ```
/// let theirs = dlpack_sys::DLDataType::from(dlpack_core::DataType::C64.with_lanes(2));
/// assert_eq!((theirs.code, theirs.bits, theirs.lanes), (5, 64, 2));
/// ```
impl From<DataType> for dlpack_sys::DLDataType {
    /// The same triple.
    #[inline]
    fn from(data_type: DataType) -> Self {
        Self {
            code: data_type.code.0,
            bits: data_type.bits,
            lanes: data_type.lanes,
        }
    }
}

/// ```
/// use dlpack_core::{DataType, ffi::DLTensor};
/// let mut theirs = dlpack_sys::DLTensor::default();
/// theirs.dtype = DataType::I32.into();
/// assert_eq!(DLTensor::from(theirs).dtype, DataType::I32);
/// ```
impl From<dlpack_sys::DLTensor> for ffi::DLTensor {
    /// The same descriptor: the pointers are copied, nothing is dereferenced.
    #[inline]
    fn from(t: dlpack_sys::DLTensor) -> Self {
        Self {
            data: t.data,
            device: t.device.into(),
            ndim: t.ndim,
            dtype: t.dtype.into(),
            shape: t.shape,
            strides: t.strides,
            byte_offset: t.byte_offset,
        }
    }
}

/// ```
/// use dlpack_core::{Device, ffi::DLTensor};
/// let mut ours = DLTensor::from(dlpack_sys::DLTensor::default());
/// ours.device = Device::cuda(1);
/// assert_eq!(dlpack_sys::DLTensor::from(ours).device.device_id, 1);
/// ```
impl From<ffi::DLTensor> for dlpack_sys::DLTensor {
    /// The same descriptor: the pointers are copied, nothing is dereferenced.
    #[inline]
    fn from(t: ffi::DLTensor) -> Self {
        Self {
            data: t.data,
            device: t.device.into(),
            ndim: t.ndim,
            dtype: t.dtype.into(),
            shape: t.shape,
            strides: t.strides,
            byte_offset: t.byte_offset,
        }
    }
}

/// Reference views between a struct of ours and its `dlpack_sys` twin, both ways, as
/// `AsRef`/`AsMut` (trait impls rather than named methods: a view is all they do, and the
/// reader already knows the two traits).
///
/// Sound for these pairs because (1) the layouts are identical (asserted above), (2) every
/// field is a plain integer, raw pointer or optional function pointer whose every bit pattern
/// valid on one side is valid on the other (`i32`/`u32` device types, `u8` codes), and (3) the
/// deleters' types differ only in the pointee of their argument, and pointers to sized types
/// are ABI-compatible with each other, so a deleter written for either struct may be called
/// through the other's type.
macro_rules! views {
    ($a:ty => $b:ty) => {
        /// The same struct seen as its twin, in place: see the [module docs](self).
        impl AsRef<$b> for $a {
            #[inline]
            fn as_ref(&self) -> &$b {
                // SAFETY: identical layout and compatible field validity (see `views!`); the
                // lifetime and mutability are those of `self`.
                unsafe { &*(self as *const Self).cast::<$b>() }
            }
        }

        /// The same struct seen as its twin, in place: see the [module docs](self).
        impl AsMut<$b> for $a {
            #[inline]
            fn as_mut(&mut self) -> &mut $b {
                // SAFETY: as in `as_ref`; whatever is written through the view is valid for
                // `Self` too, since every bit pattern valid there is valid here.
                unsafe { &mut *(self as *mut Self).cast::<$b>() }
            }
        }
    };
}

views!(ffi::DLTensor => dlpack_sys::DLTensor);
views!(dlpack_sys::DLTensor => ffi::DLTensor);
views!(ffi::DLManagedTensor => dlpack_sys::DLManagedTensor);
views!(dlpack_sys::DLManagedTensor => ffi::DLManagedTensor);

#[cfg(test)]
mod tests {
    use super::*;
    use core::ffi::c_void;
    use core::ptr;

    #[test]
    fn device_type_constants_agree() {
        let pairs = [
            (dlpack_sys::DLDeviceType_kDLCPU, DLDeviceType::CPU),
            (dlpack_sys::DLDeviceType_kDLCUDA, DLDeviceType::CUDA),
            (
                dlpack_sys::DLDeviceType_kDLCUDAHost,
                DLDeviceType::CUDA_HOST,
            ),
            (dlpack_sys::DLDeviceType_kDLOpenCL, DLDeviceType::OPENCL),
            (dlpack_sys::DLDeviceType_kDLVulkan, DLDeviceType::VULKAN),
            (dlpack_sys::DLDeviceType_kDLMetal, DLDeviceType::METAL),
            (dlpack_sys::DLDeviceType_kDLVPI, DLDeviceType::VPI),
            (dlpack_sys::DLDeviceType_kDLROCM, DLDeviceType::ROCM),
            (
                dlpack_sys::DLDeviceType_kDLROCMHost,
                DLDeviceType::ROCM_HOST,
            ),
            (dlpack_sys::DLDeviceType_kDLExtDev, DLDeviceType::EXT_DEV),
            (
                dlpack_sys::DLDeviceType_kDLCUDAManaged,
                DLDeviceType::CUDA_MANAGED,
            ),
            (dlpack_sys::DLDeviceType_kDLOneAPI, DLDeviceType::ONEAPI),
            (dlpack_sys::DLDeviceType_kDLWebGPU, DLDeviceType::WEBGPU),
            (dlpack_sys::DLDeviceType_kDLHexagon, DLDeviceType::HEXAGON),
        ];
        for (theirs, ours) in pairs {
            assert_eq!(i64::from(theirs), i64::from(ours.0), "{:?}", ours.name());
            let device = dlpack_sys::DLDevice {
                device_type: theirs,
                device_id: 0,
            };
            assert_eq!(Device::from(device).device_type, ours);
        }
    }

    #[test]
    fn data_type_code_constants_agree() {
        let pairs = [
            (dlpack_sys::DLDataTypeCode_kDLInt, DLDataTypeCode::INT),
            (dlpack_sys::DLDataTypeCode_kDLUInt, DLDataTypeCode::UINT),
            (dlpack_sys::DLDataTypeCode_kDLFloat, DLDataTypeCode::FLOAT),
            (
                dlpack_sys::DLDataTypeCode_kDLOpaqueHandle,
                DLDataTypeCode::OPAQUE_HANDLE,
            ),
            (dlpack_sys::DLDataTypeCode_kDLBfloat, DLDataTypeCode::BFLOAT),
            (
                dlpack_sys::DLDataTypeCode_kDLComplex,
                DLDataTypeCode::COMPLEX,
            ),
        ];
        for (theirs, ours) in pairs {
            assert_eq!(i64::from(theirs), i64::from(ours.0), "{:?}", ours.name());
        }
    }

    #[test]
    fn small_structs_round_trip_bit_for_bit() {
        for device in [
            Device::CPU,
            Device::cuda(7),
            Device::new(DLDeviceType(-1), 3),
            Device::new(DLDeviceType(i32::MAX), -5),
        ] {
            let theirs = dlpack_sys::DLDevice::from(device);
            let back = Device::from(theirs);
            assert_eq!(
                (back.device_type, back.device_id),
                (device.device_type, device.device_id)
            );
        }
        let unknown = dlpack_sys::DLDevice {
            device_type: u32::MAX as dlpack_sys::DLDeviceType,
            device_id: 0,
        };
        assert_eq!(Device::from(unknown).device_type, DLDeviceType(-1));
        for dt in [
            DataType::F32.with_lanes(4),
            DataType::BOOL,
            DataType::new(DLDataTypeCode(200), 0, 0),
        ] {
            let theirs = dlpack_sys::DLDataType::from(dt);
            assert_eq!(
                (theirs.code, theirs.bits, theirs.lanes),
                (dt.code.0, dt.bits, dt.lanes)
            );
            assert_eq!(DataType::from(theirs), dt);
        }
    }

    #[test]
    fn tensors_convert_by_value_and_by_view() {
        let mut shape = [2i64, 3];
        let mut data = [0f32; 6];
        let ours = ffi::DLTensor {
            data: data.as_mut_ptr().cast::<c_void>(),
            device: Device::CPU,
            ndim: 2,
            dtype: DataType::F32,
            shape: shape.as_mut_ptr(),
            strides: ptr::null_mut(),
            byte_offset: 8,
        };
        let theirs = dlpack_sys::DLTensor::from(ours);
        assert_eq!(theirs.device.device_type, dlpack_sys::DLDeviceType_kDLCPU);
        assert_eq!(theirs.dtype.bits, 32);
        assert_eq!((theirs.shape, theirs.byte_offset), (ours.shape, 8));
        let back = ffi::DLTensor::from(theirs);
        assert_eq!(
            (back.data, back.ndim, back.dtype),
            (ours.data, 2, DataType::F32)
        );

        let mut ours = ours;
        AsMut::<dlpack_sys::DLTensor>::as_mut(&mut ours).ndim = 1;
        assert_eq!(ours.ndim, 1);
        assert_eq!(AsRef::<dlpack_sys::DLTensor>::as_ref(&ours).dtype.code, 2);
        let mut theirs = theirs;
        AsMut::<ffi::DLTensor>::as_mut(&mut theirs).device = Device::cuda(2);
        assert_eq!(theirs.device.device_id, 2);
        assert_eq!(
            AsRef::<ffi::DLTensor>::as_ref(&theirs).device,
            Device::cuda(2)
        );
    }

    /// A deleter written against dlpack-sys's type, as a dlpack-sys producer would write it.
    unsafe extern "C" fn sys_deleter(tensor: *mut dlpack_sys::DLManagedTensor) {
        // SAFETY: the test passes a live tensor whose `manager_ctx` points to a `u32` counter.
        unsafe { *(*tensor).manager_ctx.cast::<u32>() += 1 };
    }

    /// A deleter written against our type.
    unsafe extern "C" fn our_deleter(tensor: *mut ffi::DLManagedTensor) {
        // SAFETY: the test passes a live tensor whose `manager_ctx` points to a `u32` counter.
        unsafe { *(*tensor).manager_ctx.cast::<u32>() += 10 };
    }

    #[test]
    fn deleters_run_through_either_type() {
        let mut calls = 0u32;
        let mut theirs = dlpack_sys::DLManagedTensor {
            manager_ctx: (&raw mut calls).cast(),
            deleter: Some(sys_deleter),
            ..Default::default()
        };
        let ours: *mut ffi::DLManagedTensor = (&raw mut theirs).cast();
        // SAFETY: `ours` points to `theirs`, alive and valid as our type (identical layout).
        unsafe {
            let deleter = (*ours).deleter.unwrap();
            deleter(ours);
        }

        let mut ours = ffi::DLManagedTensor {
            dl_tensor: ffi::DLTensor::from(dlpack_sys::DLTensor::default()),
            manager_ctx: (&raw mut calls).cast(),
            deleter: Some(our_deleter),
        };
        let theirs: *mut dlpack_sys::DLManagedTensor = (&raw mut ours).cast();
        // SAFETY: `theirs` points to `ours`, alive and valid as the dlpack-sys type.
        unsafe {
            let deleter = (*theirs).deleter.unwrap();
            deleter(theirs);
        }
        assert_eq!(calls, 11);
    }
}
