//! Offline answers to the broker's offset questions — ListOffsets (`offsetsForTimes`,
//! earliest, latest, max timestamp), a fetch position and OffsetForLeaderEpoch — computed the
//! way the broker computes them, with the path taken recorded as typed [`Step`]s for
//! `--explain`, and what to check about an answer as typed [`Note`]s (both worded by
//! `print/lookup.rs`).
//!
//! By timestamp (`timestamp.rs`; `UnifiedLog.fetchOffsetByTimestamp` →
//! `LogSegment.findOffsetByTimestamp` → `FileRecords.searchForTimestamp`, kafka-format.md §4
//! with its corrections): the first segment whose largest timestamp is ≥ T (the `.log` mtime
//! when the segment holds no timestamp), the time-index floor of T, the offset-index floor of
//! `max(that offset, log start)`, then batches from that position: batches whose
//! `maxTimestamp` is below T are skipped, the first record with `timestamp ≥ T` and
//! `offset ≥ log start` of a later batch of the same segment is the answer (control batches
//! included). Only that one segment is searched. By offset, earliest and latest: `offset.rs`;
//! OffsetForLeaderEpoch and the leader-epoch cache: [`epoch`].
//!
//! Index-guided lookups read a few pages of the index files of the segments they visit
//! ([`PagedIndex`](kseg_storage::paged_index::PagedIndex)) and a few pages of one `.log`
//! (positioned reads of [`LOOKUP_READ_CHUNK`] bytes), walking it with
//! [`scan_log`](kseg_scan::scan_log) (`reader.rs`). A scan ([`lookup`] with `scan`,
//! `full_scan.rs`) answers again from every record of every segment, ignoring the indexes, and
//! says why the two answers differ when they do (a [`ScanReason`]).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use kseg_format::log::BatchInfo;
use kseg_storage::source::READ_CHUNK;

pub mod epoch;
pub mod explain;
mod full_scan;
pub mod notes;
mod offset;
mod reader;
mod target;
mod timestamp;

pub use epoch::{end_offset_for, load_cache, EpochCacheChange, EpochEnd};
pub use explain::Step;
pub use notes::{EpochDifference, EpochDisagreement, Note, ScanReason};
pub use target::{PartitionTarget, SegmentFiles};

use reader::PartitionReader;

/// Read size of index-guided lookups: one page, so that reading two or three batches costs a
/// few pages rather than a 1 MiB refill.
pub const LOOKUP_READ_CHUNK: usize = 4096;

/// Timestamps below this many milliseconds (1973-03-03) are probably seconds.
const PROBABLY_SECONDS: i64 = 100_000_000_000;

/// What is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    /// Where a fetch from this offset starts.
    Offset(i64),
    /// `offsetsForTimes`: the first offset whose timestamp is ≥ T (epoch ms).
    Timestamp(i64),
    /// ListOffsets EARLIEST (-2): the log start offset.
    Earliest,
    /// ListOffsets LATEST (-1): the log end offset.
    Latest,
    /// ListOffsets MAX_TIMESTAMP (-3): the record with the largest timestamp.
    MaxTimestamp,
    /// OffsetForLeaderEpoch: the end offset of an epoch.
    EndOffsetForEpoch(i32),
}

impl Query {
    /// A stable name for JSON (`target.kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            Query::Offset(_) => "offset",
            Query::Timestamp(_) => "timestamp",
            Query::Earliest => "earliest",
            Query::Latest => "latest",
            Query::MaxTimestamp => "maxTimestamp",
            Query::EndOffsetForEpoch(_) => "endOffsetForEpoch",
        }
    }

    pub fn value(&self) -> Option<i64> {
        match *self {
            Query::Offset(o) | Query::Timestamp(o) => Some(o),
            Query::EndOffsetForEpoch(e) => Some(e as i64),
            _ => None,
        }
    }
}

/// An error while answering, naming the file and, where known, the byte position.
#[derive(Debug, Clone)]
pub struct LookupError {
    pub file: PathBuf,
    pub position: Option<u64>,
    pub message: String,
}

impl LookupError {
    fn io(file: &Path, position: Option<u64>, e: io::Error) -> Self {
        LookupError {
            file: file.to_path_buf(),
            position,
            message: e.to_string(),
        }
    }
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(p) => write!(f, "{}: byte {p}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for LookupError {}

/// The batch an answer lies in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchFacts {
    pub position: u64,
    pub base_offset: i64,
    pub last_offset: i64,
    pub count: Option<i32>,
    pub magic: i8,
    pub codec: &'static str,
    pub timestamp_type: &'static str,
    pub max_timestamp: i64,
    pub partition_leader_epoch: i32,
    pub is_transactional: bool,
    pub is_control: bool,
    pub size: usize,
}

impl BatchFacts {
    fn new(position: u64, b: &BatchInfo) -> Self {
        BatchFacts {
            position,
            base_offset: b.base_offset,
            last_offset: b.last_offset,
            count: b.count,
            magic: b.magic,
            codec: b.codec.name(),
            timestamp_type: b.timestamp_type.name(),
            max_timestamp: b.max_timestamp,
            partition_leader_epoch: b.partition_leader_epoch,
            is_transactional: b.is_transactional,
            is_control: b.is_control,
            size: b.size,
        }
    }
}

/// One answer. `offset: None` is the broker's "none" (offset -1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    pub offset: Option<i64>,
    /// The timestamp of the record found (the one to compare with the target).
    pub timestamp: Option<i64>,
    pub leader_epoch: Option<i32>,
    pub segment: Option<PathBuf>,
    pub batch: Option<BatchFacts>,
    /// Why there is no answer, or what to check about the one given.
    pub notes: Vec<Note>,
}

impl Answer {
    pub fn position(&self) -> Option<u64> {
        self.batch.map(|b| b.position)
    }

    fn none(note: Note) -> Answer {
        Answer {
            notes: vec![note],
            ..Default::default()
        }
    }

    /// An answer at `offset` in the batch `b` of the segment `log`.
    fn at(log: &Path, b: &reader::BatchAt, offset: i64, timestamp: Option<i64>) -> Answer {
        Answer {
            offset: Some(offset),
            timestamp,
            leader_epoch: (b.info.partition_leader_epoch >= 0)
                .then_some(b.info.partition_leader_epoch),
            segment: Some(log.to_path_buf()),
            batch: Some(b.facts()),
            notes: Vec::new(),
        }
    }

    /// Same offset, timestamp, epoch and place (notes aside).
    pub fn same_as(&self, other: &Answer) -> bool {
        self.offset == other.offset
            && self.timestamp == other.timestamp
            && self.leader_epoch == other.leader_epoch
            && self.segment == other.segment
            && self.position() == other.position()
    }
}

/// The path taken.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    pub steps: Vec<Step>,
    /// Bytes read from `.log` files.
    pub log_bytes_read: u64,
    /// Bytes read from `.index` and `.timeindex` files (by pages; whole when zero-tailed).
    pub index_bytes_read: u64,
    pub batches_scanned: u64,
    pub records_decoded: u64,
}

/// The answer of a full scan, set against the index-guided one.
#[derive(Debug, Clone)]
pub struct ScanResult {
    pub answer: Answer,
    pub trace: Trace,
    pub differs: bool,
    /// Why they differ.
    pub reason: Option<ScanReason>,
}

#[derive(Debug, Clone)]
pub struct LookupReport {
    pub topic: String,
    pub partition: i32,
    pub path: PathBuf,
    pub query: Query,
    pub log_start_offset: i64,
    /// The log end offset: `None` only when it could not be read.
    pub log_end_offset: Option<i64>,
    /// The index-guided answer: what the broker answers.
    pub answer: Answer,
    pub trace: Trace,
    /// With `scan`: the answer from every record.
    pub scan: Option<ScanResult>,
}

/// The answers of the log `LogLoader.deleteSegmentsIfLogStartGreaterThanLogEnd` leaves when the
/// log start offset checkpoint is beyond the log end: no segment but an empty one at
/// `log_start`, the epoch cache cleared. Earliest and latest are `log_start`; an offset other
/// than it is out of range; nothing answers a timestamp or an epoch.
fn emptied_by_log_start(
    target: &PartitionTarget,
    query: Query,
    log_start: i64,
    log_end: i64,
    reader: PartitionReader<'_>,
) -> LookupReport {
    let wiped = Note::LogStartBeyondEnd { log_start, log_end };
    let mut answer = match query {
        Query::Earliest | Query::Latest => Answer {
            offset: Some(log_start),
            ..Default::default()
        },
        Query::Offset(o) if o == log_start => Answer::none(Note::OffsetIsLogEnd { offset: o }),
        Query::Offset(o) => Answer::none(Note::OffsetOutOfRange {
            offset: o,
            log_start,
            log_end: log_start,
        }),
        Query::Timestamp(_) | Query::MaxTimestamp | Query::EndOffsetForEpoch(_) => {
            Answer::default()
        }
    };
    answer.notes.insert(0, wiped);
    LookupReport {
        topic: target.topic.clone(),
        partition: target.partition,
        path: target.path.clone(),
        query,
        log_start_offset: log_start,
        log_end_offset: Some(log_start),
        answer,
        trace: reader.finish(),
        scan: None,
    }
}

/// Answers `query` for one partition. With `scan`, also answers from a scan of every record.
pub fn lookup(
    target: &PartitionTarget,
    query: Query,
    scan: bool,
    max_decompressed: usize,
) -> Result<LookupReport, LookupError> {
    if target.segments.is_empty() {
        return Err(LookupError {
            file: target.path.clone(),
            position: None,
            message: "no .log segment in this partition dir".into(),
        });
    }
    let mut reader = PartitionReader::new(target, LOOKUP_READ_CHUNK, max_decompressed);
    let log_start = reader.log_start_offset();
    if target.log_start_checkpoint == Some(log_start) {
        // Read apart from the trace, which is the path of the query's answer.
        let end =
            PartitionReader::new(target, LOOKUP_READ_CHUNK, max_decompressed).log_end_offset()?;
        if end < log_start {
            return Ok(emptied_by_log_start(target, query, log_start, end, reader));
        }
    }
    let mut leo = None;
    let mut answer = match query {
        Query::Timestamp(t) => reader.by_timestamp(t, log_start)?,
        Query::Offset(o) => {
            let end = reader.log_end_offset()?;
            leo = Some(end);
            reader.by_offset(o, log_start, end)?
        }
        Query::Earliest => reader.earliest(log_start),
        Query::Latest => {
            let end = reader.log_end_offset()?;
            leo = Some(end);
            reader.latest(end)
        }
        Query::MaxTimestamp => reader.max_timestamp()?,
        Query::EndOffsetForEpoch(e) => {
            let end = reader.log_end_offset()?;
            leo = Some(end);
            reader.end_offset_for_epoch(e, log_start, end)?
        }
    };
    if let Query::Timestamp(t) = query {
        if t > 0 && t < PROBABLY_SECONDS {
            answer.notes.push(Note::ProbablySeconds { target: t });
        }
    }
    let trace = reader.finish();
    if leo.is_none() {
        // The broker always knows its log end; this query's path did not need it, so it is read
        // apart from the trace (the path the broker takes for the query).
        leo = PartitionReader::new(target, LOOKUP_READ_CHUNK, max_decompressed)
            .log_end_offset()
            .ok();
    }
    let scan = if scan {
        let mut full = PartitionReader::new(target, READ_CHUNK, max_decompressed);
        let (scan_answer, reason) = full.scan(query, log_start, &answer)?;
        let differs = !scan_answer.same_as(&answer);
        Some(ScanResult {
            answer: scan_answer,
            trace: full.finish(),
            differs,
            reason: if differs { reason } else { None },
        })
    } else {
        None
    };
    Ok(LookupReport {
        topic: target.topic.clone(),
        partition: target.partition,
        path: target.path.clone(),
        query,
        log_start_offset: log_start,
        log_end_offset: leo,
        answer,
        trace,
        scan,
    })
}
