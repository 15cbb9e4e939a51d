//! Elements to Python scalars and back.

use half::{bf16, f16};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex};

use crate::dtype::DType;

/// Reads the element at `ptr` as a Python scalar.
///
/// # Safety
///
/// `ptr` points to `dtype.itemsize()` readable bytes (any alignment) holding an element.
pub unsafe fn read<'py>(
    py: Python<'py>,
    dtype: DType,
    ptr: *const u8,
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
            DType::Float16 => f16::from_bits(get(ptr))
                .to_f64()
                .into_pyobject(py)?
                .into_any(),
            DType::BFloat16 => bf16::from_bits(get(ptr))
                .to_f64()
                .into_pyobject(py)?
                .into_any(),
            DType::Float32 => f64::from(get::<f32>(ptr)).into_pyobject(py)?.into_any(),
            DType::Float64 => get::<f64>(ptr).into_pyobject(py)?.into_any(),
            DType::Complex64 => {
                let [re, im] = get::<[f32; 2]>(ptr);
                PyComplex::from_doubles(py, re.into(), im.into()).into_any()
            }
            DType::Complex128 => {
                let [re, im] = get::<[f64; 2]>(ptr);
                PyComplex::from_doubles(py, re, im).into_any()
            }
            DType::Float8E4M3FN => e4m3fn(get(ptr)).into_pyobject(py)?.into_any(),
            DType::Float8E5M2 => f16::from_bits(u16::from(get::<u8>(ptr)) << 8)
                .to_f64()
                .into_pyobject(py)?
                .into_any(),
        })
    }
}

/// The value of a `float8_e4m3fn` byte: bias 7, no infinities, NaN at `S.1111.111`.
fn e4m3fn(byte: u8) -> f64 {
    let sign = if byte & 0x80 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((byte >> 3) & 0x0F);
    let mantissa = f64::from(byte & 0x07);
    sign * match exponent {
        0x0F if mantissa == 7.0 => f64::NAN,
        0 => mantissa / 8.0 * 2f64.powi(-6),
        _ => (1.0 + mantissa / 8.0) * 2f64.powi(exponent - 7),
    }
}

/// The bytes of `value` as an element of `dtype` (little-endian, as the host stores it).
pub fn encode(dtype: DType, value: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let complex = |value: &Bound<'_, PyAny>| -> PyResult<(f64, f64)> {
        match value.cast::<PyComplex>() {
            Ok(complex) => Ok((complex.real(), complex.imag())),
            Err(_) => Ok((value.extract::<f64>()?, 0.0)),
        }
    };
    Ok(match dtype {
        DType::Bool => vec![u8::from(value.extract::<bool>()?)],
        DType::Int8 => value.extract::<i8>()?.to_ne_bytes().to_vec(),
        DType::Int16 => value.extract::<i16>()?.to_ne_bytes().to_vec(),
        DType::Int32 => value.extract::<i32>()?.to_ne_bytes().to_vec(),
        DType::Int64 => value.extract::<i64>()?.to_ne_bytes().to_vec(),
        DType::UInt8 => value.extract::<u8>()?.to_ne_bytes().to_vec(),
        DType::UInt16 => value.extract::<u16>()?.to_ne_bytes().to_vec(),
        DType::UInt32 => value.extract::<u32>()?.to_ne_bytes().to_vec(),
        DType::UInt64 => value.extract::<u64>()?.to_ne_bytes().to_vec(),
        DType::Float16 => f16::from_f64(value.extract()?).to_ne_bytes().to_vec(),
        DType::BFloat16 => bf16::from_f64(value.extract()?).to_ne_bytes().to_vec(),
        DType::Float32 => (value.extract::<f64>()? as f32).to_ne_bytes().to_vec(),
        DType::Float64 => value.extract::<f64>()?.to_ne_bytes().to_vec(),
        DType::Complex64 => {
            let (re, im) = complex(value)?;
            [(re as f32).to_ne_bytes(), (im as f32).to_ne_bytes()].concat()
        }
        DType::Complex128 => {
            let (re, im) = complex(value)?;
            [re.to_ne_bytes(), im.to_ne_bytes()].concat()
        }
        DType::Float8E4M3FN | DType::Float8E5M2 => {
            return Err(PyTypeError::new_err(format!(
                "dlpack_demo does not convert Python numbers to {}",
                dtype.data_type()
            )));
        }
    })
}
