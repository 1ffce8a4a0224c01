//! `verify-index`: every check of a partition's files against Kafka's writing rules, with the
//! severity Kafka's own behaviour implies, and a preview of what Kafka's recovery would do.
//!
//! Normal states of a crashed broker (preallocated zero-filled indexes, a torn last write in the
//! active segment, no clean-shutdown marker) are `info` or `warning`, never `error`.

use std::collections::{BTreeSet, HashMap};
use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::analysis::recovery::{rebuild_indexes, IndexedBatch, DEFAULT_INDEX_INTERVAL};
use crate::analysis::summary::LogDirFacts;
use crate::format::control::{decode_control, ControlType};
use crate::format::index::{
    IndexLayout, OffsetIndex, TimeIndex, OFFSET_ENTRY_SIZE, TIME_ENTRY_SIZE,
};
use crate::format::log::{BatchInfo, LogEntry, RecordScratch, TailKind};
use crate::format::producer_snapshot::parse_producer_snapshot;
use crate::format::txn_index::parse_txn_index;
use crate::scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use crate::storage::discover::{DataFile, PartitionDir};
use crate::storage::layout::{base_offset_of, FileKind};
use crate::storage::source::{open_log, read_small};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Every check id kseg reports; part of the interface (README lists them).
pub const CHECKS: &[(&str, &str)] = &[
    ("crc-mismatch", "a batch whose stored CRC does not match its bytes"),
    ("unknown-magic", "a batch with a magic byte above 2 and a valid CRC: Kafka reads it as v2, no Kafka writes it"),
    ("torn-tail", "a partial last batch: the file ends inside a batch"),
    ("zero-tail", "a zero-filled tail after the last batch (preallocation or a torn write)"),
    ("invalid-bytes", "bytes in the middle of a log that frame no batch; the next valid batch is found after them"),
    ("offset-order", "a batch whose offsets do not increase from the previous batch"),
    ("base-offset-mismatch", "the file name's base offset disagrees with the first batch"),
    ("segment-overlap", "a segment starting at or below the previous segment's last offset (gaps: info)"),
    ("recovery-empties-segment", "offsets that stop increasing at an index point: Kafka's recovery throws InvalidOffsetException and empties the segment"),
    ("offset-overflow", "offsets too far from the segment base to fit a relative offset"),
    ("offset-index-mismatch", "an .index entry not on a batch boundary or naming an offset the batch there does not end with"),
    ("offset-index-order", ".index entries whose offsets or positions do not strictly increase"),
    ("offset-index-beyond-log", "an .index entry pointing past the valid end of the log"),
    ("index-preallocated", "an .index/.timeindex still at its preallocated size with a zero tail"),
    ("index-size", "an index file whose length is not a multiple of its entry size"),
    ("index-sanity", "Kafka's own index sanity check fails (last offset below the base offset, ...)"),
    ("time-index-mismatch", "a .timeindex entry that is not the maximum timestamp so far at the batch it names"),
    ("time-index-order", ".timeindex timestamps or offsets that do not increase"),
    ("time-index-beyond-log", "a .timeindex entry naming an offset past the end of the log"),
    ("missing-index", "a segment without its .index or .timeindex"),
    ("txn-index-mismatch", "a .txnindex that disagrees with the ABORT markers in the log"),
    ("producer-snapshot", "a producer-state snapshot that is corrupt or disagrees with the log"),
    ("no-clean-shutdown", "the log dir has no .kafka_cleanshutdown marker: Kafka will run recovery"),
    ("checkpoint-range", "a recovery point, log start offset or high watermark outside the log"),
    ("unreadable", "a file kseg could not read"),
];

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub check: &'static str,
    pub severity: Severity,
    pub file: String,
    pub position: Option<u64>,
    pub offset: Option<i64>,
    pub message: String,
}

/// What Kafka's `LogLoader` would do with a partition at the next start.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryPreview {
    pub partition: String,
    pub clean_shutdown: bool,
    pub recovery_point: Option<i64>,
    /// Segments `LogSegment.recover` would re-validate (and whose indexes it would rebuild).
    pub recovered_segments: Vec<String>,
    /// Where the log would be truncated: the first invalid batch in a recovered segment.
    pub truncate_file: Option<String>,
    pub truncate_position: Option<u64>,
    pub dropped_batches: u64,
    pub dropped_records: u64,
    pub dropped_bytes: u64,
    /// Later unflushed segments Kafka deletes after a truncation.
    pub deleted_segments: Vec<String>,
    /// Index files Kafka rebuilds (missing, or in recovered segments).
    pub rebuilt_indexes: Vec<String>,
}

#[derive(Debug, Clone, Copy)]
pub struct VerifyOptions {
    /// Skip per-batch CRC work (`--index-only`).
    pub index_only: bool,
    /// Kafka's index sanity checks only (`--sanity`).
    pub sanity_only: bool,
    pub mmap: bool,
    /// The partition's `index.interval.bytes`, which decides where recovery rebuilds index
    /// entries.
    pub index_interval: u64,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            index_only: false,
            sanity_only: false,
            mmap: false,
            index_interval: DEFAULT_INDEX_INTERVAL,
        }
    }
}

#[derive(Debug, Default)]
pub struct PartitionReport {
    pub partition: String,
    pub findings: Vec<Finding>,
    pub recovery: Option<RecoveryPreview>,
}

#[derive(Debug, Clone, Copy)]
struct BatchMeta {
    position: u64,
    base_offset: i64,
    last_offset: i64,
    max_timestamp: i64,
    records: u64,
    size: u64,
}

/// One pass over a segment: batches (kept small), problems, ABORT markers.
struct SegmentScan {
    batches: Vec<BatchMeta>,
    /// (position, length, kind) of framing problems, in file order.
    problems: Vec<(u64, u64, ProblemKind, String)>,
    crc_failures: Vec<(u64, i64)>,
    /// Batches with a magic byte above 2: (position, base offset, magic).
    unknown_magic: Vec<(u64, i64, i8)>,
    /// ABORT markers: (offset, producer id, whether that producer's transactional data precedes
    /// the marker in this segment — only then is a `.txnindex` entry certain).
    aborts: Vec<(i64, i64, bool)>,
    /// Producers with transactional data and no marker yet, in this segment.
    txn_open: std::collections::HashSet<i64>,
    size: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProblemKind {
    Corrupt,
    Torn,
    ZeroTail,
    ShortTail,
    Undecodable,
}

impl SegmentScan {
    /// The position of the first batch Kafka's recovery would reject.
    fn first_invalid_position(&self, crc_checked: bool) -> Option<u64> {
        let problem = self.problems.first().map(|p| p.0);
        let crc = if crc_checked {
            self.crc_failures.first().map(|c| c.0)
        } else {
            None
        };
        match (problem, crc) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    fn valid_end(&self) -> u64 {
        self.batches.last().map_or(0, |b| b.position + b.size)
    }
}

struct Collect<'a> {
    scan: &'a mut SegmentScan,
    check_crc: bool,
}

impl LogSink for Collect<'_> {
    fn batch(&mut self, position: u64, _entry: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        if self.check_crc && !b.crc_valid {
            self.scan.crc_failures.push((position, b.base_offset));
        }
        if b.magic > 2 {
            self.scan
                .unknown_magic
                .push((position, b.base_offset, b.magic));
        }
        self.scan.batches.push(BatchMeta {
            position,
            base_offset: b.base_offset,
            last_offset: b.last_offset,
            max_timestamp: b.max_timestamp,
            records: b.count.unwrap_or(1).max(0) as u64,
            size: b.size as u64,
        });
        Ok(Flow::Continue)
    }
    fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<Flow> {
        let kind = match p {
            LogProblem::Corrupt { .. } => ProblemKind::Corrupt,
            LogProblem::Tail {
                kind: TailKind::ZeroFilled,
                ..
            } => ProblemKind::ZeroTail,
            LogProblem::Tail {
                kind: TailKind::Partial { .. },
                ..
            } => ProblemKind::Torn,
            LogProblem::Tail {
                kind: TailKind::Short,
                ..
            } => ProblemKind::ShortTail,
            LogProblem::Tail { .. } => ProblemKind::Corrupt,
            LogProblem::BadEntry { .. } => ProblemKind::Undecodable,
        };
        self.scan
            .problems
            .push((p.position(), p.length(), kind, p.message()));
        Ok(Flow::Continue)
    }
}

/// Scans only control batches' records deeply (to find ABORT markers), everything else shallow.
struct ControlOnly<'a> {
    inner: Collect<'a>,
}

fn scan_segment(
    path: &Path,
    opts: &VerifyOptions,
    scratch: &mut RecordScratch,
) -> io::Result<SegmentScan> {
    let mut src = open_log(path, opts.mmap)?;
    let mut scan = SegmentScan {
        batches: Vec::new(),
        problems: Vec::new(),
        crc_failures: Vec::new(),
        unknown_magic: Vec::new(),
        aborts: Vec::new(),
        txn_open: Default::default(),
        size: src.len(),
    };
    let mut sink = ControlOnly {
        inner: Collect {
            scan: &mut scan,
            check_crc: !opts.index_only,
        },
    };
    // Deep iteration is needed only for control records; the sink ignores the others cheaply,
    // but decompression would still run, so deep scanning is limited to control batches below.
    let opts = ScanOptions {
        check_crc: !opts.index_only,
        ..Default::default()
    };
    scan_log(src.as_mut(), &opts, scratch, &mut sink)?;
    Ok(scan)
}

impl LogSink for ControlOnly<'_> {
    fn batch(&mut self, position: u64, entry: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        self.inner.batch(position, entry, b)?;
        let scan = &mut *self.inner.scan;
        if b.is_transactional && !b.is_control {
            scan.txn_open.insert(b.producer_id);
        }
        if b.is_control {
            // Kafka indexes an aborted transaction only when it had data (an empty one, or one
            // whose data is in an earlier segment, may legitimately have no entry here).
            let had_data = scan.txn_open.remove(&b.producer_id);
            let mut scratch = RecordScratch::with_cap(1 << 20);
            let mut aborts = Vec::new();
            let _ = crate::format::log::for_each_record(entry, &mut scratch, |r| {
                if let Ok(c) = decode_control(r.key, r.value) {
                    if c.kind == ControlType::Abort {
                        aborts.push((r.offset, b.producer_id, had_data));
                    }
                }
            });
            scan.aborts.extend(aborts);
        }
        Ok(Flow::Continue)
    }
    fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<Flow> {
        self.inner.problem(p)
    }
}

/// Findings listed per (check, file); beyond this a damaged file (say, a garbage index) gets one
/// summary line instead of millions of findings.
const MAX_FINDINGS_PER_CHECK_AND_FILE: u64 = 100;

struct Ctx<'a> {
    findings: &'a mut Vec<Finding>,
    /// Findings per (check, file), with the worst severity among them.
    counts: HashMap<(&'static str, String), (u64, Severity)>,
}

impl Ctx<'_> {
    /// Reads an index or snapshot file whole, reporting it as unreadable when that fails.
    fn read(&mut self, path: &Path) -> Option<Vec<u8>> {
        match read_small(path, 1 << 30) {
            Ok(b) => Some(b),
            Err(e) => {
                self.add(
                    "unreadable",
                    Severity::Error,
                    path,
                    None,
                    None,
                    format!("cannot read: {e}"),
                );
                None
            }
        }
    }

    fn add(
        &mut self,
        check: &'static str,
        severity: Severity,
        file: &Path,
        position: Option<u64>,
        offset: Option<i64>,
        message: String,
    ) {
        let file = file.display().to_string();
        let count = self
            .counts
            .entry((check, file.clone()))
            .or_insert((0, severity));
        count.0 += 1;
        count.1 = count.1.max(severity);
        if count.0 > MAX_FINDINGS_PER_CHECK_AND_FILE {
            return;
        }
        self.findings.push(Finding {
            check,
            severity,
            file,
            position,
            offset,
            message,
        });
    }

    /// Adds one line per (check, file) whose findings were cut off.
    fn finish(self) {
        let mut cut: Vec<_> = self
            .counts
            .into_iter()
            .filter(|(_, (n, _))| *n > MAX_FINDINGS_PER_CHECK_AND_FILE)
            .collect();
        cut.sort_by(|a, b| a.0.cmp(&b.0));
        for ((check, file), (n, severity)) in cut {
            self.findings.push(Finding {
                check,
                severity,
                file,
                position: None,
                offset: None,
                message: format!(
                    "{} more {check} findings in this file are not listed (first {MAX_FINDINGS_PER_CHECK_AND_FILE} shown)",
                    n - MAX_FINDINGS_PER_CHECK_AND_FILE
                ),
            });
        }
    }
}

fn sibling(files: &[DataFile], base: i64, kind: FileKind) -> Option<&DataFile> {
    files.iter().find(|f| {
        f.kind == kind
            && f.path
                .file_name()
                .and_then(|n| base_offset_of(&n.to_string_lossy()))
                == Some(base)
    })
}

/// Everything about one partition.
pub fn verify_partition(
    p: &PartitionDir,
    facts: Option<&LogDirFacts>,
    opts: &VerifyOptions,
) -> PartitionReport {
    let label = format!("{}-{}", p.name.topic, p.name.partition);
    let mut findings = Vec::new();
    let mut ctx = Ctx {
        findings: &mut findings,
        counts: HashMap::new(),
    };
    let mut scratch = RecordScratch::default();
    // Unknown log dir state (a loose partition or file): assume Kafka will run recovery.
    let clean_shutdown = facts.is_some_and(|f| f.clean_shutdown);
    let checkpoints = facts
        .and_then(|f| {
            f.checkpoints
                .get(&(p.name.topic.clone(), p.name.partition))
                .copied()
        })
        .unwrap_or_default();
    let compacted = p.name.topic.starts_with("__");

    let segments: Vec<&DataFile> = p.files.iter().filter(|f| f.kind == FileKind::Log).collect();
    let bases: Vec<i64> = segments
        .iter()
        .map(|f| {
            base_offset_of(&f.path.file_name().unwrap_or_default().to_string_lossy()).unwrap_or(0)
        })
        .collect();
    // Kafka recovers from the segment holding the recovery point on (all of them when the
    // partition is missing from the checkpoint).
    let recovery_from = if clean_shutdown {
        None
    } else {
        let rp = checkpoints.recovery_point.unwrap_or(0);
        Some(
            bases
                .iter()
                .copied()
                .filter(|b| *b <= rp)
                .max()
                .unwrap_or(i64::MIN),
        )
    };
    let mut preview = RecoveryPreview {
        partition: label.clone(),
        clean_shutdown,
        recovery_point: checkpoints.recovery_point,
        ..Default::default()
    };
    let mut prev_last: Option<i64> = None;
    let mut log_end: Option<i64> = None;
    let mut log_start: Option<i64> = None;
    let mut truncated = false;
    let mut all_batches_seen: Vec<(i64, i64)> = Vec::new();

    for (i, seg) in segments.iter().enumerate() {
        let base = bases[i];
        let active = i + 1 == segments.len();
        let recovered = recovery_from.is_some_and(|from| base >= from);
        let scan = match scan_segment(&seg.path, opts, &mut scratch) {
            Ok(s) => s,
            Err(e) => {
                ctx.add(
                    "unreadable",
                    Severity::Error,
                    &seg.path,
                    None,
                    None,
                    format!("cannot read: {e}"),
                );
                continue;
            }
        };
        if recovered {
            preview
                .recovered_segments
                .push(seg.path.display().to_string());
        }
        if truncated && recovered {
            preview
                .deleted_segments
                .push(seg.path.display().to_string());
            preview.dropped_batches += scan.batches.len() as u64;
            preview.dropped_records += scan.batches.iter().map(|b| b.records).sum::<u64>();
            preview.dropped_bytes += scan.size;
        } else if recovered {
            let first_invalid = scan.first_invalid_position(true);
            let valid = scan
                .batches
                .iter()
                .take_while(|b| first_invalid.is_none_or(|at| b.position < at));
            let rebuild = rebuild_indexes(
                base,
                valid.map(|b| IndexedBatch {
                    size: b.size,
                    last_offset: b.last_offset,
                    max_timestamp: b.max_timestamp,
                }),
                opts.index_interval,
            );
            let cut = match rebuild {
                Ok(_) => first_invalid,
                Err(invalid) => {
                    ctx.add(
                        "recovery-empties-segment",
                        Severity::Error,
                        &seg.path,
                        Some(invalid.position),
                        Some(invalid.offset),
                        invalid.message(),
                    );
                    Some(invalid.truncate_to)
                }
            };
            if let Some(pos) = cut {
                truncated = true;
                preview.truncate_file = Some(seg.path.display().to_string());
                preview.truncate_position = Some(pos);
                let dropped: Vec<&BatchMeta> =
                    scan.batches.iter().filter(|b| b.position >= pos).collect();
                preview.dropped_batches += dropped.len() as u64;
                preview.dropped_records += dropped.iter().map(|b| b.records).sum::<u64>();
                preview.dropped_bytes += scan.size - pos;
            }
        }
        if !opts.sanity_only {
            log_checks(
                &mut ctx,
                &seg.path,
                base,
                active,
                recovered,
                compacted,
                &scan,
                &mut prev_last,
            );
        }
        if let (Some(first), None) = (scan.batches.first(), log_start) {
            log_start = Some(first.base_offset.min(base));
        }
        if log_start.is_none() {
            log_start = Some(base);
        }
        let seg_end = scan
            .batches
            .last()
            .map(|b| b.last_offset.saturating_add(1))
            .unwrap_or(base)
            .max(base);
        log_end = Some(log_end.map_or(seg_end, |e: i64| e.max(seg_end)));
        all_batches_seen.extend(
            scan.batches
                .iter()
                .map(|b| (b.last_offset, b.max_timestamp)),
        );

        // Indexes.
        let index = sibling(&p.files, base, FileKind::OffsetIndex);
        let time_index = sibling(&p.files, base, FileKind::TimeIndex);
        // LogLoader: a missing .index makes Kafka recover the segment (both indexes rebuilt,
        // whatever the shutdown); a missing .timeindex beside an .index is created empty, and
        // only a recovery fills it.
        let rebuilds_all = recovered || index.is_none();
        if !scan.batches.is_empty() {
            if index.is_none() {
                preview
                    .rebuilt_indexes
                    .push(format!("{} (offset index, missing)", seg.path.display()));
                ctx.add(
                    "missing-index",
                    if active { Severity::Info } else { Severity::Warning },
                    &seg.path,
                    None,
                    None,
                    "segment has no offset index file; Kafka recovers the segment when it loads it (re-validating every batch) and rebuilds both indexes".into(),
                );
            }
            if time_index.is_none() {
                let message = if rebuilds_all {
                    preview
                        .rebuilt_indexes
                        .push(format!("{} (time index, missing)", seg.path.display()));
                    "segment has no time index file; Kafka's recovery of the segment rebuilds it"
                } else {
                    "segment has no time index file; Kafka creates it empty without reading the log, so lookups by time in this segment use the file's mtime"
                };
                ctx.add(
                    "missing-index",
                    if active { Severity::Info } else { Severity::Warning },
                    &seg.path,
                    None,
                    None,
                    message.into(),
                );
            }
        }
        if rebuilds_all {
            for f in [index, time_index].into_iter().flatten() {
                preview.rebuilt_indexes.push(f.path.display().to_string());
            }
        }
        if let Some(f) = index {
            check_offset_index(&mut ctx, &f.path, base, &scan, active, recovered, opts);
        }
        if let Some(f) = time_index {
            check_time_index(&mut ctx, &f.path, base, &scan, active, recovered, opts);
        }
        if let Some(f) = sibling(&p.files, base, FileKind::TxnIndex) {
            check_txn_index(&mut ctx, &f.path, base, &scan, opts);
        } else if !opts.sanity_only {
            let certain = scan.aborts.iter().filter(|a| a.2).count();
            if let Some(first) = scan.aborts.first() {
                ctx.add(
                    "txn-index-mismatch",
                    if certain == 0 {
                        Severity::Info
                    } else if recovered {
                        Severity::Warning
                    } else {
                        Severity::Error
                    },
                    &seg.path,
                    None,
                    Some(first.0),
                    format!(
                        "{} ABORT markers in the log ({certain} after transactional data in this segment) but no .txnindex file",
                        scan.aborts.len()
                    ),
                );
            }
        }
    }

    if !opts.sanity_only {
        for f in p
            .files
            .iter()
            .filter(|f| f.kind == FileKind::ProducerSnapshot)
        {
            check_producer_snapshot(&mut ctx, &f.path, log_end, &all_batches_seen);
        }
        if let Some(end) = log_end {
            let start = checkpoints.log_start.or(log_start).unwrap_or(0);
            for (name, value) in [
                ("recovery point", checkpoints.recovery_point),
                ("log start offset", checkpoints.log_start),
                ("high watermark", checkpoints.high_watermark),
            ] {
                let Some(v) = value else { continue };
                if v > end {
                    ctx.add(
                        "checkpoint-range",
                        Severity::Warning,
                        &p.path,
                        None,
                        Some(v),
                        format!("{name} checkpoint {v} is beyond the log end offset {end}"),
                    );
                } else if v < start && name != "log start offset" {
                    ctx.add(
                        "checkpoint-range",
                        Severity::Warning,
                        &p.path,
                        None,
                        Some(v),
                        format!("{name} checkpoint {v} is before the log start offset {start}"),
                    );
                }
            }
        }
    }
    ctx.finish();
    PartitionReport {
        partition: label,
        findings,
        recovery: (!opts.sanity_only).then_some(preview),
    }
}

#[allow(clippy::too_many_arguments)]
fn log_checks(
    ctx: &mut Ctx<'_>,
    path: &Path,
    base: i64,
    active: bool,
    recovered: bool,
    compacted: bool,
    scan: &SegmentScan,
    prev_last: &mut Option<i64>,
) {
    for (position, offset) in &scan.crc_failures {
        ctx.add(
            "crc-mismatch",
            Severity::Error,
            path,
            Some(*position),
            Some(*offset),
            "stored CRC does not match the batch bytes".into(),
        );
    }
    for (position, offset, magic) in &scan.unknown_magic {
        ctx.add(
            "unknown-magic",
            Severity::Warning,
            path,
            Some(*position),
            Some(*offset),
            format!("magic byte {magic}: Kafka reads the batch with the v2 layout (and its recovery keeps it), but no Kafka version writes it"),
        );
    }
    for (position, length, kind, message) in &scan.problems {
        let (check, severity, text) = match kind {
            ProblemKind::Torn | ProblemKind::ShortTail => (
                "torn-tail",
                // A partial last write in a segment Kafka recovers is the normal state after a crash.
                if active && recovered { Severity::Warning } else { Severity::Error },
                format!("{message}; Kafka's recovery truncates the log here"),
            ),
            ProblemKind::ZeroTail => (
                "zero-tail",
                if active { Severity::Info } else { Severity::Warning },
                format!("{length} zero bytes after the last batch (preallocated log or torn write); Kafka stops reading here"),
            ),
            ProblemKind::Corrupt => ("invalid-bytes", Severity::Error, message.clone()),
            ProblemKind::Undecodable => ("invalid-bytes", Severity::Error, message.clone()),
        };
        ctx.add(check, severity, path, Some(*position), None, text);
    }
    if let Some(first) = scan.batches.first() {
        if first.base_offset < base {
            ctx.add(
                "base-offset-mismatch",
                Severity::Error,
                path,
                Some(first.position),
                Some(first.base_offset),
                format!(
                    "file name says base offset {base} but the first batch starts at {}",
                    first.base_offset
                ),
            );
        } else if first.base_offset > base && !compacted {
            ctx.add(
                "base-offset-mismatch",
                Severity::Info,
                path,
                Some(first.position),
                Some(first.base_offset),
                format!(
                    "first batch starts at {} above the file name's base offset {base} (compaction, DeleteRecords or an emptied segment)",
                    first.base_offset
                ),
            );
        }
        if let Some(prev) = *prev_last {
            if base <= prev {
                ctx.add(
                    "segment-overlap",
                    Severity::Error,
                    path,
                    Some(0),
                    Some(base),
                    format!("segment base offset {base} is not above the previous segment's last offset {prev}"),
                );
            } else if first.base_offset > prev.saturating_add(1) {
                ctx.add(
                    "segment-overlap",
                    if compacted {
                        Severity::Info
                    } else {
                        Severity::Warning
                    },
                    path,
                    Some(first.position),
                    Some(first.base_offset),
                    format!(
                        "offsets {}..{} are missing between segments",
                        prev.saturating_add(1),
                        first.base_offset.saturating_sub(1)
                    ),
                );
            }
        }
    }
    let mut last: Option<i64> = None;
    for b in &scan.batches {
        if let Some(l) = last {
            if b.base_offset <= l {
                ctx.add(
                    "offset-order",
                    Severity::Error,
                    path,
                    Some(b.position),
                    Some(b.base_offset),
                    format!(
                        "batch starts at offset {} but the previous batch ended at {l}",
                        b.base_offset
                    ),
                );
            }
        }
        if b.last_offset.saturating_sub(base) > i32::MAX as i64 {
            ctx.add(
                "offset-overflow",
                Severity::Error,
                path,
                Some(b.position),
                Some(b.last_offset),
                format!(
                    "offset {} cannot be stored relative to base {base}",
                    b.last_offset
                ),
            );
        }
        last = Some(last.map_or(b.last_offset, |l| l.max(b.last_offset)));
    }
    if let Some(l) = last {
        *prev_last = Some(prev_last.map_or(l, |p| p.max(l)));
    }
}

fn index_severity(recovered: bool) -> Severity {
    // Kafka rebuilds the indexes of segments it recovers, so damage there does not last; with a
    // clean shutdown it trusts every index as it is, the active segment's included.
    if recovered {
        Severity::Warning
    } else {
        Severity::Error
    }
}

/// A file length that is not a whole number of entries.
fn size_finding(
    ctx: &mut Ctx<'_>,
    path: &Path,
    layout: &IndexLayout,
    entry_size: usize,
    len: usize,
    severity: Severity,
) {
    if layout.partial_bytes != 0 {
        ctx.add(
            "index-size",
            severity,
            path,
            Some((layout.slots * entry_size) as u64),
            None,
            format!("file length {len} is not a multiple of {entry_size}"),
        );
    }
}

/// A zero-filled preallocated tail: the normal state of a crashed broker's active segment.
fn preallocation_finding(
    ctx: &mut Ctx<'_>,
    path: &Path,
    layout: &IndexLayout,
    entry_size: usize,
    len: usize,
    active: bool,
    what: &str,
) {
    if layout.zero_tail {
        ctx.add(
            "index-preallocated",
            if active { Severity::Info } else { Severity::Warning },
            path,
            Some((layout.real_entries * entry_size) as u64),
            None,
            format!(
                "preallocated {what} ({len} bytes) with {} real entries and a zero-filled tail: the broker did not close this segment{}",
                layout.real_entries,
                if active { " (normal for the active segment after a crash)" } else { "" }
            ),
        );
    }
}

fn check_offset_index(
    ctx: &mut Ctx<'_>,
    path: &Path,
    base: i64,
    scan: &SegmentScan,
    active: bool,
    recovered: bool,
    opts: &VerifyOptions,
) {
    let Some(bytes) = ctx.read(path) else {
        return;
    };
    let index = OffsetIndex::new(base, &bytes);
    let severity = index_severity(recovered);
    size_finding(
        ctx,
        path,
        &index.layout,
        OFFSET_ENTRY_SIZE,
        bytes.len(),
        severity,
    );
    if let Err(msg) = index.sanity_check() {
        ctx.add(
            "index-sanity",
            severity,
            path,
            None,
            None,
            format!("Kafka's sanity check fails: {msg}"),
        );
    }
    if opts.sanity_only {
        return;
    }
    preallocation_finding(
        ctx,
        path,
        &index.layout,
        OFFSET_ENTRY_SIZE,
        bytes.len(),
        active,
        "index",
    );
    let entries: Vec<_> = index.real_entries().collect();
    for w in entries.windows(2) {
        if w[1].offset <= w[0].offset || w[1].position <= w[0].position {
            ctx.add(
                "offset-index-order",
                severity,
                path,
                None,
                Some(w[1].offset),
                format!(
                    "entry (offset {}, position {}) does not follow (offset {}, position {})",
                    w[1].offset, w[1].position, w[0].offset, w[0].position
                ),
            );
        }
    }
    // Walk entries by position alongside the batches.
    let mut by_position: Vec<(usize, _)> = entries.iter().copied().enumerate().collect();
    by_position.sort_by_key(|(_, e)| (e.position, e.offset));
    let valid_end = scan.valid_end();
    let mut multi_batch = 0usize;
    let mut bi = 0usize;
    for (i, (_, e)) in by_position.iter().enumerate() {
        let pos = e.position as u64;
        if pos >= valid_end {
            ctx.add(
                "offset-index-beyond-log",
                severity,
                path,
                Some((i * OFFSET_ENTRY_SIZE) as u64),
                Some(e.offset),
                format!(
                    "entry points to position {pos}, past the valid end of the log at {valid_end}"
                ),
            );
            continue;
        }
        while bi < scan.batches.len() && scan.batches[bi].position < pos {
            bi += 1;
        }
        let Some(b) = scan.batches.get(bi).filter(|b| b.position == pos) else {
            ctx.add(
                "offset-index-mismatch",
                severity,
                path,
                None,
                Some(e.offset),
                format!("entry position {pos} is not the start of a batch"),
            );
            continue;
        };
        if e.offset == b.last_offset {
            continue;
        }
        if e.offset > b.last_offset {
            // Older brokers and followers indexed a whole multi-batch append: the append's last
            // offset at the position of its first batch. Valid if a later batch, before the next
            // entry's position, ends exactly there.
            let next_pos = by_position
                .get(i + 1)
                .map_or(u64::MAX, |(_, n)| n.position as u64);
            let ends_there = scan.batches[bi..]
                .iter()
                .take_while(|x| x.position < next_pos)
                .any(|x| x.last_offset == e.offset);
            if ends_there {
                multi_batch += 1;
                continue;
            }
        }
        ctx.add(
            "offset-index-mismatch",
            severity,
            path,
            Some(pos),
            Some(e.offset),
            format!(
                "entry says offset {} but the batch at position {pos} holds {}..{}",
                e.offset, b.base_offset, b.last_offset
            ),
        );
    }
    if multi_batch > 0 {
        ctx.add(
            "offset-index-mismatch",
            Severity::Info,
            path,
            None,
            None,
            format!(
                "{multi_batch} entries index a multi-batch append (written by a broker before 3.9.1/4.0.1/4.1, by a follower, or by the log cleaner): valid"
            ),
        );
    }
}

fn check_time_index(
    ctx: &mut Ctx<'_>,
    path: &Path,
    base: i64,
    scan: &SegmentScan,
    active: bool,
    recovered: bool,
    opts: &VerifyOptions,
) {
    let Some(bytes) = ctx.read(path) else {
        return;
    };
    let index = TimeIndex::new(base, &bytes);
    let severity = index_severity(recovered);
    size_finding(
        ctx,
        path,
        &index.layout,
        TIME_ENTRY_SIZE,
        bytes.len(),
        severity,
    );
    if opts.sanity_only {
        if let Err(msg) = index.sanity_check() {
            ctx.add(
                "index-sanity",
                severity,
                path,
                None,
                None,
                format!("Kafka's sanity check fails: {msg}"),
            );
        }
        return;
    }
    preallocation_finding(
        ctx,
        path,
        &index.layout,
        TIME_ENTRY_SIZE,
        bytes.len(),
        active,
        "time index",
    );
    let entries: Vec<_> = index.real_entries().collect();
    for (i, w) in entries.windows(2).enumerate() {
        if w[1].timestamp <= w[0].timestamp || w[1].offset < w[0].offset {
            ctx.add(
                "time-index-order",
                severity,
                path,
                Some(((i + 1) * TIME_ENTRY_SIZE) as u64),
                Some(w[1].offset),
                format!(
                    "entry (timestamp {}, offset {}) does not follow (timestamp {}, offset {})",
                    w[1].timestamp, w[1].offset, w[0].timestamp, w[0].offset
                ),
            );
        }
    }
    // Maximum timestamp so far at each batch, matched against entries by offset.
    let mut sorted: Vec<(usize, _)> = entries.iter().copied().enumerate().collect();
    sorted.sort_by_key(|(_, e)| e.offset);
    let mut ti = 0usize;
    let mut max_so_far = i64::MIN;
    let mut record_offsets = 0usize;
    for b in &scan.batches {
        max_so_far = max_so_far.max(b.max_timestamp);
        while ti < sorted.len() && sorted[ti].1.offset <= b.last_offset {
            let (slot, e) = sorted[ti];
            ti += 1;
            let at = Some((slot * TIME_ENTRY_SIZE) as u64);
            if e.offset < b.base_offset {
                ctx.add(
                    "time-index-mismatch",
                    severity,
                    path,
                    at,
                    Some(e.offset),
                    format!("entry offset {} is not in any batch", e.offset),
                );
            } else if e.offset != b.last_offset {
                // Up to 3.6 (uncompressed CreateTime appends) the offset of the max-timestamp record.
                if b.max_timestamp == e.timestamp {
                    record_offsets += 1;
                } else {
                    ctx.add(
                        "time-index-mismatch",
                        severity,
                        path,
                        at,
                        Some(e.offset),
                        format!("entry (timestamp {}, offset {}) points inside batch {}..{} whose max timestamp is {}", e.timestamp, e.offset, b.base_offset, b.last_offset, b.max_timestamp),
                    );
                }
            } else if b.max_timestamp != e.timestamp || max_so_far != e.timestamp {
                ctx.add(
                    "time-index-mismatch",
                    severity,
                    path,
                    at,
                    Some(e.offset),
                    format!(
                        "entry timestamp {} but the batch ending at {} has max timestamp {} and the maximum so far is {}",
                        e.timestamp, e.offset, b.max_timestamp, max_so_far
                    ),
                );
            }
        }
    }
    for (slot, e) in &sorted[ti..] {
        ctx.add(
            "time-index-beyond-log",
            severity,
            path,
            Some((slot * TIME_ENTRY_SIZE) as u64),
            Some(e.offset),
            format!(
                "entry offset {} is past the last batch of the log",
                e.offset
            ),
        );
    }
    if record_offsets > 0 {
        ctx.add(
            "time-index-mismatch",
            Severity::Info,
            path,
            None,
            None,
            format!("{record_offsets} entries store a record offset inside the batch (written by a broker up to 3.6): valid"),
        );
    }
    if !active && !scan.batches.is_empty() && max_so_far >= 0 {
        let last = entries.last().map(|e| e.timestamp);
        if last.is_none_or(|t| t < max_so_far) {
            ctx.add(
                "time-index-mismatch",
                Severity::Warning,
                path,
                None,
                None,
                format!(
                    "the segment's largest timestamp {max_so_far} has no entry (Kafka appends one at roll); lookups by time will use {}",
                    last.map_or("the file's mtime".to_string(), |t| t.to_string())
                ),
            );
        }
    }
}

fn check_txn_index(
    ctx: &mut Ctx<'_>,
    path: &Path,
    base: i64,
    scan: &SegmentScan,
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
    let markers: BTreeSet<(i64, i64)> = scan.aborts.iter().map(|a| (a.0, a.1)).collect();
    let certain: BTreeSet<(i64, i64)> = scan
        .aborts
        .iter()
        .filter(|a| a.2)
        .map(|a| (a.0, a.1))
        .collect();
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

fn check_producer_snapshot(
    ctx: &mut Ctx<'_>,
    path: &Path,
    log_end: Option<i64>,
    batches: &[(i64, i64)],
) {
    let name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let at = base_offset_of(&name);
    let Some(bytes) = ctx.read(path) else {
        return;
    };
    match parse_producer_snapshot(&bytes) {
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
            let lasts: BTreeSet<i64> = batches.iter().map(|b| b.0).collect();
            let first_offset = batches.iter().map(|b| b.0).min();
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
                    && !lasts.contains(&e.last_offset)
                {
                    ctx.add("producer-snapshot", Severity::Warning, path, None, Some(e.last_offset), format!("producer {}'s last batch should end at offset {}, but no batch in the log ends there", e.producer_id, e.last_offset));
                }
            }
        }
    }
}

/// The log dir level: the clean-shutdown marker.
pub fn verify_log_dir(facts: &LogDirFacts, findings: &mut Vec<Finding>) {
    if !facts.clean_shutdown {
        findings.push(Finding {
            check: "no-clean-shutdown",
            severity: Severity::Info,
            file: facts.path.display().to_string(),
            position: None,
            offset: None,
            message: "no .kafka_cleanshutdown marker: the broker did not shut down cleanly (or is running); Kafka will recover every partition from its recovery point".into(),
        });
    }
    for (path, msg) in &facts.problems {
        findings.push(Finding {
            check: "checkpoint-range",
            severity: Severity::Error,
            file: path.display().to_string(),
            position: None,
            offset: None,
            message: format!("unreadable checkpoint: {msg}"),
        });
    }
}

/// Segments given as loose files are verified as a one-segment partition.
pub fn loose_partition(path: &Path) -> PartitionDir {
    let dir = path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let base = name.split('.').next().unwrap_or_default().to_string();
    let files = ["log", "index", "timeindex", "txnindex"]
        .iter()
        .map(|ext| dir.join(format!("{base}.{ext}")))
        .filter(|p| p.exists())
        .map(|p| {
            let kind = crate::storage::layout::classify_file(
                &p.file_name().unwrap_or_default().to_string_lossy(),
            );
            DataFile { path: p, kind }
        })
        .collect();
    PartitionDir {
        path: dir,
        name: crate::storage::layout::PartitionName {
            topic: path.display().to_string(),
            partition: 0,
            state: crate::storage::layout::PartitionState::Live,
        },
        files,
    }
}
