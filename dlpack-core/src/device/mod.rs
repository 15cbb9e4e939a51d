//! [`Device`]'s constructors, methods and names. The struct itself is the ABI's `DLDevice`,
//! defined in [`ffi`](crate::ffi); it is re-exported here beside its methods.

use core::fmt;
use core::hash::{Hash, Hasher};

use crate::Device;
use crate::ffi::DLDeviceType;

mod checked;

/// One constructor per device type, from the grammar's table: a `const fn` taking the id where
/// the id selects one of several devices (`Device::cuda(1)`), a constant with id 0 elsewhere
/// (`Device::CPU`).
macro_rules! constructors {
    ($($(#[doc = $desc:literal])* $name:ident = $value:literal, $str:literal, $c_name:literal, $kind:ident $($ctor:ident)?;)*) => {
        impl Device {
            $(constructor!($kind $($ctor)?, $name, $str, [$($desc)*]);)*
        }
    };
}

macro_rules! constructor {
    (indexed $ctor:ident, $name:ident, $str:literal, [$($desc:literal)*]) => {
        // A doc line alone: every constructor's type, id, name and parse are checked by one
        // table test over the grammar's rows (tests/generated_constants.rs).
        #[doc = concat!("`", $str, ":id`:", $($desc,)* ".")]
        #[inline]
        pub const fn $ctor(id: i32) -> Self {
            Self::new(DLDeviceType::$name, id)
        }
    };
    ($kind:ident, $name:ident, $str:literal, [$($desc:literal)*]) => {
        // A doc line alone, checked like the constructors above.
        #[doc = concat!("`", $str, "`:", $($desc,)* ".")]
        pub const $name: Self = Self::new(DLDeviceType::$name, 0);
    };
}

dlpack_grammar::for_each_device_type!(constructors);

impl Device {
    /// Any (type, id) pair, unchecked. See [`Device::checked`] for the validating constructor.
    ///
    /// ```
    /// use dlpack_core::{Device, ffi::DLDeviceType};
    /// const GPU1: Device = Device::new(DLDeviceType::CUDA, 1);
    /// assert_eq!(GPU1, Device::cuda(1));
    /// assert!(Device::new(DLDeviceType(99), 0).check().is_err()); // unchecked
    /// ```
    #[inline]
    pub const fn new(device_type: DLDeviceType, device_id: i32) -> Self {
        Self {
            device_type,
            device_id,
        }
    }

    /// The device type.
    ///
    /// ```
    /// use dlpack_core::{Device, ffi::DLDeviceType};
    /// assert_eq!(Device::rocm(0).device_type(), DLDeviceType::ROCM);
    /// ```
    #[inline]
    pub const fn device_type(&self) -> DLDeviceType {
        self.device_type
    }

    /// The device id.
    ///
    /// ```
    /// use dlpack_core::Device;
    /// assert_eq!(Device::cuda(3).device_id(), 3);
    /// ```
    #[inline]
    pub const fn device_id(&self) -> i32 {
        self.device_id
    }

    /// Whether this is host-side memory (`cpu`, `cuda_host`, `cuda_managed`, `rocm_host`,
    /// `tpu_host`): the CPU addresses it directly, and its id is 0 by convention (`dlpack.h`),
    /// so equality ignores the id.
    ///
    /// ```
    /// use dlpack_core::Device;
    /// assert!(Device::CUDA_MANAGED.is_host_side());
    /// assert!(!Device::cuda(0).is_host_side());
    /// assert!(!Device::MAIA.is_host_side()); // an accelerator: its id counts
    /// ```
    pub const fn is_host_side(&self) -> bool {
        match dlpack_grammar::device_info(self.device_type.0) {
            Some(info) => info.host_side,
            None => false,
        }
    }

    /// The canonical form: the id set to 0 for host-side memory, whose id has no meaning.
    ///
    /// ```
    /// use dlpack_core::Device;
    /// let pinned = Device::new(Device::CUDA_HOST.device_type, 3);
    /// assert_eq!(pinned.canonical().device_id, 0);
    /// assert_eq!(Device::cuda(3).canonical(), Device::cuda(3));
    /// ```
    #[inline]
    #[must_use]
    pub const fn canonical(self) -> Self {
        if self.is_host_side() {
            Self::new(self.device_type, 0)
        } else {
            self
        }
    }
}

impl Device {
    /// Whether code running on `self` may read memory that lives on `memory` without a copy.
    ///
    /// Equal devices always can (an unknown device type only to itself). Beyond that:
    ///
    /// | code on            | also reads memory on                                       |
    /// |--------------------|------------------------------------------------------------|
    /// | `cpu` (and the host-side kinds `cuda_host`, `cuda_managed`, `rocm_host`, `tpu_host`, which run code on the CPU) | `cpu`, `cuda_host`, `cuda_managed`, `rocm_host`, `tpu_host` |
    /// | `cuda:n`           | `cuda_host`, `cuda_managed`                                |
    /// | `rocm:n`           | `rocm_host`                                                |
    /// | anything else      | nothing but itself                                         |
    ///
    /// `cuda:n` does not read `cuda:m` (peer access has to be enabled, so it is not assumed),
    /// and `oneapi` memory may be host, shared or device USM, which only the oneAPI runtime can
    /// tell, so it is accessible to itself alone.
    ///
    /// ```
    /// use dlpack_core::Device;
    /// assert!(Device::CPU.can_access(Device::CUDA_HOST));
    /// assert!(Device::CPU.can_access(Device::CUDA_MANAGED));
    /// assert!(Device::cuda(0).can_access(Device::CUDA_HOST));
    /// assert!(!Device::cuda(0).can_access(Device::cuda(1)));
    /// assert!(!Device::CPU.can_access(Device::cuda(0)));
    /// assert!(Device::rocm(1).can_access(Device::ROCM_HOST));
    /// ```
    pub const fn can_access(self, memory: Device) -> bool {
        let (me, memory) = (self.canonical(), memory.canonical());
        if me.device_type.0 == memory.device_type.0 && me.device_id == memory.device_id {
            return true;
        }
        match me.device_type {
            _ if me.is_host_side() => memory.is_host_side(),
            DLDeviceType::CUDA => matches!(
                memory.device_type,
                DLDeviceType::CUDA_HOST | DLDeviceType::CUDA_MANAGED
            ),
            DLDeviceType::ROCM => memory.device_type.0 == DLDeviceType::ROCM_HOST.0,
            _ => false,
        }
    }
}

impl PartialEq for Device {
    /// Equal canonical forms: the same type, and the same id or a host-side type. The device
    /// table is read only when the ids differ, so comparing equal fields (`device ==
    /// Device::CPU` on a `cpu` tensor) is two inline comparisons.
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.device_type == other.device_type
            && (self.device_id == other.device_id || self.is_host_side())
    }
}

impl Eq for Device {}

impl Hash for Device {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let c = self.canonical();
        c.device_type.hash(state);
        c.device_id.hash(state);
    }
}

/// The canonical name, as TVM FFI prints it except that an id of 0 is left out for device types
/// that are not indexed (`cpu`, not `cpu:0`); a value [`Device::check`] refuses prints as
/// `unknown(…)` or `invalid(…)`, which no parser accepts.
///
/// ```
/// use dlpack_core::Device;
/// assert_eq!(Device::CPU.to_string(), "cpu");
/// assert_eq!(Device::cuda(0).to_string(), "cuda:0");
/// assert_eq!(Device::cuda(-1).to_string(), "invalid(device_type=2, device_id=-1)");
/// ```
impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        dlpack_grammar::write_device(f, self.device_type.0, self.device_id)
    }
}

impl fmt::Debug for Device {
    /// `Device(cuda:0)`, or the raw fields for a value that is not valid.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if dlpack_grammar::check_device(self.device_type.0, self.device_id).is_ok() {
            write!(f, "Device({self})")
        } else {
            f.debug_struct("Device")
                .field("device_type", &self.device_type.0)
                .field("device_id", &self.device_id)
                .finish()
        }
    }
}

/// The `(device_type, device_id)` tuple that `__dlpack_device__` returns.
///
/// ```
/// use dlpack_core::Device;
/// assert_eq!(<(i32, i32)>::from(Device::cuda(1)), (2, 1));
/// ```
impl From<Device> for (i32, i32) {
    /// The `(device_type, device_id)` tuple that `__dlpack_device__` returns.
    fn from(value: Device) -> Self {
        (value.device_type.0, value.device_id)
    }
}

/// From a `(device_type, device_id)` tuple, unchecked like [`Device::new`].
///
/// ```
/// use dlpack_core::Device;
/// assert_eq!(Device::from((1, 0)), Device::CPU);
/// assert!(Device::from((2, -1)).check().is_err()); // unchecked: validate foreign values
/// ```
impl From<(i32, i32)> for Device {
    /// From a `(device_type, device_id)` tuple, unchecked like [`Device::new`].
    fn from((device_type, device_id): (i32, i32)) -> Self {
        Self::new(DLDeviceType(device_type), device_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::prelude::rust_2024::*;

    #[test]
    fn equality_ignores_ids_only_where_they_mean_nothing() {
        assert_eq!(Device::new(DLDeviceType::CPU, 7), Device::CPU);
        assert_eq!(
            Device::new(DLDeviceType::CUDA_MANAGED, 1),
            Device::CUDA_MANAGED
        );
        assert_ne!(Device::cuda(0), Device::cuda(1));
        // Accelerators that print without an id at 0 still have ids that count.
        for ty in [
            DLDeviceType::MAIA,
            DLDeviceType::HEXAGON,
            DLDeviceType::WEBGPU,
            DLDeviceType::VPI,
            DLDeviceType::EXT_DEV,
        ] {
            assert_ne!(Device::new(ty, 1), Device::new(ty, 0), "{ty:?}");
        }
        assert_ne!(
            Device::new(DLDeviceType(99), 0),
            Device::new(DLDeviceType(99), 1)
        );
        let set: HashSet<Device> = [Device::CPU, Device::new(DLDeviceType::CPU, 3)]
            .into_iter()
            .collect();
        assert_eq!(set.len(), 1);
    }

    #[test]
    fn equality_is_that_of_canonical_forms_and_agrees_with_hash() {
        use core::hash::BuildHasher;
        let state = std::hash::RandomState::new();
        let devices: Vec<Device> = (0..=40)
            .chain([99, i32::MAX])
            .flat_map(|ty| [0, 1, 3, -1].map(|id| Device::new(DLDeviceType(ty), id)))
            .collect();
        for a in &devices {
            for b in &devices {
                let (ca, cb) = (a.canonical(), b.canonical());
                let same = ca.device_type == cb.device_type && ca.device_id == cb.device_id;
                assert_eq!(a == b, same, "{a:?} == {b:?}");
                if same {
                    assert_eq!(state.hash_one(a), state.hash_one(b), "{a:?}, {b:?}");
                }
            }
        }
    }

    #[test]
    fn display() {
        assert_eq!(Device::CPU.to_string(), "cpu");
        assert_eq!(Device::new(DLDeviceType::CPU, 2).to_string(), "cpu:2");
        assert_eq!(Device::cuda(0).to_string(), "cuda:0");
        assert_eq!(
            Device::new(DLDeviceType(99), 1).to_string(),
            "unknown(device_type=99, device_id=1)"
        );
        assert_eq!(
            Device::cuda(-1).to_string(),
            "invalid(device_type=2, device_id=-1)"
        );
        assert_eq!(
            format!("{:?}", Device::cuda(-1)),
            "Device { device_type: 2, device_id: -1 }"
        );
        assert_eq!(format!("{:?}", Device::CUDA_HOST), "Device(cuda_host)");
    }
}
