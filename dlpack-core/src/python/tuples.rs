//! The tuples the protocol methods return, `(code, bits, lanes)` and `(device_type,
//! device_id)`, each made once per process and handed out again: a generated
//! `__dlpack_data_type__()` then costs a Python method that returns a constant tuple (no
//! allocation, three int conversions and a tuple per call), which is what a framework written
//! in Python pays. The values a program meets are few (a few dozen data types, a handful of
//! devices), so the cache is a fixed table of slots, filled on first use and never emptied;
//! a value outside it (lanes, an exotic width, a device id past 15) gets a new tuple.

use core::sync::atomic::{AtomicPtr, Ordering};

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::{DataType, Device};

/// Data type codes cached: 0 to 31 (DLPack 1.3 has 0 to 17; bcomplex is 18).
const CODES: usize = 32;
/// The bit widths cached, each a slot per code.
const WIDTHS: [u8; 9] = [1, 2, 4, 6, 8, 16, 32, 64, 128];
/// Device types cached: 0 to 31 (DLPack 1.3 has 1 to 17; the newest, 21).
const DEVICE_TYPES: usize = 32;
/// Device ids cached per device type: 0 to 15.
const IDS: usize = 16;

/// One tuple a slot holds for the rest of the process (its reference is never released), or
/// null while none was made.
type Slot = AtomicPtr<pyo3::ffi::PyObject>;

static DATA_TYPES: [Slot; CODES * WIDTHS.len()] =
    [const { AtomicPtr::new(core::ptr::null_mut()) }; CODES * WIDTHS.len()];
static DEVICES: [Slot; DEVICE_TYPES * IDS] =
    [const { AtomicPtr::new(core::ptr::null_mut()) }; DEVICE_TYPES * IDS];

/// `(code, bits, lanes)` as plain ints, from the table where it is one of the cached values.
#[inline]
pub(crate) fn data_type_tuple(py: Python<'_>, data_type: DataType) -> PyResult<Bound<'_, PyTuple>> {
    let make = || {
        PyTuple::new(
            py,
            [
                data_type.code.0.into(),
                data_type.bits.into(),
                u32::from(data_type.lanes),
            ],
        )
    };
    let width = WIDTHS.iter().position(|&bits| bits == data_type.bits);
    match width {
        Some(width) if data_type.lanes == 1 && usize::from(data_type.code.0) < CODES => cached(
            py,
            &DATA_TYPES[usize::from(data_type.code.0) * WIDTHS.len() + width],
            make,
        ),
        _ => make(),
    }
}

/// `(device_type, device_id)` as plain ints, from the table where it is one of the cached
/// values.
#[inline]
pub(crate) fn device_tuple(py: Python<'_>, device: Device) -> PyResult<Bound<'_, PyTuple>> {
    let make = || PyTuple::new(py, [device.device_type.0, device.device_id]);
    match (
        usize::try_from(device.device_type.0),
        usize::try_from(device.device_id),
    ) {
        (Ok(kind), Ok(id)) if kind < DEVICE_TYPES && id < IDS => {
            cached(py, &DEVICES[kind * IDS + id], make)
        }
        _ => make(),
    }
}

/// The tuple in `slot`, made with `make` the first time (by whichever thread gets there
/// first: another's is dropped).
#[inline]
fn cached<'py>(
    py: Python<'py>,
    slot: &Slot,
    make: impl FnOnce() -> PyResult<Bound<'py, PyTuple>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let held = slot.load(Ordering::Acquire);
    if !held.is_null() {
        // SAFETY: a non-null slot holds a tuple whose reference the table keeps for the rest
        // of the process (below), so it is alive; the thread is attached, so taking a new
        // reference to it is allowed.
        return Ok(unsafe { Bound::from_borrowed_ptr(py, held).cast_into_unchecked() });
    }
    let tuple = make()?;
    let made = tuple.clone().into_ptr();
    match slot.compare_exchange(
        core::ptr::null_mut(),
        made,
        Ordering::AcqRel,
        Ordering::Acquire,
    ) {
        // The table keeps `made`'s reference.
        Ok(_) => Ok(tuple),
        Err(_) => {
            // SAFETY: `made` is the reference `into_ptr` gave up just above, which no slot
            // took: it is released once, here.
            unsafe { pyo3::ffi::Py_DecRef(made) };
            Ok(tuple)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::DLDeviceType;

    #[test]
    fn tuples_are_the_values_and_cached_ones_are_one_object() {
        Python::initialize();
        Python::attach(|py| -> PyResult<()> {
            for data_type in [
                DataType::F16,
                DataType::BOOL,
                DataType::BCOMPLEX32,
                DataType::F32.with_lanes(4),
            ] {
                let tuple = data_type_tuple(py, data_type)?;
                assert_eq!(tuple.extract::<(u8, u8, u16)>()?, data_type.into());
                let again = data_type_tuple(py, data_type)?;
                assert_eq!(tuple.is(&again), data_type.lanes == 1, "{data_type}");
            }
            for device in [
                Device::CPU,
                Device::cuda(1),
                Device::cuda(16),
                Device::new(DLDeviceType(99), 0),
            ] {
                let tuple = device_tuple(py, device)?;
                assert_eq!(tuple.extract::<(i32, i32)>()?, device.into());
                let again = device_tuple(py, device)?;
                let cached = device.device_id < 16 && device.device_type.0 < 32;
                assert_eq!(tuple.is(&again), cached, "{device}");
            }
            Ok(())
        })
        .unwrap();
    }
}
