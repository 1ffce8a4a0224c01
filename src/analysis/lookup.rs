//! Offline answers to the broker's offset questions — ListOffsets (`offsetsForTimes`,
//! earliest, latest, max timestamp), a fetch position and OffsetForLeaderEpoch — computed the
//! way the broker computes them, with the path taken recorded for `--explain`.
//!
//! By timestamp (`UnifiedLog.fetchOffsetByTimestamp` → `LogSegment.findOffsetByTimestamp` →
//! `FileRecords.searchForTimestamp`, kafka-format.md §4 with its corrections): the first segment
//! whose largest timestamp is ≥ T (the `.log` mtime when the segment holds no timestamp), the
//! time-index floor of T, the offset-index floor of `max(that offset, log start)`, then batches
//! from that position: batches whose `maxTimestamp` is below T are skipped, the first record with
//! `timestamp ≥ T` and `offset ≥ log start` of a later batch of the same segment is the answer
//! (control batches included). Only that one segment is searched.
//!
//! Index-guided lookups read a few pages of the index files of the segments they visit (a
//! bisection over pages, then Kafka's floor lookup inside one page) and a few pages of one
//! `.log` (positioned reads of [`LOOKUP_READ_CHUNK`] bytes). A scan ([`lookup`] with `scan`)
//! answers again from every record of every segment, ignoring the indexes, and says why the two
//! answers differ when they do.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use crate::format::compression::Codec;
use crate::format::index::{
    IndexKind, OffsetEntry, OffsetIndex, Offsets, TimeEntry, TimeIndex, Times,
};
use crate::format::log::{
    for_each_record, BatchInfo, ByteSource, LogEntry, LogRecord, LogWalker, RecordScratch,
    WalkEvent,
};
use crate::format::text_files::{parse_checkpoint, CheckpointEntry};
use crate::scan::Flow;
use crate::storage::discover::PartitionDir;
use crate::storage::layout::{base_offset_of, FileKind};
use crate::storage::paged_index::PagedIndex;
use crate::storage::source::{read_small, FileSource, READ_CHUNK};
use crate::time::rfc3339_or_ms as rfc3339;

/// Read size of index-guided lookups: one page, so that reading two or three batches costs a
/// few pages rather than a 1 MiB refill.
pub const LOOKUP_READ_CHUNK: usize = 4096;

/// Largest index or checkpoint file read (a preallocated index is 10 MiB).
const SMALL_FILE_LIMIT: u64 = 1 << 30;

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

/// Parses `--timestamp`: epoch milliseconds, ListOffsets' special values (-1 latest, -2
/// earliest, -3 max timestamp, as `kafka-get-offsets.sh --time` takes them), or RFC 3339 with a
/// zone. A time without a zone is refused: its meaning depends on the machine that reads it.
pub fn parse_timestamp(s: &str) -> Result<Query, String> {
    let t = s.trim();
    if let Ok(ms) = t.parse::<i64>() {
        return match ms {
            -1 => Ok(Query::Latest),
            -2 => Ok(Query::Earliest),
            -3 => Ok(Query::MaxTimestamp),
            ms if ms < 0 => Err(format!(
                "--timestamp {ms}: a negative timestamp is not a time; ListOffsets takes -1 \
                 (latest), -2 (earliest) and -3 (max timestamp)"
            )),
            ms => Ok(Query::Timestamp(ms)),
        };
    }
    if let Ok(ts) = t.parse::<jiff::Timestamp>() {
        return Ok(Query::Timestamp(ts.as_millisecond()));
    }
    let civil = t.parse::<jiff::civil::DateTime>().ok().or_else(|| {
        t.parse::<jiff::civil::Date>()
            .ok()
            .map(|d| d.to_datetime(jiff::civil::Time::midnight()))
    });
    match civil {
        Some(dt) => {
            let utc = jiff::tz::Offset::UTC
                .to_timestamp(dt)
                .map(|t| t.as_millisecond())
                .ok();
            Err(format!(
                "--timestamp {t:?} has no time zone. kafka-consumer-groups.sh --to-datetime reads \
                 such a time in the JVM's default zone, so the same text names a different \
                 instant on every machine whose zone differs (a reset meant for 14:00 in \
                 Shanghai lands 8 hours later on a broker host in UTC). Say which instant you \
                 mean: {dt}Z, {dt}+08:00, or epoch milliseconds{}",
                utc.map(|u| format!(" (read as UTC it would be {u})"))
                    .unwrap_or_default()
            ))
        }
        None => Err(format!(
            "--timestamp {t:?} is neither epoch milliseconds nor an RFC 3339 time with a zone \
             (2024-03-09T14:00:00+08:00, 2024-03-09T06:00:00Z)"
        )),
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

/// One segment: its `.log` and the indexes beside it.
#[derive(Debug, Clone)]
pub struct SegmentFiles {
    pub base_offset: i64,
    pub log: PathBuf,
    pub offset_index: Option<PathBuf>,
    pub time_index: Option<PathBuf>,
}

/// A partition as the lookup sees it: its segments and the checkpoints that bear on answers.
#[derive(Debug, Clone)]
pub struct PartitionTarget {
    pub topic: String,
    pub partition: i32,
    pub path: PathBuf,
    pub segments: Vec<SegmentFiles>,
    /// This partition's entry in the log dir's `log-start-offset-checkpoint`.
    pub log_start_checkpoint: Option<i64>,
    /// This partition's entry in `replication-offset-checkpoint` (the high watermark).
    pub high_watermark: Option<i64>,
    pub leader_epoch_checkpoint: Option<PathBuf>,
    /// Checkpoint files that could not be read.
    pub notes: Vec<String>,
}

impl PartitionTarget {
    /// Builds the target from a discovered partition dir; `log_dir` is the directory holding
    /// the log dir's checkpoint files (the partition dir's parent), when there is one.
    pub fn new(p: &PartitionDir, log_dir: Option<&Path>) -> PartitionTarget {
        let mut segments: Vec<SegmentFiles> = Vec::new();
        let mut leader_epoch_checkpoint = None;
        let base_of = |path: &Path| {
            path.file_name()
                .and_then(|n| base_offset_of(&n.to_string_lossy()))
        };
        for f in &p.files {
            match f.kind {
                FileKind::Log => {
                    if let Some(base) = base_of(&f.path) {
                        segments.push(SegmentFiles {
                            base_offset: base,
                            log: f.path.clone(),
                            offset_index: None,
                            time_index: None,
                        });
                    }
                }
                FileKind::LeaderEpochCheckpoint => leader_epoch_checkpoint = Some(f.path.clone()),
                _ => {}
            }
        }
        segments.sort_by_key(|s| s.base_offset);
        for f in &p.files {
            let Some(base) = base_of(&f.path) else {
                continue;
            };
            if let Some(s) = segments.iter_mut().find(|s| s.base_offset == base) {
                match f.kind {
                    FileKind::OffsetIndex => s.offset_index = Some(f.path.clone()),
                    FileKind::TimeIndex => s.time_index = Some(f.path.clone()),
                    _ => {}
                }
            }
        }
        let mut target = PartitionTarget {
            topic: p.name.topic.clone(),
            partition: p.name.partition,
            path: p.path.clone(),
            segments,
            log_start_checkpoint: None,
            high_watermark: None,
            leader_epoch_checkpoint,
            notes: Vec::new(),
        };
        if let Some(dir) = log_dir {
            target.log_start_checkpoint =
                target.checkpoint_entry(&dir.join("log-start-offset-checkpoint"));
            target.high_watermark =
                target.checkpoint_entry(&dir.join("replication-offset-checkpoint"));
        }
        target
    }

    fn checkpoint_entry(&mut self, file: &Path) -> Option<i64> {
        if !file.is_file() {
            return None;
        }
        let parsed = read_small(file, SMALL_FILE_LIMIT)
            .map_err(|e| e.to_string())
            .and_then(|b| String::from_utf8(b).map_err(|_| "not UTF-8 text".to_string()))
            .and_then(|t| {
                parse_checkpoint(&t, false)
                    .map_err(|e| format!("byte {}: {}", e.position, e.message))
            });
        match parsed {
            Ok(c) => c.entries.into_iter().find_map(|e| match e {
                CheckpointEntry::Partition {
                    topic,
                    partition,
                    offset,
                } if topic == self.topic && partition == self.partition => Some(offset),
                _ => None,
            }),
            Err(m) => {
                self.notes.push(format!("{}: {m}; ignored", file.display()));
                None
            }
        }
    }
}

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
    pub notes: Vec<String>,
}

impl Answer {
    pub fn position(&self) -> Option<u64> {
        self.batch.map(|b| b.position)
    }

    fn none(note: String) -> Answer {
        Answer {
            notes: vec![note],
            ..Default::default()
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

    fn short(&self) -> String {
        match self.offset {
            None => "none".into(),
            Some(o) => {
                let mut s = format!("offset {o}");
                if let Some(t) = self.timestamp {
                    s += &format!(" (timestamp {t})");
                }
                if let Some(e) = self.leader_epoch {
                    s += &format!(" (leader epoch {e})");
                }
                if let (Some(seg), Some(p)) = (&self.segment, self.position()) {
                    s += &format!(" in {} at byte {p}", file_name(seg));
                }
                s
            }
        }
    }
}

/// The path taken.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    pub steps: Vec<String>,
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
    pub reason: Option<String>,
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
    let mut ctx = Ctx::new(target, LOOKUP_READ_CHUNK, max_decompressed);
    let log_start = ctx.log_start_offset();
    let mut leo = None;
    let answer = match query {
        Query::Timestamp(t) => ctx.by_timestamp(t, log_start)?,
        Query::Offset(o) => {
            let end = ctx.log_end_offset()?;
            leo = Some(end);
            ctx.by_offset(o, log_start, end)?
        }
        Query::Earliest => ctx.earliest(log_start)?,
        Query::Latest => {
            let end = ctx.log_end_offset()?;
            leo = Some(end);
            ctx.latest(end)?
        }
        Query::MaxTimestamp => ctx.max_timestamp()?,
        Query::EndOffsetForEpoch(e) => {
            let end = ctx.log_end_offset()?;
            leo = Some(end);
            ctx.end_offset_for_epoch(e, log_start, end)?
        }
    };
    let mut answer = answer;
    if let Query::Timestamp(t) = query {
        if t > 0 && t < PROBABLY_SECONDS {
            answer.notes.push(format!(
                "the target {t} ms is {}: if you meant seconds, ask for {}",
                rfc3339(t),
                t.saturating_mul(1000)
            ));
        }
    }
    let trace = ctx.finish();
    if leo.is_none() {
        // The broker always knows its log end; this query's path did not need it, so it is read
        // apart from the trace (the path the broker takes for the query).
        leo = Ctx::new(target, LOOKUP_READ_CHUNK, max_decompressed)
            .log_end_offset()
            .ok();
    }
    let scan = if scan {
        let mut full = Ctx::new(target, READ_CHUNK, max_decompressed);
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

/// OffsetForLeaderEpoch over a leader-epoch cache (`LeaderEpochFileCache.endOffsetFor`):
/// `(epoch, end offset)`, or `None` for UNDEFINED. `epochs` is sorted by epoch.
pub fn end_offset_for(epochs: &[(i32, i64)], requested: i32, log_end: i64) -> Option<(i32, i64)> {
    if requested == -1 {
        return None;
    }
    if epochs.last().is_some_and(|l| l.0 == requested) {
        return Some((requested, log_end));
    }
    let higher = epochs.iter().find(|e| e.0 > requested)?;
    match epochs.iter().rev().find(|e| e.0 <= requested) {
        None => Some((requested, higher.1)),
        Some(floor) => Some((floor.0, higher.1)),
    }
    .filter(|(_, o)| *o != -1)
}

/// The cache as `LogLoader` leaves it: entries starting at or after the log end dropped
/// (`truncateFromEnd`), entries at or before the log start folded into one starting there
/// (`truncateFromStart`). Returns the entries and what changed.
pub fn load_epoch_cache(
    epochs: Vec<(i32, i64)>,
    log_start: i64,
    log_end: i64,
) -> (Vec<(i32, i64)>, Vec<String>) {
    let mut changes = Vec::new();
    // LeaderEpochFileCache's constructor assigns the entries in file order: one repeating the
    // latest epoch at a start not below it is ignored; otherwise it first removes, from the
    // end, every entry whose epoch or start offset is not below its own. An invalid (negative)
    // entry makes Kafka fail to load the log; it is left out here.
    let mut cache: Vec<(i32, i64)> = Vec::new();
    for (epoch, start) in epochs {
        if epoch < 0 || start < 0 {
            changes.push(format!(
                "entry ({epoch}, {start}) is invalid: Kafka refuses it and fails to load the log"
            ));
            continue;
        }
        if cache.last().is_some_and(|&(e, s)| e == epoch && start >= s) {
            continue;
        }
        let mut removed = Vec::new();
        while let Some(&(e, s)) = cache.last() {
            if e < epoch && s < start {
                break;
            }
            removed.push(format!("{e} {s}"));
            cache.pop();
        }
        if !removed.is_empty() {
            changes.push(format!(
                "entry ({epoch}, {start}) removes the earlier entries it conflicts with: {}",
                removed.join(", ")
            ));
        }
        cache.push((epoch, start));
    }
    let mut epochs = cache;
    if log_end >= 0 && epochs.last().is_some_and(|l| l.1 >= log_end) {
        let dropped: Vec<String> = epochs
            .iter()
            .filter(|e| e.1 >= log_end)
            .map(|e| format!("{} {}", e.0, e.1))
            .collect();
        epochs.retain(|e| e.1 < log_end);
        changes.push(format!(
            "entries starting at or after the log end offset {log_end} are dropped when the log \
             is loaded: {} (normal when a leader was elected and nothing appended since)",
            dropped.join(", ")
        ));
    }
    let removed: Vec<(i32, i64)> = epochs
        .iter()
        .copied()
        .take_while(|e| e.1 <= log_start)
        .collect();
    if let Some(&(epoch, start)) = removed.last() {
        epochs.drain(..removed.len());
        epochs.insert(0, (epoch, log_start));
        if removed.len() > 1 || start != log_start {
            changes.push(format!(
                "entries at or before the log start offset {log_start} fold into ({epoch}, \
                 {log_start})"
            ));
        }
    }
    (epochs, changes)
}

/// `LeaderEpochFileCache.epochForOffset`.
fn epoch_for_offset(epochs: &[(i32, i64)], offset: i64) -> Option<i32> {
    let mut previous = None;
    for &(epoch, start) in epochs {
        if start == offset {
            return Some(epoch);
        }
        if start > offset {
            return previous;
        }
        previous = Some(epoch);
    }
    previous
}

/// The leader-epoch cache the batches build (`LogSegment.recover`: a v2 batch with an epoch
/// above the latest one starts that epoch at its base offset).
fn assign_from_batch(cache: &mut Vec<(i32, i64)>, b: &BatchInfo) {
    if b.magic >= 2
        && b.partition_leader_epoch >= 0
        && cache.last().is_none_or(|l| b.partition_leader_epoch > l.0)
    {
        cache.push((b.partition_leader_epoch, b.base_offset));
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

fn describe_ts(ts: i64) -> String {
    if ts < 0 {
        format!("{ts}")
    } else {
        format!("{ts} ({})", rfc3339(ts))
    }
}

/// An answer in the batch `b`.
fn hit_at(logs: &[PathBuf], b: &BatchAt<'_>, offset: i64, timestamp: Option<i64>) -> Answer {
    Answer {
        offset: Some(offset),
        timestamp,
        leader_epoch: (b.info.partition_leader_epoch >= 0).then_some(b.info.partition_leader_epoch),
        segment: logs.get(b.segment).cloned(),
        batch: Some(BatchFacts::new(b.position, &b.info)),
        notes: Vec::new(),
    }
}

/// A batch met by a walk.
struct BatchAt<'e> {
    segment: usize,
    position: u64,
    entry: &'e LogEntry<'e>,
    info: BatchInfo,
}

/// The largest timestamp of a segment and the offset that carries it (`maxTimestampSoFar`).
#[derive(Debug, Clone, Copy)]
struct SegmentMax {
    timestamp: i64,
    offset: i64,
}

struct Seg<'t> {
    files: &'t SegmentFiles,
    source: Option<FileSource>,
    offset_index: Option<Option<PagedIndex<Offsets>>>,
    time_index: Option<Option<PagedIndex<Times>>>,
    max: Option<SegmentMax>,
    max_how: String,
}

/// Which of a segment's two indexes the kind `K` is: its path and its slot in [`Seg`].
trait SegIndex: IndexKind + Sized {
    fn path(files: &SegmentFiles) -> Option<&PathBuf>;
    fn cell<'s>(seg: &'s mut Seg<'_>) -> &'s mut Option<Option<PagedIndex<Self>>>;
}

impl SegIndex for Offsets {
    fn path(files: &SegmentFiles) -> Option<&PathBuf> {
        files.offset_index.as_ref()
    }
    fn cell<'s>(seg: &'s mut Seg<'_>) -> &'s mut Option<Option<PagedIndex<Self>>> {
        &mut seg.offset_index
    }
}

impl SegIndex for Times {
    fn path(files: &SegmentFiles) -> Option<&PathBuf> {
        files.time_index.as_ref()
    }
    fn cell<'s>(seg: &'s mut Seg<'_>) -> &'s mut Option<Option<PagedIndex<Self>>> {
        &mut seg.time_index
    }
}

struct Ctx<'t> {
    target: &'t PartitionTarget,
    segs: Vec<Seg<'t>>,
    scratch: RecordScratch,
    trace: Trace,
    chunk: usize,
}

/// The first record of an entry that satisfies `pred`, as `(offset, timestamp)`. Decode
/// problems are noted in the trace with their file position.
fn first_record(
    scratch: &mut RecordScratch,
    trace: &mut Trace,
    log: &Path,
    b: &BatchAt<'_>,
    pred: impl Fn(&LogRecord<'_>) -> bool,
) -> Option<(i64, i64)> {
    let mut found = None;
    let mut decoded = 0u64;
    let result = for_each_record(b.entry, scratch, |r| {
        decoded += 1;
        if found.is_none() && pred(r) {
            found = Some((r.offset, r.timestamp));
        }
    });
    trace.records_decoded += decoded;
    if let Err(e) = result {
        trace.steps.push(format!(
            "{}: byte {}: records of the batch at byte {} cannot be decoded: {}",
            log.display(),
            b.position + e.position,
            b.position,
            e.message
        ));
    }
    found
}

impl<'t> Ctx<'t> {
    fn new(target: &'t PartitionTarget, chunk: usize, max_decompressed: usize) -> Self {
        Ctx {
            target,
            segs: target
                .segments
                .iter()
                .map(|files| Seg {
                    files,
                    source: None,
                    offset_index: None,
                    time_index: None,
                    max: None,
                    max_how: String::new(),
                })
                .collect(),
            scratch: RecordScratch::with_cap(max_decompressed),
            trace: Trace::default(),
            chunk,
        }
    }

    fn step(&mut self, s: String) {
        self.trace.steps.push(s);
    }

    fn finish(mut self) -> Trace {
        self.trace.log_bytes_read = self
            .segs
            .iter()
            .filter_map(|s| s.source.as_ref())
            .map(|s| s.bytes_read)
            .sum();
        self.trace.index_bytes_read = self
            .segs
            .iter()
            .map(|s| {
                let o = s.offset_index.as_ref().and_then(|f| f.as_ref());
                let t = s.time_index.as_ref().and_then(|f| f.as_ref());
                o.map_or(0, |f| f.bytes_read()) + t.map_or(0, |f| f.bytes_read())
            })
            .sum();
        self.trace
    }

    fn name(&self, i: usize) -> String {
        file_name(&self.segs[i].files.log)
    }

    fn open(&mut self, i: usize) -> Result<(), LookupError> {
        if self.segs[i].source.is_none() {
            let path = &self.segs[i].files.log;
            let src = FileSource::with_chunk(path, self.chunk)
                .map_err(|e| LookupError::io(path, None, e))?;
            self.segs[i].source = Some(src);
        }
        Ok(())
    }

    fn log_len(&mut self, i: usize) -> Result<u64, LookupError> {
        self.open(i)?;
        Ok(self.segs[i].source.as_ref().map_or(0, |s| s.len()))
    }

    /// The segment's `.index` or `.timeindex`, opened once; `None` when it is missing or
    /// unreadable (an empty index, as Kafka rebuilds it; noted in the trace).
    fn index<K: SegIndex>(&mut self, i: usize) -> Option<&mut PagedIndex<K>> {
        if K::cell(&mut self.segs[i]).is_none() {
            let files = self.segs[i].files;
            let what = K::EXTENSION;
            let opened = match K::path(files) {
                None => {
                    let note = format!(
                        "{}: no {what} beside it: lookups in it start at byte 0",
                        self.name(i)
                    );
                    self.step(note);
                    None
                }
                Some(p) => match PagedIndex::<K>::open(p, files.base_offset) {
                    Ok(f) => Some(f),
                    Err(e) => {
                        let note =
                            format!("{}: cannot read it ({e}); treated as empty", p.display());
                        self.step(note);
                        None
                    }
                },
            };
            *K::cell(&mut self.segs[i]) = Some(opened);
        }
        K::cell(&mut self.segs[i]).as_mut().and_then(|f| f.as_mut())
    }

    fn index_error<K: SegIndex>(&self, i: usize, e: io::Error) -> LookupError {
        let files = self.segs[i].files;
        LookupError::io(K::path(files).unwrap_or(&files.log), None, e)
    }

    fn index_entries<K: SegIndex>(&mut self, i: usize) -> usize {
        self.index::<K>(i).map_or(0, |f| f.entries())
    }

    /// `OffsetIndex.lookup`, and the entry's slot (None for the `(base, 0)` default).
    fn offset_floor(
        &mut self,
        i: usize,
        target: i64,
    ) -> Result<(OffsetEntry, Option<usize>), LookupError> {
        let base = self.segs[i].files.base_offset;
        let found = match self.index::<Offsets>(i) {
            None => Ok((OffsetIndex::new(base, &[]).lookup(target), None)),
            Some(f) => f.lookup(target),
        };
        found.map_err(|e| self.index_error::<Offsets>(i, e))
    }

    /// `TimeIndex.lookup`, and the entry's slot (None for the `(-1, base)` default).
    fn time_floor(
        &mut self,
        i: usize,
        target: i64,
    ) -> Result<(TimeEntry, Option<usize>), LookupError> {
        let base = self.segs[i].files.base_offset;
        let found = match self.index::<Times>(i) {
            None => Ok((TimeIndex::new(base, &[]).lookup(target), None)),
            Some(f) => f.lookup(target),
        };
        found.map_err(|e| self.index_error::<Times>(i, e))
    }

    fn last_offset_entry(&mut self, i: usize) -> Result<Option<OffsetEntry>, LookupError> {
        let found = match self.index::<Offsets>(i) {
            None => Ok(None),
            Some(f) => f.last_entry(),
        };
        found.map_err(|e| self.index_error::<Offsets>(i, e))
    }

    fn last_time_entry(&mut self, i: usize) -> Result<Option<TimeEntry>, LookupError> {
        let found = match self.index::<Times>(i) {
            None => Ok(None),
            Some(f) => f.last_entry(),
        };
        found.map_err(|e| self.index_error::<Times>(i, e))
    }

    /// An index position to start a walk at, or 0 when it lies past the end of the `.log`.
    fn checked_position(&mut self, i: usize, position: u64) -> Result<u64, LookupError> {
        let len = self.log_len(i)?;
        if position > 0 && position >= len {
            let note = format!(
                "{}: the index points at byte {position}, {} the end of the log ({len} bytes): \
                 starting at byte 0",
                self.name(i),
                if position == len { "at" } else { "past" }
            );
            self.step(note);
            return Ok(0);
        }
        Ok(position)
    }

    /// Walks the batches of segment `i` from byte `from`, until `visit` says stop.
    fn walk(
        &mut self,
        i: usize,
        from: u64,
        visit: &mut dyn FnMut(&mut RecordScratch, &mut Trace, &BatchAt<'_>) -> Flow,
    ) -> Result<Flow, LookupError> {
        self.open(i)?;
        let path = self.segs[i].files.log.clone();
        let Ctx {
            segs,
            scratch,
            trace,
            ..
        } = self;
        let src = segs[i].source.as_mut().expect("opened above");
        let mut walker = LogWalker::starting_at(from, u64::MAX);
        loop {
            let at = walker.position();
            let event = walker
                .next(src)
                .map_err(|e| LookupError::io(&path, Some(at), e))?;
            let Some(event) = event else {
                return Ok(Flow::Continue);
            };
            match event {
                WalkEvent::Entry { position, bytes } => {
                    trace.batches_scanned += 1;
                    let entry = match LogEntry::parse(bytes) {
                        Ok(e) => e,
                        Err(e) => {
                            trace.steps.push(format!(
                                "{}: byte {}: undecodable batch skipped: {}",
                                path.display(),
                                position + e.position,
                                e.message
                            ));
                            continue;
                        }
                    };
                    let mut info = entry.info();
                    if let LogEntry::Legacy(m) = &entry {
                        // A legacy wrapper's base offset and count live in its compressed value.
                        if m.codec() != Codec::None {
                            let mut first = None;
                            if let Ok(n) = for_each_record(&entry, scratch, |r| {
                                first.get_or_insert(r.offset);
                            }) {
                                info.count = Some(n as i32);
                                info.base_offset = first.unwrap_or(info.base_offset);
                            }
                        }
                    }
                    let b = BatchAt {
                        segment: i,
                        position,
                        entry: &entry,
                        info,
                    };
                    if visit(scratch, trace, &b) == Flow::Stop {
                        return Ok(Flow::Stop);
                    }
                }
                WalkEvent::Corrupt {
                    position,
                    length,
                    reason,
                } => trace.steps.push(format!(
                    "{}: byte {position}: {length} invalid bytes skipped ({reason})",
                    path.display(),
                )),
                WalkEvent::Tail {
                    position,
                    length,
                    kind,
                } => trace.steps.push(format!(
                    "{}: byte {position}: {}",
                    path.display(),
                    kind.describe(length)
                )),
            }
        }
    }

    fn log_start_offset(&mut self) -> i64 {
        let first = self.segs[0].files.base_offset;
        let note = match self.target.log_start_checkpoint {
            Some(c) if c > first => {
                format!(
                    "log start offset {c}: log-start-offset-checkpoint (the first segment starts \
                     at {first})"
                )
            }
            Some(c) => format!(
                "log start offset {first}: the first segment's base offset \
                 (log-start-offset-checkpoint says {c})"
            ),
            None => format!("log start offset {first}: the first segment's base offset"),
        };
        self.step(note);
        let notes = self.target.notes.clone();
        self.trace.steps.extend(notes);
        self.target
            .log_start_checkpoint
            .map_or(first, |c| c.max(first))
    }

    /// The log end offset: one past the last batch of the last segment (walked from its last
    /// offset-index entry), or its base offset when it is empty.
    fn log_end_offset(&mut self) -> Result<i64, LookupError> {
        let i = self.segs.len() - 1;
        let base = self.segs[i].files.base_offset;
        let from = self.last_offset_entry(i)?.map_or(0, |e| e.position as u64);
        let from = self.checked_position(i, from)?;
        let mut last = None;
        let mut n = 0u64;
        self.walk(i, from, &mut |_, _, b| {
            n += 1;
            last = Some(b.info.last_offset);
            Flow::Continue
        })?;
        let leo = last.map_or(base, |l| l.saturating_add(1).max(base));
        let note = format!(
            "log end offset {leo}: {} ({} from byte {from}, the last offset-index entry \
             of the last segment {})",
            match last {
                Some(l) => format!("one past the last batch's last offset {l}"),
                None => "the last segment's base offset (it holds no batch)".into(),
            },
            batches(n),
            self.name(i)
        );
        self.step(note);
        Ok(leo)
    }

    /// `LogSegment.maxTimestampSoFar` with the offset carrying it: the last time-index entry,
    /// raised by the batches after the last offset-index entry (what the broker has in memory
    /// for an active segment, and after recovery rebuilds a crashed segment's indexes).
    fn segment_max(&mut self, i: usize) -> Result<SegmentMax, LookupError> {
        if let Some(m) = self.segs[i].max {
            return Ok(m);
        }
        let base = self.segs[i].files.base_offset;
        let files = self.segs[i].files;
        if files.time_index.is_none() && files.offset_index.is_some() && i + 1 < self.segs.len() {
            // LogLoader creates a missing `.timeindex` empty beside an existing `.index` (with
            // no `.index` it would recover the segment and rebuild both) and
            // LogSegment takes its max timestamp from the time index: none, so the broker
            // falls back to the file's mtime for this sealed segment.
            let m = SegmentMax {
                timestamp: -1,
                offset: base,
            };
            self.segs[i].max = Some(m);
            self.segs[i].max_how =
                "no .timeindex file: the broker creates it empty and knows no timestamp".into();
            return Ok(m);
        }
        let last_te = self.last_time_entry(i)?;
        let (mut ts, mut off) = last_te.map_or((-1, base), |e| (e.timestamp, e.offset));
        let from = self.last_offset_entry(i)?.map_or(0, |e| e.position as u64);
        let from = self.checked_position(i, from)?;
        let mut n = 0u64;
        let mut raised = false;
        self.walk(i, from, &mut |_, _, b| {
            n += 1;
            if b.info.max_timestamp > ts {
                ts = b.info.max_timestamp;
                off = b.info.last_offset;
                raised = true;
            }
            Flow::Continue
        })?;
        let how = format!(
            "{}; {} from byte {from}{}",
            match last_te {
                Some(e) => format!(
                    "last time-index entry ({}, offset {})",
                    e.timestamp, e.offset
                ),
                None => "empty time index".into(),
            },
            batches(n),
            if raised {
                ": a larger one there"
            } else {
                ": none larger"
            }
        );
        let m = SegmentMax {
            timestamp: ts,
            offset: off,
        };
        self.segs[i].max = Some(m);
        self.segs[i].max_how = how;
        Ok(m)
    }

    fn mtime_ms(&mut self, i: usize) -> i64 {
        let path = &self.segs[i].files.log;
        match std::fs::metadata(path).and_then(|m| m.modified()) {
            Ok(t) => match t.duration_since(UNIX_EPOCH) {
                Ok(d) => d.as_millis().min(i64::MAX as u128) as i64,
                Err(e) => -(e.duration().as_millis().min(i64::MAX as u128) as i64),
            },
            // java.io.File.lastModified answers 0 when it cannot tell.
            Err(_) => 0,
        }
    }

    /// `LogSegment.largestTimestamp`: the max timestamp, or the `.log` mtime when there is none.
    fn largest_timestamp(&mut self, i: usize) -> Result<(i64, String), LookupError> {
        let m = self.segment_max(i)?;
        if m.timestamp >= 0 {
            Ok((m.timestamp, self.segs[i].max_how.clone()))
        } else {
            let mtime = self.mtime_ms(i);
            Ok((
                mtime,
                format!(
                    "no timestamp in the segment ({}), so the .log file's mtime {}",
                    self.segs[i].max_how,
                    rfc3339(mtime)
                ),
            ))
        }
    }

    fn by_timestamp(&mut self, t: i64, log_start: i64) -> Result<Answer, LookupError> {
        let mut chosen = None;
        for i in 0..self.segs.len() {
            let (largest, how) = self.largest_timestamp(i)?;
            let name = self.name(i);
            if largest >= t {
                self.step(format!(
                    "segment {name}: largest timestamp {largest} >= target {t} ({how}): the \
                     first such segment, the only one searched"
                ));
                chosen = Some(i);
                break;
            }
            self.step(format!(
                "segment {name}: largest timestamp {largest} < target {t} ({how}): skipped"
            ));
        }
        let Some(i) = chosen else {
            return Ok(Answer::none(format!(
                "no segment holds a timestamp >= {}: the broker answers offset -1",
                describe_ts(t)
            )));
        };
        let name = self.name(i);
        let (te, te_slot) = self.time_floor(i, t)?;
        let entries = self.index_entries::<Times>(i);
        let te_note = if te.timestamp < 0 {
            format!(
                "time index ({entries} entries): no entry <= {t}, so (-1, base offset {})",
                te.offset
            )
        } else {
            format!(
                "time index ({entries} entries): floor of {t} is entry {} (timestamp {}, offset \
                 {})",
                te_slot.map_or("?".into(), |k| k.to_string()),
                te.timestamp,
                te.offset
            )
        };
        self.step(te_note);
        let start_offset = te.offset.max(log_start);
        let (oe, slot) = self.offset_floor(i, start_offset)?;
        let entries = self.index_entries::<Offsets>(i);
        self.step(match slot {
            Some(k) => format!(
                "offset index ({entries} entries): floor of max({}, log start {log_start}) = \
                 {start_offset} is entry {k} (offset {}, byte {})",
                te.offset, oe.offset, oe.position
            ),
            None => {
                format!("offset index ({entries} entries): no entry <= {start_offset}, so byte 0")
            }
        });
        let from = self.checked_position(i, oe.position as u64)?;
        let before = (self.trace.batches_scanned, self.trace.records_decoded);
        let log = self.segs[i].files.log.clone();
        let mut hit: Option<Answer> = None;
        let mut skipped = 0u64;
        let segs_logs: Vec<PathBuf> = self.segs.iter().map(|s| s.files.log.clone()).collect();
        self.walk(i, from, &mut |scratch, trace, b| {
            if b.info.max_timestamp < t {
                skipped += 1;
                return Flow::Continue;
            }
            match first_record(scratch, trace, &log, b, |r| {
                r.timestamp >= t && r.offset >= log_start
            }) {
                Some((offset, ts)) => {
                    hit = Some(hit_at(&segs_logs, b, offset, Some(ts)));
                    Flow::Stop
                }
                None => Flow::Continue,
            }
        })?;
        let scanned = self.trace.batches_scanned - before.0;
        let decoded = self.trace.records_decoded - before.1;
        self.step(format!(
            "scanned {} of {name} from byte {from} ({skipped} skipped with \
             maxTimestamp < {t}, {decoded} records decoded)",
            batches(scanned)
        ));
        Ok(match hit {
            Some(a) => a,
            None => Answer::none(format!(
                "segment {name} holds no record with timestamp >= {t} at or after the log start \
                 offset {log_start}; the broker searches only that segment and answers offset -1"
            )),
        })
    }

    /// The first record at or after offset `o` in segments `i..`, starting at byte `from` of
    /// segment `i` (`LocalLog.read`: on to the next segment when one holds nothing more).
    fn first_record_from(
        &mut self,
        i: usize,
        from: u64,
        o: i64,
    ) -> Result<Option<Answer>, LookupError> {
        let logs: Vec<PathBuf> = self.segs.iter().map(|s| s.files.log.clone()).collect();
        for j in i..self.segs.len() {
            let start = if j == i { from } else { 0 };
            let log = logs[j].clone();
            let mut hit = None;
            self.walk(j, start, &mut |scratch, trace, b| {
                if b.info.last_offset < o {
                    return Flow::Continue;
                }
                match first_record(scratch, trace, &log, b, |r| r.offset >= o) {
                    Some((offset, ts)) => {
                        hit = Some(hit_at(&logs, b, offset, (ts >= 0).then_some(ts)));
                        Flow::Stop
                    }
                    // An empty batch (compaction) or one whose records cannot be decoded.
                    None => Flow::Continue,
                }
            })?;
            if hit.is_some() {
                return Ok(hit);
            }
        }
        Ok(None)
    }

    fn by_offset(&mut self, o: i64, log_start: i64, leo: i64) -> Result<Answer, LookupError> {
        if o < log_start || o > leo {
            return Ok(Answer::none(format!(
                "offset {o} is out of range: the log holds offsets {log_start} (log start) to \
                 {} (log end {leo}); a fetch from it gets OFFSET_OUT_OF_RANGE",
                leo - 1
            )));
        }
        if o == leo {
            return Ok(Answer::none(format!(
                "offset {o} is the log end offset: no record is there yet (a fetch from it waits \
                 for the next one)"
            )));
        }
        let i = self
            .segs
            .iter()
            .rposition(|s| s.files.base_offset <= o)
            .unwrap_or(0);
        let name = self.name(i);
        let base = self.segs[i].files.base_offset;
        self.step(format!(
            "segment {name}: the last segment whose base offset ({base}) is <= {o}"
        ));
        let (oe, slot) = self.offset_floor(i, o)?;
        let entries = self.index_entries::<Offsets>(i);
        self.step(match slot {
            Some(k) => format!(
                "offset index ({entries} entries): floor of {o} is entry {k} (offset {}, byte {})",
                oe.offset, oe.position
            ),
            None => format!("offset index ({entries} entries): no entry <= {o}, so byte 0"),
        });
        let from = self.checked_position(i, oe.position as u64)?;
        let before = (self.trace.batches_scanned, self.trace.records_decoded);
        let hit = self.first_record_from(i, from, o)?;
        self.step(format!(
            "scanned {} from byte {from} to the first batch whose last offset is >= {o} \
             ({} records decoded)",
            batches(self.trace.batches_scanned - before.0),
            self.trace.records_decoded - before.1
        ));
        Ok(match hit {
            Some(mut a) => {
                if a.offset != Some(o) {
                    a.notes.push(format!(
                        "offset {o} is not in the log (removed by compaction, or a gap): a fetch \
                         from it starts at offset {}",
                        a.offset.unwrap_or(o)
                    ));
                }
                a
            }
            None => Answer::none(format!(
                "no record at or after offset {o} although the log end offset is {leo}: the \
                 segments after it are empty or unreadable"
            )),
        })
    }

    fn epoch_checkpoint(&mut self) -> Option<Vec<(i32, i64)>> {
        let path = self.target.leader_epoch_checkpoint.clone()?;
        let parsed = read_small(&path, SMALL_FILE_LIMIT)
            .map_err(|e| e.to_string())
            .and_then(|b| String::from_utf8(b).map_err(|_| "not UTF-8 text".to_string()))
            .and_then(|t| {
                parse_checkpoint(&t, true)
                    .map_err(|e| format!("byte {}: {}", e.position, e.message))
            });
        match parsed {
            Ok(c) => Some(c.epochs()),
            Err(m) => {
                self.step(format!("{}: {m}; ignored", path.display()));
                None
            }
        }
    }

    fn earliest(&mut self, log_start: i64) -> Result<Answer, LookupError> {
        let epoch = self.epoch_checkpoint().and_then(|c| {
            let (c, _) = load_epoch_cache(c, log_start, -1);
            epoch_for_offset(&c, log_start)
        });
        Ok(Answer {
            offset: Some(log_start),
            leader_epoch: epoch,
            ..Default::default()
        })
    }

    fn latest(&mut self, leo: i64) -> Result<Answer, LookupError> {
        let epoch = self
            .epoch_checkpoint()
            .and_then(|c| c.iter().map(|e| e.0).max());
        let mut a = Answer {
            offset: Some(leo),
            leader_epoch: epoch,
            ..Default::default()
        };
        if let Some(hw) = self.target.high_watermark {
            if hw != leo {
                a.notes.push(format!(
                    "replication-offset-checkpoint gives the high watermark {hw}: a consumer \
                     (read_uncommitted) asking for the latest offset is given that, not the log \
                     end offset"
                ));
            }
        }
        Ok(a)
    }

    fn max_timestamp(&mut self) -> Result<Answer, LookupError> {
        let mut best: Option<(usize, SegmentMax)> = None;
        for i in 0..self.segs.len() {
            let m = self.segment_max(i)?;
            let how = self.segs[i].max_how.clone();
            let name = self.name(i);
            self.step(format!(
                "segment {name}: max timestamp {} at offset {} ({how})",
                m.timestamp, m.offset
            ));
            if best.is_none_or(|(_, b)| m.timestamp > b.timestamp) {
                best = Some((i, m));
            }
        }
        let (i, m) = best.expect("at least one segment");
        let name = self.name(i);
        let (oe, _) = self.offset_floor(i, m.offset)?;
        self.step(format!(
            "segment {name} has the greatest (the first one on a tie); offset index floor of \
             offset {} is (offset {}, byte {})",
            m.offset, oe.offset, oe.position
        ));
        let from = self.checked_position(i, oe.position as u64)?;
        let log = self.segs[i].files.log.clone();
        let mut hit = None;
        let mut none_reason = None;
        let before = self.trace.batches_scanned;
        let logs: Vec<PathBuf> = self.segs.iter().map(|s| s.files.log.clone()).collect();
        self.walk(i, from, &mut |scratch, trace, b| {
            if b.info.max_timestamp != m.timestamp {
                return Flow::Continue;
            }
            // RecordBatch.offsetOfMaxTimestamp: none for magic 0, else the first record
            // carrying the batch's max timestamp.
            if b.info.magic == 0 {
                none_reason = Some(format!(
                    "the batch at byte {} is magic 0, which has no timestamps",
                    b.position
                ));
            } else if let Some((offset, _)) =
                first_record(scratch, trace, &log, b, |r| r.timestamp == m.timestamp)
            {
                hit = Some(hit_at(&logs, b, offset, Some(b.info.max_timestamp)));
            } else {
                none_reason = Some(format!(
                    "no record of the batch at byte {} carries its maxTimestamp {}",
                    b.position, m.timestamp
                ));
            }
            Flow::Stop
        })?;
        self.step(format!(
            "scanned {} from byte {from} to the first whose maxTimestamp is {}",
            batches(self.trace.batches_scanned - before),
            m.timestamp
        ));
        Ok(hit.unwrap_or_else(|| {
            Answer::none(none_reason.unwrap_or_else(|| {
                format!(
                    "no batch of {name} from byte {from} has maxTimestamp {}: the broker answers \
                     none",
                    m.timestamp
                )
            }))
        }))
    }

    /// The batch holding offset `o` (or the first after it), index-guided.
    fn batch_at(&mut self, o: i64) -> Result<Option<BatchFacts>, LookupError> {
        let i = self
            .segs
            .iter()
            .rposition(|s| s.files.base_offset <= o)
            .unwrap_or(0);
        let (oe, _) = self.offset_floor(i, o)?;
        let from = self.checked_position(i, oe.position as u64)?;
        for j in i..self.segs.len() {
            let start = if j == i { from } else { 0 };
            let mut hit = None;
            self.walk(j, start, &mut |_, _, b| {
                if b.info.last_offset >= o {
                    hit = Some(BatchFacts::new(b.position, &b.info));
                    Flow::Stop
                } else {
                    Flow::Continue
                }
            })?;
            if hit.is_some() {
                return Ok(hit);
            }
        }
        Ok(None)
    }

    /// The last batch of the partition (walked from the last index entry of the last
    /// non-empty segment).
    fn last_batch(&mut self) -> Result<Option<BatchFacts>, LookupError> {
        for i in (0..self.segs.len()).rev() {
            let from = self.last_offset_entry(i)?.map_or(0, |e| e.position as u64);
            let from = self.checked_position(i, from)?;
            let mut last = None;
            self.walk(i, from, &mut |_, _, b| {
                last = Some(BatchFacts::new(b.position, &b.info));
                Flow::Continue
            })?;
            if last.is_some() {
                return Ok(last);
            }
        }
        Ok(None)
    }

    fn end_offset_for_epoch(
        &mut self,
        e: i32,
        log_start: i64,
        leo: i64,
    ) -> Result<Answer, LookupError> {
        let Some(raw) = self.epoch_checkpoint() else {
            self.step(
                "no leader-epoch-checkpoint: the epochs come from the batches' \
                 partitionLeaderEpoch (every batch header read)"
                    .into(),
            );
            let mut cache = Vec::new();
            for i in 0..self.segs.len() {
                self.walk(i, 0, &mut |_, _, b| {
                    assign_from_batch(&mut cache, &b.info);
                    Flow::Continue
                })?;
            }
            let (cache, changes) = load_epoch_cache(cache, log_start, leo);
            for c in changes {
                self.step(c);
            }
            self.step(format!("epochs from the batches: {}", show_epochs(&cache)));
            return Ok(epoch_answer(&cache, e, leo));
        };
        self.step(format!("leader-epoch-checkpoint: {}", show_epochs(&raw)));
        let (cache, changes) = load_epoch_cache(raw, log_start, leo);
        for c in changes {
            self.step(c);
        }
        let mut answer = epoch_answer(&cache, e, leo);
        // Spot checks against the batches, index-guided: the batch at each epoch's start
        // offset carries that epoch, the batch before it the previous one, and the last batch
        // no epoch the checkpoint lacks.
        let mut disagreements = Vec::new();
        for (k, &(epoch, start)) in cache.iter().enumerate() {
            if start >= leo {
                continue;
            }
            let next_start = cache.get(k + 1).map_or(leo, |n| n.1);
            match self.batch_at(start)? {
                Some(b)
                    if b.magic >= 2
                        && b.base_offset < next_start
                        && b.partition_leader_epoch != epoch =>
                {
                    disagreements.push(format!(
                        "the checkpoint starts epoch {epoch} at offset {start}, but the batch \
                         holding it (offsets {}..{}, byte {}) carries partitionLeaderEpoch {}",
                        b.base_offset, b.last_offset, b.position, b.partition_leader_epoch
                    ));
                }
                Some(b) if b.magic < 2 => self.step(format!(
                    "epoch {epoch} starts at offset {start}, in a magic-{} batch, which has no \
                     leader epoch",
                    b.magic
                )),
                _ => {}
            }
            if k > 0 && start > log_start {
                let prev = cache[k - 1].0;
                if let Some(b) = self.batch_at(start - 1)? {
                    if b.magic >= 2 && b.last_offset < start && b.partition_leader_epoch != prev {
                        disagreements.push(format!(
                            "the batch before offset {start} (offsets {}..{}, byte {}) carries \
                             partitionLeaderEpoch {}, but the checkpoint puts epoch {prev} there",
                            b.base_offset, b.last_offset, b.position, b.partition_leader_epoch
                        ));
                    }
                }
            }
        }
        if let Some(b) = self.last_batch()? {
            let latest = cache.last().map(|l| l.0);
            if b.magic >= 2
                && b.partition_leader_epoch >= 0
                && latest.is_none_or(|l| b.partition_leader_epoch > l)
            {
                disagreements.push(format!(
                    "the last batch (offsets {}..{}, byte {}) carries partitionLeaderEpoch {}, \
                     newer than any epoch in the checkpoint",
                    b.base_offset, b.last_offset, b.position, b.partition_leader_epoch
                ));
            }
        }
        if disagreements.is_empty() {
            self.step(format!(
                "the batches at the {} epoch start offsets agree with the checkpoint",
                cache.len()
            ));
        }
        for d in disagreements {
            answer
                .notes
                .push(format!("leader-epoch-checkpoint and the log disagree: {d}"));
        }
        Ok(answer)
    }

    /// Answers from every record of every segment, ignoring the indexes; returns the answer and
    /// why it differs from `indexed` (computed only when it may).
    fn scan(
        &mut self,
        query: Query,
        log_start: i64,
        indexed: &Answer,
    ) -> Result<(Answer, Option<String>), LookupError> {
        let logs: Vec<PathBuf> = self.segs.iter().map(|s| s.files.log.clone()).collect();
        let n = self.segs.len();
        let mut last_offset: Option<i64> = None;
        let mut epochs_from_batches: Vec<(i32, i64)> = Vec::new();
        // Per segment: the largest batch maxTimestamp and the broker's candidate for T.
        let mut seg_max = vec![-1i64; n];
        let mut seg_candidate: Vec<Option<Answer>> = vec![None; n];
        let mut first_ts: Option<Answer> = None;
        let mut first_at_offset: Option<Answer> = None;
        let mut max_record: Option<Answer> = None;
        let mut broker_max: Option<(usize, i64)> = None;
        let hit = |b: &BatchAt<'_>, offset: i64, ts: i64| {
            hit_at(&logs, b, offset, (ts >= 0).then_some(ts))
        };
        let decode_all = matches!(
            query,
            Query::Timestamp(_) | Query::Offset(_) | Query::MaxTimestamp
        );
        for i in 0..n {
            let log = logs[i].clone();
            self.walk(i, 0, &mut |scratch, trace, b| {
                last_offset =
                    Some(last_offset.map_or(b.info.last_offset, |l| l.max(b.info.last_offset)));
                assign_from_batch(&mut epochs_from_batches, &b.info);
                seg_max[i] = seg_max[i].max(b.info.max_timestamp);
                if !decode_all {
                    return Flow::Continue;
                }
                let mut decoded = 0u64;
                let result = for_each_record(b.entry, scratch, |r| {
                    decoded += 1;
                    let (offset, ts) = (r.offset, r.timestamp);
                    match query {
                        Query::Timestamp(t) if ts >= t && offset >= log_start => {
                            if first_ts.is_none() {
                                first_ts = Some(hit(b, offset, ts));
                            }
                            if b.info.max_timestamp >= t && seg_candidate[i].is_none() {
                                seg_candidate[i] = Some(hit(b, offset, ts));
                            }
                        }
                        Query::Offset(o) if offset >= o && first_at_offset.is_none() => {
                            first_at_offset = Some(hit(b, offset, ts));
                        }
                        Query::MaxTimestamp
                            if ts >= 0
                                && max_record.as_ref().is_none_or(|m| Some(ts) > m.timestamp) =>
                        {
                            max_record = Some(hit(b, offset, ts));
                        }
                        _ => {}
                    }
                });
                trace.records_decoded += decoded;
                if let Err(e) = result {
                    trace.steps.push(format!(
                        "{}: byte {}: records of the batch at byte {} cannot be decoded: {}",
                        log.display(),
                        b.position + e.position,
                        b.position,
                        e.message
                    ));
                }
                if matches!(query, Query::MaxTimestamp)
                    && broker_max.is_none_or(|(_, m)| b.info.max_timestamp > m)
                {
                    broker_max = Some((i, b.info.max_timestamp));
                }
                Flow::Continue
            })?;
        }
        let last_base = self.segs[n - 1].files.base_offset;
        let leo = last_offset.map_or(last_base, |l| l.saturating_add(1).max(last_base));
        self.step(format!(
            "read every batch of {n} segments{}: log end offset {leo}",
            if decode_all {
                ", decoding every record"
            } else {
                ""
            }
        ));
        Ok(match query {
            Query::Timestamp(t) => {
                let answer = first_ts.unwrap_or_else(|| {
                    Answer::none(format!(
                        "no record has a timestamp >= {t} at or after the log start offset \
                         {log_start}"
                    ))
                });
                // The broker's rules applied to the same records, without the indexes.
                let mut broker: Option<(usize, i64)> = None;
                for (i, &m) in seg_max.iter().enumerate() {
                    let largest = if m >= 0 { m } else { self.mtime_ms(i) };
                    if largest >= t {
                        broker = Some((i, largest));
                        break;
                    }
                }
                let broker_answer = broker.and_then(|(i, _)| seg_candidate[i].clone());
                let reason = if broker_answer.as_ref().is_none_or(|b| b.same_as(indexed))
                    && (broker_answer.is_some() || indexed.offset.is_none())
                {
                    Some(match broker {
                        Some((i, largest)) => format!(
                            "the broker's rule: it searches only the first segment whose largest \
                             timestamp is >= {t}, {} (largest {}{}), and answers {} there",
                            file_name(&logs[i]),
                            largest,
                            if seg_max[i] < 0 {
                                ", the .log mtime: it holds no timestamp"
                            } else {
                                ""
                            },
                            indexed.short()
                        ),
                        None => "no segment's largest timestamp reaches the target".into(),
                    })
                } else {
                    Some(format!(
                        "the indexes disagree with the log: the same rule applied to the records \
                         without the indexes answers {}, the index-guided lookup {} (stale or \
                         damaged .index/.timeindex, e.g. after a crash)",
                        broker_answer.as_ref().map_or("none".into(), |a| a.short()),
                        indexed.short()
                    ))
                };
                (answer, reason)
            }
            Query::Offset(o) => {
                let answer = if o < log_start || o > leo {
                    Answer::none(format!(
                        "offset {o} is out of range: the log holds offsets {log_start} (log \
                         start) to {} (log end {leo})",
                        leo - 1
                    ))
                } else if o == leo {
                    Answer::none(format!("offset {o} is the log end offset"))
                } else {
                    first_at_offset.unwrap_or_else(|| {
                        Answer::none(format!("no record at or after offset {o}"))
                    })
                };
                (
                    answer,
                    Some(
                        "the indexes disagree with the log (stale or damaged .index, e.g. after \
                         a crash, or an index entry pointing into the middle of a batch)"
                            .into(),
                    ),
                )
            }
            Query::Earliest => (indexed.clone(), None),
            Query::Latest => (
                Answer {
                    offset: Some(leo),
                    leader_epoch: indexed.leader_epoch,
                    ..Default::default()
                },
                Some(format!(
                    "a scan of every segment finds the log end offset {leo}: the last segment's \
                     offset index, or an earlier segment reaching past the last one's base \
                     offset, disagrees with the walk from the index"
                )),
            ),
            Query::MaxTimestamp => {
                let answer = max_record
                    .unwrap_or_else(|| Answer::none("no record carries a timestamp".into()));
                let reason = match broker_max {
                    Some((i, m)) if answer.timestamp != Some(m) => format!(
                        "the batches' maxTimestamp fields disagree with their records: the \
                         greatest is {m} in {}",
                        file_name(&logs[i])
                    ),
                    _ => "the time indexes disagree with the log (stale or damaged \
                          .timeindex)"
                        .into(),
                };
                (answer, Some(reason))
            }
            Query::EndOffsetForEpoch(e) => {
                let (cache, _) = load_epoch_cache(epochs_from_batches, log_start, leo);
                self.step(format!("epochs from the batches: {}", show_epochs(&cache)));
                let mut answer = epoch_answer(&cache, e, leo);
                let checkpoint = self
                    .epoch_checkpoint()
                    .map(|c| load_epoch_cache(c, log_start, leo).0);
                let reason =
                    match checkpoint {
                        Some(c) if c != cache => {
                            let only_ckpt: Vec<String> = c
                                .iter()
                                .filter(|x| !cache.contains(x))
                                .map(|x| format!("({}, {})", x.0, x.1))
                                .collect();
                            let only_log: Vec<String> = cache
                                .iter()
                                .filter(|x| !c.contains(x))
                                .map(|x| format!("({}, {})", x.0, x.1))
                                .collect();
                            let d =
                                format!(
                            "leader-epoch-checkpoint and the batches disagree: only in the \
                             checkpoint {}, only in the batches {}",
                            if only_ckpt.is_empty() { "-".into() } else { only_ckpt.join(" ") },
                            if only_log.is_empty() { "-".into() } else { only_log.join(" ") }
                        );
                            answer.notes.push(d.clone());
                            Some(d)
                        }
                        _ => None,
                    };
                (answer, reason)
            }
        })
    }
}

fn batches(n: u64) -> String {
    if n == 1 {
        "1 batch".into()
    } else {
        format!("{n} batches")
    }
}

fn show_epochs(epochs: &[(i32, i64)]) -> String {
    if epochs.is_empty() {
        return "(none)".into();
    }
    epochs
        .iter()
        .map(|(e, o)| format!("epoch {e} from {o}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn epoch_answer(cache: &[(i32, i64)], e: i32, leo: i64) -> Answer {
    match end_offset_for(cache, e, leo) {
        Some((epoch, end)) => {
            let mut a = Answer {
                offset: Some(end),
                leader_epoch: Some(epoch),
                ..Default::default()
            };
            if epoch != e {
                a.notes.push(format!(
                    "epoch {e} is not in the cache: the answer is for epoch {epoch}, the largest \
                     below it"
                ));
            }
            a
        }
        None => Answer::none(if cache.is_empty() {
            "the leader-epoch cache is empty: the broker answers UNDEFINED (-1, -1)".into()
        } else {
            format!(
                "epoch {e} is above every epoch in the cache (latest {}): the broker answers \
                 UNDEFINED (-1, -1)",
                cache.last().map_or(-1, |l| l.0)
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_need_a_zone() {
        assert_eq!(
            parse_timestamp("1717000000000").unwrap(),
            Query::Timestamp(1_717_000_000_000)
        );
        assert_eq!(
            parse_timestamp("2024-03-09T14:00:00+08:00").unwrap(),
            Query::Timestamp(1_709_964_000_000)
        );
        assert_eq!(
            parse_timestamp("2024-03-09T06:00:00.250Z").unwrap(),
            Query::Timestamp(1_709_964_000_250)
        );
        assert_eq!(parse_timestamp("-1").unwrap(), Query::Latest);
        assert_eq!(parse_timestamp("-2").unwrap(), Query::Earliest);
        assert_eq!(parse_timestamp("-3").unwrap(), Query::MaxTimestamp);
        let e = parse_timestamp("2024-03-09T14:00:00").unwrap_err();
        assert!(e.contains("no time zone"), "{e}");
        assert!(e.contains("2024-03-09T14:00:00Z"), "{e}");
        assert!(parse_timestamp("2024-03-09")
            .unwrap_err()
            .contains("no time zone"));
        assert!(parse_timestamp("yesterday").is_err());
        assert!(parse_timestamp("-7").is_err());
    }

    #[test]
    fn end_offset_for_follows_the_epoch_cache() {
        let c = [(0, 0), (2, 10), (5, 30)];
        assert_eq!(end_offset_for(&c, 5, 42), Some((5, 42)));
        assert_eq!(end_offset_for(&c, 0, 42), Some((0, 10)));
        assert_eq!(end_offset_for(&c, 1, 42), Some((0, 10)));
        assert_eq!(end_offset_for(&c, 3, 42), Some((2, 30)));
        assert_eq!(end_offset_for(&c, 6, 42), None);
        assert_eq!(end_offset_for(&c, -1, 42), None);
        assert_eq!(end_offset_for(&[(3, 5), (4, 9)], 1, 42), Some((1, 5)));
        assert_eq!(end_offset_for(&[], 0, 42), None);
    }

    /// Paged lookups (bisection over pages, then the format's lookup in one page) give the
    /// same entries as the format's lookup over the whole file, zero-tailed files included.
    #[test]
    fn epoch_cache_is_loaded_like_log_loader() {
        let (c, changes) = load_epoch_cache(vec![(0, 0), (1, 4), (2, 9), (3, 20)], 5, 20);
        assert_eq!(c, vec![(1, 5), (2, 9)]);
        assert_eq!(changes.len(), 2);
        let (c, changes) = load_epoch_cache(vec![(0, 0), (1, 4)], 0, 10);
        assert_eq!(c, vec![(0, 0), (1, 4)]);
        assert!(changes.is_empty());
        assert_eq!(epoch_for_offset(&c, 3), Some(0));
        assert_eq!(epoch_for_offset(&c, 4), Some(1));
        assert_eq!(epoch_for_offset(&[(2, 5)], 3), None);
        // Entries are assigned in file order: a later, smaller epoch removes the larger one
        // before it; a repeated epoch at a later start is ignored; a negative entry is refused.
        let (c, changes) = load_epoch_cache(vec![(0, 0), (2, 50), (1, 60)], 0, 100);
        assert_eq!(c, vec![(0, 0), (1, 60)]);
        assert_eq!(changes.len(), 1);
        let (c, _) = load_epoch_cache(vec![(0, 0), (1, 10), (1, 20), (-1, 30)], 0, 100);
        assert_eq!(c, vec![(0, 0), (1, 10)]);
    }
}
