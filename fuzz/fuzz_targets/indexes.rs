//! `.index`, `.timeindex` and `.txnindex` files.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kseg::fuzzing::indexes(data));
