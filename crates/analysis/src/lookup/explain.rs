//! The path a lookup takes, as typed steps: what `--explain` shows. The analysis records them;
//! `print/lookup.rs` words them (text, and the `steps` of the NDJSON object).

use std::path::PathBuf;

use kseg_format::index::{OffsetEntry, TimeEntry};
use kseg_format::log::{FrameProblem, TailKind};
use kseg_format::text_files::EpochEntry;

use super::epoch::EpochCacheChange;

/// Why a small file (a checkpoint) was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileProblem {
    /// Reading it failed (the I/O error's text).
    Io(String),
    NotUtf8,
    /// Its content does not decode.
    Decode {
        position: u64,
        message: String,
    },
}

/// Where a segment's max timestamp (`LogSegment.maxTimestampSoFar`) came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SegmentMaxSource {
    /// A sealed segment with an `.index` but no `.timeindex`: the broker creates the time index
    /// empty and knows no timestamp.
    NoTimeIndex,
    /// The last time-index entry (none: an empty index), raised by the batches walked from the
    /// last offset-index entry's byte `from`.
    Indexes {
        last_time_entry: Option<TimeEntry>,
        batches: u64,
        from: u64,
        raised: bool,
    },
}

/// `LogSegment.largestTimestamp`: the max timestamp, or the `.log` mtime when there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LargestTimestamp {
    pub timestamp: i64,
    /// Where the max timestamp came from (the one found, or the lack of one).
    pub source: SegmentMaxSource,
    /// `timestamp` is the `.log` file's mtime.
    pub from_mtime: bool,
}

/// A floor lookup in the offset index whose target was raised from a time-index entry's
/// offset to the log start offset: `max(time_index_offset, log_start)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RaisedTarget {
    pub time_index_offset: i64,
    pub log_start: i64,
}

/// One step of a lookup. Segments are named by their `.log` path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The log start offset: the first segment's base offset, raised by
    /// `log-start-offset-checkpoint`.
    LogStart {
        first_base_offset: i64,
        checkpoint: Option<i64>,
    },
    /// A checkpoint file that could not be read, ignored.
    CheckpointIgnored { file: PathBuf, problem: FileProblem },
    /// The log end offset, from a walk of the last segment from its last offset-index entry.
    LogEnd {
        offset: i64,
        /// The last offset of the last batch found (none: the segment holds no batch).
        last_batch_offset: Option<i64>,
        batches: u64,
        from: u64,
        segment: PathBuf,
    },
    /// A segment without its `.index` or `.timeindex` (`index`: the extension).
    IndexMissing {
        segment: PathBuf,
        index: &'static str,
    },
    /// An index file that cannot be read: treated as empty.
    IndexUnreadable { index: PathBuf, error: String },
    /// An index position at or past the end of the `.log`: the walk starts at byte 0.
    IndexPastLogEnd {
        segment: PathBuf,
        position: u64,
        log_len: u64,
    },
    /// A framed entry whose header cannot be decoded, skipped.
    UndecodableBatch {
        segment: PathBuf,
        position: u64,
        message: String,
    },
    /// Bytes framing no batch, skipped.
    InvalidBytes {
        segment: PathBuf,
        position: u64,
        length: u64,
        reason: FrameProblem,
    },
    /// Where the walk of a segment ended before its end.
    Tail {
        segment: PathBuf,
        position: u64,
        length: u64,
        kind: TailKind,
    },
    /// The records of a batch cannot be decoded (from byte `position`).
    RecordsUndecodable {
        segment: PathBuf,
        position: u64,
        batch_position: u64,
        message: String,
    },
    /// A segment judged by its largest timestamp against the target: the first one at or above
    /// it is `chosen`, the only one searched.
    SegmentByLargestTimestamp {
        segment: PathBuf,
        largest: LargestTimestamp,
        target: i64,
        chosen: bool,
    },
    /// The time-index floor of `target` (`slot`: none for the `(-1, base offset)` default).
    TimeIndexFloor {
        entries: usize,
        target: i64,
        entry: TimeEntry,
        slot: Option<usize>,
    },
    /// The offset-index floor of `target` (`slot`: none for the `(base, 0)` default).
    OffsetIndexFloor {
        entries: usize,
        target: i64,
        entry: OffsetEntry,
        slot: Option<usize>,
        raised: Option<RaisedTarget>,
    },
    /// The batches walked by a timestamp lookup in its one segment.
    ScannedForTimestamp {
        segment: PathBuf,
        from: u64,
        batches: u64,
        skipped: u64,
        records: u64,
        target: i64,
    },
    /// The segment an offset lies in.
    SegmentForOffset {
        segment: PathBuf,
        base_offset: i64,
        offset: i64,
    },
    /// The batches walked to the one holding an offset.
    ScannedForOffset {
        from: u64,
        batches: u64,
        records: u64,
        offset: i64,
    },
    /// A segment's max timestamp and the offset carrying it.
    SegmentMaxTimestamp {
        segment: PathBuf,
        timestamp: i64,
        offset: i64,
        source: SegmentMaxSource,
    },
    /// The segment with the greatest max timestamp, and the offset-index floor of its offset.
    GreatestMaxTimestamp {
        segment: PathBuf,
        offset: i64,
        entry: OffsetEntry,
    },
    /// The batches walked to the first carrying the max timestamp.
    ScannedForMaxTimestamp {
        from: u64,
        batches: u64,
        max_timestamp: i64,
    },
    /// No `leader-epoch-checkpoint`: the epochs come from the batches.
    NoEpochCheckpoint,
    /// The entries of `leader-epoch-checkpoint`, in file order.
    EpochCheckpoint(Vec<EpochEntry>),
    /// The epoch cache built from the batches' partitionLeaderEpoch.
    EpochsFromBatches(Vec<EpochEntry>),
    /// What loading the epoch cache changed.
    EpochCache(EpochCacheChange),
    /// An epoch starting in a batch of magic 0 or 1, which has no leader epoch.
    EpochStartInLegacyBatch {
        epoch: i32,
        start_offset: i64,
        magic: i8,
    },
    /// The batches at every epoch start offset agree with the checkpoint.
    EpochStartsAgree { epochs: usize },
    /// A scan read every batch of every segment.
    ReadEverything {
        segments: usize,
        records_decoded: bool,
        log_end: i64,
    },
}
