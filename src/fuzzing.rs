//! The fuzz targets' bodies (`fuzz/fuzz_targets/*.rs` call these), here so that the normal
//! build compiles them and `tests/cli/fuzz_replay.rs` replays every target's committed corpus
//! (`fuzz/seeds/<target>/`) through exactly the code libFuzzer ran. Each takes arbitrary bytes;
//! none may panic, hang or allocate without bound.

use std::path::Path;

use crate::analysis::recovery::analyse_segment;
use crate::analysis::verify::{verify_partition, VerifyOptions};
use crate::format::compression::{Codec, Decompressor};
use crate::format::control::decode_control;
use crate::format::coordinator::*;
use crate::format::index::{OffsetIndex, TimeIndex};
use crate::format::internal::{decode_record, InternalDecoder};
use crate::format::log::{
    for_each_record, LogEntry, LogWalker, RecordScratch, SliceSource, WalkEvent,
};
use crate::format::producer_snapshot::parse_producer_snapshot;
use crate::format::text_files::{
    parse_checkpoint, parse_clean_shutdown, parse_partition_metadata, parse_properties,
    parse_quorum_state,
};
use crate::format::txn_index::parse_txn_index;
use crate::storage::discover::discover;

/// A whole `.log` file: framing, resynchronisation, batch headers, records, control records.
pub fn log(data: &[u8]) {
    let mut src = SliceSource(data);
    let mut walker = LogWalker::new(data.len() as u64);
    let mut scratch = RecordScratch::with_cap(4 << 20);
    while let Ok(Some(event)) = walker.next(&mut src) {
        if let WalkEvent::Entry { bytes, .. } = event {
            if let Ok(entry) = LogEntry::parse(bytes) {
                let info = entry.info();
                let _ = for_each_record(&entry, &mut scratch, |r| {
                    if info.is_control {
                        let _ = decode_control(r.key, r.value);
                    }
                    for h in r.headers.iter() {
                        let _ = h;
                    }
                });
            }
        }
    }
}

/// `.index`, `.timeindex` and `.txnindex` files.
pub fn indexes(data: &[u8]) {
    let o = OffsetIndex::new(1000, data);
    let _ = o.sanity_check();
    let _ = o.entries().count();
    let _ = o.lookup(1500);
    let t = TimeIndex::new(1000, data);
    let _ = t.sanity_check();
    let _ = t.entries().count();
    let _ = t.lookup(1_700_000_000_000);
    let _ = parse_txn_index(data);
}

/// Producer snapshots and the text files (checkpoints, partition.metadata, markers).
pub fn small_files(data: &[u8]) {
    let _ = parse_producer_snapshot(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_checkpoint(text, false);
        let _ = parse_checkpoint(text, true);
        let _ = parse_partition_metadata(text);
        let _ = parse_properties(text);
        let _ = parse_quorum_state(text);
        let _ = parse_clean_shutdown(text);
    }
}

/// Every codec on arbitrary input, with the decompression cap in force (first byte: codec and
/// magic).
pub fn codecs(data: &[u8]) {
    let Some((&selector, payload)) = data.split_first() else {
        return;
    };
    let mut d = Decompressor::new(8 << 20);
    let mut out = Vec::new();
    let codec = Codec::from_id(selector & 7);
    let magic = (selector >> 3) as i8 % 3;
    let _ = d.decompress(codec, magic, payload, &mut out);
    assert!(out.len() <= (8 << 20) + (4 << 20), "the cap did not hold");
}

/// Internal-topic keys and values: group coordinator, transaction log, share state, KRaft
/// metadata, tiered-storage remote log metadata (first byte: where the key ends).
pub fn coordinator(data: &[u8]) {
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
}

/// The whole of `verify-index` and `recover`'s analysis on one hostile partition, written under
/// `scratch` (an empty dir the caller owns): a log, its `.index`, `.timeindex` and `.txnindex`,
/// a leader-epoch checkpoint and a swap/stray file, cut from the input by its first five bytes.
pub fn verify(data: &[u8], scratch: &Path) {
    if data.len() < 5 {
        return;
    }
    let (lens, mut rest) = data.split_at(5);
    let mut take = |n: u8| {
        let n = (n as usize * 8).min(rest.len());
        let (a, b) = rest.split_at(n);
        rest = b;
        a
    };
    let index = take(lens[0]);
    let time_index = take(lens[1]);
    let txn_index = take(lens[2]);
    let epochs = take(lens[3]);
    let swap = take(lens[4]);
    let log = rest;
    let part = scratch.join("t-0");
    let _ = std::fs::remove_dir_all(&part);
    if std::fs::create_dir(&part).is_err() {
        return;
    }
    let files: [(&str, &[u8]); 7] = [
        ("00000000000000000000.log", log),
        ("00000000000000000000.index", index),
        ("00000000000000000000.timeindex", time_index),
        ("00000000000000000000.txnindex", txn_index),
        ("leader-epoch-checkpoint", epochs),
        ("00000000000000000000.log.swap", swap),
        ("00000000000000000007.index", index),
    ];
    for (name, bytes) in files {
        if std::fs::write(part.join(name), bytes).is_err() {
            return;
        }
    }
    let Ok(set) = discover(std::slice::from_ref(&part)) else {
        return;
    };
    for p in &set.partitions {
        for opts in [
            VerifyOptions::default(),
            VerifyOptions {
                index_only: true,
                ..Default::default()
            },
        ] {
            let _ = verify_partition(p, None, &opts);
        }
    }
    let mut records = RecordScratch::default();
    let _ = analyse_segment(&part.join("00000000000000000000.log"), 0, 64, &mut records);
}
