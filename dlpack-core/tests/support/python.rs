//! What the test files that embed Python share (here and in `tests/burn`): finding a PyPI
//! module in the embedded interpreter or the repository's venv, or saying why the test skips.
#![allow(dead_code, unreachable_pub)]

use pyo3::prelude::*;

/// `module`, importable as it is or from the venv's site-packages; `None`, with the reason
/// printed, when it is in neither, unless `DLPACK_REQUIRE_MODULES` (a comma-separated list,
/// as CI sets it) names it: then the test fails.
pub fn import<'py>(py: Python<'py>, module: &str, test: &str) -> Option<Bound<'py, PyModule>> {
    if let Ok(found) = py.import(module) {
        return Some(found);
    }
    // The repository's `.venv`: the nearest one above the test's crate.
    let venv = std::env::var_os("DLPACK_VENV")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
            crate_dir
                .ancestors()
                .map(|dir| dir.join(".venv"))
                .find(|venv| venv.is_dir())
                .unwrap_or_else(|| crate_dir.join("../.venv"))
        });
    let version = py.version_info();
    let site = venv.join(format!(
        "lib/python{}.{}/site-packages",
        version.major, version.minor
    ));
    if site.is_dir() {
        let found = py
            .import("site")
            .and_then(|site_module| site_module.call_method1("addsitedir", (&site,)))
            .and_then(|_| py.import(module));
        if let Ok(found) = found {
            return Some(found);
        }
    }
    let required = std::env::var("DLPACK_REQUIRE_MODULES").unwrap_or_default();
    assert!(
        !required.split(',').any(|name| name.trim() == module),
        "{test}: DLPACK_REQUIRE_MODULES names `{module}`, which is not importable by the \
         embedded Python {}.{}, nor from {}",
        version.major,
        version.minor,
        site.display()
    );
    eprintln!(
        "{test}: skipped: `{module}` is not importable by the embedded Python {}.{}, nor from \
         {} (set DLPACK_VENV to a venv with it)",
        version.major,
        version.minor,
        site.display()
    );
    None
}
