//! Kafka's segment recovery, as a plan: which bytes of each segment survive, and the indexes
//! `LogSegment.recover` would rebuild from them. The `recover` command writes the plan into a
//! new directory; nothing here touches the input.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use kseg_format::log::{BatchInfo, LogEntry, RecordScratch};
use kseg_format::text_files::{encode_epoch_checkpoint, EpochEntry};
use kseg_scan::{scan_log, Flow, LogFault, LogProblem, LogSink, ScanOptions};
use kseg_storage::source::open_log;

/// `KafkaRaftLog.createLog` opens the KRaft metadata log through `UnifiedLog.create` with
/// `lastShutdownClean = false`, log start offset 0 and recovery point 0: it is recovered from its
/// first segment at every start, whatever `.kafka_cleanshutdown` says (and it is in no
/// checkpoint file of the log dir).
pub fn always_recovered(topic: &str, partition: i32) -> bool {
    topic == "__cluster_metadata" && partition == 0
}

/// `FileLogInputStream.nextBatch` at `position` of a segment `end` bytes long, given the bytes
/// there: `Some(size)` when it throws `CorruptRecordException` (a size field below v0's
/// 14-byte overhead, with more than 17 bytes left), `None` when it frames a batch or ends the
/// walk quietly (17 bytes or fewer left, or a size running past the end: a torn write).
pub fn next_batch_throws(header: &[u8], position: u64, end: u64) -> Option<i32> {
    const HEADER_SIZE_UP_TO_MAGIC: u64 = 17;
    const RECORD_OVERHEAD_V0: i32 = 14;
    if position.saturating_add(HEADER_SIZE_UP_TO_MAGIC) >= end || header.len() < 12 {
        return None;
    }
    let size = i32::from_be_bytes(header[8..12].try_into().expect("4 bytes"));
    (size < RECORD_OVERHEAD_V0).then_some(size)
}

/// The leader-epoch cache as Kafka's load leaves it (`LeaderEpochFileCache`): the checkpoint's
/// entries, the epochs `LogSegment.recover` assigns from the recovered batches (a batch whose
/// epoch is above the latest; an assignment first drops trailing entries whose epoch or start
/// offset is not below the new one), then `LogLoader.load`'s `truncateFromEnd(logEndOffset)`
/// (entries starting at or after it) and `truncateFromStart(logStartOffsetCheckpoint)` (entries
/// starting at or before it, the last of them moved to it). The flag says whether the file is
/// rewritten (an assignment or a truncation removed or added something); otherwise Kafka
/// leaves it untouched.
pub fn epoch_cache_after_load(
    checkpoint: impl IntoIterator<Item = (i32, i64)>,
    assigned: &[(i32, i64)],
    log_end: i64,
    log_start: i64,
) -> (Vec<(i32, i64)>, bool) {
    // LeaderEpochFileCache.assign(EpochEntry): needed when the epoch differs from the latest or
    // starts before it; trailing entries whose epoch or start offset is not below the new one
    // go first (maybeTruncateNonMonotonicEntries).
    fn assign(entries: &mut Vec<(i32, i64)>, epoch: i32, start: i64) -> bool {
        if entries
            .last()
            .is_some_and(|(e, s)| *e == epoch && start >= *s)
        {
            return false;
        }
        while entries
            .last()
            .is_some_and(|(e, s)| *e >= epoch || *s >= start)
        {
            entries.pop();
        }
        entries.push((epoch, start));
        true
    }
    // The constructor assigns the checkpoint's entries without writing the file.
    let mut entries = Vec::new();
    for (epoch, start) in checkpoint {
        assign(&mut entries, epoch, start);
    }
    let mut changed = false;
    for &(epoch, start) in assigned {
        // LogSegment.recover: only an epoch above the latest is assigned.
        if epoch < 0 || start < 0 || entries.last().is_some_and(|(e, _)| epoch <= *e) {
            continue;
        }
        changed |= assign(&mut entries, epoch, start);
    }
    if log_end >= 0 && entries.last().is_some_and(|(_, s)| *s >= log_end) {
        while entries.last().is_some_and(|(_, s)| *s >= log_end) {
            entries.pop();
        }
        changed = true;
    }
    let removed = entries.iter().take_while(|(_, s)| *s <= log_start).count();
    if removed > 0 {
        let (epoch, _) = entries[removed - 1];
        entries.drain(..removed);
        entries.insert(0, (epoch, log_start));
        changed = true;
    }
    (entries, changed)
}

/// `LeaderEpochCheckpointFile`'s text: version 0, the count, one `epoch startOffset` a line.
pub fn epoch_checkpoint_text(entries: &[(i32, i64)]) -> String {
    let entries: Vec<EpochEntry> = entries.iter().map(|e| EpochEntry::from(*e)).collect();
    encode_epoch_checkpoint(&entries)
}

/// Kafka's default `index.interval.bytes`.
pub const DEFAULT_INDEX_INTERVAL: u64 = 4096;

/// The valid prefix of a segment: what Kafka keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeptPrefix {
    /// Bytes `[0, end)` of the log.
    pub end: u64,
    pub batches: u64,
    pub records: u64,
    /// The last batch's last offset.
    pub last_offset: Option<i64>,
}

impl KeptPrefix {
    fn add(&mut self, position: u64, b: &BatchInfo) {
        self.end = position + b.size as u64;
        self.batches += 1;
        self.records += b.count.unwrap_or(1).max(0) as u64;
        self.last_offset = Some(b.last_offset);
    }
}

/// A run of valid batches after the damage, contiguous in the file and with advancing offsets:
/// what `--salvage` keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SalvageRun {
    pub position: u64,
    pub len: u64,
    pub batches: u64,
    pub records: u64,
    pub base_offset: i64,
    pub last_offset: i64,
}

/// One segment as recovery sees it. Nothing here grows with the number of kept batches.
#[derive(Debug, Clone)]
pub struct SegmentRecovery {
    pub path: PathBuf,
    pub base_offset: i64,
    pub size: u64,
    /// Batches before the first invalid one: what Kafka keeps.
    pub kept: KeptPrefix,
    /// The index rebuild after the kept batches; [`SegmentRecovery::kept_indexes`] finishes it.
    pub rebuild: IndexRebuild,
    /// Where Kafka truncates (the first invalid batch), if anywhere.
    pub truncate_at: Option<u64>,
    pub truncate_reason: Option<TruncateReason>,
    /// Valid batches found after the truncation point (kept only with --salvage).
    pub salvage: Vec<SalvageRun>,
    /// The last offset of the last batch framed before the first framing problem, CRC or not:
    /// what `LogSegment.readNextOffset` ends at when Kafka uses the segment unrecovered
    /// (`FileLogInputStream.nextBatch` frames batches without checking their CRC).
    pub framed_last_offset: Option<i64>,
    /// The first bytes that frame no batch, if any.
    pub first_frame_problem: Option<u64>,
    /// (epoch, base offset) of the kept batches that raise the largest leader epoch seen in
    /// the segment: the candidates `LogSegment.recover` assigns to the epoch cache.
    pub epoch_starts: Vec<(i32, i64)>,
}

impl SegmentRecovery {
    /// The `.index` and `.timeindex` Kafka writes for the kept batches.
    pub fn kept_indexes(&self) -> (Vec<u8>, Vec<u8>) {
        // The kept batches are those whose rebuild succeeded (a failure empties the segment
        // back to a state with no entries, which cannot fail).
        self.rebuild.clone().finish().unwrap_or_default()
    }

    pub fn salvage_batches(&self) -> u64 {
        self.salvage.iter().map(|r| r.batches).sum()
    }
}

/// Why Kafka's recovery stops reading a segment and cuts it there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TruncateReason {
    /// The batch at `position` fails its CRC (`InvalidRecordException`).
    Crc { position: u64 },
    /// Bytes that frame no batch, or an entry that does not decode.
    Log(LogFault),
    /// Rebuilding the indexes throws `InvalidOffsetException`: the segment is emptied.
    IndexRebuild(InvalidIndexOffset),
}

/// The error's text: what Kafka's recovery finds there (the broker's log load and the
/// printers say it alike).
impl fmt::Display for TruncateReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TruncateReason::Crc { position } => {
                write!(f, "batch at byte {position} fails its CRC")
            }
            TruncateReason::Log(p) => f.write_str(&p.message()),
            TruncateReason::IndexRebuild(i) => write!(
                f,
                "{i}: Kafka's recovery throws InvalidOffsetException and empties the segment"
            ),
        }
    }
}

/// Collects salvage runs: valid batches whose offsets advance past everything kept so far.
#[derive(Debug, Default)]
struct Salvage {
    runs: Vec<SalvageRun>,
    last_offset: Option<i64>,
}

impl Salvage {
    fn batch(&mut self, position: u64, b: &BatchInfo) {
        if !b.crc_valid || self.last_offset.is_some_and(|l| b.base_offset <= l) {
            return;
        }
        self.last_offset = Some(b.last_offset);
        let records = b.count.unwrap_or(1).max(0) as u64;
        match self.runs.last_mut() {
            Some(run) if run.position + run.len == position => {
                run.len += b.size as u64;
                run.batches += 1;
                run.records += records;
                run.last_offset = b.last_offset;
            }
            _ => self.runs.push(SalvageRun {
                position,
                len: b.size as u64,
                batches: 1,
                records,
                base_offset: b.base_offset,
                last_offset: b.last_offset,
            }),
        }
    }
}

struct Collect {
    kept: KeptPrefix,
    rebuild: IndexRebuild,
    /// The kept prefix and rebuild just before the first index entry: where an emptied segment
    /// is cut when that entry names the base offset.
    before_first_entry: (KeptPrefix, IndexRebuild),
    failed: Option<InvalidIndexOffset>,
    salvage: Salvage,
    truncate_at: Option<u64>,
    reason: Option<TruncateReason>,
    framed_last_offset: Option<i64>,
    first_frame_problem: Option<u64>,
    epoch_starts: Vec<(i32, i64)>,
}

impl LogSink for Collect {
    fn batch(&mut self, position: u64, _entry: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        if self.first_frame_problem.is_none() {
            self.framed_last_offset = Some(b.last_offset);
        }
        if self.failed.is_some() {
            // The rebuild failed: only the framing is followed further.
            return Ok(Flow::Continue);
        }
        if self.truncate_at.is_none() && !b.crc_valid {
            self.truncate_at = Some(position);
            self.reason = Some(TruncateReason::Crc { position });
            self.salvage.last_offset = self.kept.last_offset;
        }
        if self.truncate_at.is_some() {
            self.salvage.batch(position, b);
            return Ok(Flow::Continue);
        }
        if !self.rebuild.has_entries() {
            self.before_first_entry = (self.kept, self.rebuild.clone());
        }
        let pushed = self.rebuild.push(IndexedBatch {
            size: b.size as u64,
            last_offset: b.last_offset,
            max_timestamp: b.max_timestamp,
        });
        match pushed {
            Ok(()) => {
                self.kept.add(position, b);
                let epoch = b.partition_leader_epoch;
                if b.magic >= 2
                    && epoch >= 0
                    && self.epoch_starts.last().is_none_or(|(e, _)| epoch > *e)
                {
                    self.epoch_starts.push((epoch, b.base_offset));
                }
            }
            Err(e) => {
                // Kafka empties the segment: the rest is looked at again from the cut.
                self.failed = Some(e);
                return Ok(Flow::Continue);
            }
        }
        Ok(Flow::Continue)
    }

    fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<Flow> {
        self.first_frame_problem.get_or_insert(p.position());
        if self.truncate_at.is_none() {
            self.truncate_at = Some(p.position());
            self.reason = Some(TruncateReason::Log(p.to_fault()));
            self.salvage.last_offset = self.kept.last_offset;
        }
        Ok(Flow::Continue)
    }
}

/// Only salvage runs, from a position on.
struct SalvageOnly(Salvage);

impl LogSink for SalvageOnly {
    fn batch(&mut self, position: u64, _entry: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        self.0.batch(position, b);
        Ok(Flow::Continue)
    }
    fn problem(&mut self, _p: &LogProblem<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// What `LogSegment.recover` (and `LogLoader.recoverLog` around it) does to one segment, in one
/// streaming pass (two when the rebuild fails and the segment is emptied).
pub fn analyse_segment(
    path: &Path,
    base_offset: i64,
    index_interval: u64,
    scratch: &mut RecordScratch,
) -> io::Result<SegmentRecovery> {
    let mut src = open_log(path, false)?;
    let size = src.len();
    let fresh = IndexRebuild::new(base_offset, index_interval);
    let mut sink = Collect {
        kept: KeptPrefix::default(),
        rebuild: fresh.clone(),
        before_first_entry: (KeptPrefix::default(), fresh.clone()),
        failed: None,
        salvage: Salvage::default(),
        truncate_at: None,
        reason: None,
        framed_last_offset: None,
        first_frame_problem: None,
        epoch_starts: Vec::new(),
    };
    scan_log(src.as_mut(), &ScanOptions::default(), scratch, &mut sink)?;
    // The closing time index entry can fail too (outside recover's catch): same outcome.
    let failed = sink.failed.or_else(|| sink.rebuild.clone().finish().err());
    let Some(invalid) = failed else {
        return Ok(SegmentRecovery {
            path: path.to_path_buf(),
            base_offset,
            size,
            kept: sink.kept,
            rebuild: sink.rebuild,
            truncate_at: sink.truncate_at,
            truncate_reason: sink.reason,
            salvage: sink.salvage.runs,
            framed_last_offset: sink.framed_last_offset,
            first_frame_problem: sink.first_frame_problem,
            epoch_starts: sink.epoch_starts,
        });
    };
    // The segment is emptied from `truncate_to` on, whatever follows.
    let (kept, rebuild) = if invalid.truncate_to == 0 {
        (KeptPrefix::default(), fresh)
    } else {
        sink.before_first_entry
    };
    let mut salvage = SalvageOnly(Salvage {
        runs: Vec::new(),
        last_offset: kept.last_offset,
    });
    let from = ScanOptions {
        start_position: invalid.truncate_to,
        ..Default::default()
    };
    scan_log(src.as_mut(), &from, scratch, &mut salvage)?;
    Ok(SegmentRecovery {
        path: path.to_path_buf(),
        base_offset,
        size,
        kept,
        rebuild,
        truncate_at: Some(invalid.truncate_to),
        truncate_reason: Some(TruncateReason::IndexRebuild(invalid)),
        salvage: salvage.0.runs,
        framed_last_offset: sink.framed_last_offset,
        first_frame_problem: sink.first_frame_problem,
        // The segment is emptied to `truncate_to`: only epochs starting before the cut stay.
        epoch_starts: sink
            .epoch_starts
            .into_iter()
            .filter(|(_, o)| kept.last_offset.is_some_and(|l| *o <= l))
            .collect(),
    })
}

/// Feeds a salvage run's batches to the index rebuild of the copy (they follow the kept bytes
/// there); the inner result is the rebuild's own failure.
pub fn extend_rebuild(
    log: &Path,
    run: &SalvageRun,
    rebuild: &mut IndexRebuild,
    scratch: &mut RecordScratch,
) -> io::Result<Result<(), InvalidIndexOffset>> {
    struct Feed<'r> {
        rebuild: &'r mut IndexRebuild,
        failed: Option<InvalidIndexOffset>,
    }
    impl LogSink for Feed<'_> {
        fn batch(&mut self, _: u64, _: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
            let pushed = self.rebuild.push(IndexedBatch {
                size: b.size as u64,
                last_offset: b.last_offset,
                max_timestamp: b.max_timestamp,
            });
            match pushed {
                Ok(()) => Ok(Flow::Continue),
                Err(e) => {
                    self.failed = Some(e);
                    Ok(Flow::Stop)
                }
            }
        }
        fn problem(&mut self, _: &LogProblem<'_>) -> io::Result<Flow> {
            Ok(Flow::Continue)
        }
    }
    let mut src = open_log(log, false)?;
    let mut feed = Feed {
        rebuild,
        failed: None,
    };
    let opts = ScanOptions {
        start_position: run.position,
        max_bytes: run.position + run.len,
        ..Default::default()
    };
    scan_log(src.as_mut(), &opts, scratch, &mut feed)?;
    Ok(feed.failed.map_or(Ok(()), Err))
}

/// The batch fields `LogSegment.recover` uses to rebuild the indexes.
#[derive(Debug, Clone, Copy)]
pub struct IndexedBatch {
    pub size: u64,
    pub last_offset: i64,
    pub max_timestamp: i64,
}

/// Where rebuilding a segment's indexes throws `InvalidOffsetException`: an index point whose
/// offset is not above the last entry's. Kafka's `LogLoader.recoverLog` then empties the whole
/// segment (`truncateTo(baseOffset)`) and deletes the later unflushed segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidIndexOffset {
    /// Byte position of the batch at the failing index point.
    pub position: u64,
    /// The offset Kafka tried to append, and the last one already in that index.
    pub offset: i64,
    pub previous: i64,
    pub time_index: bool,
    /// Where `truncateTo(baseOffset)` cuts the log: the position of the first index entry when
    /// it names the base offset itself, otherwise the start of the file.
    pub truncate_to: u64,
}

/// The exception's cause: what throws, without what Kafka then does.
impl fmt::Display for InvalidIndexOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "rebuilding the {} at the batch at byte {} appends offset {} after {}",
            if self.time_index {
                "time index"
            } else {
                "offset index"
            },
            self.position,
            self.offset,
            self.previous
        )
    }
}

/// `LogSegment.recover`'s index rebuild, one batch at a time (batches laid out contiguously
/// from position 0), so a scan can run it without keeping its batches.
#[derive(Debug, Clone)]
pub struct IndexRebuild {
    base_offset: i64,
    index_interval: u64,
    offset_index: Vec<u8>,
    time_index: Vec<u8>,
    valid_bytes: u64,
    last_index_entry: u64,
    max_ts: i64,
    max_ts_offset: i64,
    max_ts_position: u64,
    last_offset_entry: Option<i64>,
    first_offset_entry: Option<(i64, u64)>,
    /// The last time index entry (timestamp, offset); an empty index has none.
    last_time_entry: Option<(i64, i64)>,
}

impl IndexRebuild {
    pub fn new(base_offset: i64, index_interval: u64) -> Self {
        IndexRebuild {
            base_offset,
            index_interval,
            offset_index: Vec::new(),
            time_index: Vec::new(),
            valid_bytes: 0,
            last_index_entry: 0,
            max_ts: -1,
            max_ts_offset: -1,
            max_ts_position: 0,
            last_offset_entry: None,
            first_offset_entry: None,
            last_time_entry: None,
        }
    }

    /// Whether an offset index entry has been written yet.
    pub fn has_entries(&self) -> bool {
        self.first_offset_entry.is_some()
    }

    fn fail(
        &self,
        position: u64,
        offset: i64,
        previous: i64,
        time_index: bool,
    ) -> InvalidIndexOffset {
        InvalidIndexOffset {
            position,
            offset,
            previous,
            time_index,
            truncate_to: self
                .first_offset_entry
                .filter(|(o, _)| *o == self.base_offset)
                .map_or(0, |(_, p)| p),
        }
    }

    /// TimeIndex.maybeAppend: an offset below the last entry's throws; only a strictly larger
    /// timestamp is written. Err carries (offset, previous offset).
    fn append_time(&mut self) -> Result<(), (i64, i64)> {
        let (ts, offset) = (self.max_ts, self.max_ts_offset);
        if let Some((last_ts, last_offset)) = self.last_time_entry {
            if offset < last_offset {
                return Err((offset, last_offset));
            }
            if ts <= last_ts {
                return Ok(());
            }
        } else if ts <= -1 {
            return Ok(());
        }
        self.time_index.extend_from_slice(&ts.to_be_bytes());
        self.time_index
            .extend_from_slice(&(offset.wrapping_sub(self.base_offset) as i32).to_be_bytes());
        self.last_time_entry = Some((ts, offset));
        Ok(())
    }

    pub fn push(&mut self, b: IndexedBatch) -> Result<(), InvalidIndexOffset> {
        let position = self.valid_bytes;
        // LogSegment.ensureOffsetInRange: an offset that no relative offset can hold makes
        // Kafka split the segment (LogSegmentOffsetOverflowException), not truncate it. Such a
        // batch gets no index entry here: a wrapped relative offset would be a lie.
        if !(0..=i32::MAX as i64).contains(&b.last_offset.saturating_sub(self.base_offset)) {
            self.valid_bytes += b.size;
            return Ok(());
        }
        if b.max_timestamp > self.max_ts {
            self.max_ts = b.max_timestamp;
            self.max_ts_offset = b.last_offset;
            self.max_ts_position = position;
        }
        if position - self.last_index_entry > self.index_interval {
            // OffsetIndex.append: a non-increasing offset throws.
            if let Some(previous) = self.last_offset_entry.filter(|l| b.last_offset <= *l) {
                return Err(self.fail(position, b.last_offset, previous, false));
            }
            self.offset_index.extend_from_slice(
                &(b.last_offset.wrapping_sub(self.base_offset) as i32).to_be_bytes(),
            );
            self.offset_index
                .extend_from_slice(&(position as u32).to_be_bytes());
            self.last_offset_entry = Some(b.last_offset);
            self.first_offset_entry
                .get_or_insert((b.last_offset, position));
            if let Err((offset, previous)) = self.append_time() {
                return Err(self.fail(position, offset, previous, true));
            }
            self.last_index_entry = position;
        }
        self.valid_bytes += b.size;
        Ok(())
    }

    /// The closing time index entry, then the indexes. A failure here also empties the segment
    /// in Kafka (it is outside recover's catch); it is blamed on the batch carrying the maximum.
    pub fn finish(mut self) -> Result<(Vec<u8>, Vec<u8>), InvalidIndexOffset> {
        if self.max_ts_offset >= 0 {
            if let Err((offset, previous)) = self.append_time() {
                return Err(self.fail(self.max_ts_position, offset, previous, true));
            }
        }
        Ok((self.offset_index, self.time_index))
    }
}

/// The `.index` and `.timeindex` bytes `LogSegment.recover` builds for batches laid out
/// contiguously from position 0, trimmed to their entries — or where that rebuild fails.
pub fn rebuild_indexes(
    base_offset: i64,
    batches: impl IntoIterator<Item = IndexedBatch>,
    index_interval: u64,
) -> Result<(Vec<u8>, Vec<u8>), InvalidIndexOffset> {
    let mut rebuild = IndexRebuild::new(base_offset, index_interval);
    for b in batches {
        rebuild.push(b)?;
    }
    rebuild.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch of `size` bytes ending at `offset`; batches are laid out back to back, so the
    /// position only documents the layout.
    fn b(_position: u64, size: u64, offset: i64, ts: i64) -> IndexedBatch {
        IndexedBatch {
            size,
            last_offset: offset,
            max_timestamp: ts,
        }
    }

    #[test]
    fn next_batch_throws_on_a_small_size_with_more_than_17_bytes_left() {
        let zeros = [0u8; 17];
        assert_eq!(next_batch_throws(&zeros, 100, 118), Some(0));
        assert_eq!(next_batch_throws(&zeros, 100, 117), None);
        let mut big = [0u8; 17];
        big[8..12].copy_from_slice(&1000i32.to_be_bytes());
        assert_eq!(next_batch_throws(&big, 0, 500), None);
        big[8..12].copy_from_slice(&13i32.to_be_bytes());
        assert_eq!(next_batch_throws(&big, 0, 500), Some(13));
    }

    #[test]
    fn the_epoch_cache_is_assigned_then_truncated_at_both_ends() {
        // An empty log: truncateFromEnd(0) drops every entry.
        assert_eq!(
            epoch_cache_after_load(vec![(0, 0), (1, 5)], &[], 0, 0),
            (vec![], true)
        );
        // A missing or empty checkpoint is rebuilt from the recovered batches.
        assert_eq!(
            epoch_cache_after_load(vec![], &[(0, 0), (2, 7)], 10, 0),
            (vec![(0, 0), (2, 7)], true)
        );
        // The constructor's assign keeps one entry per start offset (the last epoch given).
        assert_eq!(
            epoch_cache_after_load(vec![(0, 0), (1, 0), (2, 4)], &[], 10, 0),
            (vec![(1, 0), (2, 4)], true)
        );
        // Nothing to change: the file stays as it is.
        assert_eq!(
            epoch_cache_after_load(vec![(1, 3), (2, 7)], &[(2, 7)], 10, 0),
            (vec![(1, 3), (2, 7)], false)
        );
        // truncateFromStart moves the last entry at or before the log start to it.
        assert_eq!(
            epoch_cache_after_load(vec![(1, 3), (2, 7), (3, 9)], &[], 10, 8),
            (vec![(2, 8), (3, 9)], true)
        );
        // A truncated log loses the epochs starting after its end.
        assert_eq!(
            epoch_cache_after_load(vec![(1, 0), (2, 7), (3, 9)], &[], 8, 0),
            (vec![(1, 0), (2, 7)], true)
        );
        let text = epoch_checkpoint_text(&[(1, 0), (2, 7)]);
        assert_eq!(text, "0\n2\n1 0\n2 7\n");
    }

    #[test]
    fn rebuild_follows_kafkas_recover_rule() {
        // Batches of 3000 bytes, interval 4096: entries when 6000 - 0 > 4096 (batch 2), then
        // 12000 - 6000 > 4096 (batch 4).
        let batches: Vec<IndexedBatch> = (0..6)
            .map(|i| {
                b(
                    i * 3000,
                    3000,
                    100 + i as i64,
                    [10, 30, 20, 40, 35, 50][i as usize],
                )
            })
            .collect();
        let (idx, tim) = rebuild_indexes(100, batches.iter().copied(), 4096).unwrap();
        assert_eq!(
            idx,
            [
                [0, 0, 0, 2, 0, 0, 0x17, 0x70],
                [0, 0, 0, 4, 0, 0, 0x2e, 0xe0]
            ]
            .concat()
        );
        // At batch 2 the max so far is 30 carried by offset 101; at batch 4 it is 40 (offset 103);
        // the final entry is 50 at offset 105.
        let entries: Vec<(i64, i32)> = tim
            .chunks(12)
            .map(|c| {
                (
                    i64::from_be_bytes(c[0..8].try_into().unwrap()),
                    i32::from_be_bytes(c[8..12].try_into().unwrap()),
                )
            })
            .collect();
        assert_eq!(entries, vec![(30, 1), (40, 3), (50, 5)]);
    }

    fn indexed(batches: &[IndexedBatch]) -> impl Iterator<Item = IndexedBatch> + '_ {
        batches.iter().copied()
    }

    #[test]
    fn a_non_increasing_offset_at_an_index_point_fails_the_rebuild() {
        // Entries at batches 2 (offset 102) and 4; batch 4 ends at 101.
        let offsets = [100, 101, 102, 103, 101, 104];
        let batches: Vec<IndexedBatch> = (0..6)
            .map(|i| b(i * 3000, 3000, offsets[i as usize], 10 + i as i64))
            .collect();
        let err = rebuild_indexes(100, indexed(&batches), 4096).unwrap_err();
        assert_eq!(
            (err.position, err.offset, err.previous, err.time_index),
            (12000, 101, 102, false)
        );
        assert_eq!(err.truncate_to, 0);
        assert_eq!(
            TruncateReason::IndexRebuild(err).to_string(),
            "rebuilding the offset index at the batch at byte 12000 appends offset 101 after 102: \
             Kafka's recovery throws InvalidOffsetException and empties the segment"
        );
        // Between index points the same offsets pass.
        assert!(rebuild_indexes(100, indexed(&batches), 20_000).is_ok());
    }

    #[test]
    fn a_time_index_offset_below_the_last_entry_fails_the_rebuild() {
        // The offset index stays increasing (batch 4 ends at 104), but the maximum timestamp
        // moves to batch 3, which ends at 99 — below the time index's last entry (102).
        let offsets = [100, 101, 102, 99, 104, 105];
        let ts = [10, 11, 12, 50, 13, 14];
        let batches: Vec<IndexedBatch> = (0..6)
            .map(|i| b(i * 3000, 3000, offsets[i as usize], ts[i as usize]))
            .collect();
        let err = rebuild_indexes(90, indexed(&batches), 4096).unwrap_err();
        assert_eq!((err.offset, err.previous, err.time_index), (99, 102, true));
        // Below the segment's base it is an offset overflow instead (Kafka splits the segment):
        // no entry, no failure.
        assert!(rebuild_indexes(100, indexed(&batches), 4096).is_ok());
    }

    #[test]
    fn an_emptied_segment_is_cut_at_the_first_entry_naming_the_base_offset() {
        // Every batch ends at the base offset: the first entry (batch 2) names it, so
        // truncateTo(base) keeps the bytes before that entry's position.
        let batches: Vec<IndexedBatch> = (0..6).map(|i| b(i * 3000, 3000, 100, 10)).collect();
        let err = rebuild_indexes(100, indexed(&batches), 4096).unwrap_err();
        assert_eq!(err.truncate_to, 6000);
    }
}
