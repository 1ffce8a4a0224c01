//! Why an answer is none, what to check about the one given, and why a scan's answer differs
//! from the index-guided one: typed values, worded by `print/lookup.rs` (text, and the `notes`
//! and `scanReason` of the NDJSON object).

use std::path::PathBuf;

use kseg_format::text_files::EpochEntry;

use super::{Answer, BatchFacts};

/// A note on an answer. The `Scan…` kinds are the scan's own (worded more briefly).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// A positive timestamp target below 1973-03-03 in ms: probably seconds.
    ProbablySeconds { target: i64 },
    /// An offset outside `[log_start, log_end]`: a fetch gets OFFSET_OUT_OF_RANGE.
    OffsetOutOfRange {
        offset: i64,
        log_start: i64,
        log_end: i64,
    },
    /// The log start offset checkpoint is beyond the log end: Kafka's load deletes every
    /// segment and starts the partition empty at `log_start`
    /// (`LogLoader.deleteSegmentsIfLogStartGreaterThanLogEnd`); the answers are that log's.
    LogStartBeyondEnd { log_start: i64, log_end: i64 },
    /// The offset asked is the log end offset: a fetch from it waits.
    OffsetIsLogEnd { offset: i64 },
    /// The offset asked is absent (compaction, a gap): a fetch from it starts at `starts_at`.
    OffsetNotInLog { offset: i64, starts_at: i64 },
    /// No record at or after the offset below the log end: the later segments are empty or
    /// unreadable.
    NoRecordFromOffset { offset: i64, log_end: i64 },
    /// `replication-offset-checkpoint`'s high watermark differs from the log end offset.
    HighWatermark { high_watermark: i64 },
    /// No segment's largest timestamp reaches the target: offset -1.
    NoSegmentReaches { target: i64 },
    /// The one segment searched holds no record at or above the target.
    NoRecordInSegment {
        segment: PathBuf,
        target: i64,
        log_start: i64,
    },
    /// The batch carrying the max timestamp is magic 0 (no timestamps).
    MaxTimestampInMagic0 { position: u64 },
    /// No record of the batch carries its maxTimestamp.
    MaxTimestampNotInRecords { position: u64, max_timestamp: i64 },
    /// No batch from byte `from` of the segment has the max timestamp.
    NoBatchWithMaxTimestamp {
        segment: PathBuf,
        from: u64,
        max_timestamp: i64,
    },
    /// The epoch asked is not in the cache: the answer is for `answered`, the largest below.
    EpochNotInCache { asked: i32, answered: i32 },
    /// The leader-epoch cache is empty: UNDEFINED.
    EpochCacheEmpty,
    /// The epoch asked is -1 (UNDEFINED_EPOCH): UNDEFINED whatever the cache holds.
    EpochUndefinedAsked,
    /// The epoch asked is above every epoch of the cache: UNDEFINED.
    EpochAboveCache { asked: i32, latest: i32 },
    /// `leader-epoch-checkpoint` and a batch disagree (index-guided spot check).
    CheckpointAndLog(EpochDisagreement),
    /// The epoch caches from `leader-epoch-checkpoint` and from the batches differ (scan).
    CheckpointAndBatches(EpochDifference),
    /// Scan: an offset outside `[log_start, log_end]`.
    ScanOffsetOutOfRange {
        offset: i64,
        log_start: i64,
        log_end: i64,
    },
    /// Scan: the offset is the log end offset.
    ScanOffsetIsLogEnd { offset: i64 },
    /// Scan: no record at or after the offset.
    ScanNoRecordFromOffset { offset: i64 },
    /// Scan: no record at or above the target at or after the log start offset.
    ScanNoRecordAtTimestamp { target: i64, log_start: i64 },
    /// Scan: no record carries a timestamp.
    ScanNoTimestamp,
}

/// A disagreement between `leader-epoch-checkpoint` and the batch found at an epoch boundary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EpochDisagreement {
    /// The batch holding an epoch's start offset carries another epoch.
    AtStart {
        epoch: i32,
        start_offset: i64,
        batch: BatchFacts,
    },
    /// The batch before an epoch's start offset carries another epoch than the previous one.
    BeforeStart {
        start_offset: i64,
        previous_epoch: i32,
        batch: BatchFacts,
    },
    /// The last batch carries an epoch newer than any of the checkpoint.
    LastBatchNewer { batch: BatchFacts },
}

/// The entries found only in the checkpoint's cache and only in the batches' cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpochDifference {
    pub only_in_checkpoint: Vec<EpochEntry>,
    pub only_in_batches: Vec<EpochEntry>,
}

impl EpochDifference {
    pub(super) fn between(checkpoint: &[EpochEntry], batches: &[EpochEntry]) -> Self {
        let only = |a: &[EpochEntry], b: &[EpochEntry]| {
            a.iter().filter(|x| !b.contains(x)).copied().collect()
        };
        EpochDifference {
            only_in_checkpoint: only(checkpoint, batches),
            only_in_batches: only(batches, checkpoint),
        }
    }
}

/// Why a scan's answer differs from the index-guided one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanReason {
    /// The broker's rule: only the first segment whose largest timestamp (the `.log` mtime when
    /// it holds none: `from_mtime`) reaches the target is searched; `indexed` is found there.
    OnlyFirstSegmentSearched {
        target: i64,
        segment: PathBuf,
        largest: i64,
        from_mtime: bool,
        indexed: Box<Answer>,
    },
    /// No segment's largest timestamp reaches the target.
    NoSegmentReaches,
    /// The broker's rule applied to the records (`by_rule`; none: no answer) and the
    /// index-guided answer differ: the indexes disagree with the log.
    TimestampIndexesDisagree {
        by_rule: Option<Box<Answer>>,
        indexed: Box<Answer>,
    },
    /// The offset indexes disagree with the log.
    OffsetIndexesDisagree,
    /// A scan finds another log end offset.
    LogEndDiffers { log_end: i64 },
    /// The batches' maxTimestamp fields disagree with their records: the greatest is
    /// `max_timestamp` in `segment`.
    BatchMaxTimestamps {
        max_timestamp: i64,
        segment: PathBuf,
    },
    /// The time indexes disagree with the log.
    TimeIndexesDisagree,
    /// The epoch caches from `leader-epoch-checkpoint` and from the batches differ.
    EpochCaches(EpochDifference),
}
