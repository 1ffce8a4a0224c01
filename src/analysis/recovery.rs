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
    Ok(SegmentRecovery {
        path: path.to_path_buf(),
        base_offset,
        size,
        kept: sink.kept,
        truncate_at: sink.truncate_at,
        truncate_reason: sink.reason,
        salvageable: sink.after,
    })
}

/// The `.index` and `.timeindex` bytes `LogSegment.recover` builds for these batches, laid out
/// contiguously from position 0, trimmed to their entries.
pub fn rebuild_indexes(
    base_offset: i64,
    batches: &[ValidBatch],
    index_interval: u64,
) -> (Vec<u8>, Vec<u8>) {
    let mut offset_index = Vec::new();
    let mut time_index = Vec::new();
    let mut valid_bytes = 0u64;
    let mut last_index_entry = 0u64;
    let mut max_ts = -1i64;
    let mut max_ts_offset = -1i64;
    let mut last_time_entry = -1i64;
    let mut append_time = |ts: i64, offset: i64, out: &mut Vec<u8>| {
        // TimeIndex.maybeAppend: only a strictly larger timestamp is written.
        if ts > last_time_entry {
            out.extend_from_slice(&ts.to_be_bytes());
            out.extend_from_slice(&((offset - base_offset) as i32).to_be_bytes());
            last_time_entry = ts;
        }
    };
    for b in batches {
        if b.max_timestamp > max_ts {
            max_ts = b.max_timestamp;
            max_ts_offset = b.last_offset;
        }
        if valid_bytes - last_index_entry > index_interval {
            offset_index
                .extend_from_slice(&(b.last_offset.wrapping_sub(base_offset) as i32).to_be_bytes());
            offset_index.extend_from_slice(&(valid_bytes as u32).to_be_bytes());
            append_time(max_ts, max_ts_offset, &mut time_index);
            last_index_entry = valid_bytes;
        }
        valid_bytes += b.size;
    }
    if max_ts_offset >= 0 {
        append_time(max_ts, max_ts_offset, &mut time_index);
    }
    (offset_index, time_index)
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
        let (idx, tim) = rebuild_indexes(100, &batches, 4096);
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
}
