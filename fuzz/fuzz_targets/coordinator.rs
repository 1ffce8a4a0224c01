//! Internal-topic keys and values: group coordinator, transaction log, share state, KRaft
//! metadata, tiered-storage remote log metadata.
#![no_main]
use kseg::format::coordinator::*;
use kseg::format::internal::{decode_record, InternalDecoder};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let split = data
        .first()
        .map_or(0, |b| *b as usize)
        .min(data.len().saturating_sub(1));
    let (key, value) = data
        .get(1..)
        .unwrap_or(&[])
        .split_at(split.min(data.len().saturating_sub(1)));
    for t in [-1i16, 0, 1, 2, 3, 5, 8, 11, 16, 20] {
        let _ = decode_offsets_value(t, value);
        let _ = decode_transaction_value(t, value);
        let _ = decode_share_state_value(t, value);
    }
    let _ = decode_offsets_key(key);
    let _ = decode_transaction_key(key);
    let _ = decode_share_state_key(key);
    let _ = decode_metadata_record(value);
    let _ = decode_remote_log_metadata_record(value);
    let _ = parse_offset_commit(key, value);
    let _ = parse_group_metadata(value);
    let _ = parse_transaction_value(value);
    for d in [
        InternalDecoder::Offsets,
        InternalDecoder::TransactionLog,
        InternalDecoder::ClusterMetadata,
        InternalDecoder::ShareGroupState,
        InternalDecoder::RemoteLogMetadata,
    ] {
        let _ = decode_record(d, Some(key), Some(value));
        let _ = decode_record(d, Some(key), None);
    }
});
