//! The transaction index and producer-state snapshots against what the log's pass found.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use super::segment::EpochTrack;
use super::{Findings, Message, Nature, VerifyOptions};
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
            Message::TxnIndexPartialEntry,
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
                Message::TxnIndexEntry(err.clone()),
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
                        Message::TxnIndexBelowBase {
                            last_offset: t.last_offset,
                            base,
                        },
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
            Message::AbortNotIndexed {
                producer_id: *pid,
                offset: *offset,
            },
        );
    }
    for (offset, pid) in listed.difference(&markers) {
        ctx.add(
            "txn-index-mismatch",
            mismatch,
            path,
            None,
            Some(*offset),
            Message::IndexedAbortWithoutMarker {
                producer_id: *pid,
                offset: *offset,
            },
        );
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
            Message::CorruptSnapshot(e),
        ),
        Ok(s) => {
            if !s.crc_valid {
                ctx.add(
                    "producer-snapshot",
                    Nature::RepairedAtLoad,
                    path,
                    Some(2),
                    None,
                    Message::SnapshotCrc,
                );
            }
            if let (Some(at), Some(end)) = (at, log_end) {
                if at > end {
                    ctx.add(
                        "producer-snapshot",
                        Nature::RepairedAtLoad,
                        path,
                        None,
                        Some(at),
                        Message::SnapshotBeyondEnd { at, log_end: end },
                    );
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
                        Message::SnapshotProducerPastOffset {
                            producer_id: e.producer_id,
                            last_offset: e.last_offset,
                        },
                    );
                } else if first_offset.is_some_and(|f| e.last_offset >= f)
                    && !found.contains(&e.last_offset)
                {
                    ctx.add(
                        "producer-snapshot",
                        Nature::Tolerated,
                        path,
                        None,
                        Some(e.last_offset),
                        Message::SnapshotNoSuchBatch {
                            producer_id: e.producer_id,
                            last_offset: e.last_offset,
                        },
                    );
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
) -> Option<(u64, Message)> {
    if let Some((path, position, epoch, before)) = &track.first_decrease {
        ctx.add(
            "leader-epoch",
            Nature::Tolerated,
            path,
            Some(*position),
            None,
            Message::EpochDecrease {
                epoch: *epoch,
                before: *before,
            },
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
                Message::NoEpochCheckpoint {
                    starts: track.starts.iter().map(|s| (s.epoch, s.offset)).collect(),
                },
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
            let message = Message::UnreadableEpochCheckpoint(e.clone());
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
                Message::EpochEntryOrder {
                    epoch: e1,
                    start: s1,
                    prev_epoch: e0,
                    prev_start: s0,
                },
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
            Message::EpochEntryInvalid { epoch, start },
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
            Message::EpochCache(change.clone()),
        );
    }
    for start in track.starts.iter().filter(|s| s.offset >= log_start) {
        let (epoch, offset) = (start.epoch, start.offset);
        match cache
            .iter()
            .find(|e| e.epoch == epoch)
            .map(|e| e.start_offset)
        {
            None if start.recovered => ctx.add(
                "leader-epoch",
                Nature::Normal,
                &start.path,
                Some(start.position),
                Some(offset),
                Message::EpochMissing {
                    epoch,
                    offset,
                    recovered: true,
                },
            ),
            None => ctx.add(
                "leader-epoch",
                Nature::Tolerated,
                &start.path,
                Some(start.position),
                Some(offset),
                Message::EpochMissing {
                    epoch,
                    offset,
                    recovered: false,
                },
            ),
            Some(cached) if cached > offset => ctx.add(
                "leader-epoch",
                Nature::Tolerated,
                &start.path,
                Some(start.position),
                Some(offset),
                Message::EpochStartsLate {
                    epoch,
                    cached,
                    offset,
                },
            ),
            Some(cached) if cached < offset => ctx.add(
                "leader-epoch",
                Nature::Normal,
                &start.path,
                Some(start.position),
                Some(offset),
                Message::EpochStartsEarly {
                    epoch,
                    cached,
                    offset,
                },
            ),
            Some(_) => {}
        }
    }
    None
}
