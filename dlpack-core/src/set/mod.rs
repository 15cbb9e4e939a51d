//! Compile-time sets of data types and devices: what a type can produce and what it accepts.
//!
//! Every [`DlpackDataType`](crate::DlpackDataType) and [`DlpackDevice`](crate::DlpackDevice)
//! carries two such sets as associated constants, `PRODUCES` and `ACCEPTS`. The derives compute
//! them from the annotations; [`assert_convertible!`](crate::assert_convertible) compares them
//! in a `const` item, so a conversion between two frameworks is known total before the program
//! runs; and the "it supports: …" part of a conversion error lists `ACCEPTS`.
//!
//! Both are one type, [`Set`], of data types ([`DataTypeSet`]) or of device ranges
//! ([`DeviceSet`]): plain values with `const fn` operations and a fixed capacity
//! ([`DataTypeSet::CAPACITY`], [`DeviceSet::CAPACITY`]), so that they can be built in constants
//! without allocation. A hand-written trait implementation that does not override the
//! constants gets [`ALL`](Set::ALL) for `PRODUCES` (it might produce anything) and
//! [`EMPTY`](Set::EMPTY) for `ACCEPTS` (nothing is proven accepted): conservative, so
//! `assert_convertible!` never claims more than it knows.
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
use core::marker::PhantomData;

use crate::ffi::{DLDataTypeCode, DLDeviceType};
use crate::{DataType, Device};

mod intervals;

use intervals::{Interval, Intervals};

/// A set of DLPack values known at compile time: a list, or everything. `T` is the kind of
/// element, [`DataType`] ([`DataTypeSet`]) or [`DeviceRange`] ([`DeviceSet`]); the operations
/// are `const fn`s, and the listing keeps the order in which values were added.
///
/// ```
/// use dlpack_core::{DataType, Device, set::{DataTypeSet, DeviceRange, DeviceSet}};
///
/// const FLOATS: DataTypeSet = DataTypeSet::EMPTY.with(DataType::F32).with(DataType::F64);
/// assert!(FLOATS.contains(DataType::F32) && !FLOATS.contains(DataType::F16));
/// assert!(FLOATS.is_subset(&DataTypeSet::ALL) && !DataTypeSet::ALL.is_subset(&FLOATS));
/// assert!(FLOATS.iter().eq([DataType::F32, DataType::F64]));
/// assert_eq!(format!("{FLOATS:?}"), "{DataType(float32), DataType(float64)}");
///
/// const HOST: DeviceSet = DeviceSet::EMPTY.with(DeviceRange::one(Device::CPU));
/// assert!(HOST.union(&DeviceSet::ALL).is_all());
/// assert_eq!(format!("{:?}", DeviceSet::ALL), "DeviceSet::ALL");
/// ```
#[derive(Clone, Copy)]
pub struct Set<T> {
    intervals: Intervals,
    kind: PhantomData<T>,
}

/// A set of data types ([`Set`] of [`DataType`]): at most [`CAPACITY`](Self::CAPACITY) of
/// them, or every data type. Lanes count: `float32x4` is not `float32`.
///
/// ```
/// use dlpack_core::{DataType, set::DataTypeSet};
///
/// const SET: DataTypeSet = DataTypeSet::EMPTY.with(DataType::F16).with(DataType::F16);
/// assert_eq!(SET.iter().count(), 1); // no duplicates
/// assert!(!SET.contains(DataType::F16.with_lanes(2)));
/// assert!(DataTypeSet::ALL.contains(DataType::FLOAT4_E2M1FN.with_lanes(8)));
/// assert_eq!(DataTypeSet::CAPACITY, 128);
/// ```
pub type DataTypeSet = Set<DataType>;

/// A set of devices ([`Set`] of [`DeviceRange`]): ranges of ids per device type, at most
/// [`CAPACITY`](Self::CAPACITY) of them, or every device.
///
/// ```
/// use dlpack_core::{Device, ffi::DLDeviceType, set::{DeviceRange, DeviceSet}};
///
/// const TORCH: DeviceSet = DeviceSet::EMPTY
///     .with(DeviceRange::one(Device::CPU))
///     .with(DeviceRange::every(DLDeviceType::CUDA))
///     .with(DeviceRange::one(Device::cuda(3))); // already covered: not listed again
/// const SMALL: DeviceSet = DeviceSet::EMPTY.with(DeviceRange {
///     device_type: DLDeviceType::CUDA, min_id: 0, max_id: 255,
/// });
/// assert!(TORCH.contains(Device::cuda(1000)));
/// assert_eq!(TORCH.iter().count(), 2);
/// assert!(SMALL.is_subset(&TORCH) && !TORCH.is_subset(&SMALL));
/// assert_eq!(DeviceSet::CAPACITY, 64);
/// ```
pub type DeviceSet = Set<DeviceRange>;

impl<T> Set<T> {
    /// The empty set.
    ///
    /// ```
    /// use dlpack_core::{DataType, Device, set::{DataTypeSet, DeviceSet}};
    /// assert!(!DataTypeSet::EMPTY.contains(DataType::F32));
    /// assert!(!DeviceSet::EMPTY.contains(Device::CPU));
    /// ```
    pub const EMPTY: Self = Self::wrap(Intervals::EMPTY);

    /// Every value: a raw [`DataType`] or [`Device`], or a type whose fields hold any one.
    /// It has no listing.
    ///
    /// ```
    /// use dlpack_core::{DataType, Device, set::{DataTypeSet, DeviceSet}};
    /// assert!(DataTypeSet::ALL.contains(DataType::F16.with_lanes(4)));
    /// assert!(DeviceSet::ALL.contains(Device::trn(7)));
    /// assert_eq!(DataTypeSet::ALL.iter().count(), 0);
    /// ```
    pub const ALL: Self = Self::wrap(Intervals::ALL);

    const fn wrap(intervals: Intervals) -> Self {
        Self {
            intervals,
            kind: PhantomData,
        }
    }

    /// Whether the set is every value.
    ///
    /// ```
    /// use dlpack_core::set::DataTypeSet;
    /// assert!(DataTypeSet::ALL.is_all() && !DataTypeSet::EMPTY.is_all());
    /// ```
    pub const fn is_all(&self) -> bool {
        self.intervals.is_all()
    }

    /// Whether every value in `self` is in `other` ([`ALL`](Self::ALL) only in `ALL`).
    ///
    /// ```
    /// use dlpack_core::{Device, ffi::DLDeviceType, set::{DeviceRange, DeviceSet}};
    /// let one = DeviceSet::EMPTY.with(DeviceRange::one(Device::cuda(5)));
    /// let all_cuda = DeviceSet::EMPTY.with(DeviceRange::every(DLDeviceType::CUDA));
    /// assert!(one.is_subset(&all_cuda) && !all_cuda.is_subset(&one));
    /// assert!(!DeviceSet::ALL.is_subset(&all_cuda));
    /// ```
    pub const fn is_subset(&self, other: &Self) -> bool {
        self.intervals.is_subset(&other.intervals)
    }

    /// Whether the two share a value; sets that are [`ALL`](Self::ALL) are left out (a
    /// catch-all delegate is checked on its own), so this compares listings.
    pub(crate) const fn listings_overlap(&self, other: &Self) -> bool {
        if self.is_all() || other.is_all() {
            return false;
        }
        let listed = other.intervals.as_slice();
        let mut i = 0;
        while i < listed.len() {
            if self.intervals.overlaps(listed[i]) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether the set lists nothing and is not [`ALL`](Self::ALL).
    pub(crate) const fn is_empty(&self) -> bool {
        !self.is_all() && self.intervals.as_slice().is_empty()
    }

    /// The listing, decoded; empty for [`ALL`](Self::ALL).
    fn decoded(&self, decode: fn(Interval) -> T) -> impl Iterator<Item = T> + '_ {
        self.intervals.as_slice().iter().map(move |&i| decode(i))
    }

    fn debug(
        &self,
        f: &mut fmt::Formatter<'_>,
        name: &str,
        decode: fn(Interval) -> T,
    ) -> fmt::Result
    where
        T: fmt::Debug,
    {
        if self.is_all() {
            write!(f, "{name}::ALL")
        } else {
            f.debug_set().entries(self.decoded(decode)).finish()
        }
    }
}

/// A data type as an interval: the one id 0 of its class `code | bits << 8 | lanes << 16`.
const fn data_type_interval(data_type: DataType) -> Interval {
    Interval {
        class: data_type.code.0 as u32
            | (data_type.bits as u32) << 8
            | (data_type.lanes as u32) << 16,
        lo: 0,
        hi: 0,
    }
}

/// The data type an interval of [`data_type_interval`] stands for: its fields, unpacked as
/// that function packs them.
const fn data_type_of(interval: Interval) -> DataType {
    let c = interval.class;
    DataType {
        code: DLDataTypeCode(c as u8),
        bits: (c >> 8) as u8,
        lanes: (c >> 16) as u16,
    }
}

impl Set<DataType> {
    /// How many distinct data types a listed set holds at most.
    ///
    /// ```
    /// use dlpack_core::set::DataTypeSet;
    /// assert_eq!(DataTypeSet::CAPACITY, 128);
    /// ```
    pub const CAPACITY: usize = 128;

    /// This set with `value` added (once). Panics (at compile time, in a constant) past
    /// [`CAPACITY`](Self::CAPACITY) distinct values.
    ///
    /// ```
    /// use dlpack_core::{DataType, set::DataTypeSet};
    /// const SET: DataTypeSet = DataTypeSet::EMPTY.with(DataType::BF16).with(DataType::F16);
    /// assert!(SET.iter().eq([DataType::BF16, DataType::F16]));
    /// ```
    #[must_use]
    pub const fn with(self, value: DataType) -> Self {
        Self::wrap(self.intervals.with(
            data_type_interval(value),
            Self::CAPACITY,
            "a DataTypeSet holds at most 128 data types",
        ))
    }

    /// The union of two sets: `other`'s values added in order.
    ///
    /// ```
    /// use dlpack_core::{DataType, set::DataTypeSet};
    /// let a = DataTypeSet::EMPTY.with(DataType::I8);
    /// let b = DataTypeSet::EMPTY.with(DataType::U8);
    /// assert!(a.union(&b).iter().eq([DataType::I8, DataType::U8]));
    /// assert!(a.union(&DataTypeSet::ALL).is_all());
    /// ```
    #[must_use]
    pub const fn union(self, other: &Self) -> Self {
        Self::wrap(self.intervals.union(
            &other.intervals,
            Self::CAPACITY,
            "a DataTypeSet holds at most 128 data types",
        ))
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
        self.intervals.covers(data_type_interval(value))
    }

    /// The listed data types, in insertion order; none for [`ALL`](Self::ALL).
    ///
    /// ```
    /// use dlpack_core::{DataType, set::DataTypeSet};
    /// let set = DataTypeSet::EMPTY.with(DataType::BF16).with(DataType::F16);
    /// assert_eq!(set.iter().collect::<Vec<_>>(), [DataType::BF16, DataType::F16]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = DataType> + '_ {
        self.decoded(data_type_of)
    }

    /// The first value of `self` that `other` lacks; `None` when there is none or `self` is
    /// [`ALL`](Self::ALL) (which has no listing).
    pub(crate) const fn first_missing_from(&self, other: &Self) -> Option<DataType> {
        match self.intervals.first_missing_from(&other.intervals) {
            Some(interval) => Some(data_type_of(interval)),
            None => None,
        }
    }
}

impl fmt::Debug for Set<DataType> {
    /// `{DataType(float32), …}`, or `DataTypeSet::ALL`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.debug(f, "DataTypeSet", data_type_of)
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
        self.interval().overlaps(Self::one(device).interval())
    }

    const fn interval(self) -> Interval {
        Interval {
            class: self.device_type.0 as u32,
            lo: self.min_id,
            hi: self.max_id,
        }
    }

    const fn of(interval: Interval) -> Self {
        Self {
            device_type: DLDeviceType(interval.class as i32),
            min_id: interval.lo,
            max_id: interval.hi,
        }
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

impl Set<DeviceRange> {
    /// How many ranges a listed set holds at most.
    ///
    /// ```
    /// use dlpack_core::set::DeviceSet;
    /// assert_eq!(DeviceSet::CAPACITY, 64);
    /// ```
    pub const CAPACITY: usize = 64;

    /// This set with `range` added, unless the set already covers it. Panics (at compile
    /// time, in a constant) past [`CAPACITY`](Self::CAPACITY) ranges.
    ///
    /// ```
    /// use dlpack_core::{Device, ffi::DLDeviceType, set::{DeviceRange, DeviceSet}};
    /// const GPUS: DeviceSet = DeviceSet::EMPTY
    ///     .with(DeviceRange::every(DLDeviceType::CUDA))
    ///     .with(DeviceRange::one(Device::cuda(3))); // already covered
    /// assert_eq!(GPUS.iter().count(), 1);
    /// ```
    #[must_use]
    pub const fn with(self, range: DeviceRange) -> Self {
        Self::wrap(self.intervals.with(
            range.interval(),
            Self::CAPACITY,
            "a DeviceSet holds at most 64 device ranges",
        ))
    }

    /// The union of two sets: `other`'s ranges added in order, unless already covered.
    ///
    /// ```
    /// use dlpack_core::{Device, set::{DeviceRange, DeviceSet}};
    /// let cpu = DeviceSet::EMPTY.with(DeviceRange::one(Device::CPU));
    /// let gpu = DeviceSet::EMPTY.with(DeviceRange::one(Device::cuda(0)));
    /// let both = cpu.union(&gpu);
    /// assert!(both.contains(Device::CPU) && both.contains(Device::cuda(0)));
    /// ```
    #[must_use]
    pub const fn union(self, other: &Self) -> Self {
        Self::wrap(self.intervals.union(
            &other.intervals,
            Self::CAPACITY,
            "a DeviceSet holds at most 64 device ranges",
        ))
    }

    /// Whether `device` is in the set (canonicalised, as [`Device`] equality is).
    ///
    /// ```
    /// use dlpack_core::{Device, ffi::DLDeviceType, set::{DeviceRange, DeviceSet}};
    /// let set = DeviceSet::EMPTY
    ///     .with(DeviceRange::one(Device::cuda(0)))
    ///     .with(DeviceRange::one(Device::CPU));
    /// assert!(set.contains(Device::cuda(0)) && !set.contains(Device::cuda(1)));
    /// assert!(set.contains(Device::new(DLDeviceType::CPU, 3))); // host ids mean nothing
    /// ```
    pub const fn contains(&self, device: Device) -> bool {
        self.intervals.covers(DeviceRange::one(device).interval())
    }

    /// The listed ranges, in insertion order; none for [`ALL`](Self::ALL).
    ///
    /// ```
    /// use dlpack_core::{Device, set::{DeviceRange, DeviceSet}};
    /// let set = DeviceSet::EMPTY.with(DeviceRange::one(Device::CPU));
    /// assert_eq!(set.iter().collect::<Vec<_>>(), [DeviceRange::one(Device::CPU)]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = DeviceRange> + '_ {
        self.decoded(DeviceRange::of)
    }

    /// Whether some device of `range` is in the set (always, for [`ALL`](Self::ALL)).
    pub(crate) const fn overlaps(&self, range: DeviceRange) -> bool {
        self.intervals.overlaps(range.interval())
    }

    /// The first range of `self` that `other` does not cover; `None` when there is none or
    /// `self` is [`ALL`](Self::ALL).
    pub(crate) const fn first_missing_from(&self, other: &Self) -> Option<DeviceRange> {
        match self.intervals.first_missing_from(&other.intervals) {
            Some(interval) => Some(DeviceRange::of(interval)),
            None => None,
        }
    }
}

impl fmt::Debug for Set<DeviceRange> {
    /// `{DeviceRange { … }, …}`, or `DeviceSet::ALL`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.debug(f, "DeviceSet", DeviceRange::of)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::prelude::rust_2024::*;

    fn cuda(min_id: i32, max_id: i32) -> DeviceRange {
        DeviceRange {
            device_type: DLDeviceType::CUDA,
            min_id,
            max_id,
        }
    }

    #[test]
    fn data_types_round_trip_through_intervals() {
        for dt in [
            DataType::F32,
            DataType::F16.with_lanes(u16::MAX),
            DataType::new(DLDataTypeCode(u8::MAX), u8::MAX, 0),
        ] {
            assert_eq!(data_type_of(data_type_interval(dt)), dt);
        }
        let set = DataTypeSet::EMPTY.with(DataType::F32).with(DataType::I32);
        assert_eq!(
            set.first_missing_from(&DataTypeSet::EMPTY.with(DataType::F32)),
            Some(DataType::I32)
        );
        assert!(!set.contains(DataType::U32) && !set.contains(DataType::F32.with_lanes(2)));
    }

    #[test]
    fn device_ranges() {
        let set = DeviceSet::EMPTY.with(cuda(0, 9)).with(cuda(5, 20));
        assert!(set.is_subset(&DeviceSet::EMPTY.with(cuda(0, 20))));
        assert!(DeviceSet::EMPTY.with(cuda(0, 20)).is_subset(&set));
        assert!(!DeviceSet::EMPTY.with(cuda(0, 21)).is_subset(&set));
        assert_eq!(
            DeviceSet::EMPTY
                .with(DeviceRange::one(Device::ROCM_HOST))
                .first_missing_from(&set),
            Some(DeviceRange::one(Device::ROCM_HOST))
        );
        assert!(set.overlaps(cuda(20, 30)) && !set.overlaps(cuda(21, 30)));
        // A range of ids in the wrong order holds nothing.
        assert!(!cuda(3, 1).contains(Device::cuda(2)));
    }

    #[test]
    fn all_is_subset_only_of_all() {
        assert!(DataTypeSet::ALL.is_subset(&DataTypeSet::ALL));
        assert!(!DataTypeSet::ALL.is_subset(&DataTypeSet::EMPTY.with(DataType::F32)));
        assert!(DataTypeSet::EMPTY.is_subset(&DataTypeSet::EMPTY));
        assert!(!DeviceSet::ALL.is_subset(&DeviceSet::EMPTY));
    }

    #[test]
    fn listings_overlap_and_emptiness() {
        let a = DataTypeSet::EMPTY.with(DataType::F32).with(DataType::I8);
        let b = DataTypeSet::EMPTY.with(DataType::U8).with(DataType::I8);
        assert!(a.listings_overlap(&b));
        assert!(!a.listings_overlap(&DataTypeSet::EMPTY.with(DataType::U8)));
        assert!(!a.listings_overlap(&DataTypeSet::ALL));
        assert!(DataTypeSet::EMPTY.is_empty() && !DataTypeSet::ALL.is_empty() && !a.is_empty());
        let gpus = DeviceSet::EMPTY.with(cuda(0, 3));
        assert!(gpus.listings_overlap(&DeviceSet::EMPTY.with(cuda(3, 7))));
        assert!(!gpus.listings_overlap(&DeviceSet::EMPTY.with(cuda(4, 7))));
    }

    #[test]
    fn debug_and_display() {
        assert_eq!(format!("{:?}", DataTypeSet::ALL), "DataTypeSet::ALL");
        assert_eq!(format!("{:?}", DataTypeSet::EMPTY), "{}");
        assert_eq!(
            format!("{:?}", DeviceSet::EMPTY.with(DeviceRange::one(Device::CPU))),
            "{DeviceRange { device_type: DLDeviceType(1), min_id: 0, max_id: 0 }}"
        );
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

    #[test]
    #[should_panic(expected = "a DeviceSet holds at most 64 device ranges")]
    fn device_capacity() {
        (0..=64).fold(DeviceSet::EMPTY, |set, id| set.with(cuda(2 * id, 2 * id)));
    }

    #[test]
    #[should_panic(expected = "a DataTypeSet holds at most 128 data types")]
    fn data_type_capacity() {
        (1..=129).fold(DataTypeSet::EMPTY, |set, lanes| {
            set.with(DataType::I8.with_lanes(lanes))
        });
    }
}
