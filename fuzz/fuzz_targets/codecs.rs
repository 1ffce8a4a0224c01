//! Every codec on arbitrary input, with the decompression cap in force.
#![no_main]
use kseg::format::compression::{Codec, Decompressor};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    let mut d = Decompressor::new(8 << 20);
    let mut out = Vec::new();
    let codec = Codec::from_id(data[0] & 7);
    let magic = (data[0] >> 3) as i8 % 3;
    let _ = d.decompress(codec, magic, &data[1..], &mut out);
    assert!(out.len() <= (8 << 20) + (4 << 20));
});
