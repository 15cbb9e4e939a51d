//! The no-std crate's checks, run on the host.

#[test]
fn a_no_std_framework_crate_converts_and_exchanges() {
    dlpack_tests_nostd::checks().unwrap();
}
