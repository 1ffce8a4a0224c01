//! `kseg lookup` output: `topic:partition:offset` lines like `kafka-get-offsets.sh`, each followed
//! by indented details, or one NDJSON object per partition.

use std::io::{self, Write};
use std::path::Path;

use serde_json::{json, Value};

use kseg_analysis::lookup::explain::{
    FileProblem, LargestTimestamp, RaisedTarget, SegmentMaxSource, Step,
};
use kseg_analysis::lookup::{
    Answer, BatchFacts, EpochDifference, EpochDisagreement, LookupReport, Note, Query, ScanReason,
    Trace,
};
use kseg_format::text_files::EpochEntry;
use kseg_time::rfc3339_or_ms as rfc3339;

/// A segment by its file name (the whole path when it has none).
fn name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

fn batches(n: u64) -> String {
    if n == 1 {
        "1 batch".into()
    } else {
        format!("{n} batches")
    }
}

fn epochs(entries: &[EpochEntry]) -> String {
    if entries.is_empty() {
        return "(none)".into();
    }
    entries
        .iter()
        .map(|e| format!("epoch {} from {}", e.epoch, e.start_offset))
        .collect::<Vec<_>>()
        .join(", ")
}

fn file_problem(p: &FileProblem) -> String {
    match p {
        FileProblem::Io(e) => e.clone(),
        FileProblem::NotUtf8 => "not UTF-8 text".into(),
        FileProblem::Decode { position, message } => format!("byte {position}: {message}"),
    }
}

fn max_source(s: &SegmentMaxSource) -> String {
    match s {
        SegmentMaxSource::NoTimeIndex => {
            "no .timeindex file: the broker creates it empty and knows no timestamp".into()
        }
        SegmentMaxSource::Indexes {
            last_time_entry,
            batches: n,
            from,
            raised,
        } => format!(
            "{}; {} from byte {from}{}",
            match last_time_entry {
                Some(e) => format!(
                    "last time-index entry ({}, offset {})",
                    e.timestamp, e.offset
                ),
                None => "empty time index".into(),
            },
            batches(*n),
            if *raised {
                ": a larger one there"
            } else {
                ": none larger"
            }
        ),
    }
}

fn largest(l: &LargestTimestamp) -> String {
    if l.from_mtime {
        format!(
            "no timestamp in the segment ({}), so the .log file's mtime {}",
            max_source(&l.source),
            rfc3339(l.timestamp)
        )
    } else {
        max_source(&l.source)
    }
}

/// One step of `--explain`, as a line.
pub fn step_text(step: &Step) -> String {
    match step {
        Step::LogStart {
            first_base_offset: first,
            checkpoint,
        } => match *checkpoint {
            Some(c) if c > *first => format!(
                "log start offset {c}: log-start-offset-checkpoint (the first segment starts at \
                 {first})"
            ),
            Some(c) => format!(
                "log start offset {first}: the first segment's base offset \
                 (log-start-offset-checkpoint says {c})"
            ),
            None => format!("log start offset {first}: the first segment's base offset"),
        },
        Step::CheckpointIgnored { file, problem } => {
            format!("{}: {}; ignored", file.display(), file_problem(problem))
        }
        Step::LogEnd {
            offset,
            last_batch_offset,
            batches: n,
            from,
            segment,
        } => format!(
            "log end offset {offset}: {} ({} from byte {from}, the last offset-index entry of \
             the last segment {})",
            match last_batch_offset {
                Some(l) => format!("one past the last batch's last offset {l}"),
                None => "the last segment's base offset (it holds no batch)".into(),
            },
            batches(*n),
            name(segment)
        ),
        Step::IndexMissing { segment, index } => format!(
            "{}: no {index} beside it: lookups in it start at byte 0",
            name(segment)
        ),
        Step::IndexUnreadable { index, error } => {
            format!(
                "{}: cannot read it ({error}); treated as empty",
                index.display()
            )
        }
        Step::IndexPastLogEnd {
            segment,
            position,
            log_len,
        } => format!(
            "{}: the index points at byte {position}, {} the end of the log ({log_len} bytes): \
             starting at byte 0",
            name(segment),
            if position == log_len { "at" } else { "past" }
        ),
        Step::UndecodableBatch {
            segment,
            position,
            message,
        } => format!(
            "{}: byte {position}: undecodable batch skipped: {message}",
            segment.display()
        ),
        Step::InvalidBytes {
            segment,
            position,
            length,
            reason,
        } => format!(
            "{}: byte {position}: {length} invalid bytes skipped ({reason})",
            segment.display()
        ),
        Step::Tail {
            segment,
            position,
            length,
            kind,
        } => format!(
            "{}: byte {position}: {}",
            segment.display(),
            kind.describe(*length)
        ),
        Step::RecordsUndecodable {
            segment,
            position,
            batch_position,
            message,
        } => format!(
            "{}: byte {position}: records of the batch at byte {batch_position} cannot be \
             decoded: {message}",
            segment.display()
        ),
        Step::SegmentByLargestTimestamp {
            segment,
            largest: l,
            target,
            chosen,
        } => {
            if *chosen {
                format!(
                    "segment {}: largest timestamp {} >= target {target} ({}): the first such \
                     segment, the only one searched",
                    name(segment),
                    l.timestamp,
                    largest(l)
                )
            } else {
                format!(
                    "segment {}: largest timestamp {} < target {target} ({}): skipped",
                    name(segment),
                    l.timestamp,
                    largest(l)
                )
            }
        }
        Step::TimeIndexFloor {
            entries,
            target,
            entry,
            slot,
        } => {
            if entry.timestamp < 0 {
                format!(
                    "time index ({entries} entries): no entry <= {target}, so (-1, base offset \
                     {})",
                    entry.offset
                )
            } else {
                format!(
                    "time index ({entries} entries): floor of {target} is entry {} (timestamp \
                     {}, offset {})",
                    slot.map_or("?".into(), |k| k.to_string()),
                    entry.timestamp,
                    entry.offset
                )
            }
        }
        Step::OffsetIndexFloor {
            entries,
            target,
            entry,
            slot,
            raised,
        } => match (slot, raised) {
            (
                Some(k),
                Some(RaisedTarget {
                    time_index_offset,
                    log_start,
                }),
            ) => format!(
                "offset index ({entries} entries): floor of max({time_index_offset}, log start \
                 {log_start}) = {target} is entry {k} (offset {}, byte {})",
                entry.offset, entry.position
            ),
            (Some(k), None) => format!(
                "offset index ({entries} entries): floor of {target} is entry {k} (offset {}, \
                 byte {})",
                entry.offset, entry.position
            ),
            (None, _) => {
                format!("offset index ({entries} entries): no entry <= {target}, so byte 0")
            }
        },
        Step::ScannedForTimestamp {
            segment,
            from,
            batches: n,
            skipped,
            records,
            target,
        } => format!(
            "scanned {} of {} from byte {from} ({skipped} skipped with maxTimestamp < \
             {target}, {records} records decoded)",
            batches(*n),
            name(segment)
        ),
        Step::SegmentForOffset {
            segment,
            base_offset,
            offset,
        } => format!(
            "segment {}: the last segment whose base offset ({base_offset}) is <= {offset}",
            name(segment)
        ),
        Step::ScannedForOffset {
            from,
            batches: n,
            records,
            offset,
        } => format!(
            "scanned {} from byte {from} to the first batch whose last offset is >= {offset} \
             ({records} records decoded)",
            batches(*n)
        ),
        Step::SegmentMaxTimestamp {
            segment,
            timestamp,
            offset,
            source,
        } => format!(
            "segment {}: max timestamp {timestamp} at offset {offset} ({})",
            name(segment),
            max_source(source)
        ),
        Step::GreatestMaxTimestamp {
            segment,
            offset,
            entry,
        } => format!(
            "segment {} has the greatest (the first one on a tie); offset index floor of offset \
             {offset} is (offset {}, byte {})",
            name(segment),
            entry.offset,
            entry.position
        ),
        Step::ScannedForMaxTimestamp {
            from,
            batches: n,
            max_timestamp,
        } => format!(
            "scanned {} from byte {from} to the first whose maxTimestamp is {max_timestamp}",
            batches(*n)
        ),
        Step::NoEpochCheckpoint => "no leader-epoch-checkpoint: the epochs come from the \
                                    batches' partitionLeaderEpoch (every batch header read)"
            .into(),
        Step::EpochCheckpoint(entries) => format!("leader-epoch-checkpoint: {}", epochs(entries)),
        Step::EpochsFromBatches(entries) => {
            format!("epochs from the batches: {}", epochs(entries))
        }
        Step::EpochCache(change) => super::words::EpochCacheWords(change).to_string(),
        Step::EpochStartInLegacyBatch {
            epoch,
            start_offset,
            magic,
        } => format!(
            "epoch {epoch} starts at offset {start_offset}, in a magic-{magic} batch, which has \
             no leader epoch"
        ),
        Step::EpochStartsAgree { epochs } => {
            format!("the batches at the {epochs} epoch start offsets agree with the checkpoint")
        }
        Step::ReadEverything {
            segments,
            records_decoded,
            log_end,
        } => format!(
            "read every batch of {segments} segments{}: log end offset {log_end}",
            if *records_decoded {
                ", decoding every record"
            } else {
                ""
            }
        ),
    }
}

/// A timestamp with its RFC 3339 form (none for a negative one).
fn describe_ts(ts: i64) -> String {
    if ts < 0 {
        format!("{ts}")
    } else {
        format!("{ts} ({})", rfc3339(ts))
    }
}

/// An answer in one line: `none`, or `offset O (timestamp T) (leader epoch E) in S at byte P`.
fn short(a: &Answer) -> String {
    match a.offset {
        None => "none".into(),
        Some(o) => {
            let mut s = format!("offset {o}");
            if let Some(t) = a.timestamp {
                s += &format!(" (timestamp {t})");
            }
            if let Some(e) = a.leader_epoch {
                s += &format!(" (leader epoch {e})");
            }
            if let (Some(seg), Some(p)) = (&a.segment, a.position()) {
                s += &format!(" in {} at byte {p}", name(seg));
            }
            s
        }
    }
}

/// Entries as `(epoch, start) ...`, or `-`.
fn epoch_pairs(entries: &[EpochEntry]) -> String {
    if entries.is_empty() {
        return "-".into();
    }
    entries
        .iter()
        .map(|x| format!("({}, {})", x.epoch, x.start_offset))
        .collect::<Vec<_>>()
        .join(" ")
}

fn epoch_difference(d: &EpochDifference) -> String {
    format!(
        "leader-epoch-checkpoint and the batches disagree: only in the checkpoint {}, only in \
         the batches {}",
        epoch_pairs(&d.only_in_checkpoint),
        epoch_pairs(&d.only_in_batches)
    )
}

fn disagreement_text(d: &EpochDisagreement) -> String {
    match d {
        EpochDisagreement::AtStart {
            epoch,
            start_offset,
            batch: b,
        } => format!(
            "the checkpoint starts epoch {epoch} at offset {start_offset}, but the batch holding \
             it (offsets {}..{}, byte {}) carries partitionLeaderEpoch {}",
            b.base_offset, b.last_offset, b.position, b.partition_leader_epoch
        ),
        EpochDisagreement::BeforeStart {
            start_offset,
            previous_epoch,
            batch: b,
        } => format!(
            "the batch before offset {start_offset} (offsets {}..{}, byte {}) carries \
             partitionLeaderEpoch {}, but the checkpoint puts epoch {previous_epoch} there",
            b.base_offset, b.last_offset, b.position, b.partition_leader_epoch
        ),
        EpochDisagreement::LastBatchNewer { batch: b } => format!(
            "the last batch (offsets {}..{}, byte {}) carries partitionLeaderEpoch {}, newer \
             than any epoch in the checkpoint",
            b.base_offset, b.last_offset, b.position, b.partition_leader_epoch
        ),
    }
}

/// A note in words (text after `note: `, and the `notes` strings of the NDJSON object).
pub fn note_text(note: &Note) -> String {
    match note {
        Note::ProbablySeconds { target } => format!(
            "the target {target} ms is {}: if you meant seconds, ask for {}",
            rfc3339(*target),
            target.saturating_mul(1000)
        ),
        Note::OffsetOutOfRange {
            offset,
            log_start,
            log_end,
        } => format!(
            "offset {offset} is out of range: the log holds offsets {log_start} (log start) to \
             {} (log end {log_end}); a fetch from it gets OFFSET_OUT_OF_RANGE",
            log_end - 1
        ),
        Note::LogStartBeyondEnd { log_start, log_end } => format!(
            "the log start offset checkpoint ({log_start}) is beyond the log end ({log_end}): \
             Kafka's load deletes every segment of this partition and starts it empty at \
             {log_start}; these are the answers of that empty log"
        ),
        Note::OffsetIsLogEnd { offset } => format!(
            "offset {offset} is the log end offset: no record is there yet (a fetch from it \
             waits for the next one)"
        ),
        Note::OffsetNotInLog { offset, starts_at } => format!(
            "offset {offset} is not in the log (removed by compaction, or a gap): a fetch from \
             it starts at offset {starts_at}"
        ),
        Note::NoRecordFromOffset { offset, log_end } => format!(
            "no record at or after offset {offset} although the log end offset is {log_end}: \
             the segments after it are empty or unreadable"
        ),
        Note::HighWatermark { high_watermark } => format!(
            "replication-offset-checkpoint gives the high watermark {high_watermark}: a \
             consumer (read_uncommitted) asking for the latest offset is given that, not the \
             log end offset"
        ),
        Note::NoSegmentReaches { target } => format!(
            "no segment holds a timestamp >= {}: the broker answers offset -1",
            describe_ts(*target)
        ),
        Note::NoRecordInSegment {
            segment,
            target,
            log_start,
        } => format!(
            "segment {} holds no record with timestamp >= {target} at or after the log start \
             offset {log_start}; the broker searches only that segment and answers offset -1",
            name(segment)
        ),
        Note::MaxTimestampInMagic0 { position } => {
            format!("the batch at byte {position} is magic 0, which has no timestamps")
        }
        Note::MaxTimestampNotInRecords {
            position,
            max_timestamp,
        } => format!(
            "no record of the batch at byte {position} carries its maxTimestamp {max_timestamp}"
        ),
        Note::NoBatchWithMaxTimestamp {
            segment,
            from,
            max_timestamp,
        } => format!(
            "no batch of {} from byte {from} has maxTimestamp {max_timestamp}: the broker \
             answers none",
            name(segment)
        ),
        Note::EpochNotInCache { asked, answered } => format!(
            "epoch {asked} is not in the cache: the answer is for epoch {answered}, the largest \
             below it"
        ),
        Note::EpochCacheEmpty => {
            "the leader-epoch cache is empty: the broker answers UNDEFINED (-1, -1)".into()
        }
        Note::EpochUndefinedAsked => "epoch -1 is UNDEFINED_EPOCH: the broker answers UNDEFINED \
                                      (-1, -1) whatever the cache holds"
            .into(),
        Note::EpochAboveCache { asked, latest } => format!(
            "epoch {asked} is above every epoch in the cache (latest {latest}): the broker \
             answers UNDEFINED (-1, -1)"
        ),
        Note::CheckpointAndLog(d) => format!(
            "leader-epoch-checkpoint and the log disagree: {}",
            disagreement_text(d)
        ),
        Note::CheckpointAndBatches(d) => epoch_difference(d),
        Note::ScanOffsetOutOfRange {
            offset,
            log_start,
            log_end,
        } => format!(
            "offset {offset} is out of range: the log holds offsets {log_start} (log start) to \
             {} (log end {log_end})",
            log_end - 1
        ),
        Note::ScanOffsetIsLogEnd { offset } => format!("offset {offset} is the log end offset"),
        Note::ScanNoRecordFromOffset { offset } => {
            format!("no record at or after offset {offset}")
        }
        Note::ScanNoRecordAtTimestamp { target, log_start } => format!(
            "no record has a timestamp >= {target} at or after the log start offset {log_start}"
        ),
        Note::ScanNoTimestamp => "no record carries a timestamp".into(),
    }
}

/// Why a scan's answer differs, in words (text after `why: `, and `scanReason`).
pub fn scan_reason_text(reason: &ScanReason) -> String {
    match reason {
        ScanReason::OnlyFirstSegmentSearched {
            target,
            segment,
            largest,
            from_mtime,
            indexed,
        } => format!(
            "the broker's rule: it searches only the first segment whose largest timestamp is \
             >= {target}, {} (largest {largest}{}), and answers {} there",
            name(segment),
            if *from_mtime {
                ", the .log mtime: it holds no timestamp"
            } else {
                ""
            },
            short(indexed)
        ),
        ScanReason::NoSegmentReaches => "no segment's largest timestamp reaches the target".into(),
        ScanReason::TimestampIndexesDisagree { by_rule, indexed } => format!(
            "the indexes disagree with the log: the same rule applied to the records without \
             the indexes answers {}, the index-guided lookup {} (stale or damaged \
             .index/.timeindex, e.g. after a crash)",
            by_rule.as_deref().map_or("none".into(), short),
            short(indexed)
        ),
        ScanReason::OffsetIndexesDisagree => "the indexes disagree with the log (stale or \
                                              damaged .index, e.g. after a crash, or an index \
                                              entry pointing into the middle of a batch)"
            .into(),
        ScanReason::LogEndDiffers { log_end } => format!(
            "a scan of every segment finds the log end offset {log_end}: the last segment's \
             offset index, or an earlier segment reaching past the last one's base offset, \
             disagrees with the walk from the index"
        ),
        ScanReason::BatchMaxTimestamps {
            max_timestamp,
            segment,
        } => format!(
            "the batches' maxTimestamp fields disagree with their records: the greatest is \
             {max_timestamp} in {}",
            name(segment)
        ),
        ScanReason::TimeIndexesDisagree => {
            "the time indexes disagree with the log (stale or damaged .timeindex)".into()
        }
        ScanReason::EpochCaches(d) => epoch_difference(d),
    }
}

fn notes_json(notes: &[Note]) -> Vec<String> {
    notes.iter().map(note_text).collect()
}

fn target_text(q: &Query) -> String {
    match *q {
        Query::Offset(o) => format!("offset {o}"),
        Query::Timestamp(t) => format!("timestamp {t} ({})", rfc3339(t)),
        Query::Earliest => "earliest offset".into(),
        Query::Latest => "latest offset".into(),
        Query::MaxTimestamp => "max timestamp".into(),
        Query::EndOffsetForEpoch(e) => format!("end offset of leader epoch {e}"),
    }
}

fn batch_text(b: &BatchFacts) -> String {
    let mut s = format!(
        "batch at byte {}: offsets {}..{}",
        b.position, b.base_offset, b.last_offset
    );
    if let Some(n) = b.count {
        s += &format!(", {n} records");
    }
    s += &format!(
        ", magic {}, {}, {}, maxTimestamp {}",
        b.magic, b.codec, b.timestamp_type, b.max_timestamp
    );
    if b.partition_leader_epoch >= 0 {
        s += &format!(", partitionLeaderEpoch {}", b.partition_leader_epoch);
    }
    if b.is_transactional {
        s += ", transactional";
    }
    if b.is_control {
        s += ", control";
    }
    s
}

fn answer_details(out: &mut impl Write, r: &LookupReport, a: &Answer) -> io::Result<()> {
    if let Some(t) = a.timestamp {
        write!(out, "  timestamp {t} ({})", rfc3339(t))?;
        if let Query::Timestamp(target) = r.query {
            write!(
                out,
                ", {} ms after the target {}",
                t - target,
                rfc3339(target)
            )?;
        }
        writeln!(out)?;
    }
    if let Some(e) = a.leader_epoch {
        writeln!(out, "  leader epoch {e}")?;
    }
    if let Some(seg) = &a.segment {
        writeln!(out, "  segment {}", seg.display())?;
    }
    if let Some(b) = &a.batch {
        writeln!(out, "  {}", batch_text(b))?;
    }
    for n in &a.notes {
        writeln!(out, "  note: {}", note_text(n))?;
    }
    Ok(())
}

fn trace_text(out: &mut impl Write, title: &str, t: &Trace) -> io::Result<()> {
    writeln!(out, "  {title}:")?;
    for s in &t.steps {
        writeln!(out, "    {}", step_text(s))?;
    }
    writeln!(
        out,
        "    read {} bytes of .log and {} bytes of .index/.timeindex; {} batches scanned, {} \
         records decoded",
        t.log_bytes_read, t.index_bytes_read, t.batches_scanned, t.records_decoded
    )
}

/// `topic:partition:offset` (empty offset when there is none, as kafka-get-offsets.sh prints
/// it), then the details, indented. The headline is always the broker's (index-guided) answer;
/// with `--scan`, a different answer from every record is a finding under it, never the headline.
pub fn text(out: &mut impl Write, r: &LookupReport, explain: bool) -> io::Result<()> {
    let shown = &r.answer;
    writeln!(
        out,
        "{}:{}:{}",
        r.topic,
        r.partition,
        shown.offset.map_or(String::new(), |o| o.to_string())
    )?;
    if shown.offset.is_none() {
        writeln!(out, "  none for the {}", target_text(&r.query))?;
    }
    answer_details(out, r, shown)?;
    if let Some(s) = &r.scan {
        if s.differs {
            writeln!(
                out,
                "  FINDING: a scan of every record answers {}; the broker answers {}",
                s.answer
                    .offset
                    .map_or("none".into(), |o| format!("offset {o}")),
                r.answer
                    .offset
                    .map_or("none".into(), |o| format!("offset {o}"))
            )?;
            if let Some(reason) = &s.reason {
                writeln!(out, "  why: {}", scan_reason_text(reason))?;
            }
        } else {
            writeln!(out, "  a scan of every record gives the same answer")?;
        }
    }
    if explain {
        writeln!(
            out,
            "  explain ({}; log start offset {}{}):",
            target_text(&r.query),
            r.log_start_offset,
            r.log_end_offset
                .map_or(String::new(), |e| format!(", log end offset {e}"))
        )?;
        trace_text(out, "index-guided lookup (the broker's answer)", &r.trace)?;
        if let Some(s) = &r.scan {
            if s.differs {
                writeln!(out, "  the scan's answer:")?;
                answer_details(out, r, &s.answer)?;
            }
            trace_text(out, "scan of every record", &s.trace)?;
        }
    }
    Ok(())
}

fn answer_json(a: &Answer) -> Value {
    json!({
        "offset": a.offset,
        "timestamp": a.timestamp,
        "leaderEpoch": a.leader_epoch,
        "segment": a.segment.as_ref().map(|p| p.display().to_string()),
        "position": a.position(),
        "notes": notes_json(&a.notes),
    })
}

fn batch_json(b: &BatchFacts) -> Value {
    json!({
        "position": b.position,
        "baseOffset": b.base_offset,
        "lastOffset": b.last_offset,
        "count": b.count,
        "magic": b.magic,
        "compression": b.codec,
        "timestampType": b.timestamp_type,
        "maxTimestamp": b.max_timestamp,
        "partitionLeaderEpoch": b.partition_leader_epoch,
        "isTransactional": b.is_transactional,
        "isControl": b.is_control,
        "size": b.size,
    })
}

fn trace_json(t: &Trace) -> Value {
    json!({
        "steps": t.steps.iter().map(step_text).collect::<Vec<_>>(),
        "logBytesRead": t.log_bytes_read,
        "indexBytesRead": t.index_bytes_read,
        "batchesScanned": t.batches_scanned,
        "recordsDecoded": t.records_decoded,
    })
}

/// One `lookup` object: `{type, topic, partition, target, offset, timestamp, segment,
/// position, ...}`, always the broker's (index-guided) answer; with a scan, `scanOffset` is the
/// scan's offset, `scan` its whole answer, and `scanDiffers` whether it is a finding.
pub fn json(out: &mut impl Write, r: &LookupReport, explain: bool) -> io::Result<()> {
    let shown = &r.answer;
    let mut target = json!({"kind": r.query.kind()});
    if let Some(v) = r.query.value() {
        target["value"] = json!(v);
    }
    let mut v = json!({
        "type": "lookup",
        "topic": r.topic,
        "partition": r.partition,
        "target": target,
        "offset": shown.offset,
        "timestamp": shown.timestamp,
        "segment": shown.segment.as_ref().map(|p| p.display().to_string()),
        "position": shown.position(),
        "leaderEpoch": shown.leader_epoch,
        "logStartOffset": r.log_start_offset,
        "logEndOffset": r.log_end_offset,
        "batch": shown.batch.as_ref().map(batch_json),
        "notes": notes_json(&shown.notes),
    });
    if let Some(s) = &r.scan {
        v["scanOffset"] = json!(s.answer.offset);
        v["scan"] = answer_json(&s.answer);
        v["scanDiffers"] = json!(s.differs);
        v["scanReason"] = json!(s.reason.as_ref().map(scan_reason_text));
    }
    if explain {
        v["explain"] = trace_json(&r.trace);
        if let Some(s) = &r.scan {
            v["scanExplain"] = trace_json(&s.trace);
        }
    }
    serde_json::to_writer(&mut *out, &v)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use kseg_analysis::lookup::explain::FileProblem;
    use kseg_analysis::lookup::EpochCacheChange;
    use kseg_format::index::OffsetEntry;
    use kseg_format::log::TailKind;

    fn seg(name: &str) -> PathBuf {
        PathBuf::from("d/events-0").join(name)
    }

    fn entry(epoch: i32, start_offset: i64) -> EpochEntry {
        EpochEntry {
            epoch,
            start_offset,
        }
    }

    /// The wording of the steps that only damaged data shows (no golden holds them), as
    /// `--explain` printed them when the algorithm made the text.
    #[test]
    fn steps_of_damaged_data_read_as_before() {
        let cases = [
            (
                Step::InvalidBytes {
                    segment: seg("0.log"),
                    position: 0,
                    length: 506,
                    reason: kseg_format::log::FrameProblem::ChecksumMismatch,
                },
                "d/events-0/0.log: byte 0: 506 invalid bytes skipped (checksum mismatch and no \
                 batch follows it)",
            ),
            (
                Step::RecordsUndecodable {
                    segment: seg("182.log"),
                    position: 75,
                    batch_position: 0,
                    message: "lz4: corrupted".into(),
                },
                "d/events-0/182.log: byte 75: records of the batch at byte 0 cannot be decoded: \
                 lz4: corrupted",
            ),
            (
                Step::UndecodableBatch {
                    segment: seg("182.log"),
                    position: 80,
                    message: "bad".into(),
                },
                "d/events-0/182.log: byte 80: undecodable batch skipped: bad",
            ),
            (
                Step::Tail {
                    segment: seg("182.log"),
                    position: 231,
                    length: 37,
                    kind: TailKind::Partial { declared: 5012 },
                },
                "d/events-0/182.log: byte 231: torn tail: batch declares 5012 bytes but only 37 \
                 remain",
            ),
            (
                Step::IndexPastLogEnd {
                    segment: seg("61.log"),
                    position: 65535,
                    log_len: 3025,
                },
                "61.log: the index points at byte 65535, past the end of the log (3025 bytes): \
                 starting at byte 0",
            ),
            (
                Step::IndexPastLogEnd {
                    segment: seg("61.log"),
                    position: 3025,
                    log_len: 3025,
                },
                "61.log: the index points at byte 3025, at the end of the log (3025 bytes): \
                 starting at byte 0",
            ),
            (
                Step::IndexMissing {
                    segment: seg("0.log"),
                    index: ".index",
                },
                "0.log: no .index beside it: lookups in it start at byte 0",
            ),
            (
                Step::IndexUnreadable {
                    index: seg("0.index"),
                    error: "Is a directory".into(),
                },
                "d/events-0/0.index: cannot read it (Is a directory); treated as empty",
            ),
            (
                Step::CheckpointIgnored {
                    file: PathBuf::from("d/log-start-offset-checkpoint"),
                    problem: FileProblem::Decode {
                        position: 4,
                        message: "malformed checkpoint line \"events 1 nine\"".into(),
                    },
                },
                "d/log-start-offset-checkpoint: byte 4: malformed checkpoint line \"events 1 \
                 nine\"; ignored",
            ),
            (
                Step::CheckpointIgnored {
                    file: PathBuf::from("d/replication-offset-checkpoint"),
                    problem: FileProblem::NotUtf8,
                },
                "d/replication-offset-checkpoint: not UTF-8 text; ignored",
            ),
            (
                Step::SegmentMaxTimestamp {
                    segment: seg("28.log"),
                    timestamp: -1,
                    offset: 28,
                    source: SegmentMaxSource::NoTimeIndex,
                },
                "segment 28.log: max timestamp -1 at offset 28 (no .timeindex file: the broker \
                 creates it empty and knows no timestamp)",
            ),
            (
                Step::GreatestMaxTimestamp {
                    segment: seg("28.log"),
                    offset: 30,
                    entry: OffsetEntry {
                        relative_offset: 1,
                        offset: 29,
                        position: 140,
                    },
                },
                "segment 28.log has the greatest (the first one on a tie); offset index floor of \
                 offset 30 is (offset 29, byte 140)",
            ),
            (
                Step::EpochStartInLegacyBatch {
                    epoch: 0,
                    start_offset: 0,
                    magic: 0,
                },
                "epoch 0 starts at offset 0, in a magic-0 batch, which has no leader epoch",
            ),
            (
                Step::EpochCache(EpochCacheChange::FoldedIntoLogStart {
                    log_start: 60,
                    epoch: 1,
                }),
                "entries at or before the log start offset 60 fold into (1, 60)",
            ),
            (
                Step::EpochCache(EpochCacheChange::Conflicts {
                    entry: entry(1, 50),
                    removed: vec![entry(3, 40), entry(2, 30)],
                }),
                "entry (1, 50) removes the earlier entries it conflicts with: 3 40, 2 30",
            ),
            (
                Step::EpochCheckpoint(vec![entry(0, 0), entry(2, 54)]),
                "leader-epoch-checkpoint: epoch 0 from 0, epoch 2 from 54",
            ),
            (
                Step::EpochsFromBatches(Vec::new()),
                "epochs from the batches: (none)",
            ),
            (
                Step::NoEpochCheckpoint,
                "no leader-epoch-checkpoint: the epochs come from the batches' \
                 partitionLeaderEpoch (every batch header read)",
            ),
            (
                Step::ScannedForOffset {
                    from: 0,
                    batches: 1,
                    records: 2,
                    offset: 3,
                },
                "scanned 1 batch from byte 0 to the first batch whose last offset is >= 3 (2 \
                 records decoded)",
            ),
        ];
        for (step, text) in cases {
            assert_eq!(step_text(&step), text, "{step:?}");
        }
    }

    fn batch(base_offset: i64, last_offset: i64, position: u64, epoch: i32) -> BatchFacts {
        BatchFacts {
            position,
            base_offset,
            last_offset,
            count: Some((last_offset - base_offset + 1) as i32),
            magic: 2,
            codec: "none",
            timestamp_type: "CreateTime",
            max_timestamp: 1_700_000_000_000,
            partition_leader_epoch: epoch,
            is_transactional: false,
            is_control: false,
            size: 80,
        }
    }

    /// The wording of every note kind (no golden shows them), as the analysis worded them when
    /// it made the text.
    #[test]
    fn notes_read_as_before() {
        let cases = [
            (
                Note::ProbablySeconds {
                    target: 1_700_000_000,
                },
                "the target 1700000000 ms is 1970-01-20T16:13:20.000Z: if you meant seconds, ask \
                 for 1700000000000",
            ),
            (
                Note::OffsetOutOfRange {
                    offset: 90,
                    log_start: 10,
                    log_end: 60,
                },
                "offset 90 is out of range: the log holds offsets 10 (log start) to 59 (log end \
                 60); a fetch from it gets OFFSET_OUT_OF_RANGE",
            ),
            (
                Note::OffsetIsLogEnd { offset: 60 },
                "offset 60 is the log end offset: no record is there yet (a fetch from it waits \
                 for the next one)",
            ),
            (
                Note::OffsetNotInLog {
                    offset: 7,
                    starts_at: 9,
                },
                "offset 7 is not in the log (removed by compaction, or a gap): a fetch from it \
                 starts at offset 9",
            ),
            (
                Note::NoRecordFromOffset {
                    offset: 50,
                    log_end: 60,
                },
                "no record at or after offset 50 although the log end offset is 60: the segments \
                 after it are empty or unreadable",
            ),
            (
                Note::HighWatermark { high_watermark: 58 },
                "replication-offset-checkpoint gives the high watermark 58: a consumer \
                 (read_uncommitted) asking for the latest offset is given that, not the log end \
                 offset",
            ),
            (
                Note::NoSegmentReaches {
                    target: 1_700_000_000_000,
                },
                "no segment holds a timestamp >= 1700000000000 (2023-11-14T22:13:20.000Z): the \
                 broker answers offset -1",
            ),
            (
                Note::NoSegmentReaches { target: -5 },
                "no segment holds a timestamp >= -5: the broker answers offset -1",
            ),
            (
                Note::NoRecordInSegment {
                    segment: seg("28.log"),
                    target: 1_700_000_000_000,
                    log_start: 30,
                },
                "segment 28.log holds no record with timestamp >= 1700000000000 at or after the \
                 log start offset 30; the broker searches only that segment and answers offset -1",
            ),
            (
                Note::MaxTimestampInMagic0 { position: 140 },
                "the batch at byte 140 is magic 0, which has no timestamps",
            ),
            (
                Note::MaxTimestampNotInRecords {
                    position: 140,
                    max_timestamp: 1_700_000_000_000,
                },
                "no record of the batch at byte 140 carries its maxTimestamp 1700000000000",
            ),
            (
                Note::NoBatchWithMaxTimestamp {
                    segment: seg("28.log"),
                    from: 140,
                    max_timestamp: -1,
                },
                "no batch of 28.log from byte 140 has maxTimestamp -1: the broker answers none",
            ),
            (
                Note::EpochNotInCache {
                    asked: 3,
                    answered: 2,
                },
                "epoch 3 is not in the cache: the answer is for epoch 2, the largest below it",
            ),
            (
                Note::EpochCacheEmpty,
                "the leader-epoch cache is empty: the broker answers UNDEFINED (-1, -1)",
            ),
            (
                Note::EpochUndefinedAsked,
                "epoch -1 is UNDEFINED_EPOCH: the broker answers UNDEFINED (-1, -1) whatever the \
                 cache holds",
            ),
            (
                Note::EpochAboveCache {
                    asked: 9,
                    latest: 4,
                },
                "epoch 9 is above every epoch in the cache (latest 4): the broker answers \
                 UNDEFINED (-1, -1)",
            ),
            (
                Note::CheckpointAndLog(EpochDisagreement::AtStart {
                    epoch: 2,
                    start_offset: 54,
                    batch: batch(50, 57, 3025, 1),
                }),
                "leader-epoch-checkpoint and the log disagree: the checkpoint starts epoch 2 at \
                 offset 54, but the batch holding it (offsets 50..57, byte 3025) carries \
                 partitionLeaderEpoch 1",
            ),
            (
                Note::CheckpointAndLog(EpochDisagreement::BeforeStart {
                    start_offset: 54,
                    previous_epoch: 0,
                    batch: batch(50, 53, 3025, 2),
                }),
                "leader-epoch-checkpoint and the log disagree: the batch before offset 54 \
                 (offsets 50..53, byte 3025) carries partitionLeaderEpoch 2, but the checkpoint \
                 puts epoch 0 there",
            ),
            (
                Note::CheckpointAndLog(EpochDisagreement::LastBatchNewer {
                    batch: batch(58, 59, 3200, 5),
                }),
                "leader-epoch-checkpoint and the log disagree: the last batch (offsets 58..59, \
                 byte 3200) carries partitionLeaderEpoch 5, newer than any epoch in the \
                 checkpoint",
            ),
            (
                Note::CheckpointAndBatches(EpochDifference {
                    only_in_checkpoint: vec![entry(1, 20), entry(2, 54)],
                    only_in_batches: Vec::new(),
                }),
                "leader-epoch-checkpoint and the batches disagree: only in the checkpoint (1, 20) \
                 (2, 54), only in the batches -",
            ),
            (
                Note::ScanOffsetOutOfRange {
                    offset: -1,
                    log_start: 0,
                    log_end: 0,
                },
                "offset -1 is out of range: the log holds offsets 0 (log start) to -1 (log end 0)",
            ),
            (
                Note::ScanOffsetIsLogEnd { offset: 60 },
                "offset 60 is the log end offset",
            ),
            (
                Note::ScanNoRecordFromOffset { offset: 50 },
                "no record at or after offset 50",
            ),
            (
                Note::ScanNoRecordAtTimestamp {
                    target: 1_700_000_000_000,
                    log_start: 30,
                },
                "no record has a timestamp >= 1700000000000 at or after the log start offset 30",
            ),
            (Note::ScanNoTimestamp, "no record carries a timestamp"),
        ];
        for (note, text) in cases {
            assert_eq!(note_text(&note), text, "{note:?}");
        }
    }

    /// The wording of every scan reason (only one kind reaches a test), as the scan worded them
    /// when it made the text.
    #[test]
    fn scan_reasons_read_as_before() {
        let found = Answer {
            offset: Some(52),
            timestamp: Some(1_700_000_000_123),
            leader_epoch: Some(1),
            segment: Some(seg("28.log")),
            batch: Some(batch(50, 57, 3025, 1)),
            notes: Vec::new(),
        };
        let cases = [
            (
                ScanReason::OnlyFirstSegmentSearched {
                    target: 1_700_000_000_000,
                    segment: seg("0.log"),
                    largest: 1_700_000_000_500,
                    from_mtime: false,
                    indexed: Box::new(found.clone()),
                },
                "the broker's rule: it searches only the first segment whose largest timestamp is \
                 >= 1700000000000, 0.log (largest 1700000000500), and answers offset 52 \
                 (timestamp 1700000000123) (leader epoch 1) in 28.log at byte 3025 there",
            ),
            (
                ScanReason::OnlyFirstSegmentSearched {
                    target: 1_700_000_000_000,
                    segment: seg("0.log"),
                    largest: 1_764_000_000_000,
                    from_mtime: true,
                    indexed: Box::default(),
                },
                "the broker's rule: it searches only the first segment whose largest timestamp is \
                 >= 1700000000000, 0.log (largest 1764000000000, the .log mtime: it holds no \
                 timestamp), and answers none there",
            ),
            (
                ScanReason::NoSegmentReaches,
                "no segment's largest timestamp reaches the target",
            ),
            (
                ScanReason::TimestampIndexesDisagree {
                    by_rule: Some(Box::new(found.clone())),
                    indexed: Box::new(Answer {
                        offset: Some(60),
                        ..Default::default()
                    }),
                },
                "the indexes disagree with the log: the same rule applied to the records without \
                 the indexes answers offset 52 (timestamp 1700000000123) (leader epoch 1) in \
                 28.log at byte 3025, the index-guided lookup offset 60 (stale or damaged \
                 .index/.timeindex, e.g. after a crash)",
            ),
            (
                ScanReason::TimestampIndexesDisagree {
                    by_rule: None,
                    indexed: Box::new(found),
                },
                "the indexes disagree with the log: the same rule applied to the records without \
                 the indexes answers none, the index-guided lookup offset 52 (timestamp \
                 1700000000123) (leader epoch 1) in 28.log at byte 3025 (stale or damaged \
                 .index/.timeindex, e.g. after a crash)",
            ),
            (
                ScanReason::OffsetIndexesDisagree,
                "the indexes disagree with the log (stale or damaged .index, e.g. after a crash, \
                 or an index entry pointing into the middle of a batch)",
            ),
            (
                ScanReason::LogEndDiffers { log_end: 61 },
                "a scan of every segment finds the log end offset 61: the last segment's offset \
                 index, or an earlier segment reaching past the last one's base offset, disagrees \
                 with the walk from the index",
            ),
            (
                ScanReason::BatchMaxTimestamps {
                    max_timestamp: 1_700_000_009_999,
                    segment: seg("28.log"),
                },
                "the batches' maxTimestamp fields disagree with their records: the greatest is \
                 1700000009999 in 28.log",
            ),
            (
                ScanReason::TimeIndexesDisagree,
                "the time indexes disagree with the log (stale or damaged .timeindex)",
            ),
            (
                ScanReason::EpochCaches(EpochDifference {
                    only_in_checkpoint: Vec::new(),
                    only_in_batches: vec![entry(3, 58)],
                }),
                "leader-epoch-checkpoint and the batches disagree: only in the checkpoint -, only \
                 in the batches (3, 58)",
            ),
        ];
        for (reason, text) in cases {
            assert_eq!(scan_reason_text(&reason), text, "{reason:?}");
        }
    }
}
