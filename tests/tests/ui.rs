//! The compile-time errors of both derives, of `#[pymethods]`, of dispatch and typed tensor
//! arguments, and of `assert_convertible!`/`from_dlpack`, one
//! mistake per file under `ui/<category>/`, each with the `.stderr` the user sees; and one
//! passing program per supported shape under `ui/pass/`.
//!
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite cargo test -p dlpack-tests --test ui`
//! on the installed stable toolchain, and read the diff before committing it.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/data_type/*.rs");
    t.compile_fail("ui/device/*.rs");
    t.compile_fail("ui/dispatch/*.rs");
    t.compile_fail("ui/python/*.rs");
    t.pass("ui/pass/*.rs");
}

/// A `remote` mirror that does not match the type it mirrors, each mismatch named (kept apart
/// from `ui` so the mirrors' errors can be regenerated alone: `--test ui remote`).
#[test]
fn remote() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/remote/*.rs");
}
