//! The transaction index and producer-state snapshots against what the log's pass found.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use super::{Ctx, Severity, VerifyOptions};
use crate::format::producer_snapshot::parse_producer_snapshot;
use crate::format::txn_index::parse_txn_index;
use crate::storage::layout::base_offset_of;

/// `aborts`: the segment's ABORT markers (offset, producer id, whether the producer's data
/// precedes the marker in this segment).
pub(super) fn check_txn_index(
    ctx: &mut Ctx<'_>,
    path: &Path,
    base: i64,
    aborts: &[(i64, i64, bool)],
    opts: &VerifyOptions,
) {
    let Some(bytes) = ctx.read(path) else {
        return;
    };
    let (entries, partial) = parse_txn_index(&bytes);
    if let Some(at) = partial {
        ctx.add(
            "txn-index-mismatch",
            Severity::Warning,
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
                Severity::Error,
                path,
                at,
                None,
                err.message.to_string(),
            ),
            Ok(t) => {
                if t.last_offset < base {
                    ctx.add(
                        "index-sanity",
                        Severity::Error,
                        path,
                        at,
                        Some(t.last_offset),
                        format!(
                            "aborted txn last offset {} is below the segment base {base}",
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
                Severity::Error
            } else {
                Severity::Info
            },
            path,
            None,
            Some(*offset),
            format!("ABORT marker of producer {pid} at offset {offset} is not in the .txnindex"),
        );
    }
    for (offset, pid) in listed.difference(&markers) {
        ctx.add("txn-index-mismatch", Severity::Error, path, None, Some(*offset), format!(".txnindex lists an aborted transaction of producer {pid} ending at {offset}, but the log has no ABORT marker there"));
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
    ctx: &mut Ctx<'_>,
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
            Severity::Error,
            path,
            Some(e.position),
            None,
            format!("corrupt snapshot: {}", e.message),
        ),
        Ok(s) => {
            if !s.crc_valid {
                ctx.add("producer-snapshot", Severity::Error, path, Some(2), None, "snapshot CRC does not match its contents (Kafka discards it and rebuilds producer state)".into());
            }
            if let (Some(at), Some(end)) = (at, log_end) {
                if at > end {
                    ctx.add("producer-snapshot", Severity::Warning, path, None, Some(at), format!("snapshot at offset {at} is beyond the log end offset {end}; Kafka deletes it at load"));
                }
            }
            for e in s.entries.iter().filter(|e| e.has_batch_metadata()) {
                if at.is_some_and(|at| e.last_offset >= at) {
                    ctx.add(
                        "producer-snapshot",
                        Severity::Warning,
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
                    ctx.add("producer-snapshot", Severity::Warning, path, None, Some(e.last_offset), format!("producer {}'s last batch should end at offset {}, but no batch in the log ends there", e.producer_id, e.last_offset));
                }
            }
        }
    }
}
