//! The transaction index and producer-state snapshots against what the log's pass found.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use super::segment::EpochTrack;
use super::{Findings, Nature, VerifyOptions};
use crate::lookup::{load_cache, EpochCacheChange};
use kseg_format::producer_snapshot::parse_producer_snapshot;
use kseg_format::text_files::{parse_checkpoint, EpochEntry};
use kseg_format::txn_index::parse_txn_index;
use kseg_storage::layout::base_offset_of;

/// Whether `TransactionIndex.sanityCheck` fails on these bytes (an entry ending below the
/// segment's base offset), which makes Kafka recover the segment while loading it.
pub fn txn_index_fails_sanity(bytes: &[u8], base: i64) -> bool {
    parse_txn_index(bytes)
        .0
        .iter()
        .any(|e| e.as_ref().is_ok_and(|t| t.last_offset < base))
}

/// `aborts`: the segment's ABORT markers (offset, producer id, whether the producer's data
/// precedes the marker in this segment).
pub(super) fn check_txn_index(
    ctx: &mut Findings<'_>,
    path: &Path,
    bytes: &[u8],
    base: i64,
    aborts: &[(i64, i64, bool)],
    // Kafka rebuilds this index at the next start (its segment is recovered).
    rebuilt: bool,
    opts: &VerifyOptions,
) {
    let mismatch = Nature::damage(rebuilt);
    let (entries, partial) = parse_txn_index(bytes);
    if let Some(at) = partial {
        ctx.add(
            "txn-index-mismatch",
            Nature::Tolerated,
            path,
            Some(at as u64),
            None,
            "partial trailing entry (Kafka ignores it)".into(),
        );
    }
    let mut listed = BTreeSet::new();
    for (i, e) in entries.iter().enumerate() {
        let at = Some((i * 34) as u64);
        match e {
            Err(err) => ctx.add(
                "txn-index-mismatch",
                Nature::DamagedData,
                path,
                at,
                None,
                err.message.to_string(),
            ),
            Ok(t) => {
                if t.last_offset < base {
                    // TransactionIndex.sanityCheck fails at load and Kafka recovers the segment,
                    // rebuilding this index.
                    ctx.add(
                        "index-sanity",
                        Nature::RepairedAtLoad,
                        path,
                        at,
                        Some(t.last_offset),
                        format!(
                            "aborted txn last offset {} is below the segment base {base}: Kafka's sanity check fails at load, so it recovers the segment and rebuilds this index",
                            t.last_offset
                        ),
                    );
                }
                listed.insert((t.last_offset, t.producer_id));
            }
        }
    }
    if opts.sanity_only {
        return;
    }
    let markers: BTreeSet<(i64, i64)> = aborts.iter().map(|a| (a.0, a.1)).collect();
    let certain: BTreeSet<(i64, i64)> = aborts.iter().filter(|a| a.2).map(|a| (a.0, a.1)).collect();
    for (offset, pid) in markers.difference(&listed) {
        ctx.add(
            "txn-index-mismatch",
            if certain.contains(&(*offset, *pid)) {
                mismatch
            } else {
                Nature::Normal
            },
            path,
            None,
            Some(*offset),
            format!("ABORT marker of producer {pid} at offset {offset} is not in the .txnindex"),
        );
    }
    for (offset, pid) in listed.difference(&markers) {
        ctx.add("txn-index-mismatch", mismatch, path, None, Some(*offset), format!(".txnindex lists an aborted transaction of producer {pid} ending at {offset}, but the log has no ABORT marker there"));
    }
}

/// The last offsets a snapshot says producers' last batches end at.
pub(super) fn snapshot_last_offsets(bytes: &[u8]) -> Vec<i64> {
    parse_producer_snapshot(bytes)
        .map(|s| {
            s.entries
                .iter()
                .filter(|e| e.has_batch_metadata())
                .map(|e| e.last_offset)
                .collect()
        })
        .unwrap_or_default()
}

/// `found`: which of the snapshots' last offsets some batch ends at; `first_offset`: the
/// smallest last offset of any batch.
pub(super) fn check_producer_snapshot(
    ctx: &mut Findings<'_>,
    path: &Path,
    bytes: &[u8],
    log_end: Option<i64>,
    found: &HashSet<i64>,
    first_offset: Option<i64>,
) {
    let name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let at = base_offset_of(&name);
    match parse_producer_snapshot(bytes) {
        Err(e) => ctx.add(
            "producer-snapshot",
            // ProducerStateManager.loadFromSnapshot deletes a corrupt snapshot and falls back to
            // an older one or the log: slower start, no data lost (a torn write after a crash).
            Nature::RepairedAtLoad,
            path,
            Some(e.position),
            None,
            format!(
                "corrupt snapshot: {}; Kafka deletes it at load and rebuilds producer state from an older snapshot or the log",
                e.message
            ),
        ),
        Ok(s) => {
            if !s.crc_valid {
                ctx.add("producer-snapshot", Nature::RepairedAtLoad, path, Some(2), None, "snapshot CRC does not match its contents; Kafka deletes it at load and rebuilds producer state from an older snapshot or the log".into());
            }
            if let (Some(at), Some(end)) = (at, log_end) {
                if at > end {
                    ctx.add("producer-snapshot", Nature::RepairedAtLoad, path, None, Some(at), format!("snapshot at offset {at} is beyond the log end offset {end}; Kafka deletes it at load"));
                }
            }
            for e in s.entries.iter().filter(|e| e.has_batch_metadata()) {
                if at.is_some_and(|at| e.last_offset >= at) {
                    ctx.add(
                        "producer-snapshot",
                        Nature::Tolerated,
                        path,
                        None,
                        Some(e.last_offset),
                        format!(
                            "producer {} has last offset {} at or after the snapshot offset",
                            e.producer_id, e.last_offset
                        ),
                    );
                } else if first_offset.is_some_and(|f| e.last_offset >= f)
                    && !found.contains(&e.last_offset)
                {
                    ctx.add("producer-snapshot", Nature::Tolerated, path, None, Some(e.last_offset), format!("producer {}'s last batch should end at offset {}, but no batch in the log ends there", e.producer_id, e.last_offset));
                }
            }
        }
    }
}

/// The leader-epoch checkpoint against itself and the epochs the batches start. `log_start` and
/// `log_end` bound what Kafka's cache keeps at load.
pub(super) fn check_leader_epochs(
    ctx: &mut Findings<'_>,
    partition: &Path,
    // A partition directory (not loose segment files) always has one on a broker.
    expect_checkpoint: bool,
    checkpoint: Option<&Path>,
    track: &EpochTrack,
    log_start: i64,
    log_end: i64,
) -> Option<(u64, String)> {
    if let Some((path, position, epoch, before)) = &track.first_decrease {
        ctx.add(
            "leader-epoch",
            Nature::Tolerated,
            path,
            Some(*position),
            None,
            format!("batch carries partitionLeaderEpoch {epoch} after batches of epoch {before}: epochs never go back in a log (Kafka's epoch cache ignores it)"),
        );
    }
    let Some(path) = checkpoint else {
        if expect_checkpoint && track.starts.iter().any(|s| !s.recovered) {
            ctx.add(
                "leader-epoch",
                Nature::Tolerated,
                partition,
                None,
                None,
                format!("no leader-epoch-checkpoint although the batches carry epochs {}: Kafka rebuilds the cache only from segments it recovers, so OffsetForLeaderEpoch cannot answer for the others", show_starts(track)),
            );
        }
        return None;
    };
    let bytes = ctx.read(path)?;
    // CheckpointFile reads an empty file (its own creation of a missing one) as no entries.
    if bytes.is_empty() {
        return None;
    }
    let entries: Vec<EpochEntry> = match parse_checkpoint(&String::from_utf8_lossy(&bytes), true) {
        Ok(c) => c.epoch_entries(),
        Err(e) => {
            let message = format!(
                "unreadable leader-epoch-checkpoint: {} (Kafka cannot load this partition's log)",
                e.message
            );
            ctx.add(
                "leader-epoch",
                Nature::BrokerWillNotStart,
                path,
                Some(e.position),
                None,
                message.clone(),
            );
            // LeaderEpochFileCache's constructor reads it in UnifiedLog.create: the load fails.
            return Some((e.position, message));
        }
    };
    for w in entries.windows(2) {
        let (e0, s0) = (w[0].epoch, w[0].start_offset);
        let (e1, s1) = (w[1].epoch, w[1].start_offset);
        if e1 <= e0 || s1 < s0 {
            ctx.add(
                "leader-epoch",
                Nature::Tolerated,
                path,
                None,
                Some(s1),
                format!("entry ({e1}, {s1}) does not follow ({e0}, {s0}): when Kafka loads the cache, each entry removes the earlier ones with an epoch or start offset not below its own"),
            );
        }
    }
    for e in entries.iter().filter(|e| e.epoch < 0 || e.start_offset < 0) {
        let (epoch, start) = (e.epoch, e.start_offset);
        ctx.add(
            "leader-epoch",
            Nature::BrokerWillNotStart,
            path,
            None,
            Some(start),
            format!("entry ({epoch}, {start}) is invalid: Kafka's epoch cache refuses it and the log fails to load"),
        );
    }
    let (cache, changes) = load_cache(entries, log_start, log_end);
    // Invalid entries are errors, reported above.
    for change in changes
        .iter()
        .filter(|c| !matches!(c, EpochCacheChange::Invalid(_)))
    {
        ctx.add(
            "leader-epoch",
            Nature::Normal,
            path,
            None,
            None,
            change.to_string(),
        );
    }
    for start in track.starts.iter().filter(|s| s.offset >= log_start) {
        let (epoch, offset) = (start.epoch, start.offset);
        match cache.iter().find(|e| e.epoch == epoch).map(|e| e.start_offset) {
            None if start.recovered => ctx.add(
                "leader-epoch",
                Nature::Normal,
                &start.path,
                Some(start.position),
                Some(offset),
                format!("the checkpoint lacks epoch {epoch}, which the batches start at offset {offset}: Kafka's recovery of this segment adds it"),
            ),
            None => ctx.add(
                "leader-epoch",
                Nature::Tolerated,
                &start.path,
                Some(start.position),
                Some(offset),
                format!("the checkpoint lacks epoch {epoch}, which the batches start at offset {offset}: OffsetForLeaderEpoch answers for it as for an earlier epoch"),
            ),
            Some(cached) if cached > offset => ctx.add(
                "leader-epoch",
                Nature::Tolerated,
                &start.path,
                Some(start.position),
                Some(offset),
                format!("the checkpoint starts epoch {epoch} at offset {cached}, but batches carry it from offset {offset}: OffsetForLeaderEpoch ends the previous epoch too late"),
            ),
            Some(cached) if cached < offset => ctx.add(
                "leader-epoch",
                Nature::Normal,
                &start.path,
                Some(start.position),
                Some(offset),
                format!("the checkpoint starts epoch {epoch} at offset {cached}, the first batch carrying it is at {offset} (the records between were removed, e.g. by compaction)"),
            ),
            Some(_) => {}
        }
    }
    None
}

fn show_starts(track: &EpochTrack) -> String {
    track
        .starts
        .iter()
        .map(|s| format!("{} from {}", s.epoch, s.offset))
        .collect::<Vec<_>>()
        .join(", ")
}
