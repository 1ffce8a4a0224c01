//! `.index`, `.timeindex` and `.txnindex` files.
#![no_main]
use kseg::format::index::{OffsetIndex, TimeIndex};
use kseg::format::txn_index::parse_txn_index;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let o = OffsetIndex::new(1000, data);
    let _ = o.sanity_check();
    let _ = o.entries().count();
    let _ = o.lookup(1500);
    let t = TimeIndex::new(1000, data);
    let _ = t.sanity_check();
    let _ = t.entries().count();
    let _ = t.lookup(1_700_000_000_000);
    let _ = parse_txn_index(data);
});
