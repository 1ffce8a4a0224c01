//! `kseg summary` output: a comfy-table for people, NDJSON for scripts.

use std::fmt;
use std::io::{self, Write};

use serde_json::json;

use super::table::{col, Col, Column, Grid, Layout};
use kseg_analysis::summary::{CheckpointKind, PartitionSummary, SummaryNote};
use kseg_storage::layout::PartitionState;
use kseg_storage::source::VANISHED;

// Kept for analysis/rebalances.rs (branch hard9's file) until it names kseg_time itself.
pub use kseg_time::rfc3339_ms;

fn opt(v: Option<i64>) -> String {
    v.map_or("-".into(), |x| x.to_string())
}

/// A [`SummaryNote`] in words.
pub struct Note<'a>(pub &'a SummaryNote);

impl fmt::Display for Note<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            SummaryNote::BadEntry {
                file,
                batch_position,
                error,
            } => write!(
                f,
                "{}: batch at byte {batch_position}: {}",
                file.display(),
                error.message
            ),
            SummaryNote::MoreBadEntries { file, more, listed } => write!(
                f,
                "{}: {more} more undecodable batches not listed (the first {listed} are)",
                file.display()
            ),
            SummaryNote::Vanished { file } => write!(f, "{}: {VANISHED}", file.display()),
            SummaryNote::CannotRead { file, error } => {
                write!(f, "{}: cannot read: {error}", file.display())
            }
            SummaryNote::ReadError { file, error } => {
                write!(f, "{}: read error: {error}", file.display())
            }
            SummaryNote::CheckpointBeyondEnd {
                checkpoint,
                value,
                log_end,
            } => write!(
                f,
                "{} {value} is beyond the log end offset {log_end}",
                match checkpoint {
                    CheckpointKind::HighWatermark => "high watermark",
                    CheckpointKind::RecoveryPoint => "recovery point",
                    CheckpointKind::LogStart => "log start offset checkpoint",
                }
            ),
            SummaryNote::SwapFiles(n) => write!(
                f,
                "{n} .swap files of an interrupted compaction or split (Kafka completes or \
                 abandons it at load)"
            ),
            SummaryNote::StrayFiles(n) => write!(
                f,
                "{n} stray .deleted/.cleaned files (Kafka deletes them at load)"
            ),
            SummaryNote::CrcErrors(n) => write!(f, "{n} batches fail their CRC"),
            SummaryNote::InvalidBytes(n) => {
                write!(f, "{n} invalid bytes (torn tail or corruption)")
            }
            SummaryNote::RetentionBlocked(b) => f.write_str(&super::retention::blocker_note(b)),
            SummaryNote::FutureTimestamp { max, now } => write!(
                f,
                "max timestamp {} is in the future ({} ahead of now): time-based retention \
                 keeps the segment holding it until then",
                rfc3339_ms(*max),
                super::groups::human_ms(max - now)
            ),
        }
    }
}

fn notes(r: &PartitionSummary) -> Vec<String> {
    r.warnings.iter().map(|w| Note(w).to_string()).collect()
}

fn state_name(s: Option<PartitionState>) -> Option<&'static str> {
    match s? {
        PartitionState::Live => None,
        PartitionState::PendingDelete => Some("pending delete"),
        PartitionState::Future => Some("future replica"),
        PartitionState::Stray => Some("stray"),
    }
}

const COLUMNS: [Column; 17] = [
    col("TOPIC", Col::Id, 0).key(),
    col("PART", Col::Num, 0).key(),
    col("SEGS", Col::Num, 4),
    col("BYTES", Col::Num, 2),
    col("START", Col::Num, 1),
    col("END", Col::Num, 0),
    col("RECORDS", Col::Num, 1),
    col("FIRST TIMESTAMP", Col::Time, 0),
    // The largest timestamp (a record's CreateTime can be anything the producer chose), not
    // the last one written.
    col("MAX TIMESTAMP", Col::Time, 0),
    col("MAGIC", Col::Text, 6),
    col("CODECS", Col::Text, 6),
    col("PIDS", Col::Num, 7),
    col("TXN", Col::Num, 7),
    col("CTRL", Col::Num, 7),
    col("CLEAN", Col::Whole, 4),
    col("RECOVERY/HW", Col::Whole, 0),
    col("NOTES", Col::Prose, 0),
];

/// A partition with nothing to say: no record, nothing noted, live.
fn empty(r: &PartitionSummary) -> bool {
    r.records == 0
        && r.warnings.is_empty()
        && r.severity.is_none()
        && r.problems == 0
        && state_name(r.state).is_none()
}

pub fn table(out: &mut impl Write, rows: &[PartitionSummary], layout: Layout) -> io::Result<()> {
    // For people, a topic's empty partitions are one line under the table ("48 empty
    // partitions of __consumer_offsets"), not a row each; TSV keeps every row.
    let mut folded: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    if layout.prose() {
        for r in rows.iter().filter(|r| empty(r)) {
            *folded.entry(r.topic.as_str()).or_default() += 1;
        }
        folded.retain(|_, n| *n > 1);
    }
    let mut t = Grid::new(&COLUMNS);
    for r in rows {
        if empty(r) && folded.contains_key(r.topic.as_str()) {
            continue;
        }
        let magic: Vec<String> = r.magics.iter().map(|(m, n)| format!("v{m}:{n}")).collect();
        let codecs: Vec<String> = r.codecs.iter().map(|(c, n)| format!("{c}:{n}")).collect();
        let mut notes = notes(r);
        if let Some(s) = state_name(r.state) {
            notes.insert(0, s.to_string());
        }
        t.row(vec![
            escape(&r.topic),
            if r.partition >= 0 {
                r.partition.to_string()
            } else {
                "-".into()
            },
            r.segments.to_string(),
            r.disk.total().to_string(),
            opt(r.log_start_offset),
            opt(r.log_end_offset),
            r.records.to_string(),
            r.first_timestamp.map_or("-".into(), rfc3339_ms),
            r.last_timestamp.map_or("-".into(), rfc3339_ms),
            magic.join(" "),
            codecs.join(" "),
            r.producer_ids.len().to_string(),
            r.transactional_batches.to_string(),
            r.control_batches.to_string(),
            match r.clean_shutdown {
                Some(true) => "yes",
                Some(false) => "no",
                None => "-",
            }
            .into(),
            format!(
                "{}/{}",
                opt(r.checkpoints.recovery_point),
                opt(r.checkpoints.high_watermark)
            ),
            escape(&notes.join("; ")),
        ]);
    }
    if !t.is_empty() {
        t.write(out, layout)?;
    }
    for (topic, n) in folded {
        writeln!(out, "{n} empty partitions of {}", escape(topic))?;
    }
    Ok(())
}

fn escape(s: &str) -> String {
    let mut v = Vec::new();
    let _ = kseg_escape::write_escaped(&mut v, s.as_bytes());
    String::from_utf8_lossy(&v).into_owned()
}

pub fn json_row(out: &mut impl Write, r: &PartitionSummary) -> io::Result<()> {
    let magic: serde_json::Map<String, serde_json::Value> = r
        .magics
        .iter()
        .map(|(m, n)| (m.to_string(), json!(n)))
        .collect();
    let v = json!({
        "type": "partition",
        "logDir": r.log_dir.as_ref().map(|p| p.display().to_string()),
        "path": r.path.display().to_string(),
        "topic": r.topic,
        "partition": (r.partition >= 0).then_some(r.partition),
        "state": state_name(r.state).unwrap_or("live"),
        "segments": r.segments,
        "bytes": r.disk.total(),
        "disk": r.disk,
        "logBytes": r.bytes,
        "logStartOffset": r.log_start_offset,
        "logEndOffset": r.log_end_offset,
        "batches": r.batches,
        "records": r.records,
        "firstTimestamp": r.first_timestamp,
        "lastTimestamp": r.last_timestamp,
        "maxTimestamp": r.last_timestamp,
        "magic": magic,
        "codecs": r.codecs,
        "producerIds": r.producer_ids.len(),
        "transactionalBatches": r.transactional_batches,
        "controlBatches": r.control_batches,
        "crcErrors": r.crc_errors,
        "invalidBytes": r.invalid_bytes,
        "cleanShutdown": r.clean_shutdown,
        "checkpoints": r.checkpoints,
        "warnings": notes(r),
    });
    serde_json::to_writer(&mut *out, &v).map_err(io::Error::from)?;
    out.write_all(b"\n")
}
