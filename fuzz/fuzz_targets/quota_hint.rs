#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| limiter_check::quota_hint(data));
