//! `kseg compact` output: the verdict first (which partitions the cleaner's next passes take,
//! in its order, which it leaves and why, which it will give up on), then per partition the
//! range, the bound and what set it, the ratio, the pass (map end, groups, what each kind of
//! record and batch becomes, size after), and the configs assumed. `--json` objects keep the
//! names scripts rely on (`"type": "compaction"`, `firstDirtyOffset`, `firstUncleanableOffset`,
//! `dirtyRatio`, `willClean`, `uncleanable`, `endOffset`, `recordsRemoved`, `bytesAfter`).

use std::io::{self, Write};

use serde_json::{json, Value};

use super::retention::{entry_text, escape};
use super::words::{human_bytes, long_span, thousands};
use kseg_analysis::cleaner::pass::EmptyReason;
use kseg_analysis::cleaner::{
    Bound, CompactionReport, DirtyStart, Idle, PartitionCompaction, PassOutcome,
};
use kseg_analysis::topic_configs::{BrokerLogConfig, ConfigEntry, EffectiveLogConfig};
use kseg_time::rfc3339_ms;

const TOPIC_CONFIGS: [&str; 7] = [
    "cleanup.policy",
    "min.cleanable.dirty.ratio",
    "min.compaction.lag.ms",
    "max.compaction.lag.ms",
    "delete.retention.ms",
    "segment.bytes",
    "segment.index.bytes",
];

const BROKER_CONFIGS: [&str; 5] = [
    "log.cleaner.enable",
    "log.cleaner.threads",
    "log.cleaner.dedupe.buffer.size",
    "log.cleaner.io.buffer.load.factor",
    "producer.id.expiration.ms",
];

fn chosen(entries: Vec<ConfigEntry>, names: &[&str]) -> Vec<ConfigEntry> {
    names
        .iter()
        .filter_map(|n| entries.iter().find(|e| e.name == *n).cloned())
        .collect()
}

fn topic_entries(c: &EffectiveLogConfig) -> Vec<ConfigEntry> {
    chosen(c.entries(), &TOPIC_CONFIGS)
}

fn broker_entries(b: &BrokerLogConfig) -> Vec<ConfigEntry> {
    chosen(b.entries(), &BROKER_CONFIGS)
}

fn name(p: &PartitionCompaction) -> String {
    format!("{}-{}", escape(&p.topic), p.partition)
}

fn ratio(r: f64) -> String {
    if r.is_nan() {
        "-".into()
    } else {
        format!("{r:.3}")
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Kafka's count of records removed, as its log line says it (start minus end messages,
/// `CleanerStats`): the records of batches removed whole (aborted data, markers past their
/// horizon) are never read by `filterTo` and not among them.
pub fn records_removed(pass: &PassOutcome) -> u64 {
    pass.stats.messages_read - pass.stats.messages_written
}

/// The verdict: what the next passes do, in the cleaner's order, and what is stuck.
pub fn verdict_text(out: &mut impl Write, r: &CompactionReport, now_given: bool) -> io::Result<()> {
    writeln!(
        out,
        "The log cleaner at {}{}",
        rfc3339_ms(r.now),
        if now_given {
            ""
        } else {
            " (the wall clock; --now T for another instant)"
        }
    )?;
    if r.partitions.is_empty() {
        writeln!(
            out,
            "No partition read has compact in its cleanup.policy ({} without it): the cleaner has \
             nothing to do here.",
            r.not_compacted
        )?;
        return Ok(());
    }
    let mut cleaning: Vec<&PartitionCompaction> =
        r.partitions.iter().filter(|p| p.order.is_some()).collect();
    cleaning.sort_by_key(|p| p.order);
    let gives_up: Vec<&PartitionCompaction> = r
        .partitions
        .iter()
        .filter(|p| p.uncleanable.is_some())
        .collect();
    for p in &gives_up {
        let u = p.uncleanable.as_ref().expect("filtered");
        writeln!(
            out,
            "PROBLEM {}: the cleaner will fail on segment {} at byte {} ({}) and mark the \
             partition uncleanable until the broker restarts{}",
            name(p),
            u.segment,
            u.position,
            escape(&u.message),
            if p.config.cleanup_policy.value.delete {
                "; retention stops with it (compact,delete)"
            } else {
                ""
            }
        )?;
    }
    let ok: Vec<&&PartitionCompaction> = cleaning
        .iter()
        .filter(|p| p.uncleanable.is_none())
        .collect();
    if ok.is_empty() {
        writeln!(
            out,
            "No pass will run on the {} compacted partition{} read.",
            r.partitions.len(),
            plural(r.partitions.len())
        )?;
    } else {
        let list: Vec<String> = ok
            .iter()
            .map(|p| format!("{} (dirty ratio {})", name(p), ratio(p.dirty_ratio)))
            .collect();
        writeln!(out, "Next passes, filthiest first: {}", list.join(", "))?;
    }
    let idle = r.partitions.iter().filter(|p| p.idle.is_some()).count();
    if idle > 0 {
        writeln!(
            out,
            "{idle} of {} compacted partition{} will not be cleaned now (why below).",
            r.partitions.len(),
            plural(r.partitions.len())
        )?;
    }
    Ok(())
}

fn bound_text(p: &PartitionCompaction) -> String {
    match &p.bound {
        Bound::OpenTransaction(t) => {
            let id = match &t.transactional_id {
                Some((id, state)) => format!(", transactional id {} ({state})", escape(id)),
                None => String::new(),
            };
            format!(
                "the last stable offset {}, pinned by the open transaction of producer {} (epoch \
                 {}{id}) from offset {}",
                p.last_stable_offset, t.producer_id, t.producer_epoch, t.first_offset
            )
        }
        Bound::HighWatermark => match p.high_watermark {
            Some(hw) => format!("the high watermark {hw}"),
            None => format!(
                "the high watermark, taken at the log end {} (no replication-offset-checkpoint \
                 entry)",
                p.log_end_offset
            ),
        },
        Bound::ActiveSegment => {
            format!("the active segment {}", p.first_uncleanable_offset)
        }
        Bound::MinCompactionLag {
            segment,
            largest_timestamp,
        } => format!(
            "min.compaction.lag.ms: segment {segment}'s largest timestamp {} is within {} of now",
            rfc3339_ms(*largest_timestamp),
            long_span(p.config.min_compaction_lag_ms.value)
        ),
    }
}

fn dirty_text(p: &PartitionCompaction) -> String {
    match p.dirty_start {
        DirtyStart::Checkpoint => "cleaner-offset-checkpoint".into(),
        DirtyStart::NoCheckpoint => {
            "the log start offset (no cleaner-offset-checkpoint entry)".into()
        }
        DirtyStart::BelowLogStart(c) => {
            format!("the log start offset (the checkpoint's {c} is below it: reset and rewritten)")
        }
        DirtyStart::PastLogEnd(c) => format!(
            "the log start offset (the checkpoint's {c} is past the log end {}: reset)",
            p.log_end_offset
        ),
    }
}

fn idle_text(p: &PartitionCompaction) -> String {
    match p.idle.as_ref() {
        None => String::new(),
        Some(Idle::CleanerDisabled) => "log.cleaner.enable=false: no cleaner runs".into(),
        Some(Idle::Empty) if p.bytes == 0 => "the log is empty".into(),
        Some(Idle::Empty) => format!(
            "everything ({}) is in the active segment: no clean or cleanable bytes, the cleaner \
             skips the partition until the segment rolls",
            human_bytes(p.bytes)
        ),
        Some(Idle::NotLive) => "not a live partition dir (deleted, stray or future)".into(),
        Some(Idle::NothingCleanable) => {
            "nothing between the first dirty offset and the first uncleanable offset".into()
        }
        Some(Idle::RatioBelowMinimum) => format!(
            "the dirty ratio {} is at or below min.cleanable.dirty.ratio {}, and \
             max.compaction.lag.ms does not force a pass",
            ratio(p.dirty_ratio),
            p.config.min_cleanable_dirty_ratio.value
        ),
    }
}

/// Every partition with something to say, in the cleaner's order, then the rest; empty
/// partitions in one line.
pub fn partitions_text(out: &mut impl Write, r: &CompactionReport) -> io::Result<()> {
    let mut ordered: Vec<&PartitionCompaction> = r.partitions.iter().collect();
    ordered.sort_by_key(|p| p.order.unwrap_or(usize::MAX));
    let mut empty = Vec::new();
    for p in ordered {
        if p.idle == Some(Idle::Empty) && p.uncleanable.is_none() {
            empty.push(name(p));
        } else {
            partition_text(out, p)?;
        }
    }
    if !empty.is_empty() {
        writeln!(out)?;
        let shown: Vec<&str> = empty.iter().take(8).map(String::as_str).collect();
        writeln!(
            out,
            "{} partition{} with nothing outside the active segment (the cleaner skips them): {}{}",
            empty.len(),
            plural(empty.len()),
            shown.join(", "),
            if empty.len() > shown.len() {
                ", ..."
            } else {
                ""
            }
        )?;
    }
    Ok(())
}

/// One partition, in a few lines.
pub fn partition_text(out: &mut impl Write, p: &PartitionCompaction) -> io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "{}  {} segment{}, {}  log start {}, end {}, high watermark {}",
        name(p),
        p.segments,
        plural(p.segments),
        human_bytes(p.bytes),
        p.log_start_offset,
        p.log_end_offset,
        p.high_watermark.map_or_else(
            || "unknown (taken at the log end)".into(),
            |h| h.to_string()
        )
    )?;
    writeln!(
        out,
        "  first dirty offset {} from {}",
        p.first_dirty_offset,
        dirty_text(p)
    )?;
    writeln!(
        out,
        "  first uncleanable offset {} (segment {}), set by {}",
        p.uncleanable_bound,
        p.first_uncleanable_offset,
        bound_text(p)
    )?;
    writeln!(
        out,
        "  dirty ratio {} ({} cleanable of {}) against min.cleanable.dirty.ratio {}{}",
        ratio(p.dirty_ratio),
        human_bytes(p.cleanable_bytes),
        human_bytes(p.clean_bytes + p.cleanable_bytes),
        p.config.min_cleanable_dirty_ratio.value,
        if p.compaction_delay_ms > 0 {
            format!(
                "; max.compaction.lag.ms forces a pass (the oldest dirty batch is {} past it)",
                long_span(p.compaction_delay_ms)
            )
        } else {
            String::new()
        }
    )?;
    if p.idle.is_some() {
        writeln!(out, "  not cleaned now: {}", idle_text(p))?;
    }
    if let Some(u) = &p.uncleanable {
        writeln!(
            out,
            "  PROBLEM the pass fails: segment {} byte {}: {}",
            u.segment,
            u.position,
            escape(&u.message)
        )?;
    }
    if let Some(base) = p.overflow {
        writeln!(
            out,
            "  segment {base} holds offsets more than 2^31-1 past its base: the pass aborts, Kafka \
             splits the segment and cleans on the next pass"
        )?;
    }
    if let Some(pass) = &p.pass {
        pass_text(out, p, pass)?;
    }
    for (file, e) in &p.unreadable {
        writeln!(
            out,
            "  could not read {}: {}",
            escape(&file.display().to_string()),
            escape(e)
        )?;
    }
    Ok(())
}

fn pass_text(out: &mut impl Write, p: &PartitionCompaction, pass: &PassOutcome) -> io::Result<()> {
    let s = &pass.stats;
    writeln!(
        out,
        "  pass {}: offset map of {} ({} slots, stops at {} keys): {} keys{}",
        p.order.map_or_else(String::new, |o| format!("#{o}")),
        human_bytes(pass.map_memory as u64),
        thousands(pass.map_slots as u64),
        thousands(pass.map_limit as u64),
        thousands(pass.keys as u64),
        match pass.full_at {
            Some(o) => format!(
                ", full at offset {o}: this pass ends there, the next goes on from {}",
                pass.end_offset
            ),
            None => String::new(),
        }
    )?;
    writeln!(
        out,
        "  dirty section [{}, {}]: the checkpoint becomes {}",
        p.first_dirty_offset, pass.end_offset, pass.end_offset
    )?;
    let groups: Vec<String> = pass
        .groups
        .iter()
        .map(|g| match (g.first(), g.last()) {
            (Some(a), Some(b)) if a != b => format!("{a}..{b} ({} segments)", g.len()),
            (Some(a), _) => a.to_string(),
            _ => String::new(),
        })
        .collect();
    writeln!(out, "  segment groups: {}", groups.join(", "))?;
    writeln!(
        out,
        "  records {} read, {} kept ({} removed): {} superseded, {} keyless, {} tombstones past \
         their horizon, {} of aborted transactions; {} markers removed",
        thousands(s.messages_read),
        thousands(s.messages_written),
        thousands(records_removed(pass)),
        thousands(s.superseded_removed),
        thousands(s.keyless_removed),
        thousands(s.tombstones_removed),
        thousands(s.aborted_records_removed),
        thousands(s.markers_removed)
    )?;
    let active = s
        .empty_kept
        .iter()
        .filter(|(_, r)| matches!(r, EmptyReason::ActiveProducer(_)))
        .count();
    let hw = s.empty_kept.len() - active;
    writeln!(
        out,
        "  batches {} read: {} copied, {} rebuilt ({} stamped with the delete horizon {}), {} \
         kept empty ({active} for active producers, {hw} before the high watermark), {} removed",
        thousands(s.batches_read),
        thousands(s.batches_copied),
        thousands(s.batches_rebuilt),
        thousands(s.batches_stamped),
        rfc3339_ms(pass.horizon),
        thousands(s.empty_kept.len() as u64),
        thousands(s.batches_removed)
    )?;
    writeln!(
        out,
        "  {} of log cleaned into {}; the partition goes from {} to {}",
        human_bytes(s.bytes_read),
        human_bytes(s.bytes_written),
        human_bytes(p.bytes),
        human_bytes(pass.bytes_after)
    )?;
    Ok(())
}

/// The configs assumed.
pub fn configs_text(out: &mut impl Write, r: &CompactionReport) -> io::Result<()> {
    writeln!(out)?;
    let b: Vec<String> = broker_entries(&r.broker).iter().map(entry_text).collect();
    writeln!(out, "Broker configs: {}", b.join(", "))?;
    let mut seen = std::collections::BTreeSet::new();
    for p in &r.partitions {
        if seen.insert(p.topic.clone()) {
            let e: Vec<String> = topic_entries(&p.config).iter().map(entry_text).collect();
            writeln!(out, "Topic {}: {}", escape(&p.topic), e.join(", "))?;
        }
    }
    for t in &r.unmatched_topic_flags {
        writeln!(
            out,
            "--topic-config {}: no compacted partition of that topic was read",
            escape(t)
        )?;
    }
    Ok(())
}

fn bound_json(p: &PartitionCompaction) -> Value {
    match &p.bound {
        Bound::OpenTransaction(t) => json!({
            "reason": "openTransaction",
            "offset": p.last_stable_offset,
            "producerId": t.producer_id,
            "producerEpoch": t.producer_epoch,
            "firstOffset": t.first_offset,
            "transactionalId": t.transactional_id.as_ref().map(|(id, _)| id),
            "coordinatorState": t.transactional_id.as_ref().map(|(_, s)| s),
        }),
        Bound::HighWatermark => json!({
            "reason": "highWatermark",
            "offset": p.high_watermark.unwrap_or(p.log_end_offset),
            "assumed": p.high_watermark.is_none(),
        }),
        Bound::ActiveSegment => json!({
            "reason": "activeSegment",
            "offset": p.first_uncleanable_offset,
        }),
        Bound::MinCompactionLag {
            segment,
            largest_timestamp,
        } => json!({
            "reason": "minCompactionLag",
            "offset": segment,
            "segment": segment,
            "timestamp": largest_timestamp,
        }),
    }
}

fn idle_json(p: &PartitionCompaction) -> Value {
    let s = match p.idle.as_ref() {
        None => return Value::Null,
        Some(Idle::CleanerDisabled) => "cleanerDisabled",
        Some(Idle::Empty) => "empty",
        Some(Idle::NotLive) => "notLive",
        Some(Idle::NothingCleanable) => "nothingCleanable",
        Some(Idle::RatioBelowMinimum) => "ratioBelowMinimum",
    };
    json!(s)
}

/// `{"type": "compaction", ...}`.
pub fn json_partition(out: &mut impl Write, p: &PartitionCompaction) -> io::Result<()> {
    let pass = p.pass.as_ref();
    let v = json!({
        "type": "compaction",
        "topic": p.topic,
        "partition": p.partition,
        "path": p.path.display().to_string(),
        "logDir": p.log_dir.as_ref().map(|d| d.display().to_string()),
        "logStartOffset": p.log_start_offset,
        "highWatermark": p.high_watermark,
        "lastStableOffset": p.last_stable_offset,
        "logEndOffset": p.log_end_offset,
        "checkpoint": p.checkpoint,
        "firstDirtyOffset": p.first_dirty_offset,
        "firstDirtyFrom": match p.dirty_start {
            DirtyStart::Checkpoint => "checkpoint",
            DirtyStart::NoCheckpoint => "noCheckpoint",
            DirtyStart::BelowLogStart(_) => "belowLogStart",
            DirtyStart::PastLogEnd(_) => "pastLogEnd",
        },
        "firstUncleanableOffset": p.first_uncleanable_offset,
        "uncleanableBound": p.uncleanable_bound,
        "boundBy": bound_json(p),
        "cleanBytes": p.clean_bytes,
        "cleanableBytes": p.cleanable_bytes,
        "dirtyRatio": if p.dirty_ratio.is_nan() { Value::Null } else { json!(p.dirty_ratio) },
        "minCleanableDirtyRatio": p.config.min_cleanable_dirty_ratio.value,
        "compactionDelayMs": p.compaction_delay_ms,
        "willClean": p.will_clean() && p.uncleanable.is_none(),
        "notCleanedBecause": idle_json(p),
        "order": p.order,
        "uncleanable": p.uncleanable.as_ref().map(|u| json!({
            "reason": "corruptRecord",
            "segment": u.segment,
            "position": u.position,
            "message": u.message,
        })),
        "overflowSegment": p.overflow,
        "endOffset": pass.map(|x| x.end_offset),
        "recordsRemoved": pass.map(records_removed),
        "bytesAfter": pass.map(|x| x.bytes_after),
        "bytes": p.bytes,
        "pass": pass.map(pass_json),
    });
    serde_json::to_writer(&mut *out, &v).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

fn pass_json(pass: &PassOutcome) -> Value {
    let s = &pass.stats;
    json!({
        "mapMemory": pass.map_memory,
        "mapSlots": pass.map_slots,
        "mapLimit": pass.map_limit,
        "keys": pass.keys,
        "mapFullAt": pass.full_at,
        "groups": pass.groups,
        "deleteHorizon": pass.horizon,
        "messagesRead": s.messages_read,
        "messagesWritten": s.messages_written,
        "bytesRead": s.bytes_read,
        "bytesWritten": s.bytes_written,
        "supersededRemoved": s.superseded_removed,
        "keylessRemoved": s.keyless_removed,
        "tombstonesRemoved": s.tombstones_removed,
        "abortedRecordsRemoved": s.aborted_records_removed,
        "markersRemoved": s.markers_removed,
        "batchesRead": s.batches_read,
        "batchesCopied": s.batches_copied,
        "batchesRebuilt": s.batches_rebuilt,
        "batchesStamped": s.batches_stamped,
        "batchesRemoved": s.batches_removed,
        "emptyBatchesKept": s.empty_kept.iter().map(|(o, r)| match r {
            EmptyReason::ActiveProducer(pid) => json!({"offset": o, "reason": "activeProducer", "producerId": pid}),
            EmptyReason::HighWatermark => json!({"offset": o, "reason": "highWatermark"}),
        }).collect::<Vec<_>>(),
    })
}
