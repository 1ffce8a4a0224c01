//! Producer snapshots and the text files (checkpoints, partition.metadata, markers).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kseg::fuzzing::small_files(data));
