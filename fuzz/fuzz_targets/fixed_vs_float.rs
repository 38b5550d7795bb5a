#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| limiter_check::fixed_vs_float(data));
