//! One partition's log, written as Kafka's leader writes it (`UnifiedLog`, `LocalLog`,
//! `LogSegment`, `LogValidator`) and read back for fetches and lookups.
//!
//! - A produced batch is validated (framing, CRC, counts, offsets, timestamps), gets its offsets
//!   and partition leader epoch in place and, for LogAppendTime topics, the append time as its max
//!   timestamp with a recomputed CRC. The producer's (compressed) record bytes are kept as they came.
//! - Segments are named by their base offset in 20 digits and rolled before an append that would
//!   take the segment past `segment.bytes` (or fill an index, or overflow relative offsets).
//! - `.index`/`.timeindex` are preallocated to `segment.index.bytes` while their segment is
//!   active and trimmed at roll and clean shutdown. Entries follow `LogSegment.append` per batch:
//!   an entry when `bytesSinceLastIndexEntry > index.interval.bytes` (checked before counting the
//!   batch), time-index entries only for a new maximum, a final time entry at roll and close.
//! - `.txnindex` gets an entry per aborted transaction (created on the first one); a producer
//!   `.snapshot` is taken at each roll (named by the new base offset) and at clean shutdown.
//! - Loading after a crash re-validates the segments from the recovery point on, truncates at the
//!   first invalid batch, deletes later segments and rebuilds the indexes with
//!   [`kseg_analysis::recovery`], as `LogLoader`/`LogSegment.recover` do.
//!
//! Here: the partition's state and creation, its leader epoch cache and the file helpers. Then
//! `segment` (one segment and its files), `index_writer` (the `.index` and `.timeindex` as
//! written, over [`kseg_format::index::IndexKind`]), `load` (loading a partition dir after a
//! clean or unclean shutdown; producer snapshots), `append`, `read`, `retention` (log start
//! offset, segment deletion) and `scratch` (the shared decompression buffer).

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::files::{
    epoch_checkpoint_text, partition_metadata_text, write_atomically, LEADER_EPOCH_CHECKPOINT,
    PARTITION_METADATA,
};
use super::producer_state::ProducerStateManager;
use segment::Segment;

use kseg_analysis::lookup::end_offset_for;
use kseg_format::text_files::EpochEntry;

mod append;
mod flush;
mod index_writer;
mod load;
mod read;
mod retention;
mod scratch;
mod segment;
#[cfg(test)]
pub(crate) mod tests;

pub use load::LoadReport;
pub use read::{ReadPlan, ReadResult};

/// Topic-level settings of a log (Kafka's `LogConfig`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogConfig {
    pub segment_bytes: u64,
    /// `segment.ms`: roll when the appended timestamp is this far past the segment's first
    /// batch (or, without timestamps, this long after the segment was created).
    pub segment_ms: i64,
    pub index_interval_bytes: u64,
    pub segment_index_bytes: u64,
    pub log_append_time: bool,
    pub max_message_bytes: usize,
    /// `message.timestamp.after.max.ms` (1 hour since Kafka 4.0).
    pub timestamp_after_max_ms: i64,
    /// `retention.ms` (-1: no time limit).
    pub retention_ms: i64,
    /// `retention.bytes` (-1: no size limit).
    pub retention_bytes: i64,
    /// `cleanup.policy` holds `delete`: retention deletes segments.
    pub delete: bool,
    /// `cleanup.policy` holds `compact`: records need keys (the cleaner itself never runs).
    pub compact: bool,
    /// `file.delete.delay.ms`: how long `.deleted` files wait before they go.
    pub file_delete_delay_ms: i64,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig {
            segment_bytes: 1 << 30,
            segment_ms: 604_800_000,
            index_interval_bytes: 4096,
            segment_index_bytes: 10 * 1024 * 1024,
            log_append_time: false,
            max_message_bytes: 1024 * 1024 + 12,
            timestamp_after_max_ms: 3_600_000,
            retention_ms: 604_800_000,
            retention_bytes: -1,
            delete: true,
            compact: false,
            file_delete_delay_ms: 60_000,
        }
    }
}

/// Who is appending: clients are validated and sequence-checked, coordinators are trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Client,
    Coordinator,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppendInfo {
    pub base_offset: i64,
    pub last_offset: i64,
    /// The broker's append time for LogAppendTime topics, else -1.
    pub log_append_time: i64,
    /// The batch repeated one already written (idempotent retry): nothing was written.
    pub duplicate: bool,
}

/// An aborted transaction as `.txnindex` stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbortedTxn {
    pub producer_id: i64,
    pub first_offset: i64,
    pub last_offset: i64,
    pub last_stable_offset: i64,
}

fn read_at(file: &File, pos: u64, len: usize) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; len];
    let mut filled = 0;
    while filled < len {
        match file.read_at(&mut buf[filled..], pos + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    buf.truncate(filled);
    Ok(buf)
}

fn remove_if_exists(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Opens (creating) a file of the log for reading and writing; an error names the file.
fn open_rw(path: &Path, truncate: bool) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(truncate)
        .open(path)
        .map_err(|e| with_path(path, e))
}

/// An I/O error and the file it happened on, carried inside an `io::Error` (kind kept), so that
/// callers can tell by type, not by searching the text, whether a file is already named.
#[derive(Debug)]
pub struct PathError {
    pub path: PathBuf,
    pub source: io::Error,
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.source)
    }
}

// No `source()`: the text already ends in the source's, and an error chain printed with it
// would say "Too many open files" twice.
impl std::error::Error for PathError {}

/// `e` naming `path` (the kind kept), for errors that would otherwise name no file; an error
/// that already names its file (a [`PathError`]) is returned as it is.
pub fn with_path(path: &Path, e: io::Error) -> io::Error {
    if e.get_ref().is_some_and(|inner| inner.is::<PathError>()) {
        return e;
    }
    let kind = e.kind();
    io::Error::new(
        kind,
        PathError {
            path: path.to_path_buf(),
            source: e,
        },
    )
}

/// One topic-partition's log.
pub struct PartitionLog {
    pub topic: String,
    pub partition: i32,
    pub dir: PathBuf,
    pub topic_id: [u8; 16],
    pub config: LogConfig,
    segments: Vec<Segment>,
    pub log_start_offset: i64,
    pub recovery_point: i64,
    pub leader_epoch: i32,
    epochs: Vec<EpochEntry>,
    pub producers: ProducerStateManager,
    aborted: Vec<AbortedTxn>,
    last_snapshot_offset: i64,
    /// Files renamed to `.deleted`, with when they may go (`file.delete.delay.ms`).
    pending_deletes: Vec<(i64, PathBuf)>,
    /// The background flushes of rolled segments ([`flush`]) and how far they reached.
    flushes: std::sync::Arc<flush::FlushProgress>,
    /// Segments below this offset have had their flush queued (or were on disk when loaded).
    flush_queued_upto: i64,
    /// `leader-epoch-checkpoint`'s writes, and the generation of the cache's contents.
    epoch_file: std::sync::Arc<flush::EpochFile>,
    epoch_generation: u64,
    /// Fetches waiting for this partition to grow (their long poll), woken by its next append
    /// and by nothing else.
    pub waiters: Waiters,
}

/// The fetches waiting on one partition, by waiter id: each holds its own `Notify`, so an
/// append wakes exactly the fetches that asked for this partition (a fetch of many partitions
/// is registered with each), and a waiter that stops waiting is removed in O(1).
#[derive(Debug, Default)]
pub struct Waiters(std::collections::HashMap<u64, std::sync::Arc<tokio::sync::Notify>>);

impl Waiters {
    pub fn add(&mut self, id: u64, waiter: std::sync::Arc<tokio::sync::Notify>) {
        self.0.insert(id, waiter);
    }

    pub fn remove(&mut self, id: u64) {
        self.0.remove(&id);
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Wakes every waiter (each stores the wake-up if it is not awaiting yet) and forgets them:
    /// a fetch still short of its minimum registers again.
    pub fn wake_all(&mut self) {
        for (_, w) in self.0.drain() {
            w.notify_one();
        }
    }
}

/// A log goes once its background flushes are done, so that none writes after it (a topic
/// deleted then created again, a test's broker opened again on the same dir).
impl Drop for PartitionLog {
    fn drop(&mut self) {
        self.flushes.wait_idle();
    }
}

impl PartitionLog {
    /// Creates a new, empty partition: its directory, `partition.metadata`, the first segment
    /// with preallocated indexes, and the leader epoch checkpoint for `leader_epoch` at 0.
    pub fn create(
        log_dir: &Path,
        topic: &str,
        partition: i32,
        topic_id: [u8; 16],
        config: LogConfig,
        leader_epoch: i32,
    ) -> io::Result<PartitionLog> {
        let dir = log_dir.join(format!("{topic}-{partition}"));
        fs::create_dir_all(&dir).map_err(|e| with_path(&dir, e))?;
        write_atomically(
            &dir.join(PARTITION_METADATA),
            partition_metadata_text(&topic_id).as_bytes(),
        )?;
        let segment = Segment::create(&dir, 0, &config)?;
        let mut log = PartitionLog {
            topic: topic.to_string(),
            partition,
            dir,
            topic_id,
            config,
            segments: vec![segment],
            log_start_offset: 0,
            recovery_point: 0,
            leader_epoch,
            epochs: Vec::new(),
            producers: ProducerStateManager::default(),
            aborted: Vec::new(),
            last_snapshot_offset: -1,
            pending_deletes: Vec::new(),
            flushes: flush::FlushProgress::new(0),
            flush_queued_upto: 0,
            epoch_file: Default::default(),
            epoch_generation: 0,
            waiters: Waiters::default(),
        };
        log.assign_epoch(leader_epoch, 0)?;
        Ok(log)
    }

    /// Writes `leader-epoch-checkpoint` now (`LeaderEpochFileCache.assign` flushes in place).
    fn write_epochs(&mut self) -> io::Result<()> {
        self.epoch_generation += 1;
        self.epoch_file.write(
            &self.dir.join(LEADER_EPOCH_CHECKPOINT),
            &epoch_checkpoint_text(&self.epochs),
            self.epoch_generation,
        )
    }

    /// Has the flush thread write `leader-epoch-checkpoint` as the cache is now
    /// (`truncateFromStartAsyncFlush`).
    fn write_epochs_later(&mut self) {
        self.epoch_generation += 1;
        flush::schedule(flush::FlushJob {
            files: Vec::new(),
            snapshot: None,
            upto: i64::MIN,
            epochs: Some(flush::EpochWrite {
                file: self.epoch_file.clone(),
                path: self.dir.join(LEADER_EPOCH_CHECKPOINT),
                text: epoch_checkpoint_text(&self.epochs),
                generation: self.epoch_generation,
            }),
            progress: self.flushes.clone(),
            name: format!("{}-{}", self.topic, self.partition),
        });
    }

    /// `LeaderEpochFileCache.assign`.
    fn assign_epoch(&mut self, epoch: i32, start: i64) -> io::Result<()> {
        let needed = self
            .epochs
            .last()
            .is_none_or(|e| e.epoch != epoch || start < e.start_offset);
        if !needed || epoch < 0 {
            return Ok(());
        }
        while self
            .epochs
            .last()
            .is_some_and(|e| e.epoch >= epoch || e.start_offset >= start)
        {
            self.epochs.pop();
        }
        self.epochs.push(EpochEntry {
            epoch,
            start_offset: start,
        });
        self.write_epochs()
    }

    /// The recovery point a checkpoint records: every offset below it is on disk (the rolls'
    /// background flushes included, as Kafka's `markFlushed` moves it).
    pub fn flushed_recovery_point(&self) -> i64 {
        self.recovery_point.max(self.flushes.flushed_upto())
    }

    pub fn log_end_offset(&self) -> i64 {
        self.segments.last().map_or(0, |s| s.next_offset)
    }

    /// A single replica is its own ISR: everything appended is committed.
    pub fn high_watermark(&self) -> i64 {
        self.log_end_offset()
    }

    pub fn last_stable_offset(&self) -> i64 {
        self.producers
            .first_unstable_offset()
            .unwrap_or_else(|| self.high_watermark())
            .min(self.high_watermark())
    }

    pub fn epochs(&self) -> &[EpochEntry] {
        &self.epochs
    }

    /// The leader epoch of the batch holding `offset`, if the log has it.
    pub fn epoch_of_offset(&self, offset: i64) -> Option<i32> {
        if offset < self.log_start_offset || offset >= self.log_end_offset() {
            return None;
        }
        self.epochs
            .iter()
            .rev()
            .find(|e| e.start_offset <= offset)
            .map(|e| e.epoch)
    }

    /// OffsetForLeaderEpoch (`LeaderEpochFileCache.endOffsetFor`): the largest epoch ≤ the
    /// requested one and the offset where the next epoch starts (or the log end).
    pub fn end_offset_for_epoch(&self, requested: i32) -> (i32, i64) {
        end_offset_for(&self.epochs, requested, self.log_end_offset())
            .map_or((-1, -1), |e| (e.epoch, e.end_offset))
    }

    /// Files of this partition, for tests and reports.
    pub fn segment_bases(&self) -> Vec<i64> {
        self.segments.iter().map(|s| s.base_offset).collect()
    }
}
