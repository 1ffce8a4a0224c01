//! `kseg verify-index` output: findings grouped by partition, the recovery preview, a summary.

use std::fmt;
use std::io::{self, Write};

use serde_json::json;

use super::table::{col, Col, Column, Grid, Layout};
use super::words::{EpochCacheWords, LoadWords, StaleWords};
use kseg_analysis::checkpoint_read::{CheckpointOutcome, RootCheckpointFailure};
use kseg_analysis::recovery::TruncateReason;
use kseg_analysis::verify::{
    CheckpointKind, Finding, IndexWhat, Message, RecoveryPreview, Severity,
};
use kseg_storage::source::VANISHED;
use std::path::PathBuf;

/// A finding's [`Message`] in words.
pub struct Worded<'a>(pub &'a Message);

impl fmt::Display for Worded<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Message::Vanished => f.write_str(VANISHED),
            Message::CannotRead(e) => write!(f, "cannot read: {e}"),
            Message::NotListed {
                more,
                check,
                listed,
            } => write!(
                f,
                "{more} more {check} findings in this file are not listed (first {listed} shown)"
            ),
            Message::LoadCleanup(reason) => LoadWords(reason).fmt(f),
            Message::Unrecognised(text) => f.write_str(text),
            Message::LiveBroker { pids } => {
                let pids: Vec<String> = pids.iter().map(u32::to_string).collect();
                write!(
                    f,
                    ".lock is held (process {}): a broker is running on this log dir. No \
                     clean-shutdown marker, preallocated active indexes and a tail still being \
                     written are its normal state, not a crash; the recovery preview is what \
                     Kafka would do if it stopped now without shutting down cleanly",
                    pids.join(", ")
                )
            }
            Message::NoCleanShutdown => f.write_str(
                "no .kafka_cleanshutdown marker: the broker did not shut down cleanly (or is \
                 running); Kafka will recover every partition from its recovery point",
            ),
            Message::UnreadableCheckpoint(e) => write!(f, "unreadable checkpoint: {e}"),
            Message::CheckpointRead(c) => CheckpointReadWords(c).fmt(f),
            Message::IncompleteCopy => f.write_str(
                "an incomplete copy: kseg recover was writing this dir and did not finish \
                 (killed, or failed), so its files are not what Kafka's load leaves; do not \
                 start Kafka on it. Rerun the same kseg recover command: it removes this copy \
                 and writes it again",
            ),
            Message::OverflowUnsplittable {
                offset,
                position,
                base,
            } => write!(
                f,
                "recovering this segment meets offset {offset} at byte {position}, which no \
                 offset relative to base {base} holds (LogSegmentOffsetOverflowException), while \
                 the segment's last offset fits: LocalLog.splitOverflowedSegment refuses to \
                 split it (IllegalArgumentException) and the broker does not start"
            ),
            Message::MarkerBesideBadEnd { position, declared } => write!(
                f,
                "the clean-shutdown marker spares this active segment from recovery, but the \
                 bytes at {position} declare a batch of {declared} bytes (below 14): Kafka's \
                 load (LogLoader.recoverLog, LogSegment.readNextOffset) throws \
                 CorruptRecordException and the broker does not start"
            ),
            Message::MissingOffsetIndex => f.write_str(
                "segment has no offset index file; Kafka recovers the segment when it loads it \
                 (re-validating every batch) and rebuilds both indexes",
            ),
            Message::MissingTimeIndex { rebuilt: true } => f.write_str(
                "segment has no time index file; Kafka's recovery of the segment rebuilds it",
            ),
            Message::MissingTimeIndex { rebuilt: false } => f.write_str(
                "segment has no time index file; Kafka creates it empty without reading the log, \
                 so lookups by time in this segment use the file's mtime",
            ),
            Message::AbortsWithoutTxnIndex { markers, certain } => write!(
                f,
                "{markers} ABORT markers in the log ({certain} after transactional data in this \
                 segment) but no .txnindex file"
            ),
            Message::AcknowledgedLoss {
                records,
                first_offset,
                last_offset,
                high_watermark,
            } => write!(
                f,
                "recovery drops at least {records} acknowledged records (offsets \
                 {first_offset}..{last_offset}, below the high watermark {high_watermark} of \
                 replication-offset-checkpoint)"
            ),
            Message::StaleSnapshot(stale) => write!(
                f,
                "{} (segment {:020}'s rebuilt .txnindex)",
                StaleWords(stale),
                stale.segment_base
            ),
            Message::CheckpointBeyondEnd {
                checkpoint,
                value,
                log_end,
            } => write!(
                f,
                "{} checkpoint {value} is beyond the log end offset {log_end}",
                checkpoint_name(*checkpoint)
            ),
            Message::LogStartBeyondEnd {
                log_start,
                log_end,
                segments,
                records,
            } => write!(
                f,
                "the log start offset checkpoint {log_start} is beyond the log end {log_end}: \
                 Kafka's load deletes all {segments} segments of this partition ({records} \
                 records) and starts it empty at offset {log_start} \
                 (LogLoader.deleteSegmentsIfLogStartGreaterThanLogEnd)"
            ),
            Message::CheckpointBeforeStart {
                checkpoint,
                value,
                log_start,
            } => write!(
                f,
                "{} checkpoint {value} is before the log start offset {log_start}",
                checkpoint_name(*checkpoint)
            ),
            Message::TxnIndexPartialEntry => {
                f.write_str("partial trailing entry (Kafka ignores it)")
            }
            Message::TxnIndexEntry(e) => f.write_str(&e.message),
            Message::TxnIndexBelowBase { last_offset, base } => write!(
                f,
                "aborted txn last offset {last_offset} is below the segment base {base}: Kafka's \
                 sanity check fails at load, so it recovers the segment and rebuilds this index"
            ),
            Message::AbortNotIndexed {
                producer_id,
                offset,
            } => write!(
                f,
                "ABORT marker of producer {producer_id} at offset {offset} is not in the \
                 .txnindex"
            ),
            Message::IndexedAbortWithoutMarker {
                producer_id,
                offset,
            } => write!(
                f,
                ".txnindex lists an aborted transaction of producer {producer_id} ending at \
                 {offset}, but the log has no ABORT marker there"
            ),
            Message::CorruptSnapshot(e) => write!(
                f,
                "corrupt snapshot: {}; Kafka deletes it at load and rebuilds producer state from \
                 an older snapshot or the log",
                e.message
            ),
            Message::SnapshotCrc => f.write_str(
                "snapshot CRC does not match its contents; Kafka deletes it at load and rebuilds \
                 producer state from an older snapshot or the log",
            ),
            Message::SnapshotBeyondEnd { at, log_end } => write!(
                f,
                "snapshot at offset {at} is beyond the log end offset {log_end}; Kafka deletes \
                 it at load"
            ),
            Message::SnapshotProducerPastOffset {
                producer_id,
                last_offset,
            } => write!(
                f,
                "producer {producer_id} has last offset {last_offset} at or after the snapshot \
                 offset"
            ),
            Message::SnapshotNoSuchBatch {
                producer_id,
                last_offset,
            } => write!(
                f,
                "producer {producer_id}'s last batch should end at offset {last_offset}, but no \
                 batch in the log ends there"
            ),
            Message::EpochDecrease { epoch, before } => write!(
                f,
                "batch carries partitionLeaderEpoch {epoch} after batches of epoch {before}: \
                 epochs never go back in a log (Kafka's epoch cache ignores it)"
            ),
            Message::NoEpochCheckpoint { starts } => {
                let starts: Vec<String> = starts
                    .iter()
                    .map(|(epoch, offset)| format!("{epoch} from {offset}"))
                    .collect();
                write!(
                    f,
                    "no leader-epoch-checkpoint although the batches carry epochs {}: Kafka \
                     rebuilds the cache only from segments it recovers, so OffsetForLeaderEpoch \
                     cannot answer for the others",
                    starts.join(", ")
                )
            }
            Message::UnreadableEpochCheckpoint(e) => write!(
                f,
                "unreadable leader-epoch-checkpoint: {} (Kafka cannot load this partition's log)",
                e.message
            ),
            Message::EpochEntryOrder {
                epoch,
                start,
                prev_epoch,
                prev_start,
            } => write!(
                f,
                "entry ({epoch}, {start}) does not follow ({prev_epoch}, {prev_start}): when \
                 Kafka loads the cache, each entry removes the earlier ones with an epoch or \
                 start offset not below its own"
            ),
            Message::EpochEntryInvalid { epoch, start } => write!(
                f,
                "entry ({epoch}, {start}) is invalid: Kafka's epoch cache refuses it and the log \
                 fails to load"
            ),
            Message::EpochCache(change) => write!(f, "{}", EpochCacheWords(change)),
            Message::EpochMissing {
                epoch,
                offset,
                recovered: true,
            } => write!(
                f,
                "the checkpoint lacks epoch {epoch}, which the batches start at offset {offset}: \
                 Kafka's recovery of this segment adds it"
            ),
            Message::EpochMissing {
                epoch,
                offset,
                recovered: false,
            } => write!(
                f,
                "the checkpoint lacks epoch {epoch}, which the batches start at offset {offset}: \
                 OffsetForLeaderEpoch answers for it as for an earlier epoch"
            ),
            Message::EpochStartsLate {
                epoch,
                cached,
                offset,
            } => write!(
                f,
                "the checkpoint starts epoch {epoch} at offset {cached}, but batches carry it \
                 from offset {offset}: OffsetForLeaderEpoch ends the previous epoch too late"
            ),
            Message::EpochStartsEarly {
                epoch,
                cached,
                offset,
            } => write!(
                f,
                "the checkpoint starts epoch {epoch} at offset {cached}, the first batch \
                 carrying it is at {offset} (the records between were removed, e.g. by \
                 compaction)"
            ),
            Message::OffsetEntryOrder {
                offset,
                position,
                prev_offset,
                prev_position,
            } => write!(
                f,
                "entry (offset {offset}, position {position}) does not follow (offset \
                 {prev_offset}, position {prev_position})"
            ),
            Message::TimeEntryOrder {
                timestamp,
                offset,
                prev_timestamp,
                prev_offset,
            } => write!(
                f,
                "entry (timestamp {timestamp}, offset {offset}) does not follow (timestamp \
                 {prev_timestamp}, offset {prev_offset})"
            ),
            Message::IndexSize { len, entry_size } => {
                write!(f, "file length {len} is not a multiple of {entry_size}")
            }
            Message::IndexSanity(e) => write!(f, "Kafka's sanity check fails: {e}"),
            Message::IndexPreallocated {
                what,
                len,
                real_entries,
                active,
            } => write!(
                f,
                "preallocated {} ({len} bytes) with {real_entries} real entries and a \
                 zero-filled tail: the broker did not close this segment{}",
                match what {
                    IndexWhat::Offsets => "index",
                    IndexWhat::Times => "time index",
                },
                if *active {
                    " (normal for the active segment after a crash)"
                } else {
                    ""
                }
            ),
            Message::NotBatchStart { position } => {
                write!(f, "entry position {position} is not the start of a batch")
            }
            Message::WrongOffset {
                offset,
                position,
                batch_base,
                batch_last,
            } => write!(
                f,
                "entry says offset {offset} but the batch at position {position} holds \
                 {batch_base}..{batch_last}"
            ),
            Message::EntryBeyondLog {
                position,
                valid_end,
            } => {
                if position == valid_end {
                    write!(
                        f,
                        "entry points to position {position}, the valid end of the log: no \
                         batch starts there"
                    )
                } else {
                    write!(
                        f,
                        "entry points to position {position}, past the valid end of the log at \
                         {valid_end}"
                    )
                }
            }
            Message::InsideBatchEntries(n) => write!(
                f,
                "{n} entries name an offset inside the batch at their position rather than its \
                 last offset (Kafka up to 1.1 indexed the first offset of each append): valid \
                 for lookups"
            ),
            Message::MultiBatchEntries(n) => write!(
                f,
                "{n} entries index a multi-batch append (written by a broker before \
                 3.9.1/4.0.1/4.1, by a follower, or by the log cleaner): valid"
            ),
            Message::TimeEntryNotInBatch { offset } => {
                write!(f, "entry offset {offset} is not in any batch")
            }
            Message::TimeEntryInsideBatch {
                timestamp,
                offset,
                batch_base,
                batch_last,
                max_timestamp,
            } => write!(
                f,
                "entry (timestamp {timestamp}, offset {offset}) points inside batch \
                 {batch_base}..{batch_last} whose max timestamp is {max_timestamp}"
            ),
            Message::TimeEntryWrong {
                timestamp,
                offset,
                max_timestamp,
                max_so_far,
            } => write!(
                f,
                "entry timestamp {timestamp} but the batch ending at {offset} has max timestamp \
                 {max_timestamp} and the maximum so far is {max_so_far}"
            ),
            Message::TimeEntryPastLog { offset } => {
                write!(f, "entry offset {offset} is past the last batch of the log")
            }
            Message::RecordOffsetEntries(n) => write!(
                f,
                "{n} entries store a record offset inside the batch (written by a broker up to \
                 3.6): valid"
            ),
            Message::NoClosingTimeEntry { max_so_far, last } => write!(
                f,
                "the segment's largest timestamp {max_so_far} has no entry (Kafka appends one at \
                 roll); lookups by time will use {}",
                last.map_or("the file's mtime".to_string(), |t| t.to_string())
            ),
            Message::BaseBelowName { base, first } => write!(
                f,
                "file name says base offset {base} but the first batch starts at {first}"
            ),
            Message::BaseAboveName { base, first } => write!(
                f,
                "first batch starts at {first} above the file name's base offset {base} \
                 (compaction, DeleteRecords or an emptied segment)"
            ),
            Message::SegmentOverlap { base, prev_last } => write!(
                f,
                "segment base offset {base} is not above the previous segment's last offset \
                 {prev_last}"
            ),
            Message::OffsetsMissing { from, to } => {
                write!(f, "offsets {from}..{to} are missing between segments")
            }
            Message::OffsetOrder {
                base_offset,
                prev_last,
            } => write!(
                f,
                "batch starts at offset {base_offset} but the previous batch ended at {prev_last}"
            ),
            Message::OffsetOverflow { offset, base } => write!(
                f,
                "offset {offset} cannot be stored relative to base {base} (Kafka splits the \
                 segment at load: LogSegmentOffsetOverflowException)"
            ),
            Message::IndexRebuildAtLoad(invalid) => write!(
                f,
                "{invalid} while recovering this segment at load (no .index, or a .txnindex \
                 failing its sanity check), where the exception is not caught: Kafka fails to \
                 load the partition"
            ),
            Message::IndexRebuildEmpties(invalid) => {
                write!(f, "{}", TruncateReason::IndexRebuild(*invalid))
            }
            Message::CrcMismatch => f.write_str("stored CRC does not match the batch bytes"),
            Message::UnknownMagic(magic) => write!(
                f,
                "magic byte {magic}: Kafka reads the batch with the v2 layout (and its recovery \
                 keeps it), but no Kafka version writes it"
            ),
            Message::TornTail(p) => write!(
                f,
                "{}; Kafka's recovery truncates the log here",
                p.message()
            ),
            Message::ZeroTail {
                length,
                preallocate,
            } => write!(
                f,
                "{length} zero bytes after the last batch ({}); Kafka stops reading here",
                if *preallocate {
                    "preallocate=true: the preallocated rest of a segment not closed"
                } else {
                    "preallocate=false: a torn write, or a file extended without its data"
                }
            ),
            Message::InvalidBytes(p) => f.write_str(&p.message()),
        }
    }
}

fn checkpoint_name(c: CheckpointKind) -> &'static str {
    match c {
        CheckpointKind::RecoveryPoint => "recovery point",
        CheckpointKind::LogStart => "log start offset",
        CheckpointKind::HighWatermark => "high watermark",
    }
}

/// A finding's message in words.
pub fn message(f: &Finding) -> String {
    Worded(&f.message).to_string()
}

/// What Kafka does with a root checkpoint file it cannot read, in words: its own message,
/// then the consequence.
pub struct CheckpointReadWords<'a>(pub &'a RootCheckpointFailure);

impl fmt::Display for CheckpointReadWords<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0;
        let what = match c.outcome {
            CheckpointOutcome::LogDirOffline => {
                "Kafka will not start this log dir: it takes it offline (LogDirFailureChannel), \
                 and the broker halts when it is its only log dir or holds the metadata log"
            }
            CheckpointOutcome::BrokerDies => {
                "Kafka allocates the declared count before reading: the broker dies at startup \
                 (with the default 1 GiB heap, or any heap for a count this large)"
            }
            CheckpointOutcome::PartitionsNotServed => {
                "Kafka will not serve this log dir: the broker starts, but every partition's \
                 move to leader or follower fails on it (\"Unable to start fetching\")"
            }
            CheckpointOutcome::ResetWithWarning => match c.kind {
                CheckpointKind::RecoveryPoint => {
                    "Kafka logs a WARN and resets every recovery point of this log dir to 0 \
                     (without a clean-shutdown marker it then recovers every segment)"
                }
                CheckpointKind::LogStart | CheckpointKind::HighWatermark => {
                    "Kafka logs a WARN and resets every log start offset of this log dir to \
                     its first segment's base offset"
                }
            },
        };
        write!(
            f,
            "{} checkpoint: Kafka reads \"{}\"; {what}",
            checkpoint_name(c.kind),
            c.kafka_message()
        )
    }
}

/// One log dir's answer: will Kafka start on it, and what acknowledged data is at risk.
pub struct Verdict<'r> {
    pub log_dir: PathBuf,
    pub partitions: Vec<&'r RecoveryPreview>,
    /// A root checkpoint file that stops Kafka from serving the log dir.
    pub dir_failure: Option<&'r RootCheckpointFailure>,
}

impl Verdict<'_> {
    /// The first partition whose load throws.
    fn failure(&self) -> Option<&RecoveryPreview> {
        self.partitions
            .iter()
            .copied()
            .find(|p| p.load_failure.is_some())
    }
}

/// `{"type":"verdict"}`: one per log dir, before every other line.
pub fn json_verdict(out: &mut impl Write, v: &Verdict<'_>) -> io::Result<()> {
    let failure = v.failure().and_then(|p| p.load_failure.as_ref());
    let (reason, file, position) = match (v.dir_failure, failure) {
        (Some(d), _) => (
            Some(CheckpointReadWords(d).to_string()),
            Some(d.path.display().to_string()),
            Some(d.error.position as u64),
        ),
        (None, Some(f)) => (
            Some(Worded(&f.reason).to_string()),
            Some(f.file.clone()),
            Some(f.position),
        ),
        (None, None) => (None, None, None),
    };
    let at_risk: Vec<serde_json::Value> = v
        .partitions
        .iter()
        .filter(|p| {
            p.acknowledged_lost.is_some() || p.possibly_acknowledged.is_some() || p.unreadable_end
        })
        .map(|p| {
            json!({"partition": p.partition, "highWatermark": p.high_watermark,
                "acknowledgedLost": p.acknowledged_lost, "possiblyAcknowledged": p.possibly_acknowledged,
                "unreadableEnd": p.unreadable_end})
        })
        .collect();
    let j = json!({"type": "verdict", "logDir": v.log_dir.display().to_string(),
        "kafkaStarts": reason.is_none(), "reason": reason, "file": file,
        "position": position, "atRisk": at_risk});
    serde_json::to_writer(&mut *out, &j).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// "Will Kafka start on DIR: yes / NO (...)", then the acknowledged records at risk.
pub fn verdict_text(out: &mut impl Write, v: &Verdict<'_>) -> io::Result<()> {
    let dir = escape(&v.log_dir.display().to_string());
    let partition_failure = v.failure().and_then(|p| p.load_failure.as_ref());
    match (v.dir_failure, partition_failure) {
        (Some(d), _) => writeln!(
            out,
            "Will Kafka start on {dir}: NO ({}; {} at byte {})",
            escape(&CheckpointReadWords(d).to_string()),
            escape(&d.path.display().to_string()),
            d.error.position
        )?,
        (None, None) => writeln!(out, "Will Kafka start on {dir}: yes")?,
        (None, Some(f)) => writeln!(
            out,
            "Will Kafka start on {dir}: NO ({}; {} at byte {})",
            escape(&Worded(&f.reason).to_string()),
            escape(&f.file),
            f.position
        )?,
    }
    for p in &v.partitions {
        let mut parts = Vec::new();
        if let Some(c) = p.acknowledged_lost {
            parts.push(format!(
                "at least {} acknowledged records lost (offsets {}..{})",
                c.records, c.first_offset, c.last_offset
            ));
        }
        if let Some(m) = p.possibly_acknowledged {
            parts.push(format!(
                "up to {} {}possibly acknowledged (offsets {}..{})",
                m.records,
                if parts.is_empty() { "" } else { "more " },
                m.first_offset,
                m.last_offset
            ));
        }
        if p.unreadable_end {
            parts.push(if parts.is_empty() {
                "acknowledged records in the unreadable bytes at the log's end, if any, are lost"
                    .to_string()
            } else {
                "and any in the unreadable bytes at the log's end".to_string()
            });
        }
        if !parts.is_empty() {
            writeln!(
                out,
                "  {}: {}{}",
                escape(&p.partition),
                parts.join(", "),
                p.high_watermark
                    .map_or(" (no high watermark checkpoint)".to_string(), |h| format!(
                        " (high watermark {h})"
                    ))
            )?;
        }
    }
    Ok(())
}

pub fn json_finding(out: &mut impl Write, f: &Finding) -> io::Result<()> {
    let v = json!({"type": "finding", "check": f.check, "severity": f.severity, "file": f.file,
        "position": f.position, "offset": f.offset, "message": message(f)});
    serde_json::to_writer(&mut *out, &v).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

pub fn json_recovery(out: &mut impl Write, r: &RecoveryPreview) -> io::Result<()> {
    let mut v = serde_json::to_value(r).map_err(io::Error::from)?;
    if let Some(failure) = &r.load_failure {
        v["loadFailure"]["reason"] = Worded(&failure.reason).to_string().into();
    }
    // In place, so the key keeps its position: "PATH: reason in words".
    v["loadActions"] = r
        .load_actions
        .iter()
        .map(|a| format!("{}: {}", a.path.display(), LoadWords(&a.reason)).into())
        .collect::<Vec<serde_json::Value>>()
        .into();
    v.as_object_mut()
        .expect("struct")
        .insert("type".into(), "recovery".into());
    serde_json::to_writer(&mut *out, &v).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

fn escape(s: &str) -> String {
    let mut v = Vec::new();
    let _ = kseg_escape::write_escaped(&mut v, s.as_bytes());
    String::from_utf8_lossy(&v).into_owned()
}

const FINDING_COLUMNS: [Column; 6] = [
    col("SEVERITY", Col::Whole, 0),
    col("CHECK", Col::Whole, 0),
    col("FILE", Col::Id, 2),
    col("POSITION", Col::Num, 3),
    col("OFFSET", Col::Num, 1),
    col("MESSAGE", Col::Prose, 0),
];

fn finding_cells(f: &Finding) -> Vec<String> {
    let file = f.file.rsplit('/').next().unwrap_or(&f.file);
    vec![
        f.severity.name().to_string(),
        f.check.to_string(),
        escape(file),
        f.position.map_or("-".into(), |p| p.to_string()),
        f.offset.map_or("-".into(), |o| o.to_string()),
        escape(&message(f)),
    ]
}

/// The findings of one partition (or of the log dirs), under its name.
pub fn findings_table(
    out: &mut impl Write,
    partition: &str,
    findings: &[&Finding],
    layout: Layout,
) -> io::Result<()> {
    if findings.is_empty() {
        return Ok(());
    }
    writeln!(out, "{}", escape(partition))?;
    let mut t = Grid::new(&FINDING_COLUMNS);
    for f in findings {
        t.row(finding_cells(f));
    }
    t.write(out, layout)
}

/// `--format tsv`: every finding shown, one line each, its partition first.
pub fn findings_tsv(out: &mut impl Write, findings: &[(&str, &Finding)]) -> io::Result<()> {
    let mut columns = vec![col("PARTITION", Col::Id, 0)];
    columns.extend(FINDING_COLUMNS);
    let mut t = Grid::new(&columns);
    for (partition, f) in findings {
        let mut cells = vec![escape(partition)];
        cells.extend(finding_cells(f));
        t.row(cells);
    }
    t.write(out, Layout::Tsv)
}

const RECOVERY_COLUMNS: [Column; 7] = [
    col("PARTITION", Col::Id, 0).key(),
    col("RECOVERY POINT", Col::Num, 2),
    col("SEGMENTS RECOVERED", Col::Num, 0),
    col("TRUNCATE AT", Col::Id, 0),
    col("DROPPED BATCHES/RECORDS/BYTES", Col::Whole, 1),
    col("SEGMENTS DELETED", Col::Num, 3),
    col("INDEXES REBUILT", Col::Num, 3),
];

/// The recovery preview; `live` when a broker holds a log dir's `.lock` (it is running).
pub fn recovery_table(
    out: &mut impl Write,
    previews: &[&RecoveryPreview],
    live: bool,
    layout: Layout,
) -> io::Result<()> {
    if previews.is_empty() {
        return writeln!(
            out,
            "Recovery preview: no partitions, nothing for Kafka to recover."
        );
    }
    // Segments without their .index are recovered at load even after a clean shutdown.
    let interesting: Vec<&&RecoveryPreview> = previews
        .iter()
        .filter(|r| !r.recovered_segments.is_empty() || r.truncate_position.is_some())
        .collect();
    let all_clean = previews.iter().all(|r| r.clean_shutdown);
    if interesting.is_empty() {
        return if all_clean {
            writeln!(out, "Recovery preview: every log dir has a clean-shutdown marker; Kafka will not run log recovery.")
        } else {
            writeln!(out, "Recovery preview: no clean-shutdown marker, but no partition has data past its recovery point; nothing to recover.")
        };
    }
    let idle = previews
        .iter()
        .filter(|r| !r.clean_shutdown && r.recovered_segments.is_empty())
        .count();
    writeln!(
        out,
        "{}",
        if all_clean {
            "Recovery preview (clean shutdown, but Kafka recovers the segments whose .index is missing when it loads them):"
        } else if live {
            "Recovery preview (a broker is running on this data: what Kafka would do if it stopped now without a clean shutdown):"
        } else {
            "Recovery preview (what Kafka does at the next start, without a clean-shutdown marker):"
        }
    )?;
    // Recovering empty segments changes nothing but their (empty) indexes: one line for them all
    // (--json keeps every partition's object).
    let (trivial, rows): (Vec<&&RecoveryPreview>, Vec<&&RecoveryPreview>) =
        interesting.into_iter().partition(|r| is_trivial(r));
    let mut t = Grid::new(&RECOVERY_COLUMNS);
    for r in rows.iter().copied() {
        let truncate = match (&r.truncate_file, r.truncate_position) {
            (Some(f), Some(p)) => format!("{} @ {p}", f.rsplit('/').next().unwrap_or(f)),
            _ => "-".into(),
        };
        t.row(vec![
            escape(&r.partition),
            r.recovery_point.map_or("- (all)".into(), |p| p.to_string()),
            r.recovered_segments.len().to_string(),
            escape(&truncate),
            format!(
                "{}/{}/{}",
                r.dropped_batches, r.dropped_records, r.dropped_bytes
            ),
            r.deleted_segments.len().to_string(),
            r.rebuilt_indexes.len().to_string(),
        ]);
    }
    if !rows.is_empty() {
        t.write(out, layout)?;
    }
    if !trivial.is_empty() {
        writeln!(
            out,
            "{} empty partition{}: nothing to recover (Kafka re-checks {} empty segments and \
             rebuilds their indexes){}",
            trivial.len(),
            if trivial.len() == 1 { "" } else { "s" },
            if trivial.len() == 1 { "its" } else { "their" },
            if rows.is_empty() {
                "."
            } else {
                "; the others are above."
            }
        )?;
    }
    if idle > 0 {
        writeln!(
            out,
            "({idle} more partitions have nothing past their recovery point.)"
        )?;
    }
    Ok(())
}

/// Which log configs the partitions were judged with: Kafka's defaults, or per topic the values
/// `__cluster_metadata` (or the command line) gave.
/// The log dirs a ZooKeeper-mode broker wrote: their topic configs live in ZooKeeper, so the
/// log configs above are assumed for them, whatever a topic really had.
pub fn zookeeper_mode_dirs(out: &mut impl Write, dirs: &[&std::path::Path]) -> io::Result<()> {
    for d in dirs {
        writeln!(
            out,
            "{}: ZooKeeper mode (meta.properties version 0): topic configs are not in this dir; \
             the log configs above are assumed",
            super::escape::escaped_path(d)
        )?;
    }
    Ok(())
}

pub fn log_configs(out: &mut impl Write, previews: &[&RecoveryPreview]) -> io::Result<()> {
    let mut by_topic: std::collections::BTreeMap<String, String> = Default::default();
    for r in previews {
        let overrides = super::words::log_config_overrides(&r.log_config);
        if !overrides.is_empty() {
            let topic = r
                .partition
                .rsplit_once('-')
                .map_or(r.partition.as_str(), |(t, _)| t);
            by_topic.insert(topic.to_string(), overrides);
        }
    }
    let d = kseg_analysis::topic_configs::TopicLogConfig::defaults();
    let defaults = format!(
        "index.interval.bytes {}, segment.bytes {}, message.timestamp.type {}, preallocate {}",
        d.index_interval_bytes.value,
        d.segment_bytes.value,
        d.message_timestamp_type.value,
        d.preallocate.value
    );
    if by_topic.is_empty() {
        return writeln!(out, "Log configs: Kafka's defaults ({defaults}).");
    }
    writeln!(out, "Log configs: Kafka's defaults ({defaults}), except:")?;
    for (topic, overrides) in by_topic {
        writeln!(out, "  {}: {}", escape(&topic), escape(&overrides))?;
    }
    Ok(())
}

/// A recovery that reads no byte and drops, deletes or moves nothing.
fn is_trivial(r: &RecoveryPreview) -> bool {
    r.recovered_bytes == 0
        && r.truncate_position.is_none()
        && r.deleted_segments.is_empty()
        && r.load_actions.is_empty()
        && r.dropped_batches == 0
}

pub fn count(findings: &[Finding], s: Severity) -> usize {
    findings.iter().filter(|f| f.severity == s).count()
}
