//! Reading a partition log: fetches planned under the broker lock and read outside it (whole
//! batches, KIP-74's first batch), ListOffsets by timestamp through the time and offset
//! indexes, and the replay of every record for coordinators loading their state.

use std::fs::File;
use std::io;

use kafka_protocol::ResponseError;

use super::scratch::with_scratch;
use super::segment::HeaderWalk;
use super::{read_at, PartitionLog};
use crate::broker::{BrokerError, BrokerResult};
use crate::format::batch::{BatchHeader, V2_HEADER_SIZE};
use crate::format::log::{for_each_record, LogEntry, LogRecord};

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
    /// The most bytes this plan can read: up to the fetch's upper bound (the high watermark or
    /// the last stable offset).
    pub fn available(&self) -> usize {
        self.source.as_ref().map_or(0, |s| s.len)
    }

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

impl PartitionLog {
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
        let te_offset = seg.time_index.lookup(target).offset;
        let from = seg.index.lookup(te_offset.max(log_start)).position as u64;
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
}
