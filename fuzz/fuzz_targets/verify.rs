//! The whole of `verify-index` and `recover`'s analysis on one hostile partition dir
//! (`kseg::fuzzing::verify`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(t) = tempfile::tempdir() else { return };
    kseg::fuzzing::verify(data, t.path());
});
