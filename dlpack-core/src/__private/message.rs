//! The compile-time check behind [`assert_convertible!`](crate::assert_convertible), with a
//! message that names the first data type or device that does not convert.
//!
//! `core::any::type_name` is not `const`, so the macro passes the type names as written
//! (`stringify!`), and the data type or device is spelt with the grammar's `const` name parts,
//! exactly as `Display` spells it.

use crate::DataType;
use crate::convert::{DlpackDataType, DlpackDevice};
use crate::set::{DataTypeSet, DeviceRange, DeviceSet};

use super::{DataTypeKind, DeviceKind};

/// The outcome of comparing what one type produces with what another accepts.
#[derive(Clone, Copy, Debug)]
pub enum Report {
    /// Every value converts.
    Holds,
    /// This data type is produced but not accepted.
    MissingDataType(DataType),
    /// These devices are produced but not all accepted.
    MissingDevices(DeviceRange),
    /// The source may produce any data type (`PRODUCES` is `ALL`); the target does not accept all.
    AnyDataType,
    /// The source may produce any device; the target does not accept all.
    AnyDevice,
}

impl Report {
    const fn data_types(produces: &DataTypeSet, accepts: &DataTypeSet) -> Self {
        if produces.is_subset(accepts) {
            return Self::Holds;
        }
        match produces.first_missing_from(accepts) {
            Some(missing) => Self::MissingDataType(missing),
            None => Self::AnyDataType,
        }
    }

    const fn devices(produces: &DeviceSet, accepts: &DeviceSet) -> Self {
        if produces.is_subset(accepts) {
            return Self::Holds;
        }
        match produces.first_missing_from(accepts) {
            Some(missing) => Self::MissingDevices(missing),
            None => Self::AnyDevice,
        }
    }
}

/// `Self` accepts everything that `Src` produces, through the protocol `K` (inferred).
#[diagnostic::on_unimplemented(
    message = "`assert_convertible!` cannot convert `{Src}` into `{Self}`: they are not the same kind of DLPack value",
    label = "`{Self}` and `{Src}` must both be data types (`DlpackDataType`) or both be devices (`DlpackDevice`)",
    note = "`assert_convertible!(A => B)` compares what `A` produces with what `B` accepts, for two data types or two devices"
)]
pub trait Convertible<Src, K> {
    /// The comparison, computed at compile time.
    const REPORT: Report;
}

impl<T: DlpackDataType, S: DlpackDataType> Convertible<S, DataTypeKind> for T {
    const REPORT: Report = Report::data_types(&S::PRODUCES, &T::ACCEPTS);
}

impl<T: DlpackDevice, S: DlpackDevice> Convertible<S, DeviceKind> for T {
    const REPORT: Report = Report::devices(&S::PRODUCES, &T::ACCEPTS);
}

/// The report for `Src => T`; `K` is inferred as `from_dlpack` infers it.
pub const fn report<Src, T: Convertible<Src, K>, K>() -> Report {
    T::REPORT
}

/// Fails compilation (a panic during constant evaluation) with a message naming what does not
/// convert.
#[track_caller]
pub const fn assert_convertible(report: Report, from: &str, to: &str) {
    let mut m = Buf::new();
    match report {
        Report::Holds => return,
        Report::MissingDataType(data_type) => {
            m.push_str("`");
            m.push_str(from);
            m.push_str("` can produce the data type ");
            m.push_data_type(data_type);
        }
        Report::MissingDevices(range) => {
            m.push_str("`");
            m.push_str(from);
            m.push_str("` can produce the device ");
            m.push_range(range);
        }
        Report::AnyDataType => {
            m.push_str("`");
            m.push_str(from);
            m.push_str("` can produce any data type (its `PRODUCES` is `DataTypeSet::ALL`)");
        }
        Report::AnyDevice => {
            m.push_str("`");
            m.push_str(from);
            m.push_str("` can produce any device (its `PRODUCES` is `DeviceSet::ALL`)");
        }
    }
    m.push_str(", which `");
    m.push_str(to);
    m.push_str("` does not accept");
    panic!("{}", m.as_str());
}

/// A fixed-size string builder usable in `const fn`.
struct Buf {
    bytes: [u8; 512],
    len: usize,
}

impl Buf {
    const fn new() -> Self {
        Self {
            bytes: [0; 512],
            len: 0,
        }
    }

    /// Appends `s`, or `...` when it does not fit (so the buffer stays valid UTF-8).
    const fn push_str(&mut self, s: &str) {
        let s = s.as_bytes();
        if self.len + s.len() > self.bytes.len() - 3 {
            if self.len + 3 <= self.bytes.len() {
                self.push_ascii(b"...");
            }
            return;
        }
        self.push_ascii(s);
    }

    const fn push_ascii(&mut self, s: &[u8]) {
        let mut i = 0;
        while i < s.len() {
            self.bytes[self.len] = s[i];
            self.len += 1;
            i += 1;
        }
    }

    const fn push_u64(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let (_, tail) = digits.split_at(at);
        if self.len + tail.len() <= self.bytes.len() {
            self.push_ascii(tail);
        }
    }

    const fn push_data_type(&mut self, data_type: DataType) {
        match dlpack_grammar::data_type_name(data_type.code.0, data_type.bits, data_type.lanes) {
            Some(name) => {
                self.push_str(name.stem);
                if let Some(bits) = name.bits {
                    self.push_u64(bits as u64);
                }
                if let Some(lanes) = name.lanes {
                    self.push_str("x");
                    self.push_u64(lanes as u64);
                }
            }
            None => {
                self.push_str("(code=");
                self.push_u64(data_type.code.0 as u64);
                self.push_str(", bits=");
                self.push_u64(data_type.bits as u64);
                self.push_str(", lanes=");
                self.push_u64(data_type.lanes as u64);
                self.push_str(")");
            }
        }
    }

    /// `cpu`, `cuda:3`, `cuda:<id>` (every id) or `cuda:0..=255`, as `DeviceRange` displays.
    const fn push_range(&mut self, range: DeviceRange) {
        let t = range.device_type.0;
        match dlpack_grammar::device_info(t) {
            Some(info) => self.push_str(info.name),
            None => {
                self.push_str("unknown(device_type=");
                self.push_u64(t as u64);
                self.push_str(")");
            }
        }
        if range.min_id == range.max_id {
            if let Some(dlpack_grammar::DeviceName { id: Some(id), .. }) =
                dlpack_grammar::device_name(t, range.min_id)
            {
                self.push_str(":");
                self.push_u64(id as u64);
            }
        } else if range.min_id == 0 && range.max_id == i32::MAX {
            self.push_str(":<id>");
        } else {
            self.push_str(":");
            self.push_u64(range.min_id as u64);
            self.push_str("..=");
            self.push_u64(range.max_id as u64);
        }
    }

    const fn as_str(&self) -> &str {
        let (used, _) = self.bytes.split_at(self.len);
        match core::str::from_utf8(used) {
            Ok(s) => s,
            Err(_) => "assert_convertible! does not hold",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::DLDeviceType;
    use std::prelude::rust_2024::*;

    /// The message `assert_convertible` fails with (the same `const fn`, called at run time).
    fn message(report: Report) -> String {
        let payload = std::panic::catch_unwind(|| assert_convertible(report, "A", "b::B"))
            .expect_err("the report does not hold");
        *payload.downcast::<String>().expect("a formatted message")
    }

    #[test]
    fn names_what_does_not_convert() {
        assert_eq!(
            message(Report::MissingDataType(DataType::F16.with_lanes(4))),
            "`A` can produce the data type float16x4, which `b::B` does not accept"
        );
        assert_eq!(
            message(Report::MissingDataType(DataType::FLOAT8_E4M3FN)),
            "`A` can produce the data type float8_e4m3fn, which `b::B` does not accept"
        );
        assert_eq!(
            message(Report::MissingDataType(DataType::from((99, 8, 1)))),
            "`A` can produce the data type (code=99, bits=8, lanes=1), which `b::B` does not accept"
        );
        let range = |device_type, min_id, max_id| DeviceRange {
            device_type,
            min_id,
            max_id,
        };
        assert_eq!(
            message(Report::MissingDevices(range(DLDeviceType::CUDA, 0, 255))),
            "`A` can produce the device cuda:0..=255, which `b::B` does not accept"
        );
        assert_eq!(
            message(Report::MissingDevices(range(
                DLDeviceType::CUDA,
                0,
                i32::MAX
            ))),
            "`A` can produce the device cuda:<id>, which `b::B` does not accept"
        );
        assert_eq!(
            message(Report::MissingDevices(range(DLDeviceType::ROCM, 3, 3))),
            "`A` can produce the device rocm:3, which `b::B` does not accept"
        );
        assert_eq!(
            message(Report::MissingDevices(range(DLDeviceType::CPU, 0, 0))),
            "`A` can produce the device cpu, which `b::B` does not accept"
        );
        assert_eq!(
            message(Report::AnyDataType),
            "`A` can produce any data type (its `PRODUCES` is `DataTypeSet::ALL`), which `b::B` does not accept"
        );
        assert!(std::panic::catch_unwind(|| assert_convertible(Report::Holds, "A", "B")).is_ok());
    }

    #[test]
    fn long_names_are_cut_not_broken() {
        let long = "é".repeat(400);
        let payload = std::panic::catch_unwind(|| {
            assert_convertible(Report::AnyDevice, &long, "B");
        })
        .expect_err("fails");
        let text = payload.downcast::<String>().expect("a message");
        assert!(text.starts_with("`..."), "{text}");
        assert!(text.ends_with("which `B` does not accept"), "{text}");
    }
}
