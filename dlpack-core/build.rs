//! With feature `pyo3`: the cfgs PyO3 sets for the interpreter it builds for (`Py_3_12`,
//! `Py_LIMITED_API`, `PyPy`, …), so that `python/import/ask.rs` calls `__dlpack__` by
//! vectorcall with constant keyword names where the C API offers it (CPython 3.9+ without the
//! limited API, and every 3.12+), and through a keyword dict elsewhere.
//!
//! And one cfg of our own, `numpy_buffer`, named once here as PyO3 names its own: whether a
//! `numpy.ndarray` can be lent through CPython's buffer protocol (`python/import/buffer/`).
//! That needs CPython (the interpreter it is tested on: PyPy emulates buffers, GraalPy was
//! never tried), the buffer protocol in the C API the
//! extension is built against (the limited API has it from 3.11) and a 64-bit target (the
//! buffer's `Py_ssize_t` shape is read in place as DLPack's `int64_t` one).

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(numpy_buffer)");
    #[cfg(feature = "pyo3")]
    {
        use pyo3_build_config::{PythonAbiKind, PythonImplementation, PythonVersion};

        pyo3_build_config::use_pyo3_cfgs();
        // What PyO3 sets `Py_3_*`, `PyPy` and `Py_LIMITED_API` from.
        let abi = pyo3_build_config::get().target_abi();
        let cpython = abi.implementation() == PythonImplementation::CPython;
        let limited = matches!(abi.kind(), PythonAbiKind::Stable(_));
        let buffer_api = !limited
            || abi.version()
                >= PythonVersion {
                    major: 3,
                    minor: 11,
                };
        let wide = std::env::var("CARGO_CFG_TARGET_POINTER_WIDTH").is_ok_and(|bits| bits == "64");
        if cpython && buffer_api && wide {
            println!("cargo::rustc-cfg=numpy_buffer");
        }
    }
}
