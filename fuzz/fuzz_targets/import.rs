#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| dlpack_fuzz::import(data));
