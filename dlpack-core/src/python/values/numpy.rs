//! DLPack data types as NumPy dtypes: what a data type object hands NumPy through NumPy's
//! `dtype`-attribute protocol (`numpy.dtype(obj)` reads `obj.dtype`), so that
//! `numpy.empty((1, 2), dtype=obj)` and JAX's `jax.numpy.zeros(2, dtype=obj)` take it.

use pyo3::exceptions::{PyImportError, PyTypeError};
use pyo3::prelude::*;

use crate::DataType;
use crate::ffi::DLDataTypeCode;

/// The types ml_dtypes adds to NumPy, by name (ml_dtypes' names are DLPack's): bfloat16, the
/// float8/float6/float4 family, the sub-byte integers, and the complex types of two 16-bit
/// floats.
const ML_DTYPES: [&str; 20] = [
    "bfloat16",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
    "int1",
    "int2",
    "int4",
    "uint1",
    "uint2",
    "uint4",
    "complex32",
    "bcomplex32",
];

/// The NumPy dtype of `data_type`: one of NumPy's own (`bool`, the integers of 8 to 64 bits,
/// `float16` to `float64`, `complex64`, `complex128`), or an ml_dtypes type for those NumPy
/// lacks (`bfloat16`, the float8 family, `float4_e2m1fn`, `int4`, `complex32`, …). Return it
/// from a `dtype` property, and NumPy and JAX take the object wherever they take a dtype.
///
/// NumPy and ml_dtypes are imported here, when a dtype is asked for, never before. A
/// `TypeError` when there is no such dtype: a data type with lanes, one neither library has
/// (`float128`, `handle`), or one of ml_dtypes' when ml_dtypes is not installed (the message
/// names the package to install), or NumPy itself is not.
pub(crate) fn to_numpy_dtype(py: Python<'_>, data_type: DataType) -> PyResult<Bound<'_, PyAny>> {
    let name = data_type.to_string();
    let native = data_type.lanes == 1
        && matches!(
            (data_type.code, data_type.bits),
            (DLDataTypeCode::BOOL, 8)
                | (DLDataTypeCode::INT | DLDataTypeCode::UINT, 8 | 16 | 32 | 64)
                | (DLDataTypeCode::FLOAT, 16 | 32 | 64)
                | (DLDataTypeCode::COMPLEX, 64 | 128)
        );
    let from_ml_dtypes = data_type.lanes == 1 && ML_DTYPES.contains(&name.as_str());
    if !native && !from_ml_dtypes {
        return Err(PyTypeError::new_err(format!(
            "{name} has no NumPy dtype: neither NumPy nor ml_dtypes has the type"
        )));
    }
    let numpy = import(py, "numpy", || {
        format!("{name} as a NumPy dtype needs NumPy, which is not installed (pip install numpy)")
    })?;
    let dtype = numpy.getattr("dtype")?;
    if native {
        return dtype.call1((name,));
    }
    let ml_dtypes = import(py, "ml_dtypes", || {
        format!(
            "{name} has no NumPy dtype without ml_dtypes: NumPy has no {name} of its own, and \
             the ml-dtypes package, which adds it, is not installed (pip install ml-dtypes)"
        )
    })?;
    let Some(scalar_type) = ml_dtypes.getattr_opt(name.as_str())? else {
        let version = ml_dtypes.getattr_opt("__version__")?;
        let version = version.map_or_else(String::new, |v| format!(" {v}"));
        return Err(PyTypeError::new_err(format!(
            "{name} has no NumPy dtype: the installed ml_dtypes{version} has no {name} \
             (ml_dtypes 0.6 has)"
        )));
    };
    dtype.call1((scalar_type,))
}

/// `import module`, or a `TypeError` with the message `missing` when it is not installed.
fn import<'py>(
    py: Python<'py>,
    module: &str,
    missing: impl FnOnce() -> String,
) -> PyResult<Bound<'py, PyModule>> {
    py.import(module).map_err(|err| {
        if !err.is_instance_of::<PyImportError>(py) {
            return err;
        }
        let refused = PyTypeError::new_err(missing());
        refused.set_cause(py, Some(err));
        refused
    })
}

#[cfg(test)]
mod tests {
    use pyo3::prelude::*;

    use super::to_numpy_dtype;
    use crate::DataType;

    #[test]
    fn a_data_type_with_lanes_has_no_numpy_dtype() {
        Python::initialize();
        Python::attach(|py| -> PyResult<()> {
            match to_numpy_dtype(py, DataType::F16) {
                Ok(dtype) => assert_eq!(dtype.repr()?.to_str()?, "dtype('float16')"),
                // An interpreter without NumPy.
                Err(err) => assert!(
                    err.to_string()
                        .contains("needs NumPy, which is not installed")
                ),
            }
            let err = to_numpy_dtype(py, DataType::F32.with_lanes(4)).unwrap_err();
            assert!(err.is_instance_of::<pyo3::exceptions::PyTypeError>(py));
            assert!(err.to_string().contains("float32x4"), "{err}");
            Ok(())
        })
        .unwrap();
    }
}
