//! Kafka's segment recovery, as a plan: which bytes of each segment survive, and the indexes
//! `LogSegment.recover` would rebuild from them. The `recover` command writes the plan into a
//! new directory; nothing here touches the input.

use std::io;
use std::path::{Path, PathBuf};

use crate::format::log::{BatchInfo, LogEntry, RecordScratch};
use crate::scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use crate::storage::source::open_log;

/// Kafka's default `index.interval.bytes`.
pub const DEFAULT_INDEX_INTERVAL: u64 = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidBatch {
    pub position: u64,
    pub size: u64,
    pub base_offset: i64,
    pub last_offset: i64,
    pub max_timestamp: i64,
    pub records: u64,
    pub partition_leader_epoch: i32,
}

/// One segment as recovery sees it.
#[derive(Debug, Clone)]
pub struct SegmentRecovery {
    pub path: PathBuf,
    pub base_offset: i64,
    pub size: u64,
    /// Batches before the first invalid one: what Kafka keeps.
    pub kept: Vec<ValidBatch>,
    /// Where Kafka truncates (the first invalid batch), if anywhere.
    pub truncate_at: Option<u64>,
    pub truncate_reason: Option<String>,
    /// Valid batches found after the truncation point (kept only with --salvage).
    pub salvageable: Vec<ValidBatch>,
}

struct Collect {
    kept: Vec<ValidBatch>,
    after: Vec<ValidBatch>,
    truncate_at: Option<u64>,
    reason: Option<String>,
}

impl LogSink for Collect {
    fn batch(&mut self, position: u64, _entry: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        let v = ValidBatch {
            position,
            size: b.size as u64,
            base_offset: b.base_offset,
            last_offset: b.last_offset,
            max_timestamp: b.max_timestamp,
            records: b.count.unwrap_or(1).max(0) as u64,
            partition_leader_epoch: b.partition_leader_epoch,
        };
        if self.truncate_at.is_none() && !b.crc_valid {
            self.truncate_at = Some(position);
            self.reason = Some(format!("batch at byte {position} fails its CRC"));
        }
        // Offsets that do not advance pass Kafka's recovery unnoticed except at an index point,
        // where the whole segment is emptied; that case is not modelled (it is reported by
        // verify-index as offset-order).
        if self.truncate_at.is_none() {
            self.kept.push(v);
        } else if b.crc_valid
            && self
                .after
                .last()
                .is_none_or(|a| b.base_offset > a.last_offset)
        {
            self.after.push(v);
        }
        Ok(Flow::Continue)
    }

    fn problem(&mut self, p: &LogProblem<'_>) -> io::Result<Flow> {
        if self.truncate_at.is_none() {
            self.truncate_at = Some(p.position());
            self.reason = Some(p.message());
        }
        Ok(Flow::Continue)
    }
}

pub fn analyse_segment(
    path: &Path,
    base_offset: i64,
    index_interval: u64,
    scratch: &mut RecordScratch,
) -> io::Result<SegmentRecovery> {
    let mut src = open_log(path, false)?;
    let size = src.len();
    let mut sink = Collect {
        kept: Vec::new(),
        after: Vec::new(),
        truncate_at: None,
        reason: None,
    };
    scan_log(src.as_mut(), &ScanOptions::default(), scratch, &mut sink)?;
    let mut plan = SegmentRecovery {
        path: path.to_path_buf(),
        base_offset,
        size,
        kept: sink.kept,
        truncate_at: sink.truncate_at,
        truncate_reason: sink.reason,
        salvageable: sink.after,
    };
    if let Err(invalid) = rebuild_indexes(
        base_offset,
        plan.kept.iter().map(IndexedBatch::from),
        index_interval,
    ) {
        // The rebuild fails before recovery reaches any invalid batch: the segment is emptied
        // from `truncate_to` on, whatever follows.
        let cut = plan
            .kept
            .partition_point(|b| b.position < invalid.truncate_to);
        let mut rest: Vec<ValidBatch> = plan.kept.split_off(cut);
        rest.append(&mut plan.salvageable);
        let mut last = plan.kept.last().map(|b| b.last_offset);
        rest.retain(|b| {
            let advances = last.is_none_or(|l| b.base_offset > l);
            if advances {
                last = Some(b.last_offset);
            }
            advances
        });
        plan.salvageable = rest;
        plan.truncate_at = Some(invalid.truncate_to);
        plan.truncate_reason = Some(invalid.message());
    }
    Ok(plan)
}

/// The batch fields `LogSegment.recover` uses to rebuild the indexes.
#[derive(Debug, Clone, Copy)]
pub struct IndexedBatch {
    pub size: u64,
    pub last_offset: i64,
    pub max_timestamp: i64,
}

impl From<&ValidBatch> for IndexedBatch {
    fn from(b: &ValidBatch) -> Self {
        IndexedBatch {
            size: b.size,
            last_offset: b.last_offset,
            max_timestamp: b.max_timestamp,
        }
    }
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

impl InvalidIndexOffset {
    pub fn message(&self) -> String {
        format!(
            "rebuilding the {} at the batch at byte {} appends offset {} after {}: Kafka's recovery throws InvalidOffsetException and empties the segment",
            if self.time_index { "time index" } else { "offset index" },
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

    fn b(position: u64, size: u64, offset: i64, ts: i64) -> ValidBatch {
        ValidBatch {
            position,
            size,
            base_offset: offset,
            last_offset: offset,
            max_timestamp: ts,
            records: 1,
            partition_leader_epoch: 0,
        }
    }

    #[test]
    fn rebuild_follows_kafkas_recover_rule() {
        // Batches of 3000 bytes, interval 4096: entries when 6000 - 0 > 4096 (batch 2), then
        // 12000 - 6000 > 4096 (batch 4).
        let batches: Vec<ValidBatch> = (0..6)
            .map(|i| {
                b(
                    i * 3000,
                    3000,
                    100 + i as i64,
                    [10, 30, 20, 40, 35, 50][i as usize],
                )
            })
            .collect();
        let (idx, tim) =
            rebuild_indexes(100, batches.iter().map(IndexedBatch::from), 4096).unwrap();
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

    fn indexed(batches: &[ValidBatch]) -> impl Iterator<Item = IndexedBatch> + '_ {
        batches.iter().map(IndexedBatch::from)
    }

    #[test]
    fn a_non_increasing_offset_at_an_index_point_fails_the_rebuild() {
        // Entries at batches 2 (offset 102) and 4; batch 4 ends at 101.
        let offsets = [100, 101, 102, 103, 101, 104];
        let batches: Vec<ValidBatch> = (0..6)
            .map(|i| b(i * 3000, 3000, offsets[i as usize], 10 + i as i64))
            .collect();
        let err = rebuild_indexes(100, indexed(&batches), 4096).unwrap_err();
        assert_eq!(
            (err.position, err.offset, err.previous, err.time_index),
            (12000, 101, 102, false)
        );
        assert_eq!(err.truncate_to, 0);
        // Between index points the same offsets pass.
        assert!(rebuild_indexes(100, indexed(&batches), 20_000).is_ok());
    }

    #[test]
    fn a_time_index_offset_below_the_last_entry_fails_the_rebuild() {
        // The offset index stays increasing (batch 4 ends at 104), but the maximum timestamp
        // moves to batch 3, which ends at 99 — below the time index's last entry (102).
        let offsets = [100, 101, 102, 99, 104, 105];
        let ts = [10, 11, 12, 50, 13, 14];
        let batches: Vec<ValidBatch> = (0..6)
            .map(|i| b(i * 3000, 3000, offsets[i as usize], ts[i as usize]))
            .collect();
        let err = rebuild_indexes(100, indexed(&batches), 4096).unwrap_err();
        assert_eq!((err.offset, err.previous, err.time_index), (99, 102, true));
    }

    #[test]
    fn an_emptied_segment_is_cut_at_the_first_entry_naming_the_base_offset() {
        // Every batch ends at the base offset: the first entry (batch 2) names it, so
        // truncateTo(base) keeps the bytes before that entry's position.
        let batches: Vec<ValidBatch> = (0..6).map(|i| b(i * 3000, 3000, 100, 10)).collect();
        let err = rebuild_indexes(100, indexed(&batches), 4096).unwrap_err();
        assert_eq!(err.truncate_to, 6000);
    }
}
