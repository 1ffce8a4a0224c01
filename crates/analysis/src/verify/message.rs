//! What a `verify-index` finding says, as typed values: the numbers, offsets and positions it
//! rests on. `print/verify.rs` words them (the table's MESSAGE, the NDJSON's `message`).

use std::io;
use std::sync::Arc;

use crate::fault::FileFault;
use crate::load::LoadReason;
use crate::lookup::EpochCacheChange;
use crate::producer_load::StaleAbort;
use crate::recovery::InvalidIndexOffset;
use kseg_format::index::SanityError;
use kseg_format::reader::DecodeError;
use kseg_scan::LogFault;

/// Which checkpoint a [`Message::CheckpointBeyondEnd`] or [`Message::CheckpointBeforeStart`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckpointKind {
    RecoveryPoint,
    LogStart,
    HighWatermark,
}

/// Which index a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexWhat {
    Offsets,
    Times,
}

#[derive(Debug, Clone)]
pub enum Message {
    // Files.
    /// Gone since it was listed (a live broker's retention): nothing wrong with the data.
    Vanished,
    CannotRead(Arc<io::Error>),
    /// Findings of `check` in this file past the listed ones.
    NotListed {
        more: u64,
        check: &'static str,
        listed: u64,
    },
    /// A file Kafka's load deletes or renames, and why.
    LoadCleanup(LoadReason),
    /// A file of a layout kseg does not read (discovery's words).
    Unrecognised(String),

    // The log dir.
    LiveBroker {
        pids: Vec<u32>,
    },
    NoCleanShutdown,
    UnreadableCheckpoint(FileFault),
    /// `kseg recover`'s marker: a copy it was writing and did not finish.
    IncompleteCopy,
    /// A root checkpoint file Kafka's `CheckpointFile` fails to read.
    CheckpointRead(crate::checkpoint_read::RootCheckpointFailure),

    // The partition.
    /// A kept batch's offset overflows the segment base while the last one fits.
    OverflowUnsplittable {
        offset: i64,
        position: u64,
        base: i64,
    },
    /// The clean-shutdown marker spares the active segment, whose end throws.
    MarkerBesideBadEnd {
        position: u64,
        declared: i32,
    },
    MissingOffsetIndex,
    /// No `.timeindex`: rebuilt by the segment's recovery, or created empty.
    MissingTimeIndex {
        rebuilt: bool,
    },
    AbortsWithoutTxnIndex {
        markers: usize,
        certain: usize,
    },
    AcknowledgedLoss {
        records: u64,
        first_offset: i64,
        last_offset: i64,
        high_watermark: i64,
    },
    /// A stale producer snapshot (its words) and the segment whose `.txnindex` it spoils.
    /// An aborted transaction's `.txnindex` entry a stale producer snapshot makes Kafka write.
    StaleSnapshot(StaleAbort),
    CheckpointBeyondEnd {
        checkpoint: CheckpointKind,
        value: i64,
        log_end: i64,
    },
    CheckpointBeforeStart {
        checkpoint: CheckpointKind,
        value: i64,
        log_start: i64,
    },
    /// The log start offset checkpoint beyond the log end after recovery: Kafka's load deletes
    /// every segment (`records` records) and starts the partition empty at `log_start`.
    LogStartBeyondEnd {
        log_start: i64,
        log_end: i64,
        segments: usize,
        records: u64,
    },

    // The transaction index.
    TxnIndexPartialEntry,
    TxnIndexEntry(DecodeError),
    TxnIndexBelowBase {
        last_offset: i64,
        base: i64,
    },
    AbortNotIndexed {
        producer_id: i64,
        offset: i64,
    },
    IndexedAbortWithoutMarker {
        producer_id: i64,
        offset: i64,
    },

    // Producer snapshots.
    CorruptSnapshot(DecodeError),
    SnapshotCrc,
    SnapshotBeyondEnd {
        at: i64,
        log_end: i64,
    },
    SnapshotProducerPastOffset {
        producer_id: i64,
        last_offset: i64,
    },
    SnapshotNoSuchBatch {
        producer_id: i64,
        last_offset: i64,
    },

    // The leader-epoch checkpoint.
    EpochDecrease {
        epoch: i32,
        before: i32,
    },
    /// No checkpoint while the batches start these (epoch, offset)s.
    NoEpochCheckpoint {
        starts: Vec<(i32, i64)>,
    },
    UnreadableEpochCheckpoint(DecodeError),
    EpochEntryOrder {
        epoch: i32,
        start: i64,
        prev_epoch: i32,
        prev_start: i64,
    },
    EpochEntryInvalid {
        epoch: i32,
        start: i64,
    },
    EpochCache(EpochCacheChange),
    /// The checkpoint lacks an epoch the batches start; `recovered`: the segment's recovery
    /// adds it.
    EpochMissing {
        epoch: i32,
        offset: i64,
        recovered: bool,
    },
    /// The checkpoint starts an epoch later than the batches do.
    EpochStartsLate {
        epoch: i32,
        cached: i64,
        offset: i64,
    },
    /// The checkpoint starts an epoch earlier than the first batch carrying it.
    EpochStartsEarly {
        epoch: i32,
        cached: i64,
        offset: i64,
    },

    // Indexes.
    OffsetEntryOrder {
        offset: i64,
        position: u32,
        prev_offset: i64,
        prev_position: u32,
    },
    TimeEntryOrder {
        timestamp: i64,
        offset: i64,
        prev_timestamp: i64,
        prev_offset: i64,
    },
    IndexSize {
        len: usize,
        entry_size: usize,
    },
    IndexSanity(SanityError),
    IndexPreallocated {
        what: IndexWhat,
        len: usize,
        real_entries: usize,
        active: bool,
    },
    NotBatchStart {
        position: u64,
    },
    WrongOffset {
        offset: i64,
        position: u64,
        batch_base: i64,
        batch_last: i64,
    },
    /// An entry at the valid end of the log, or past it.
    EntryBeyondLog {
        position: u64,
        valid_end: u64,
    },
    InsideBatchEntries(usize),
    MultiBatchEntries(usize),
    TimeEntryNotInBatch {
        offset: i64,
    },
    TimeEntryInsideBatch {
        timestamp: i64,
        offset: i64,
        batch_base: i64,
        batch_last: i64,
        max_timestamp: i64,
    },
    TimeEntryWrong {
        timestamp: i64,
        offset: i64,
        max_timestamp: i64,
        max_so_far: i64,
    },
    TimeEntryPastLog {
        offset: i64,
    },
    RecordOffsetEntries(usize),
    /// The segment's largest timestamp has no entry; lookups use the last one (or the mtime).
    NoClosingTimeEntry {
        max_so_far: i64,
        last: Option<i64>,
    },

    // The log.
    BaseBelowName {
        base: i64,
        first: i64,
    },
    BaseAboveName {
        base: i64,
        first: i64,
    },
    SegmentOverlap {
        base: i64,
        prev_last: i64,
    },
    OffsetsMissing {
        from: i64,
        to: i64,
    },
    OffsetOrder {
        base_offset: i64,
        prev_last: i64,
    },
    OffsetOverflow {
        offset: i64,
        base: i64,
    },
    /// The index rebuild throws while the segment is recovered at load (uncaught).
    IndexRebuildAtLoad(InvalidIndexOffset),
    /// The index rebuild throws in recovery: the segment is emptied.
    IndexRebuildEmpties(InvalidIndexOffset),
    CrcMismatch,
    UnknownMagic(i8),
    TornTail(LogFault),
    ZeroTail {
        length: u64,
        preallocate: bool,
    },
    InvalidBytes(LogFault),
}
