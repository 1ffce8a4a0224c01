//! Every codec on arbitrary input, with the decompression cap in force.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kseg::fuzzing::codecs(data));
