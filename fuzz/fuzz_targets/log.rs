//! A whole `.log` file: framing, resynchronisation, batch headers, records, control records.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kseg::fuzzing::log(data));
