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
    pub const CAPACITY: usize = 128;

    /// The empty set.
    pub const EMPTY: Self = Self {
        all: false,
        len: 0,
        items: [DataType::BOOL; Self::CAPACITY],
    };

    /// Every data type (a raw `DataType`, or a struct with `code`/`bits`/`lanes` fields).
    pub const ALL: Self = Self {
        all: true,
        ..Self::EMPTY
    };

    /// This set with `value` added. Panics (at compile time, in a constant) past
    /// [`CAPACITY`](Self::CAPACITY) distinct values.
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

    /// Whether `value` is in the set.
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
    pub const fn is_subset(&self, other: &Self) -> bool {
        self.first_missing_from(other).is_none() && (!self.all || other.all)
    }

    /// The first value of `self` that `other` lacks; `None` when there is none or `self` is
    /// [`ALL`](Self::ALL) (which has no listing).
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
    pub const fn is_all(&self) -> bool {
        self.all
    }

    /// The listed values, in insertion order; empty for [`ALL`](Self::ALL).
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
    pub const fn every(device_type: DLDeviceType) -> Self {
        Self {
            device_type,
            min_id: 0,
            max_id: i32::MAX,
        }
    }

    /// One device.
    pub const fn one(device: Device) -> Self {
        let device = device.canonical();
        Self {
            device_type: device.device_type,
            min_id: device.device_id,
            max_id: device.device_id,
        }
    }

    /// Whether `device` is in the range.
    pub const fn contains(&self, device: Device) -> bool {
        let device = device.canonical();
        self.device_type.0 == device.device_type.0
            && self.min_id <= device.device_id
            && device.device_id <= self.max_id
    }
}

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
    pub const CAPACITY: usize = 64;

    /// The empty set.
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
    pub const ALL: Self = Self {
        all: true,
        ..Self::EMPTY
    };

    /// This set with `range` added. Panics (at compile time, in a constant) past
    /// [`CAPACITY`](Self::CAPACITY) ranges.
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
    pub const fn is_subset(&self, other: &Self) -> bool {
        if self.all {
            return other.all;
        }
        self.first_missing_from(other).is_none()
    }

    /// The first range of `self` that `other` does not cover; `None` when there is none or
    /// `self` is [`ALL`](Self::ALL).
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
    pub const fn is_all(&self) -> bool {
        self.all
    }

    /// The listed ranges, in insertion order; empty for [`ALL`](Self::ALL).
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
