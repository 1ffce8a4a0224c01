//! Internal-topic keys and values: group coordinator, transaction log, share state, KRaft
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kseg::fuzzing::coordinator(data));
