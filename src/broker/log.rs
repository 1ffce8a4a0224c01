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
//!   [`crate::analysis::recovery`], as `LogLoader`/`LogSegment.recover` do.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use kafka_protocol::ResponseError;

use super::files::{
    epoch_checkpoint_text, partition_metadata_text, read_epoch_checkpoint, read_partition_metadata,
    write_atomically, LEADER_EPOCH_CHECKPOINT, PARTITION_METADATA,
};
use super::producer_state::{CompletedTxn, ProducerBatch, ProducerStateManager};
use super::records::{marker_key, marker_value};
use super::{BrokerError, BrokerResult};
use crate::analysis::recovery::analyse_segment;
use crate::format::batch::{BatchHeader, RecordBatch, LOG_OVERHEAD, V2_CRC_START, V2_HEADER_SIZE};
use crate::format::compression::Codec;
use crate::format::control::{decode_control, ControlType};
use crate::format::encode::{encode_batch, NewBatch, NewRecord};
use crate::format::index::{OffsetIndex, TimeIndex, OFFSET_ENTRY_SIZE, TIME_ENTRY_SIZE};
use crate::format::log::{for_each_record, LogEntry, LogRecord, RecordScratch};
use crate::format::txn_index::{parse_txn_index, ABORTED_TXN_SIZE};
use crate::storage::layout::{base_offset_of, classify_file, offset_file_name, FileKind};

mod retention;

/// Largest decompressed batch the validator will look into (as kseg's readers).
const MAX_DECOMPRESSED: usize = 128 << 20;

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

/// What a fetch returns for one partition.
#[derive(Debug, Clone, Default)]
pub struct ReadResult {
    pub records: Vec<u8>,
    pub high_watermark: i64,
    pub last_stable_offset: i64,
    pub log_start_offset: i64,
    /// `read_committed` only: (producer id, first offset) of aborted transactions in range.
    pub aborted: Option<Vec<(i64, i64)>>,
}

/// Where a fetch's bytes lie in one segment file.
#[derive(Debug)]
struct ReadSource {
    file: File,
    start: u64,
    /// Bytes from `start` up to the fetch's upper bound in this segment.
    len: usize,
    /// The size of the first batch, returned whole even past `max_bytes` (KIP-74).
    first_batch: usize,
}

/// A fetch of one partition planned under the broker lock, to read outside it.
#[derive(Debug)]
pub struct ReadPlan {
    source: Option<ReadSource>,
    offset: i64,
    result: ReadResult,
    /// `read_committed`: aborted transactions that may overlap the bytes read.
    aborted: Vec<(i64, i64)>,
}

impl ReadPlan {
    /// Reads whole batches, at most `max_bytes` of them but at least the first one when
    /// `max_bytes` > 0.
    pub fn execute(self, max_bytes: usize) -> io::Result<ReadResult> {
        let ReadPlan {
            source,
            offset,
            mut result,
            aborted,
        } = self;
        let Some(src) = source else {
            return Ok(result);
        };
        if max_bytes == 0 {
            return Ok(result);
        }
        let want = src.len.min(max_bytes.max(src.first_batch));
        let mut bytes = read_at(&src.file, src.start, want)?;
        // Keep whole batches only.
        let mut keep = 0usize;
        let mut last_offset = offset;
        while keep + V2_HEADER_SIZE <= bytes.len() {
            let Ok(h) = BatchHeader::parse(&bytes[keep..]) else {
                break;
            };
            if h.size() < V2_HEADER_SIZE || keep + h.size() > bytes.len() {
                break;
            }
            if keep > 0 && keep + h.size() > max_bytes {
                break;
            }
            keep += h.size();
            last_offset = h.last_offset();
        }
        bytes.truncate(keep);
        result.records = bytes;
        if let Some(a) = &mut result.aborted {
            a.extend(
                aborted
                    .into_iter()
                    .filter(|&(_, first)| first <= last_offset),
            );
        }
        Ok(result)
    }
}

/// What loading found, for the broker's log.
#[derive(Debug, Clone, Default)]
pub struct LoadReport {
    pub recovered_segments: usize,
    pub truncated_at: Option<(PathBuf, u64, String)>,
    pub deleted_segments: Vec<i64>,
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

/// `e` with `path` in its message (the kind kept), for errors that would otherwise name no file.
pub fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Walks batch headers of a segment from a position, reading 64 KiB at a time.
struct HeaderWalk<'f> {
    file: &'f File,
    end: u64,
    pos: u64,
    buf: Vec<u8>,
    buf_start: u64,
}

impl<'f> HeaderWalk<'f> {
    fn new(file: &'f File, from: u64, end: u64) -> Self {
        HeaderWalk {
            file,
            end,
            pos: from,
            buf: Vec::new(),
            buf_start: from,
        }
    }

    /// The next (position, header) or None at the end or at a short/invalid frame.
    fn next(&mut self) -> io::Result<Option<(u64, BatchHeader)>> {
        if self.pos + V2_HEADER_SIZE as u64 > self.end {
            return Ok(None);
        }
        let rel = self.pos.wrapping_sub(self.buf_start) as usize;
        if self.pos < self.buf_start || rel + V2_HEADER_SIZE > self.buf.len() {
            let want = (64 * 1024).min((self.end - self.pos) as usize);
            self.buf = read_at(self.file, self.pos, want)?;
            self.buf_start = self.pos;
        }
        let rel = (self.pos - self.buf_start) as usize;
        let Some(raw) = self.buf.get(rel..rel + V2_HEADER_SIZE) else {
            return Ok(None);
        };
        let Ok(h) = BatchHeader::parse(raw) else {
            return Ok(None);
        };
        if h.magic < 2 || h.batch_length < (V2_HEADER_SIZE - LOG_OVERHEAD) as i32 {
            return Ok(None);
        }
        let at = self.pos;
        if at + h.size() as u64 > self.end {
            return Ok(None);
        }
        self.pos += h.size() as u64;
        Ok(Some((at, h)))
    }
}

struct OffsetIndexFile {
    file: File,
    base: i64,
    entries: Vec<(i64, u32)>,
    max_entries: usize,
}

impl OffsetIndexFile {
    fn open(path: &Path, base: i64, max_bytes: u64, fresh: bool) -> io::Result<Self> {
        let file = open_rw(path, fresh)?;
        let mut entries = Vec::new();
        if !fresh {
            let bytes = read_at(&file, 0, file.metadata()?.len() as usize)?;
            let idx = OffsetIndex::new(base, &bytes);
            entries = idx.entries().map(|e| (e.offset, e.position)).collect();
        }
        Ok(OffsetIndexFile {
            file,
            base,
            entries,
            max_entries: (max_bytes as usize / OFFSET_ENTRY_SIZE).max(1),
        })
    }

    fn append(&mut self, offset: i64, position: u32) -> io::Result<()> {
        let mut entry = [0u8; OFFSET_ENTRY_SIZE];
        entry[..4].copy_from_slice(&((offset - self.base) as i32).to_be_bytes());
        entry[4..].copy_from_slice(&position.to_be_bytes());
        self.file
            .write_all_at(&entry, (self.entries.len() * OFFSET_ENTRY_SIZE) as u64)?;
        self.entries.push((offset, position));
        Ok(())
    }

    fn is_full(&self) -> bool {
        self.entries.len() >= self.max_entries
    }

    fn trim(&self) -> io::Result<()> {
        self.file
            .set_len((self.entries.len() * OFFSET_ENTRY_SIZE) as u64)
    }

    fn preallocate(&self) -> io::Result<()> {
        self.file
            .set_len((self.max_entries * OFFSET_ENTRY_SIZE) as u64)
    }

    /// The position of the entry with the largest offset ≤ target, or 0.
    fn lookup(&self, target: i64) -> u64 {
        let i = self.entries.partition_point(|(o, _)| *o <= target);
        if i == 0 {
            0
        } else {
            self.entries[i - 1].1 as u64
        }
    }
}

struct TimeIndexFile {
    file: File,
    base: i64,
    entries: Vec<(i64, i64)>,
    max_entries: usize,
}

impl TimeIndexFile {
    fn open(path: &Path, base: i64, max_bytes: u64, fresh: bool) -> io::Result<Self> {
        let file = open_rw(path, fresh)?;
        let mut entries = Vec::new();
        if !fresh {
            let bytes = read_at(&file, 0, file.metadata()?.len() as usize)?;
            let idx = TimeIndex::new(base, &bytes);
            entries = idx.entries().map(|e| (e.timestamp, e.offset)).collect();
        }
        Ok(TimeIndexFile {
            file,
            base,
            entries,
            max_entries: (max_bytes as usize / TIME_ENTRY_SIZE).max(2),
        })
    }

    /// `TimeIndex.maybeAppend`: only a strictly larger timestamp, never a smaller offset.
    fn maybe_append(&mut self, ts: i64, offset: i64) -> io::Result<()> {
        let (last_ts, last_offset) = self.entries.last().copied().unwrap_or((-1, self.base));
        if ts <= last_ts || offset < last_offset {
            return Ok(());
        }
        let mut entry = [0u8; TIME_ENTRY_SIZE];
        entry[..8].copy_from_slice(&ts.to_be_bytes());
        entry[8..].copy_from_slice(&((offset - self.base) as i32).to_be_bytes());
        self.file
            .write_all_at(&entry, (self.entries.len() * TIME_ENTRY_SIZE) as u64)?;
        self.entries.push((ts, offset));
        Ok(())
    }

    /// The last slot is kept for the entry written at roll.
    fn is_full(&self) -> bool {
        self.entries.len() + 1 >= self.max_entries
    }

    fn trim(&self) -> io::Result<()> {
        self.file
            .set_len((self.entries.len() * TIME_ENTRY_SIZE) as u64)
    }

    fn preallocate(&self) -> io::Result<()> {
        self.file
            .set_len((self.max_entries * TIME_ENTRY_SIZE) as u64)
    }

    /// The entry with the largest timestamp ≤ target, or (-1, base).
    fn lookup(&self, target: i64) -> (i64, i64) {
        let i = self.entries.partition_point(|(t, _)| *t <= target);
        if i == 0 {
            (-1, self.base)
        } else {
            self.entries[i - 1]
        }
    }
}

struct Segment {
    base_offset: i64,
    dir: PathBuf,
    log: File,
    size: u64,
    next_offset: i64,
    index: OffsetIndexFile,
    time_index: TimeIndexFile,
    txn_index: Option<File>,
    txn_entries: usize,
    bytes_since_last_index_entry: u64,
    max_timestamp: i64,
    max_timestamp_offset: i64,
    /// The first batch's max timestamp: what `segment.ms` counts from (Kafka's
    /// `rollingBasedTimestamp`).
    rolling_base_timestamp: Option<i64>,
    /// When the segment was created here, for segments without timestamps.
    created_ms: i64,
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl Segment {
    fn path(&self, suffix: &str) -> PathBuf {
        self.dir.join(offset_file_name(self.base_offset, suffix))
    }

    fn create(dir: &Path, base: i64, config: &LogConfig) -> io::Result<Segment> {
        let log = open_rw(&dir.join(offset_file_name(base, "log")), true)?;
        let index = OffsetIndexFile::open(
            &dir.join(offset_file_name(base, "index")),
            base,
            config.segment_index_bytes,
            true,
        )?;
        // Sized as soon as it exists, as Kafka's index constructors do, so a crash leaves at
        // most one zero-length index beside an empty log.
        index.preallocate()?;
        let time_index = TimeIndexFile::open(
            &dir.join(offset_file_name(base, "timeindex")),
            base,
            config.segment_index_bytes,
            true,
        )?;
        time_index.preallocate()?;
        Ok(Segment {
            base_offset: base,
            dir: dir.to_path_buf(),
            log,
            size: 0,
            next_offset: base,
            index,
            time_index,
            txn_index: None,
            txn_entries: 0,
            bytes_since_last_index_entry: 0,
            max_timestamp: -1,
            max_timestamp_offset: -1,
            rolling_base_timestamp: None,
            created_ms: now_ms(),
        })
    }

    /// Opens an existing segment, trusting its indexes (what Kafka does after a clean shutdown).
    fn open(dir: &Path, base: i64, config: &LogConfig) -> io::Result<Segment> {
        let log = open_rw(&dir.join(offset_file_name(base, "log")), false)?;
        let size = log.metadata()?.len();
        let index_path = dir.join(offset_file_name(base, "index"));
        let time_path = dir.join(offset_file_name(base, "timeindex"));
        let index = OffsetIndexFile::open(&index_path, base, config.segment_index_bytes, false)?;
        let time_index = TimeIndexFile::open(&time_path, base, config.segment_index_bytes, false)?;
        let txn_path = dir.join(offset_file_name(base, "txnindex"));
        let (txn_index, txn_entries) = if txn_path.exists() {
            let f = open_rw(&txn_path, false)?;
            let n = (f.metadata()?.len() as usize) / ABORTED_TXN_SIZE;
            (Some(f), n)
        } else {
            (None, 0)
        };
        let (max_timestamp, max_timestamp_offset) =
            time_index.entries.last().copied().unwrap_or((-1, -1));
        let mut seg = Segment {
            base_offset: base,
            dir: dir.to_path_buf(),
            log,
            size,
            next_offset: base,
            index,
            time_index,
            txn_index,
            txn_entries,
            bytes_since_last_index_entry: 0,
            max_timestamp,
            max_timestamp_offset,
            rolling_base_timestamp: None,
            created_ms: now_ms(),
        };
        // The first batch's max timestamp, from its header.
        let mut first = [0u8; 43];
        if size >= 61 && seg.log.read_exact_at(&mut first, 0).is_ok() {
            seg.rolling_base_timestamp = Some(i64::from_be_bytes(
                first[35..43].try_into().expect("8 bytes"),
            ));
        }
        // The next offset: walk from the last indexed batch to the end.
        let from = seg.index.entries.last().map_or(0, |e| e.1 as u64);
        let mut walk = HeaderWalk::new(&seg.log, from, size);
        while let Some((_, h)) = walk.next()? {
            seg.next_offset = h.last_offset() + 1;
        }
        Ok(seg)
    }

    /// Appends one batch at the end of the log and indexes it by Kafka's per-batch rule.
    fn append(
        &mut self,
        bytes: &[u8],
        last_offset: i64,
        max_ts: i64,
        interval: u64,
    ) -> io::Result<()> {
        let position = self.size;
        if position == 0 {
            self.rolling_base_timestamp = Some(max_ts);
        }
        self.log.write_all_at(bytes, position)?;
        self.size += bytes.len() as u64;
        self.next_offset = last_offset + 1;
        if max_ts > self.max_timestamp {
            self.max_timestamp = max_ts;
            self.max_timestamp_offset = last_offset;
        }
        if self.bytes_since_last_index_entry > interval {
            self.index.append(last_offset, position as u32)?;
            self.time_index
                .maybe_append(self.max_timestamp, self.max_timestamp_offset)?;
            self.bytes_since_last_index_entry = 0;
        }
        self.bytes_since_last_index_entry += bytes.len() as u64;
        Ok(())
    }

    /// `onBecomeInactiveSegment` / close: final time-index entry, trim the indexes.
    fn seal(&mut self) -> io::Result<()> {
        if self.max_timestamp_offset >= 0 {
            self.time_index
                .maybe_append(self.max_timestamp, self.max_timestamp_offset)?;
        }
        self.index.trim()?;
        self.time_index.trim()?;
        Ok(())
    }

    fn sync(&self) -> io::Result<()> {
        self.log.sync_data()?;
        self.index.file.sync_data()?;
        self.time_index.file.sync_data()
    }

    fn append_txn_index(&mut self, t: &AbortedTxn) -> io::Result<()> {
        if self.txn_index.is_none() {
            self.txn_index = Some(open_rw(&self.path("txnindex"), false)?);
            self.txn_entries = 0;
        }
        let mut entry = Vec::with_capacity(ABORTED_TXN_SIZE);
        entry.extend_from_slice(&0i16.to_be_bytes());
        entry.extend_from_slice(&t.producer_id.to_be_bytes());
        entry.extend_from_slice(&t.first_offset.to_be_bytes());
        entry.extend_from_slice(&t.last_offset.to_be_bytes());
        entry.extend_from_slice(&t.last_stable_offset.to_be_bytes());
        let f = self.txn_index.as_ref().expect("opened above");
        f.write_all_at(&entry, (self.txn_entries * ABORTED_TXN_SIZE) as u64)?;
        self.txn_entries += 1;
        Ok(())
    }

    fn read_txn_index(&self) -> Vec<AbortedTxn> {
        let Ok(bytes) = fs::read(self.path("txnindex")) else {
            return Vec::new();
        };
        parse_txn_index(&bytes)
            .0
            .into_iter()
            .filter_map(Result::ok)
            .map(|e| AbortedTxn {
                producer_id: e.producer_id,
                first_offset: e.first_offset,
                last_offset: e.last_offset,
                last_stable_offset: e.last_stable_offset,
            })
            .collect()
    }

    /// The first batch whose last offset is ≥ target: (position, header).
    fn translate(&self, target: i64) -> io::Result<Option<(u64, BatchHeader)>> {
        let from = self.index.lookup(target);
        let mut walk = HeaderWalk::new(&self.log, from, self.size);
        while let Some((pos, h)) = walk.next()? {
            if h.last_offset() >= target {
                return Ok(Some((pos, h)));
            }
        }
        Ok(None)
    }

    fn delete_files(&self) -> io::Result<()> {
        for suffix in ["log", "index", "timeindex", "txnindex"] {
            match fs::remove_file(self.path(suffix)) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        Ok(())
    }
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
    epochs: Vec<(i32, i64)>,
    pub producers: ProducerStateManager,
    aborted: Vec<AbortedTxn>,
    last_snapshot_offset: i64,
    /// Files renamed to `.deleted`, with when they may go (`file.delete.delay.ms`).
    pending_deletes: Vec<(i64, PathBuf)>,
}

/// The validated facts of a client batch.
struct Validated {
    header: BatchHeader,
    max_timestamp: i64,
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
        };
        log.assign_epoch(leader_epoch, 0)?;
        Ok(log)
    }

    /// Loads an existing partition dir. Without a clean shutdown, segments from the one holding
    /// the recovery point on are recovered like Kafka's `LogLoader`. The partition becomes
    /// leader at `leader_epoch` (or its last epoch + 2 when `None`, as a restarted single-node
    /// KRaft cluster moves leadership away and back).
    #[allow(clippy::too_many_arguments)]
    pub fn load(
        dir: &Path,
        topic: &str,
        partition: i32,
        config: LogConfig,
        clean: bool,
        recovery_point: Option<i64>,
        log_start: Option<i64>,
        leader_epoch: Option<i32>,
    ) -> io::Result<(PartitionLog, LoadReport)> {
        let mut report = LoadReport::default();
        let topic_id = match read_partition_metadata(dir) {
            Some(id) => id,
            None => {
                let id = super::files::random_uuid();
                write_atomically(
                    &dir.join(PARTITION_METADATA),
                    partition_metadata_text(&id).as_bytes(),
                )?;
                id
            }
        };
        // LogLoader.removeTempFilesAndCollectSwapFiles: files a deletion left behind go now.
        for e in fs::read_dir(dir)?.filter_map(|e| e.ok()) {
            if e.file_name().to_string_lossy().ends_with(".deleted") {
                remove_if_exists(&e.path())?;
            }
        }
        let mut bases: Vec<i64> = fs::read_dir(dir)?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (classify_file(&name) == FileKind::Log)
                    .then(|| base_offset_of(&name))
                    .flatten()
            })
            .collect();
        bases.sort_unstable();
        let recovery_point = recovery_point.unwrap_or(0);
        // The first segment to re-validate: the one holding the recovery point.
        let recover_from = if clean {
            None
        } else {
            Some(
                bases
                    .iter()
                    .rev()
                    .find(|b| **b <= recovery_point)
                    .or(bases.first())
                    .copied()
                    .unwrap_or(0),
            )
        };
        let mut segments: Vec<Segment> = Vec::new();
        let mut first_recovered: Option<i64> = None;
        let mut deleting = false;
        for &base in &bases {
            if deleting {
                let seg = Segment::open(dir, base, &config)?;
                seg.delete_files()?;
                report.deleted_segments.push(base);
                continue;
            }
            let missing_index = !dir.join(offset_file_name(base, "index")).exists();
            let recover = recover_from.is_some_and(|r| base >= r) || missing_index;
            if !recover {
                segments.push(Segment::open(dir, base, &config)?);
                continue;
            }
            report.recovered_segments += 1;
            first_recovered.get_or_insert(base);
            let log_path = dir.join(offset_file_name(base, "log"));
            let plan = with_scratch(|scratch| {
                analyse_segment(&log_path, base, config.index_interval_bytes, scratch)
            })?;
            if let Some(at) = plan.truncate_at {
                let f = open_rw(&log_path, false)?;
                f.set_len(at)?;
                f.sync_all()?;
                report.truncated_at = Some((
                    log_path.clone(),
                    at,
                    plan.truncate_reason.clone().unwrap_or_default(),
                ));
                // A segment cut while being loaded (no .index) makes recoverLog delete nothing.
                deleting |= !missing_index;
            }
            let (index, time_index) = plan.kept_indexes();
            write_atomically(&dir.join(offset_file_name(base, "index")), &index)?;
            write_atomically(&dir.join(offset_file_name(base, "timeindex")), &time_index)?;
            // The transaction index is rebuilt by the producer-state replay below.
            let _ = fs::remove_file(dir.join(offset_file_name(base, "txnindex")));
            segments.push(Segment::open(dir, base, &config)?);
        }
        if segments.is_empty() {
            let base = log_start.unwrap_or(0).max(0);
            segments.push(Segment::create(dir, base, &config)?);
        }
        let leo = segments.last().map_or(0, |s| s.next_offset);
        let mut aborted = Vec::new();
        for s in &segments {
            if first_recovered.is_none_or(|r| s.base_offset < r) {
                aborted.extend(s.read_txn_index());
            }
        }
        let first_base = segments[0].base_offset;
        let epochs = read_epoch_checkpoint(&dir.join(LEADER_EPOCH_CHECKPOINT));
        // The partition's current epoch lives in KRaft metadata, not here; the checkpoint's
        // largest epoch (read before it is cut at the log end) is the last one this broker led.
        let last_epoch = epochs.iter().map(|(e, _)| *e).max();
        let mut log = PartitionLog {
            topic: topic.to_string(),
            partition,
            dir: dir.to_path_buf(),
            topic_id,
            config,
            segments,
            log_start_offset: log_start.unwrap_or(first_base).max(first_base).min(leo),
            // LogLoader.recoverLog: the log end after a clean shutdown; otherwise the checkpoint,
            // unless the log now ends before it. Only a flush moves it further.
            recovery_point: if clean { leo } else { recovery_point.min(leo) },
            leader_epoch: 0,
            epochs,
            producers: ProducerStateManager::default(),
            aborted,
            last_snapshot_offset: -1,
            pending_deletes: Vec::new(),
        };
        log.load_producer_state(first_recovered)?;
        // Cut what the log no longer holds: snapshots and epochs past the end.
        log.remove_snapshots_after(leo)?;
        log.remove_stray_snapshots()?;
        let before = log.epochs.len();
        log.epochs.retain(|(_, start)| *start < leo);
        if log.epochs.len() != before {
            log.write_epochs()?;
        }
        let active = log.segments.last().expect("at least one segment");
        active.index.preallocate()?;
        active.time_index.preallocate()?;
        let epoch = leader_epoch.unwrap_or_else(|| last_epoch.map_or(0, |e| e.saturating_add(2)));
        log.leader_epoch = epoch;
        log.assign_epoch(epoch, leo)?;
        Ok((log, report))
    }

    /// Loads the newest usable producer snapshot and replays the batches after it, rebuilding the
    /// transaction index of recovered segments on the way.
    fn load_producer_state(&mut self, first_recovered: Option<i64>) -> io::Result<()> {
        let leo = self.log_end_offset();
        let limit = first_recovered.unwrap_or(leo);
        let mut snaps = self.snapshot_offsets()?;
        snaps.sort_unstable();
        if first_recovered.is_some() {
            // LogLoader.recoverSegment rebuilds producer state up to the first recovered
            // segment (ProducerStateManager.truncateAndReload): snapshots past it go.
            for off in snaps.iter().filter(|o| **o > limit) {
                remove_if_exists(&self.dir.join(offset_file_name(*off, "snapshot")))?;
            }
            snaps.retain(|o| *o <= limit);
        }
        let mut start = self.log_start_offset;
        for off in snaps.iter().rev().filter(|o| **o <= limit) {
            let path = self.dir.join(offset_file_name(*off, "snapshot"));
            if let Ok(state) = fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| ProducerStateManager::from_snapshot(&b))
            {
                self.producers = state;
                start = *off;
                break;
            }
        }
        self.last_snapshot_offset = snaps.last().copied().unwrap_or(-1).min(leo);
        let from_segment = self
            .segments
            .iter()
            .rposition(|s| s.base_offset <= start)
            .unwrap_or(0);
        // Recovery snapshots the producer state as Kafka does: at the start of each recovered
        // segment (recoverSegment's takeSnapshot after the previous one), at the last two
        // segments' bases while replaying (rebuildProducerState) and at the log end.
        let n = self.segments.len();
        let last_two: Vec<i64> = self.segments[n.saturating_sub(2)..]
            .iter()
            .map(|s| s.base_offset)
            .collect();
        for i in from_segment..self.segments.len() {
            let rebuild_txn = first_recovered.is_some_and(|r| self.segments[i].base_offset >= r);
            let base = self.segments[i].base_offset;
            if first_recovered.is_some()
                && base >= start
                && (rebuild_txn || last_two.contains(&base))
            {
                self.write_snapshot(base)?;
            }
            let seg = &self.segments[i];
            let mut batches = Vec::new();
            let mut walk = HeaderWalk::new(&seg.log, seg.index.lookup(start), seg.size);
            while let Some((pos, h)) = walk.next()? {
                if h.last_offset() >= start && h.producer_id >= 0 {
                    batches.push((pos, h));
                }
            }
            for (pos, h) in batches {
                if h.is_control() {
                    let bytes = read_at(&self.segments[i].log, pos, h.size())?;
                    let Some((commit, coordinator_epoch)) = control_marker(&bytes) else {
                        continue;
                    };
                    if let Some(done) = self.producers.complete_txn(
                        h.producer_id,
                        h.producer_epoch,
                        coordinator_epoch,
                        h.base_offset,
                        !commit,
                        h.max_timestamp,
                    ) {
                        if done.aborted && rebuild_txn {
                            self.record_abort(i, &done)?;
                        }
                    }
                } else {
                    self.producers.update(
                        &producer_batch(&h),
                        h.base_offset,
                        h.last_offset(),
                        h.max_timestamp,
                    );
                }
            }
        }
        if first_recovered.is_some() {
            self.write_snapshot(leo)?;
        }
        Ok(())
    }

    /// `ProducerStateManager.removeStraySnapshots`: snapshots at no segment's base offset are
    /// deleted, but for the newest one when it lies past the last segment's base.
    fn remove_stray_snapshots(&mut self) -> io::Result<()> {
        let bases: Vec<i64> = self.segments.iter().map(|s| s.base_offset).collect();
        let max_base = bases.iter().copied().max();
        let mut snaps = self.snapshot_offsets()?;
        snaps.sort_unstable();
        let mut strays: Vec<i64> = snaps.into_iter().filter(|o| !bases.contains(o)).collect();
        if let Some(&newest) = strays.last() {
            if max_base.is_some_and(|m| newest > m) {
                strays.pop();
            }
        }
        for off in strays {
            remove_if_exists(&self.dir.join(offset_file_name(off, "snapshot")))?;
        }
        self.last_snapshot_offset = self
            .snapshot_offsets()?
            .into_iter()
            .max()
            .unwrap_or(-1)
            .min(self.log_end_offset());
        Ok(())
    }

    fn record_abort(&mut self, segment: usize, done: &CompletedTxn) -> io::Result<()> {
        let entry = AbortedTxn {
            producer_id: done.producer_id,
            first_offset: done.first_offset,
            last_offset: done.last_offset,
            last_stable_offset: self.producers.last_stable_offset_after(done),
        };
        self.segments[segment].append_txn_index(&entry)?;
        self.aborted.push(entry);
        Ok(())
    }

    fn snapshot_offsets(&self) -> io::Result<Vec<i64>> {
        Ok(fs::read_dir(&self.dir)?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (classify_file(&name) == FileKind::ProducerSnapshot)
                    .then(|| base_offset_of(&name))
                    .flatten()
            })
            .collect())
    }

    fn remove_snapshots_after(&mut self, offset: i64) -> io::Result<()> {
        for off in self.snapshot_offsets()? {
            if off > offset {
                fs::remove_file(self.dir.join(offset_file_name(off, "snapshot")))?;
            }
        }
        self.last_snapshot_offset = self.last_snapshot_offset.min(offset);
        Ok(())
    }

    fn write_snapshot(&mut self, offset: i64) -> io::Result<()> {
        if offset <= self.last_snapshot_offset {
            return Ok(());
        }
        let path = self.dir.join(offset_file_name(offset, "snapshot"));
        let f = open_rw(&path, true)?;
        f.write_all_at(&self.producers.snapshot_bytes(), 0)?;
        f.sync_all()?;
        self.last_snapshot_offset = offset;
        Ok(())
    }

    fn write_epochs(&self) -> io::Result<()> {
        write_atomically(
            &self.dir.join(LEADER_EPOCH_CHECKPOINT),
            epoch_checkpoint_text(&self.epochs).as_bytes(),
        )
    }

    /// `LeaderEpochFileCache.assign`.
    fn assign_epoch(&mut self, epoch: i32, start: i64) -> io::Result<()> {
        let needed = self
            .epochs
            .last()
            .is_none_or(|(e, s)| *e != epoch || start < *s);
        if !needed || epoch < 0 {
            return Ok(());
        }
        while self
            .epochs
            .last()
            .is_some_and(|(e, s)| *e >= epoch || *s >= start)
        {
            self.epochs.pop();
        }
        self.epochs.push((epoch, start));
        self.write_epochs()
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

    pub fn epochs(&self) -> &[(i32, i64)] {
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
            .find(|(_, start)| *start <= offset)
            .map(|(e, _)| *e)
    }

    /// Validates, assigns offsets to and appends one produced batch (a Produce request's records
    /// for this partition).
    pub fn append_client(&mut self, mut data: Vec<u8>, now: i64) -> BrokerResult<AppendInfo> {
        let v = self.validate_client(&data, now)?;
        let h = v.header;
        let producer = (h.producer_id >= 0).then(|| producer_batch(&h));
        if let Some(p) = &producer {
            if let Some(dup) = self.producers.check(p)? {
                return Ok(AppendInfo {
                    base_offset: dup.first_offset(),
                    last_offset: dup.last_offset,
                    // UnifiedLog.append answers a duplicate with the stored batch's timestamp
                    // whatever the timestamp type: the append time, or the max CreateTime.
                    log_append_time: dup.timestamp,
                    duplicate: true,
                });
            }
        }
        let info = self.write_batch(&mut data, &h, v.max_timestamp, now)?;
        if let Some(p) = producer {
            // The written batch's max timestamp: the append time on LogAppendTime topics.
            let written = if info.log_append_time >= 0 {
                info.log_append_time
            } else {
                v.max_timestamp
            };
            self.producers
                .update(&p, info.base_offset, info.last_offset, written);
        }
        Ok(info)
    }

    /// Appends records written by a coordinator (offset commits, group and transaction state) as
    /// one batch: CreateTime, uncompressed, base sequence 0, like Kafka's coordinator runtime.
    pub fn append_records(
        &mut self,
        records: &[NewRecord<'_>],
        producer: Option<(i64, i16)>,
        now: i64,
    ) -> BrokerResult<AppendInfo> {
        let (producer_id, producer_epoch) = producer.unwrap_or((-1, -1));
        let batch = NewBatch {
            base_offset: 0,
            partition_leader_epoch: self.leader_epoch,
            codec: Codec::None,
            log_append_time: None,
            transactional: producer.is_some(),
            control: false,
            producer_id,
            producer_epoch,
            base_sequence: 0,
        };
        let mut data = Vec::new();
        encode_batch(&mut data, &batch, records, &mut Vec::new());
        let h = BatchHeader::parse(&data).map_err(|e| io::Error::other(e.message.to_string()))?;
        let max_ts = h.max_timestamp;
        let info = self.write_batch(&mut data, &h, max_ts, now)?;
        if producer.is_some() {
            let mut p = producer_batch(&h);
            // Coordinator writes carry no client sequence: keep the producer's sequence state.
            if let Some(e) = self.producers.entry(producer_id) {
                p.first_seq = e.last_seq();
                p.last_seq = e.last_seq();
            }
            self.producers
                .update(&p, info.base_offset, info.last_offset, max_ts);
        }
        Ok(info)
    }

    /// Writes a COMMIT or ABORT marker for a producer's transaction; an abort also goes into the
    /// segment's `.txnindex`.
    pub fn append_marker(
        &mut self,
        producer_id: i64,
        producer_epoch: i16,
        coordinator_epoch: i32,
        commit: bool,
        now: i64,
    ) -> BrokerResult<AppendInfo> {
        let key = marker_key(commit);
        let value = marker_value(coordinator_epoch);
        let record = NewRecord {
            timestamp: now,
            key: Some(&key),
            value: Some(&value),
            headers: &[],
        };
        let batch = NewBatch {
            base_offset: 0,
            partition_leader_epoch: self.leader_epoch,
            codec: Codec::None,
            log_append_time: None,
            transactional: true,
            control: true,
            producer_id,
            producer_epoch,
            base_sequence: -1,
        };
        let mut data = Vec::new();
        encode_batch(&mut data, &batch, &[record], &mut Vec::new());
        let h = BatchHeader::parse(&data).map_err(|e| io::Error::other(e.message.to_string()))?;
        let info = self.write_batch(&mut data, &h, now, now)?;
        if let Some(done) = self.producers.complete_txn(
            producer_id,
            producer_epoch,
            coordinator_epoch,
            info.base_offset,
            !commit,
            now,
        ) {
            if done.aborted {
                let last = self.segments.len() - 1;
                self.record_abort(last, &done)?;
            }
        }
        Ok(info)
    }

    fn validate_client(&mut self, data: &[u8], now: i64) -> BrokerResult<Validated> {
        let invalid = |m: String| BrokerError::new(ResponseError::InvalidRecord, m);
        if data.len() < V2_HEADER_SIZE {
            return Err(BrokerError::new(
                ResponseError::CorruptMessage,
                format!("{} bytes cannot hold a record batch", data.len()),
            ));
        }
        let h = BatchHeader::parse(data)
            .map_err(|e| BrokerError::new(ResponseError::CorruptMessage, e.message.to_string()))?;
        if h.magic != 2 {
            return Err(invalid(format!(
                "produce requests must hold magic 2 batches, not magic {}",
                h.magic
            )));
        }
        if h.batch_length < (V2_HEADER_SIZE - LOG_OVERHEAD) as i32 || h.size() > data.len() {
            return Err(BrokerError::new(
                ResponseError::CorruptMessage,
                "batch length does not match the records sent",
            ));
        }
        if h.size() < data.len() {
            return Err(invalid(
                "more than one batch for a partition in one request".into(),
            ));
        }
        if h.size() > self.config.max_message_bytes {
            return Err(BrokerError::new(
                ResponseError::MessageTooLarge,
                format!(
                    "batch of {} bytes is larger than max.message.bytes {}",
                    h.size(),
                    self.config.max_message_bytes
                ),
            ));
        }
        if h.size() as u64 > self.config.segment_bytes {
            return Err(BrokerError::new(
                ResponseError::RecordListTooLarge,
                format!("batch of {} bytes is larger than segment.bytes", h.size()),
            ));
        }
        let batch = RecordBatch::parse(data)
            .map_err(|e| BrokerError::new(ResponseError::CorruptMessage, e.message.to_string()))?;
        if !batch.crc_valid() {
            return Err(BrokerError::new(
                ResponseError::CorruptMessage,
                "record batch fails its CRC-32C",
            ));
        }
        if h.base_offset != 0 {
            return Err(invalid(format!(
                "the base offset of a produced batch must be 0, not {}",
                h.base_offset
            )));
        }
        if h.is_control() {
            return Err(invalid("clients may not write control batches".into()));
        }
        if h.records_count <= 0 || h.last_offset_delta as i64 != h.records_count as i64 - 1 {
            return Err(invalid(format!(
                "record count {} does not match last offset delta {}",
                h.records_count, h.last_offset_delta
            )));
        }
        if h.producer_id >= 0 && h.base_sequence < 0 {
            return Err(invalid(
                "an idempotent batch must carry a base sequence".into(),
            ));
        }
        if h.is_transactional() && h.producer_id < 0 {
            return Err(invalid("a transactional batch needs a producer id".into()));
        }
        if self.config.log_append_time
            && h.timestamp_type() == crate::format::batch::TimestampType::LogAppendTime
        {
            return Err(BrokerError::new(
                ResponseError::InvalidTimestamp,
                "producer should not set timestamp type to LogAppendTime",
            ));
        }
        let mut count = 0i64;
        let mut max_ts = -1i64;
        let mut bad_offset = None;
        let mut bad_ts = None;
        let limit = now.saturating_add(self.config.timestamp_after_max_ms);
        let log_append_time = self.config.log_append_time;
        let compact = self.config.compact;
        let mut keyless = false;
        let decoded = with_scratch(|scratch| {
            for_each_record(&LogEntry::V2(batch), scratch, |r: &LogRecord<'_>| {
                if r.offset != count && bad_offset.is_none() {
                    bad_offset = Some((count, r.offset));
                }
                if !log_append_time && r.timestamp > limit && bad_ts.is_none() {
                    bad_ts = Some(r.timestamp);
                }
                max_ts = max_ts.max(r.timestamp);
                keyless |= compact && r.key.is_none();
                count += 1;
            })
        });
        decoded
            .map_err(|e| BrokerError::new(ResponseError::CorruptMessage, e.message.to_string()))?;
        if count != h.records_count as i64 {
            return Err(invalid(format!(
                "batch declares {} records but holds {count}",
                h.records_count
            )));
        }
        if let Some((want, got)) = bad_offset {
            return Err(invalid(format!(
                "record offset delta {got} where {want} was expected (only in-place appends are \
                 supported)"
            )));
        }
        if keyless {
            // LogValidator.validateKey.
            return Err(invalid(format!(
                "Compacted topic cannot accept message without key in topic partition {}-{}.",
                self.topic, self.partition
            )));
        }
        if let Some(ts) = bad_ts {
            return Err(BrokerError::new(
                ResponseError::InvalidTimestamp,
                format!(
                    "timestamp {ts} is more than message.timestamp.after.max.ms ahead of {now}"
                ),
            ));
        }
        Ok(Validated {
            header: h,
            max_timestamp: max_ts,
        })
    }

    /// Rolls if needed, assigns the offsets, leader epoch and max timestamp in place, writes the
    /// batch and updates the leader epoch cache.
    fn write_batch(
        &mut self,
        data: &mut [u8],
        h: &BatchHeader,
        record_max_ts: i64,
        now: i64,
    ) -> BrokerResult<AppendInfo> {
        let base = self.log_end_offset();
        let last = base + h.last_offset_delta as i64;
        let (lat, max_ts) = if self.config.log_append_time {
            (true, now)
        } else {
            (false, record_max_ts)
        };
        self.maybe_roll(data.len() as u64, last, max_ts, now)?;
        data[0..8].copy_from_slice(&base.to_be_bytes());
        data[12..16].copy_from_slice(&self.leader_epoch.to_be_bytes());
        let stored_lat = h.attributes & 0x08 != 0;
        if stored_lat != lat || h.max_timestamp != max_ts {
            let attributes = if lat {
                h.attributes | 0x08
            } else {
                h.attributes & !0x08
            };
            data[21..23].copy_from_slice(&attributes.to_be_bytes());
            data[35..43].copy_from_slice(&max_ts.to_be_bytes());
            let crc = crc32c::crc32c(&data[V2_CRC_START..]);
            data[17..21].copy_from_slice(&crc.to_be_bytes());
        }
        let interval = self.config.index_interval_bytes;
        self.segments
            .last_mut()
            .expect("a log always has an active segment")
            .append(data, last, max_ts, interval)?;
        self.assign_epoch(self.leader_epoch, base)?;
        Ok(AppendInfo {
            base_offset: base,
            last_offset: last,
            log_append_time: if lat { now } else { -1 },
            duplicate: false,
        })
    }

    fn maybe_roll(
        &mut self,
        append_size: u64,
        last_offset: i64,
        max_ts: i64,
        now: i64,
    ) -> io::Result<()> {
        let seg = self.segments.last().expect("active segment");
        // LogSegment.timeWaitedForRoll: from the first batch's timestamp, else from creation.
        let waited = match seg.rolling_base_timestamp {
            Some(first) if first >= 0 => max_ts.saturating_sub(first),
            _ => now.saturating_sub(seg.created_ms),
        };
        let roll = seg.size > 0
            && (seg.size > self.config.segment_bytes.saturating_sub(append_size)
                || waited > self.config.segment_ms
                || seg.index.is_full()
                || seg.time_index.is_full()
                || last_offset - seg.base_offset > i32::MAX as i64);
        if roll {
            self.roll()?;
        }
        Ok(())
    }

    /// Seals the active segment, starts a new one at the log end offset and takes a producer
    /// snapshot named by it.
    pub fn roll(&mut self) -> io::Result<()> {
        let new_base = self.log_end_offset();
        let active = self.segments.last_mut().expect("active segment");
        if active.size == 0 {
            return Ok(());
        }
        active.seal()?;
        active.sync()?;
        let seg = Segment::create(&self.dir, new_base, &self.config)?;
        self.segments.push(seg);
        self.write_snapshot(new_base)?;
        self.recovery_point = new_base;
        Ok(())
    }

    /// Clean close: final time-index entry, trimmed indexes, a producer snapshot at the log end,
    /// everything flushed.
    pub fn close(&mut self) -> io::Result<()> {
        let leo = self.log_end_offset();
        let active = self.segments.last_mut().expect("active segment");
        active.seal()?;
        active.sync()?;
        if let Some(f) = &active.txn_index {
            f.sync_data()?;
        }
        self.write_snapshot(leo)?;
        self.recovery_point = leo;
        Ok(())
    }

    /// Reads whole batches from `offset` up to the high watermark (or the last stable offset
    /// for `read_committed`), at most `max_bytes` unless the first batch alone is larger.
    pub fn read(&self, offset: i64, max_bytes: usize, committed: bool) -> BrokerResult<ReadResult> {
        Ok(self.plan_read(offset, committed)?.execute(max_bytes)?)
    }

    /// The part of a fetch that needs the log's state: where the bytes to return lie (with a
    /// handle of their own, so [`ReadPlan::execute`] can read them without the broker lock:
    /// segment files only ever grow while the broker runs) and the offsets to report.
    pub fn plan_read(&self, offset: i64, committed: bool) -> BrokerResult<ReadPlan> {
        let mut plan = ReadPlan {
            source: None,
            offset,
            result: ReadResult {
                records: Vec::new(),
                high_watermark: self.high_watermark(),
                last_stable_offset: self.last_stable_offset(),
                log_start_offset: self.log_start_offset,
                aborted: committed.then(Vec::new),
            },
            aborted: Vec::new(),
        };
        let leo = self.log_end_offset();
        if offset < self.log_start_offset || offset > leo {
            return Err(BrokerError::new(
                ResponseError::OffsetOutOfRange,
                format!(
                    "offset {offset} is outside [{}, {leo}] of {}-{}",
                    self.log_start_offset, self.topic, self.partition
                ),
            ));
        }
        let upper = if committed {
            plan.result.last_stable_offset
        } else {
            plan.result.high_watermark
        };
        if offset >= upper {
            return Ok(plan);
        }
        let first = self
            .segments
            .partition_point(|s| s.base_offset <= offset)
            .saturating_sub(1);
        for seg in &self.segments[first..] {
            let Some((start, first_header)) = seg.translate(offset)? else {
                continue;
            };
            if first_header.base_offset >= upper {
                return Ok(plan);
            }
            let end = if upper >= seg.next_offset {
                seg.size
            } else {
                match seg.translate(upper)? {
                    Some((pos, _)) => pos,
                    None => seg.size,
                }
            };
            plan.source = Some(ReadSource {
                file: seg.log.try_clone()?,
                start,
                len: end.saturating_sub(start) as usize,
                first_batch: first_header.size(),
            });
            if committed {
                plan.aborted = self
                    .aborted
                    .iter()
                    .filter(|t| t.last_offset >= offset && t.first_offset < upper)
                    .map(|t| (t.producer_id, t.first_offset))
                    .collect();
            }
            return Ok(plan);
        }
        Ok(plan)
    }

    /// ListOffsets by timestamp (`UnifiedLog.fetchOffsetByTimestamp`): the first record with a
    /// timestamp ≥ target in the first segment whose largest timestamp reaches it.
    pub fn offset_for_timestamp(&mut self, target: i64) -> io::Result<Option<(i64, i64, i32)>> {
        let log_start = self.log_start_offset;
        let Some(i) = self.segments.iter().position(|s| {
            let largest = if s.max_timestamp >= 0 {
                s.max_timestamp
            } else {
                s.log
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(-1, |d| d.as_millis() as i64)
            };
            largest >= target
        }) else {
            return Ok(None);
        };
        let seg = &self.segments[i];
        let (_, te_offset) = seg.time_index.lookup(target);
        let from = seg.index.lookup(te_offset.max(log_start));
        let mut walk = HeaderWalk::new(&seg.log, from, seg.size);
        let mut candidates = Vec::new();
        while let Some((pos, h)) = walk.next()? {
            if h.max_timestamp >= target {
                candidates.push((pos, h));
            }
        }
        for (pos, h) in candidates {
            let bytes = read_at(&self.segments[i].log, pos, h.size())?;
            let Ok(entry) = LogEntry::parse(&bytes) else {
                continue;
            };
            let lat = h.attributes & 0x08 != 0;
            let mut found = None;
            let _ = with_scratch(|scratch| {
                for_each_record(&entry, scratch, |r| {
                    let ts = if lat { h.max_timestamp } else { r.timestamp };
                    if found.is_none() && ts >= target && r.offset >= log_start {
                        found = Some((r.offset, ts));
                    }
                })
            });
            if let Some((offset, ts)) = found {
                return Ok(Some((offset, ts, h.partition_leader_epoch)));
            }
        }
        Ok(None)
    }

    /// ListOffsets MAX_TIMESTAMP: the first record carrying the largest timestamp.
    pub fn max_timestamp_offset(&mut self) -> io::Result<Option<(i64, i64, i32)>> {
        let Some(max) = self
            .segments
            .iter()
            .map(|s| s.max_timestamp)
            .max()
            .filter(|m| *m >= 0)
        else {
            return Ok(None);
        };
        self.offset_for_timestamp(max)
    }

    /// OffsetForLeaderEpoch (`LeaderEpochFileCache.endOffsetFor`): the largest epoch ≤ the
    /// requested one and the offset where the next epoch starts (or the log end).
    pub fn end_offset_for_epoch(&self, requested: i32) -> (i32, i64) {
        let leo = self.log_end_offset();
        let Some(&(latest, _)) = self.epochs.last() else {
            return (-1, -1);
        };
        if requested < 0 {
            return (-1, -1);
        }
        if requested == latest {
            return (latest, leo);
        }
        let Some(&(_, higher_start)) = self.epochs.iter().find(|(e, _)| *e > requested) else {
            return (-1, -1);
        };
        match self.epochs.iter().rev().find(|(e, _)| *e <= requested) {
            Some(&(floor, _)) => (floor, higher_start),
            None => (requested, higher_start),
        }
    }

    /// Every record of the log in offset order (for coordinators loading their state); `visit`
    /// gets the batch header and the record.
    pub fn replay(
        &mut self,
        mut visit: impl FnMut(&BatchHeader, &LogRecord<'_>),
    ) -> io::Result<()> {
        for i in 0..self.segments.len() {
            let seg = &self.segments[i];
            let mut headers = Vec::new();
            let mut walk = HeaderWalk::new(&seg.log, 0, seg.size);
            while let Some(x) = walk.next()? {
                headers.push(x);
            }
            for (pos, h) in headers {
                if h.last_offset() < self.log_start_offset {
                    continue;
                }
                let bytes = read_at(&self.segments[i].log, pos, h.size())?;
                let Ok(entry) = LogEntry::parse(&bytes) else {
                    continue;
                };
                let _ = with_scratch(|scratch| for_each_record(&entry, scratch, |r| visit(&h, r)));
            }
        }
        Ok(())
    }

    /// Files of this partition, for tests and reports.
    pub fn segment_bases(&self) -> Vec<i64> {
        self.segments.iter().map(|s| s.base_offset).collect()
    }
}

fn producer_batch(h: &BatchHeader) -> ProducerBatch {
    ProducerBatch {
        producer_id: h.producer_id,
        epoch: h.producer_epoch,
        first_seq: h.base_sequence,
        last_seq: h.last_sequence(),
        transactional: h.is_transactional(),
    }
}

/// The decompression buffer above this is released after use: one 128 MiB batch must not pin
/// 128 MiB for the broker's lifetime.
const SCRATCH_KEEP: usize = 4 << 20;

/// The broker's one decompression scratch (output buffer and zstd context), shared by every
/// partition: memory for decompression does not grow with the partition count.
static SCRATCH: Mutex<Option<RecordScratch>> = Mutex::new(None);

/// Runs `f` with the shared scratch (a temporary one if it is in use: a nested call), then
/// releases what a large batch made it grow to.
fn with_scratch<R>(f: impl FnOnce(&mut RecordScratch) -> R) -> R {
    match SCRATCH.try_lock() {
        Ok(mut guard) => {
            let scratch = guard.get_or_insert_with(|| RecordScratch::with_cap(MAX_DECOMPRESSED));
            let r = f(scratch);
            trim_scratch(scratch);
            r
        }
        Err(_) => f(&mut RecordScratch::with_cap(MAX_DECOMPRESSED)),
    }
}

/// Releases `scratch`'s buffer and zstd context (whose window is as large as the batch's) when
/// the buffer grew past [`SCRATCH_KEEP`].
fn trim_scratch(scratch: &mut RecordScratch) {
    if scratch.buffer.capacity() > SCRATCH_KEEP {
        scratch.buffer = Vec::new();
        scratch.decompressor.release();
    }
}

/// (commit?, coordinator epoch) of a transaction marker batch.
fn control_marker(bytes: &[u8]) -> Option<(bool, i32)> {
    let entry = LogEntry::parse(bytes).ok()?;
    let mut out = None;
    let _ = with_scratch(|scratch| {
        for_each_record(&entry, scratch, |r| {
            if let Ok(c) = decode_control(r.key, r.value) {
                match c.kind {
                    ControlType::Commit => out = Some((true, c.coordinator_epoch.unwrap_or(-1))),
                    ControlType::Abort => out = Some((false, c.coordinator_epoch.unwrap_or(-1))),
                    _ => {}
                }
            }
        })
    });
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::format::encode::{encode_batch, NewBatch, NewRecord};

    pub(crate) fn client_batch(n: usize, value_len: usize, ts: i64) -> Vec<u8> {
        let value = vec![b'v'; value_len];
        let records: Vec<NewRecord> = (0..n)
            .map(|i| NewRecord {
                timestamp: ts + i as i64,
                key: Some(b"k"),
                value: Some(&value),
                headers: &[],
            })
            .collect();
        let mut out = Vec::new();
        encode_batch(
            &mut out,
            &NewBatch {
                partition_leader_epoch: -1,
                ..Default::default()
            },
            &records,
            &mut Vec::new(),
        );
        out
    }

    /// One record from producer `producer_id` (epoch 0) at sequence `seq`.
    fn producer_batch_bytes(producer_id: i64, seq: i32, transactional: bool, ts: i64) -> Vec<u8> {
        let records = [NewRecord {
            timestamp: ts,
            key: None,
            value: Some(b"x"),
            headers: &[],
        }];
        let mut out = Vec::new();
        encode_batch(
            &mut out,
            &NewBatch {
                transactional,
                producer_id,
                producer_epoch: 0,
                base_sequence: seq,
                ..Default::default()
            },
            &records,
            &mut Vec::new(),
        );
        out
    }

    /// Issue 14 item 2: a large zstd batch appended to many partitions leaves no decompression
    /// state per partition; the one shared scratch is released after the batch.
    #[test]
    fn decompression_scratch_is_shared_and_released() {
        let dir = tempfile::tempdir().unwrap();
        let value = vec![b'z'; 1 << 20];
        let records: Vec<NewRecord> = (0..8)
            .map(|i| NewRecord {
                timestamp: 1_700_000_000_000 + i,
                key: None,
                value: Some(&value),
                headers: &[],
            })
            .collect();
        let mut batch = Vec::new();
        encode_batch(
            &mut batch,
            &NewBatch {
                partition_leader_epoch: -1,
                codec: Codec::Zstd,
                ..Default::default()
            },
            &records,
            &mut Vec::new(),
        );
        assert!(
            batch.len() < 64 * 1024,
            "8 MiB compresses to {}",
            batch.len()
        );
        let config = LogConfig::default();
        let mut logs: Vec<PartitionLog> = (0..4)
            .map(|p| PartitionLog::create(dir.path(), "z", p, [7; 16], config.clone(), 0).unwrap())
            .collect();
        for log in &mut logs {
            log.append_client(batch.clone(), now_ms()).unwrap();
        }
        let guard = SCRATCH.lock().unwrap();
        let shared = guard.as_ref().expect("the shared scratch was used");
        assert!(
            shared.buffer.capacity() <= SCRATCH_KEEP,
            "an 8 MiB batch left {} bytes of scratch",
            shared.buffer.capacity()
        );
    }

    fn config() -> LogConfig {
        LogConfig {
            segment_bytes: 2000,
            index_interval_bytes: 300,
            segment_index_bytes: 1024,
            ..Default::default()
        }
    }

    #[test]
    fn segment_ms_rolls_on_timestamps_like_kafka() {
        // Kafka rolls when the appended max timestamp is more than segment.ms past the first
        // batch's: timestamps now-10d, now-9d (1 day later: same segment), now (9 days: roll).
        let dir = tempfile::tempdir().unwrap();
        let mut c = config();
        c.segment_bytes = 1 << 30;
        c.segment_ms = 7 * 86_400_000;
        let mut log = PartitionLog::create(dir.path(), "t", 0, [1; 16], c, 0).unwrap();
        let now = 1_700_000_000_000;
        let day = 86_400_000;
        for ts in [now - 10 * day, now - 9 * day, now] {
            log.append_client(client_batch(1, 10, ts), now).unwrap();
        }
        assert_eq!(log.segment_bases(), vec![0, 2]);
    }

    #[test]
    fn appends_roll_index_and_reload() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = PartitionLog::create(dir.path(), "t", 0, [1; 16], config(), 0).unwrap();
        let now = 1_700_000_000_000;
        for i in 0..30 {
            let info = log
                .append_client(client_batch(2, 50, now + i * 10), now)
                .unwrap();
            assert_eq!(info.base_offset, i * 2);
        }
        assert_eq!(log.log_end_offset(), 60);
        let bases = log.segment_bases();
        assert!(bases.len() > 2, "{bases:?}");
        let pdir = dir.path().join("t-0");
        // Rolled segments: trimmed indexes and a snapshot named by the next base.
        let idx = fs::metadata(pdir.join(offset_file_name(0, "index")))
            .unwrap()
            .len();
        assert_eq!(idx % 8, 0);
        assert!(idx < 1024);
        assert!(pdir.join(offset_file_name(bases[1], "snapshot")).exists());
        // Active segment: preallocated.
        let active = *bases.last().unwrap();
        assert_eq!(
            fs::metadata(pdir.join(offset_file_name(active, "index")))
                .unwrap()
                .len(),
            1024
        );
        assert_eq!(
            fs::metadata(pdir.join(offset_file_name(active, "timeindex")))
                .unwrap()
                .len(),
            1020
        );
        let r = log.read(7, 1 << 20, false).unwrap();
        let first = BatchHeader::parse(&r.records).unwrap();
        assert_eq!(first.base_offset, 6);
        assert_eq!(log.offset_for_timestamp(now + 101).unwrap().unwrap().0, 21);
        log.close().unwrap();
        drop(log);
        let (mut again, report) =
            PartitionLog::load(&pdir, "t", 0, config(), true, Some(60), None, None).unwrap();
        assert_eq!(report.recovered_segments, 0);
        assert_eq!(again.log_end_offset(), 60);
        assert_eq!(again.leader_epoch, 2);
        assert_eq!(again.epochs(), &[(0, 0), (2, 60)]);
        let info = again.append_client(client_batch(1, 10, now), now).unwrap();
        assert_eq!(info.base_offset, 60);
    }

    #[test]
    fn crash_recovery_truncates_a_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = PartitionLog::create(dir.path(), "t", 0, [1; 16], config(), 0).unwrap();
        let now = 1_700_000_000_000;
        for _ in 0..5 {
            log.append_client(client_batch(1, 20, now), now).unwrap();
        }
        let pdir = dir.path().join("t-0");
        drop(log);
        let path = pdir.join(offset_file_name(0, "log"));
        let len = fs::metadata(&path).unwrap().len();
        OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(len - 10)
            .unwrap();
        let (log, report) =
            PartitionLog::load(&pdir, "t", 0, config(), false, Some(0), None, None).unwrap();
        assert_eq!(report.recovered_segments, 1);
        assert!(report.truncated_at.is_some());
        assert_eq!(log.log_end_offset(), 4);
    }

    #[test]
    fn unclean_load_keeps_the_recovery_point_and_snapshots_the_log_end() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = PartitionLog::create(dir.path(), "t", 0, [1; 16], config(), 0).unwrap();
        let now = 1_700_000_000_000;
        for i in 0..30 {
            log.append_client(client_batch(2, 50, now + i * 10), now)
                .unwrap();
        }
        let bases = log.segment_bases();
        assert!(bases.len() > 2, "{bases:?}");
        let pdir = dir.path().join("t-0");
        drop(log);
        // A stray snapshot below the last base goes; the rolled segments' ones stay.
        fs::write(pdir.join(offset_file_name(3, "snapshot")), b"").unwrap();
        let (log, report) =
            PartitionLog::load(&pdir, "t", 0, config(), false, Some(bases[1]), None, None).unwrap();
        assert!(report.recovered_segments >= 2);
        assert_eq!(log.log_end_offset(), 60);
        assert_eq!(log.recovery_point, bases[1], "min(checkpoint, log end)");
        let mut snaps = log.snapshot_offsets().unwrap();
        snaps.sort_unstable();
        let mut want: Vec<i64> = bases[1..].to_vec();
        want.push(60);
        assert_eq!(snaps, want);
        drop(log);
        // A checkpoint past the log end is cut to it.
        let (log, _) =
            PartitionLog::load(&pdir, "t", 0, config(), false, Some(1000), None, None).unwrap();
        assert_eq!(log.recovery_point, 60);
    }

    #[test]
    fn client_validation() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = PartitionLog::create(dir.path(), "t", 0, [1; 16], config(), 0).unwrap();
        let now = 1_700_000_000_000;
        let mut bad = client_batch(1, 5, now);
        let last = bad.len() - 1;
        bad[last] ^= 1;
        assert_eq!(
            log.append_client(bad, now).unwrap_err().code(),
            ResponseError::CorruptMessage.code()
        );
        let future = client_batch(1, 5, now + 3_600_001);
        assert_eq!(
            log.append_client(future, now).unwrap_err().code(),
            ResponseError::InvalidTimestamp.code()
        );
        let mut two = client_batch(1, 5, now);
        two.extend(client_batch(1, 5, now));
        assert_eq!(
            log.append_client(two, now).unwrap_err().code(),
            ResponseError::InvalidRecord.code()
        );
    }

    #[test]
    fn transactions_markers_and_read_committed() {
        let dir = tempfile::tempdir().unwrap();
        let mut log =
            PartitionLog::create(dir.path(), "t", 0, [1; 16], LogConfig::default(), 0).unwrap();
        let now = 1_700_000_000_000;
        log.append_client(producer_batch_bytes(5, 0, true, now), now)
            .unwrap();
        assert_eq!(log.last_stable_offset(), 0);
        assert!(log.read(0, 1000, true).unwrap().records.is_empty());
        log.append_marker(5, 0, 0, false, now).unwrap();
        assert_eq!(log.last_stable_offset(), 2);
        let r = log.read(0, 1000, true).unwrap();
        assert_eq!(r.aborted, Some(vec![(5, 0)]));
        let txnindex =
            fs::read(dir.path().join("t-0").join(offset_file_name(0, "txnindex"))).unwrap();
        assert_eq!(txnindex.len(), ABORTED_TXN_SIZE);
        log.append_client(producer_batch_bytes(5, 1, true, now), now)
            .unwrap();
        log.append_marker(5, 0, 0, true, now).unwrap();
        assert_eq!(log.last_stable_offset(), 4);
        assert_eq!(log.end_offset_for_epoch(0), (0, 4));
    }

    #[test]
    fn a_retried_idempotent_batch_gets_the_original_answer() {
        let dir = tempfile::tempdir().unwrap();
        let mut log =
            PartitionLog::create(dir.path(), "t", 0, [1; 16], LogConfig::default(), 0).unwrap();
        let now = 1_700_000_000_000;
        let first = log
            .append_client(producer_batch_bytes(9, 0, false, now - 5), now)
            .unwrap();
        log.append_client(producer_batch_bytes(9, 1, false, now - 4), now)
            .unwrap();
        // A retry of sequence 0: same offsets, nothing written, and (CreateTime) the batch's
        // max timestamp as UnifiedLog.append answers duplicates.
        let retry = log
            .append_client(producer_batch_bytes(9, 0, false, now - 5), now + 100)
            .unwrap();
        assert!(retry.duplicate);
        assert_eq!(
            (retry.base_offset, retry.last_offset),
            (first.base_offset, first.last_offset)
        );
        assert_eq!(retry.log_append_time, now - 5);
        assert_eq!(log.log_end_offset(), 2);
    }
}
