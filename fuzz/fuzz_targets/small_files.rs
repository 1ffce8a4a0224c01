//! Producer snapshots and the text files (checkpoints, partition.metadata, markers).
#![no_main]
use kseg::format::producer_snapshot::parse_producer_snapshot;
use kseg::format::text_files::{
    parse_checkpoint, parse_json_object, parse_partition_metadata, parse_properties,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = parse_producer_snapshot(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_checkpoint(text, false);
        let _ = parse_checkpoint(text, true);
        let _ = parse_partition_metadata(text);
        let _ = parse_properties(text);
        let _ = parse_json_object(text);
    }
});
