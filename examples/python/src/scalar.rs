//! Elements to Python scalars and back.
//!
//! A value is taken as Python's own conversions take it: for a complex dtype, what
//! `complex(value)` gives (`__complex__`, `__float__` or `__index__`; NumPy's complex scalars
//! included); for a float dtype, what `float(value)` gives (`__float__` or `__index__`), except
//! that a value with a non-zero imaginary part is refused rather than cut to its real part;
//! for an integer dtype, `operator.index(value)`; for `bool`, a `bool`.

use half::{bf16, f16};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyComplex, PyList, PyString};

use crate::dtype::DType;
use crate::minifloat::{self, Format};

/// Where one element is: a byte address, and for a packed sub-byte type (`float4_e2m1fn`,
/// two to a byte, the first in the low bits) the bit at which it starts in that byte.
#[derive(Clone, Copy, Debug)]
pub struct Element {
    pub ptr: *mut u8,
    pub shift: u32,
}

impl Element {
    /// A whole-byte element at `ptr`.
    pub fn at(ptr: *mut u8) -> Self {
        Self { ptr, shift: 0 }
    }
}

/// Reads `element` as a Python scalar (a list of its two lanes for `float4_e2m1fnx2`).
///
/// # Safety
///
/// `element.ptr` points to `dtype.itemsize()` readable bytes (any alignment) holding the
/// element.
pub unsafe fn read<'py>(
    py: Python<'py>,
    dtype: DType,
    element: Element,
) -> PyResult<Bound<'py, PyAny>> {
    /// Reads a `T` from `ptr`, unaligned.
    ///
    /// # Safety
    ///
    /// As for `read`, with `size_of::<T>() == dtype.itemsize()`.
    unsafe fn get<T: Copy>(ptr: *const u8) -> T {
        // SAFETY: the caller's contract.
        unsafe { ptr.cast::<T>().read_unaligned() }
    }
    let ptr = element.ptr.cast_const();
    let float = |value: f64| value.into_pyobject(py).map(Bound::into_any);
    // SAFETY: in each arm the type read has the size of `dtype`, which the caller promises
    // readable at `ptr`.
    unsafe {
        Ok(match dtype {
            DType::Bool => PyBool::new(py, get::<u8>(ptr) != 0).to_owned().into_any(),
            DType::Int8 => get::<i8>(ptr).into_pyobject(py)?.into_any(),
            DType::Int16 => get::<i16>(ptr).into_pyobject(py)?.into_any(),
            DType::Int32 => get::<i32>(ptr).into_pyobject(py)?.into_any(),
            DType::Int64 => get::<i64>(ptr).into_pyobject(py)?.into_any(),
            DType::UInt8 => get::<u8>(ptr).into_pyobject(py)?.into_any(),
            DType::UInt16 => get::<u16>(ptr).into_pyobject(py)?.into_any(),
            DType::UInt32 => get::<u32>(ptr).into_pyobject(py)?.into_any(),
            DType::UInt64 => get::<u64>(ptr).into_pyobject(py)?.into_any(),
            DType::Float16 => float(f16::from_bits(get(ptr)).to_f64())?,
            DType::BFloat16 => float(bf16::from_bits(get(ptr)).to_f64())?,
            DType::Float32 => float(get::<f32>(ptr).into())?,
            DType::Float64 => float(get::<f64>(ptr))?,
            DType::Complex32 => {
                let [re, im] = get::<[u16; 2]>(ptr).map(|bits| f16::from_bits(bits).to_f64());
                PyComplex::from_doubles(py, re, im).into_any()
            }
            DType::BComplex32 => {
                let [re, im] = get::<[u16; 2]>(ptr).map(|bits| bf16::from_bits(bits).to_f64());
                PyComplex::from_doubles(py, re, im).into_any()
            }
            DType::Complex64 => {
                let [re, im] = get::<[f32; 2]>(ptr);
                PyComplex::from_doubles(py, re.into(), im.into()).into_any()
            }
            DType::Complex128 => {
                let [re, im] = get::<[f64; 2]>(ptr);
                PyComplex::from_doubles(py, re, im).into_any()
            }
            DType::Float8E4M3FN => float(Format::E4M3FN.decode(get::<u8>(ptr).into()))?,
            DType::Float8E5M2 => float(Format::E5M2.decode(get::<u8>(ptr).into()))?,
            DType::Float8E4M3FNUZ => float(Format::E4M3FNUZ.decode(get::<u8>(ptr).into()))?,
            DType::Float8E4M3B11FNUZ => float(Format::E4M3B11FNUZ.decode(get::<u8>(ptr).into()))?,
            DType::Float8E5M2FNUZ => float(Format::E5M2FNUZ.decode(get::<u8>(ptr).into()))?,
            DType::Float8E3M4 => float(Format::E3M4.decode(get::<u8>(ptr).into()))?,
            DType::Float8E4M3 => float(Format::E4M3.decode(get::<u8>(ptr).into()))?,
            DType::Float8E8M0FNU => float(minifloat::e8m0fnu(get(ptr)))?,
            DType::Float4E2M1FN => {
                float(Format::E2M1FN.decode(((get::<u8>(ptr) >> element.shift) & 0xF).into()))?
            }
            DType::Float4E2M1FNx2 => {
                let byte = get::<u8>(ptr);
                let lanes = [byte & 0xF, byte >> 4].map(|code| Format::E2M1FN.decode(code.into()));
                PyList::new(py, lanes)?.into_any()
            }
        })
    }
}

/// Writes `bytes` (from [`encode`]) as the element at `element`.
///
/// # Safety
///
/// `element.ptr` points to `bytes.len()` writable bytes holding the element (for a packed
/// type, the byte holding it, whose other bits are left as they are).
pub unsafe fn store(dtype: DType, element: Element, bytes: &[u8]) {
    // SAFETY: the caller's contract.
    unsafe {
        if dtype == DType::Float4E2M1FN {
            let mask = 0xF << element.shift;
            let old = element.ptr.read();
            element
                .ptr
                .write((old & !mask) | ((bytes[0] << element.shift) & mask));
        } else {
            core::ptr::copy_nonoverlapping(bytes.as_ptr(), element.ptr, bytes.len());
        }
    }
}

/// The bytes of `value` as an element of `dtype` (little-endian, as the host stores it); for
/// `float4_e2m1fn`, one byte holding the 4-bit code.
pub fn encode(dtype: DType, value: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    // An 8- or 4-bit code is the low byte of the `u16` code.
    let code = |format: Format| minifloat_code(format, dtype, value).map(|code| vec![code as u8]);
    let two_bytes = |format: Format, value: f64| -> PyResult<[u8; 2]> {
        Ok(format.encode(value)?.to_ne_bytes())
    };
    Ok(match dtype {
        DType::Bool => vec![u8::from(value.extract::<bool>()?)],
        // Ints through `__index__`, as `operator.index` takes them: a float is refused, not
        // truncated; an int out of range is an `OverflowError`.
        DType::Int8 => value.extract::<i8>()?.to_ne_bytes().to_vec(),
        DType::Int16 => value.extract::<i16>()?.to_ne_bytes().to_vec(),
        DType::Int32 => value.extract::<i32>()?.to_ne_bytes().to_vec(),
        DType::Int64 => value.extract::<i64>()?.to_ne_bytes().to_vec(),
        DType::UInt8 => value.extract::<u8>()?.to_ne_bytes().to_vec(),
        DType::UInt16 => value.extract::<u16>()?.to_ne_bytes().to_vec(),
        DType::UInt32 => value.extract::<u32>()?.to_ne_bytes().to_vec(),
        DType::UInt64 => value.extract::<u64>()?.to_ne_bytes().to_vec(),
        // Rounded once from `f64`, as every float narrower than `f32` here (minifloat.rs).
        DType::Float16 => two_bytes(Format::F16, real(dtype, value)?)?.to_vec(),
        DType::BFloat16 => two_bytes(Format::BF16, real(dtype, value)?)?.to_vec(),
        DType::Float32 => (real(dtype, value)? as f32).to_ne_bytes().to_vec(),
        DType::Float64 => real(dtype, value)?.to_ne_bytes().to_vec(),
        DType::Complex32 => {
            let (re, im) = complex(dtype, value)?;
            [two_bytes(Format::F16, re)?, two_bytes(Format::F16, im)?].concat()
        }
        DType::BComplex32 => {
            let (re, im) = complex(dtype, value)?;
            [two_bytes(Format::BF16, re)?, two_bytes(Format::BF16, im)?].concat()
        }
        DType::Complex64 => {
            let (re, im) = complex(dtype, value)?;
            [(re as f32).to_ne_bytes(), (im as f32).to_ne_bytes()].concat()
        }
        DType::Complex128 => {
            let (re, im) = complex(dtype, value)?;
            [re.to_ne_bytes(), im.to_ne_bytes()].concat()
        }
        DType::Float8E4M3FN => code(Format::E4M3FN)?,
        DType::Float8E5M2 => code(Format::E5M2)?,
        DType::Float8E4M3FNUZ => code(Format::E4M3FNUZ)?,
        DType::Float8E4M3B11FNUZ => code(Format::E4M3B11FNUZ)?,
        DType::Float8E5M2FNUZ => code(Format::E5M2FNUZ)?,
        DType::Float8E3M4 => code(Format::E3M4)?,
        DType::Float8E4M3 => code(Format::E4M3)?,
        DType::Float8E8M0FNU => vec![minifloat::to_e8m0fnu(real(dtype, value)?)],
        DType::Float4E2M1FN => code(Format::E2M1FN)?,
        // A number sets both lanes.
        DType::Float4E2M1FNx2 => code(Format::E2M1FN)?
            .into_iter()
            .map(|code| code | code << 4)
            .collect(),
    })
}

/// The code of `value` in `format`, a `ValueError` naming `dtype` for NaN in a format
/// without NaN.
fn minifloat_code(format: Format, dtype: DType, value: &Bound<'_, PyAny>) -> PyResult<u16> {
    let real = real(dtype, value)?;
    format
        .encode(real)
        .map_err(|_| PyValueError::new_err(format!("{} has no NaN to store", dtype.data_type())))
}

/// Refuses text, which `complex()` and `float()` would parse.
fn not_text(dtype: DType, value: &Bound<'_, PyAny>) -> PyResult<()> {
    if value.is_instance_of::<PyString>()
        || value.is_instance_of::<PyBytes>()
        || value.is_instance_of::<PyByteArray>()
    {
        return Err(PyTypeError::new_err(format!(
            "a {} element is a number, not {}",
            dtype.data_type(),
            value.repr()?
        )));
    }
    Ok(())
}

/// `complex(value)`: `__complex__` (NumPy's complex scalars, which do not subclass
/// `complex`), then `__float__` and `__index__`, as Python's `complex()` takes them.
fn complex(dtype: DType, value: &Bound<'_, PyAny>) -> PyResult<(f64, f64)> {
    not_text(dtype, value)?;
    let py = value.py();
    let complex = py
        .get_type::<PyComplex>()
        .call1((value,))?
        .cast_into::<PyComplex>()?;
    Ok((complex.real(), complex.imag()))
}

/// `float(value)` (`__float__`, `__index__`), except that a complex value (a `complex`, or a
/// number whose class has `__complex__`: NumPy's complex scalars) is taken through
/// `__complex__` and refused unless its imaginary part is zero: NumPy would store the real
/// part with only a `ComplexWarning`.
fn real(dtype: DType, value: &Bound<'_, PyAny>) -> PyResult<f64> {
    not_text(dtype, value)?;
    let py = value.py();
    if value.is_instance_of::<PyComplex>()
        || (!value.is_instance_of::<pyo3::types::PyFloat>()
            && !value.is_instance_of::<pyo3::types::PyInt>()
            && value.get_type().hasattr(intern!(py, "__complex__"))?)
    {
        let (re, im) = complex(dtype, value)?;
        if im != 0.0 {
            return Err(PyTypeError::new_err(format!(
                "a {} element is real; {} has an imaginary part",
                dtype.data_type(),
                value.repr()?
            )));
        }
        return Ok(re);
    }
    value.extract::<f64>()
}
