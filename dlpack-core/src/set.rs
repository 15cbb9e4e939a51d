//! Compile-time sets of data types and devices: what a type can produce and what it accepts.
//!
//! Every [`DlpackDataType`](crate::DlpackDataType) and [`DlpackDevice`](crate::DlpackDevice)
//! carries two such sets as associated constants, `PRODUCES` and `ACCEPTS`. The derives compute
//! them from the annotations; [`assert_convertible!`](crate::assert_convertible) compares them
//! in a `const` item, so a conversion between two frameworks is known total before the program
//! runs; and the "it supports: …" part of a conversion error lists `ACCEPTS`.
//!
//! The sets are plain values with `const fn` operations and a fixed capacity
//! ([`DataTypeSet::CAPACITY`] entries), so that they can be built in constants without
//! allocation. A hand-written trait implementation that does not override the constants gets
//! [`DataTypeSet::ALL`] for `PRODUCES` (it might produce anything) and [`DataTypeSet::EMPTY`]
//! for `ACCEPTS` (nothing is proven accepted): conservative, so `assert_convertible!` never
//! claims more than it knows.
//!
//! ```
//! use dlpack_core::{DataType, Device, ffi::DLDeviceType};
//! use dlpack_core::set::{DataTypeSet, DeviceRange, DeviceSet};
//!
//! // What a small framework supports, known at compile time.
//! const DTYPES: DataTypeSet = DataTypeSet::EMPTY.with(DataType::F32).with(DataType::BF16);
//! const DEVICES: DeviceSet = DeviceSet::EMPTY
//!     .with(DeviceRange::one(Device::CPU))
//!     .with(DeviceRange::every(DLDeviceType::CUDA));
//! const _: () = assert!(DTYPES.contains(DataType::BF16)); // checked by the compiler
//! assert!(DEVICES.contains(Device::cuda(3)));
//! assert!(!DEVICES.contains(Device::rocm(0)));
//! ```

use core::fmt;

use crate::data_type::DataType;
use crate::device::Device;
use crate::ffi::DLDeviceType;

/// A set of data types known at compile time: a list of values, or every data type.
///
/// ```
/// use dlpack_core::{DataType, set::DataTypeSet};
///
/// const FLOATS: DataTypeSet = DataTypeSet::EMPTY.with(DataType::F32).with(DataType::F64);
/// assert!(FLOATS.contains(DataType::F32));
/// assert!(!FLOATS.contains(DataType::F16));
/// assert!(FLOATS.is_subset(&DataTypeSet::ALL));
/// assert_eq!(FLOATS.as_slice(), &[DataType::F32, DataType::F64]);
/// ```
#[derive(Clone, Copy)]
pub struct DataTypeSet {
    all: bool,
    len: usize,
    items: [DataType; DataTypeSet::CAPACITY],
}

impl DataTypeSet {
    /// How many distinct data types a listed set holds at most.
    ///
    /// ```
    /// use dlpack_core::set::DataTypeSet;
    /// assert_eq!(DataTypeSet::CAPACITY, 128);
    /// ```
    pub const CAPACITY: usize = 128;

    /// The empty set.
    ///
    /// ```
    /// use dlpack_core::{DataType, set::DataTypeSet};
    /// assert!(!DataTypeSet::EMPTY.contains(DataType::F32));
    /// assert!(DataTypeSet::EMPTY.as_slice().is_empty());
    /// ```
    pub const EMPTY: Self = Self {
        all: false,
        len: 0,
        items: [DataType::BOOL; Self::CAPACITY],
    };

    /// Every data type (a raw `DataType`, or a struct with `code`/`bits`/`lanes` fields).
    ///
    /// ```
    /// use dlpack_core::{DataType, set::DataTypeSet};
    /// assert!(DataTypeSet::ALL.contains(DataType::FLOAT4_E2M1FN.with_lanes(8)));
    /// assert!(DataTypeSet::ALL.as_slice().is_empty()); // no listing
    /// ```
    pub const ALL: Self = Self {
        all: true,
        ..Self::EMPTY
    };

    /// This set with `value` added. Panics (at compile time, in a constant) past
    /// [`CAPACITY`](Self::CAPACITY) distinct values.
    ///
    /// ```
    /// use dlpack_core::{DataType, set::DataTypeSet};
    /// const SET: DataTypeSet = DataTypeSet::EMPTY.with(DataType::F16).with(DataType::F16);
    /// assert_eq!(SET.as_slice(), &[DataType::F16]); // no duplicates
    /// ```
    #[must_use]
    pub const fn with(mut self, value: DataType) -> Self {
        if self.all || self.contains(value) {
            return self;
        }
        assert!(
            self.len < Self::CAPACITY,
            "a DataTypeSet holds at most 128 data types"
        );
        self.items[self.len] = value;
        self.len += 1;
        self
    }

    /// The union of two sets.
    ///
    /// ```
    /// use dlpack_core::{DataType, set::DataTypeSet};
    /// let a = DataTypeSet::EMPTY.with(DataType::I8);
    /// let b = DataTypeSet::EMPTY.with(DataType::U8);
    /// assert_eq!(a.union(&b).as_slice(), &[DataType::I8, DataType::U8]);
    /// assert!(a.union(&DataTypeSet::ALL).is_all());
    /// ```
    #[must_use]
    pub const fn union(mut self, other: &Self) -> Self {
        if other.all {
            return Self::ALL;
        }
        let mut i = 0;
        while i < other.len {
            self = self.with(other.items[i]);
            i += 1;
        }
        self
    }

    /// Whether `value` is in the set (lanes count: `float32x4` is not `float32`).
    ///
    /// ```
    /// use dlpack_core::{DataType, set::DataTypeSet};
    /// let set = DataTypeSet::EMPTY.with(DataType::F32);
    /// assert!(set.contains(DataType::F32));
    /// assert!(!set.contains(DataType::F32.with_lanes(4)));
    /// ```
    pub const fn contains(&self, value: DataType) -> bool {
        if self.all {
            return true;
        }
        let mut i = 0;
        while i < self.len {
            let item = self.items[i];
            if item.code.0 == value.code.0 && item.bits == value.bits && item.lanes == value.lanes {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether every data type in `self` is in `other`.
    ///
    /// ```
    /// use dlpack_core::{DataType, set::DataTypeSet};
    /// let small = DataTypeSet::EMPTY.with(DataType::F32);
    /// let big = small.with(DataType::F64);
    /// assert!(small.is_subset(&big) && !big.is_subset(&small));
    /// assert!(!DataTypeSet::ALL.is_subset(&big));
    /// ```
    pub const fn is_subset(&self, other: &Self) -> bool {
        self.first_missing_from(other).is_none() && (!self.all || other.all)
    }

    /// The first value of `self` that `other` lacks; `None` when there is none or `self` is
    /// [`ALL`](Self::ALL) (which has no listing).
    ///
    /// ```
    /// use dlpack_core::{DataType, set::DataTypeSet};
    /// let ours = DataTypeSet::EMPTY.with(DataType::F32).with(DataType::FLOAT8_E5M2);
    /// let theirs = DataTypeSet::EMPTY.with(DataType::F32);
    /// assert_eq!(ours.first_missing_from(&theirs), Some(DataType::FLOAT8_E5M2));
    /// assert_eq!(theirs.first_missing_from(&ours), None);
    /// ```
    pub const fn first_missing_from(&self, other: &Self) -> Option<DataType> {
        if self.all {
            return None;
        }
        let mut i = 0;
        while i < self.len {
            if !other.contains(self.items[i]) {
                return Some(self.items[i]);
            }
            i += 1;
        }
        None
    }

    /// Whether the set is every data type.
    ///
    /// ```
    /// use dlpack_core::set::DataTypeSet;
    /// assert!(DataTypeSet::ALL.is_all() && !DataTypeSet::EMPTY.is_all());
    /// ```
    pub const fn is_all(&self) -> bool {
        self.all
    }

    /// The listed values, in insertion order; empty for [`ALL`](Self::ALL).
    ///
    /// ```
    /// use dlpack_core::{DataType, set::DataTypeSet};
    /// let set = DataTypeSet::EMPTY.with(DataType::BF16).with(DataType::F16);
    /// assert_eq!(set.as_slice(), &[DataType::BF16, DataType::F16]);
    /// ```
    pub const fn as_slice(&self) -> &[DataType] {
        self.items.split_at(self.len).0
    }
}

impl fmt::Debug for DataTypeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.all {
            f.write_str("DataTypeSet::ALL")
        } else {
            f.debug_set().entries(self.as_slice()).finish()
        }
    }
}

/// Devices of one type whose ids lie in `min_id..=max_id`.
///
/// Displays as `cpu` (a device type without ids), `cuda:3` (one id), `cuda:<id>` (every id) or
/// `cuda:0..=255`.
///
/// ```
/// use dlpack_core::{Device, ffi::DLDeviceType, set::DeviceRange};
///
/// let first_four = DeviceRange { device_type: DLDeviceType::CUDA, min_id: 0, max_id: 3 };
/// assert!(first_four.contains(Device::cuda(3)));
/// assert!(!first_four.contains(Device::cuda(4)));
/// assert_eq!(first_four.to_string(), "cuda:0..=3");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceRange {
    /// The device type.
    pub device_type: DLDeviceType,
    /// The least id.
    pub min_id: i32,
    /// The greatest id.
    pub max_id: i32,
}

impl DeviceRange {
    /// Every valid id (`0..=i32::MAX`) of a device type.
    ///
    /// ```
    /// use dlpack_core::{Device, ffi::DLDeviceType, set::DeviceRange};
    /// let any_gpu = DeviceRange::every(DLDeviceType::CUDA);
    /// assert!(any_gpu.contains(Device::cuda(i32::MAX)));
    /// assert!(!any_gpu.contains(Device::cuda(-1)));
    /// assert_eq!(any_gpu.to_string(), "cuda:<id>");
    /// ```
    pub const fn every(device_type: DLDeviceType) -> Self {
        Self {
            device_type,
            min_id: 0,
            max_id: i32::MAX,
        }
    }

    /// One device (canonicalised: `cpu:1` is `cpu`).
    ///
    /// ```
    /// use dlpack_core::{Device, set::DeviceRange};
    /// let gpu1 = DeviceRange::one(Device::cuda(1));
    /// assert!(gpu1.contains(Device::cuda(1)) && !gpu1.contains(Device::cuda(0)));
    /// assert_eq!(gpu1.to_string(), "cuda:1");
    /// ```
    pub const fn one(device: Device) -> Self {
        let device = device.canonical();
        Self {
            device_type: device.device_type,
            min_id: device.device_id,
            max_id: device.device_id,
        }
    }

    /// Whether `device` is in the range.
    ///
    /// ```
    /// use dlpack_core::{Device, ffi::DLDeviceType, set::DeviceRange};
    /// let host = DeviceRange::one(Device::CPU);
    /// assert!(host.contains(Device::new(DLDeviceType::CPU, 2))); // host ids are all 0
    /// assert!(!host.contains(Device::CUDA_HOST));
    /// ```
    pub const fn contains(&self, device: Device) -> bool {
        let device = device.canonical();
        self.device_type.0 == device.device_type.0
            && self.min_id <= device.device_id
            && device.device_id <= self.max_id
    }
}

/// `cpu`, `cuda:3`, `cuda:<id>` or `cuda:0..=255`, as "it supports: …" error messages show it.
///
/// ```
/// use dlpack_core::{Device, ffi::DLDeviceType, set::DeviceRange};
/// assert_eq!(DeviceRange::one(Device::CPU).to_string(), "cpu");
/// assert_eq!(DeviceRange::every(DLDeviceType::ROCM).to_string(), "rocm:<id>");
/// ```
impl fmt::Display for DeviceRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let first = Device::new(self.device_type, self.min_id);
        if self.min_id == self.max_id {
            write!(f, "{first}")
        } else {
            let name = self.device_type.name().unwrap_or("unknown");
            if self.min_id == 0 && self.max_id == i32::MAX {
                write!(f, "{name}:<id>")
            } else {
                write!(f, "{name}:{}..={}", self.min_id, self.max_id)
            }
        }
    }
}

/// A set of devices known at compile time: ranges of ids per device type, or every device.
///
/// ```
/// use dlpack_core::{Device, ffi::DLDeviceType, set::{DeviceRange, DeviceSet}};
///
/// const TORCH: DeviceSet = DeviceSet::EMPTY
///     .with(DeviceRange::one(Device::CPU))
///     .with(DeviceRange::every(DLDeviceType::CUDA));
/// const SMALL: DeviceSet = DeviceSet::EMPTY.with(DeviceRange {
///     device_type: DLDeviceType::CUDA, min_id: 0, max_id: 255,
/// });
/// assert!(TORCH.contains(Device::cuda(1000)));
/// assert!(SMALL.is_subset(&TORCH));
/// assert!(!TORCH.is_subset(&SMALL));
/// ```
#[derive(Clone, Copy)]
pub struct DeviceSet {
    all: bool,
    len: usize,
    items: [DeviceRange; DeviceSet::CAPACITY],
}

impl DeviceSet {
    /// How many ranges a listed set holds at most.
    ///
    /// ```
    /// use dlpack_core::set::DeviceSet;
    /// assert_eq!(DeviceSet::CAPACITY, 64);
    /// ```
    pub const CAPACITY: usize = 64;

    /// The empty set.
    ///
    /// ```
    /// use dlpack_core::{Device, set::DeviceSet};
    /// assert!(!DeviceSet::EMPTY.contains(Device::CPU));
    /// ```
    pub const EMPTY: Self = Self {
        all: false,
        len: 0,
        items: [DeviceRange {
            device_type: DLDeviceType::CPU,
            min_id: 0,
            max_id: 0,
        }; Self::CAPACITY],
    };

    /// Every device.
    ///
    /// ```
    /// use dlpack_core::{Device, set::DeviceSet};
    /// assert!(DeviceSet::ALL.contains(Device::trn(7)));
    /// ```
    pub const ALL: Self = Self {
        all: true,
        ..Self::EMPTY
    };

    /// This set with `range` added. Panics (at compile time, in a constant) past
    /// [`CAPACITY`](Self::CAPACITY) ranges. A range the set already covers is not added.
    ///
    /// ```
    /// use dlpack_core::{Device, ffi::DLDeviceType, set::{DeviceRange, DeviceSet}};
    /// const GPUS: DeviceSet = DeviceSet::EMPTY
    ///     .with(DeviceRange::every(DLDeviceType::CUDA))
    ///     .with(DeviceRange::one(Device::cuda(3))); // already covered
    /// assert_eq!(GPUS.as_slice().len(), 1);
    /// ```
    #[must_use]
    pub const fn with(mut self, range: DeviceRange) -> Self {
        if self.all || self.covers(range) {
            return self;
        }
        assert!(
            self.len < Self::CAPACITY,
            "a DeviceSet holds at most 64 device ranges"
        );
        self.items[self.len] = range;
        self.len += 1;
        self
    }

    /// The union of two sets.
    ///
    /// ```
    /// use dlpack_core::{Device, set::{DeviceRange, DeviceSet}};
    /// let cpu = DeviceSet::EMPTY.with(DeviceRange::one(Device::CPU));
    /// let gpu = DeviceSet::EMPTY.with(DeviceRange::one(Device::cuda(0)));
    /// let both = cpu.union(&gpu);
    /// assert!(both.contains(Device::CPU) && both.contains(Device::cuda(0)));
    /// ```
    #[must_use]
    pub const fn union(mut self, other: &Self) -> Self {
        if other.all {
            return Self::ALL;
        }
        let mut i = 0;
        while i < other.len {
            self = self.with(other.items[i]);
            i += 1;
        }
        self
    }

    /// Whether `device` is in the set.
    ///
    /// ```
    /// use dlpack_core::{Device, set::{DeviceRange, DeviceSet}};
    /// let set = DeviceSet::EMPTY.with(DeviceRange::one(Device::cuda(0)));
    /// assert!(set.contains(Device::cuda(0)) && !set.contains(Device::cuda(1)));
    /// ```
    pub const fn contains(&self, device: Device) -> bool {
        if self.all {
            return true;
        }
        let mut i = 0;
        while i < self.len {
            if self.items[i].contains(device) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether every id of `range` is in the set (possibly across several of its ranges).
    ///
    /// ```
    /// use dlpack_core::{ffi::DLDeviceType, set::{DeviceRange, DeviceSet}};
    /// let cuda = |min_id, max_id| DeviceRange { device_type: DLDeviceType::CUDA, min_id, max_id };
    /// let set = DeviceSet::EMPTY.with(cuda(0, 3)).with(cuda(4, 7));
    /// assert!(set.covers(cuda(2, 6))); // across both ranges
    /// assert!(!set.covers(cuda(6, 8)));
    /// ```
    pub const fn covers(&self, range: DeviceRange) -> bool {
        if self.all {
            return true;
        }
        let mut next = range.min_id;
        loop {
            // Find a range of ours that holds `next` and reaches furthest.
            let mut reach: Option<i32> = None;
            let mut i = 0;
            while i < self.len {
                let r = self.items[i];
                if r.device_type.0 == range.device_type.0 && r.min_id <= next && next <= r.max_id {
                    reach = match reach {
                        Some(m) if m >= r.max_id => Some(m),
                        _ => Some(r.max_id),
                    };
                }
                i += 1;
            }
            match reach {
                None => return false,
                Some(m) if m >= range.max_id => return true,
                Some(m) => next = m + 1,
            }
        }
    }

    /// Whether every device in `self` is in `other`.
    ///
    /// ```
    /// use dlpack_core::{Device, ffi::DLDeviceType, set::{DeviceRange, DeviceSet}};
    /// let one = DeviceSet::EMPTY.with(DeviceRange::one(Device::cuda(5)));
    /// let all_cuda = DeviceSet::EMPTY.with(DeviceRange::every(DLDeviceType::CUDA));
    /// assert!(one.is_subset(&all_cuda) && !all_cuda.is_subset(&one));
    /// ```
    pub const fn is_subset(&self, other: &Self) -> bool {
        if self.all {
            return other.all;
        }
        self.first_missing_from(other).is_none()
    }

    /// The first range of `self` that `other` does not cover; `None` when there is none or
    /// `self` is [`ALL`](Self::ALL).
    ///
    /// ```
    /// use dlpack_core::{Device, set::{DeviceRange, DeviceSet}};
    /// let ours = DeviceSet::EMPTY
    ///     .with(DeviceRange::one(Device::CPU))
    ///     .with(DeviceRange::one(Device::MAIA));
    /// let theirs = DeviceSet::EMPTY.with(DeviceRange::one(Device::CPU));
    /// assert_eq!(ours.first_missing_from(&theirs), Some(DeviceRange::one(Device::MAIA)));
    /// ```
    pub const fn first_missing_from(&self, other: &Self) -> Option<DeviceRange> {
        if self.all {
            return None;
        }
        let mut i = 0;
        while i < self.len {
            if !other.covers(self.items[i]) {
                return Some(self.items[i]);
            }
            i += 1;
        }
        None
    }

    /// Whether the set is every device.
    ///
    /// ```
    /// use dlpack_core::set::DeviceSet;
    /// assert!(DeviceSet::ALL.is_all() && !DeviceSet::EMPTY.is_all());
    /// ```
    pub const fn is_all(&self) -> bool {
        self.all
    }

    /// The listed ranges, in insertion order; empty for [`ALL`](Self::ALL).
    ///
    /// ```
    /// use dlpack_core::{Device, set::{DeviceRange, DeviceSet}};
    /// let set = DeviceSet::EMPTY.with(DeviceRange::one(Device::CPU));
    /// assert_eq!(set.as_slice(), &[DeviceRange::one(Device::CPU)]);
    /// ```
    pub const fn as_slice(&self) -> &[DeviceRange] {
        self.items.split_at(self.len).0
    }
}

impl fmt::Debug for DeviceSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.all {
            f.write_str("DeviceSet::ALL")
        } else {
            f.debug_set().entries(self.as_slice()).finish()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covers_across_ranges() {
        let set = DeviceSet::EMPTY
            .with(DeviceRange {
                device_type: DLDeviceType::CUDA,
                min_id: 0,
                max_id: 9,
            })
            .with(DeviceRange {
                device_type: DLDeviceType::CUDA,
                min_id: 5,
                max_id: 20,
            });
        assert!(set.covers(DeviceRange {
            device_type: DLDeviceType::CUDA,
            min_id: 0,
            max_id: 20
        }));
        assert!(!set.covers(DeviceRange {
            device_type: DLDeviceType::CUDA,
            min_id: 0,
            max_id: 21
        }));
        assert!(!set.covers(DeviceRange {
            device_type: DLDeviceType::ROCM,
            min_id: 0,
            max_id: 0
        }));
        let full = DeviceSet::EMPTY.with(DeviceRange::every(DLDeviceType::CUDA));
        assert!(full.covers(DeviceRange::every(DLDeviceType::CUDA)));
    }

    #[test]
    fn all_is_subset_only_of_all() {
        assert!(DataTypeSet::ALL.is_subset(&DataTypeSet::ALL));
        assert!(!DataTypeSet::ALL.is_subset(&DataTypeSet::EMPTY.with(DataType::F32)));
        assert!(DataTypeSet::EMPTY.is_subset(&DataTypeSet::EMPTY));
        assert!(!DeviceSet::ALL.is_subset(&DeviceSet::EMPTY));
    }

    #[test]
    fn display_ranges() {
        assert_eq!(DeviceRange::one(Device::CPU).to_string(), "cpu");
        assert_eq!(DeviceRange::one(Device::cuda(3)).to_string(), "cuda:3");
        assert_eq!(
            DeviceRange::every(DLDeviceType::CUDA).to_string(),
            "cuda:<id>"
        );
        let small = DeviceRange {
            device_type: DLDeviceType::ROCM,
            min_id: 0,
            max_id: 255,
        };
        assert_eq!(small.to_string(), "rocm:0..=255");
    }
}
