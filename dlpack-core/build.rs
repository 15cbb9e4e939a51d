//! With feature `pyo3`: the cfgs PyO3 sets for the interpreter it builds for (`Py_3_12`,
//! `Py_LIMITED_API`, `PyPy`, …), so that `python/import/ask.rs` calls `__dlpack__` by
//! vectorcall with constant keyword names where the C API offers it (CPython 3.9+ without the
//! limited API, and every 3.12+), and through a keyword dict elsewhere.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "pyo3")]
    pyo3_build_config::use_pyo3_cfgs();
}
