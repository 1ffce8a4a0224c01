//! kafka-dump-log's index-against-log checks: does the batch an `.index` entry points at end at
//! its offset, and does the batch a `.timeindex` entry names have its timestamp, in order.

use std::io;

use crate::format::batch::{entry_last_offset, LAST_OFFSET_PREFIX};
use crate::format::index::{OffsetIndex, TimeEntry};
use crate::format::log::{BatchInfo, ByteSource, LogEntry, LogRecord, RecordScratch};
use crate::scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use crate::storage::source::FileSource;

/// The three time-index checks of kafka-dump-log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeIndexProblem {
    /// The batch ending at the entry's offset has another max record timestamp.
    Mismatch {
        index_timestamp: i64,
        log_timestamp: i64,
    },
    /// The entry's timestamp is not above the previous entry's.
    OutOfOrder { index_timestamp: i64, previous: i64 },
    /// No batch ends at the entry's offset (`found` = the last offset of the batch found, or -1).
    NotFound { index_offset: i64, found: i64 },
}

/// The last offset of the entry that starts at `position` of the log, read from its header
/// alone (`None` past the end).
pub fn last_offset_at(log: &mut FileSource, position: u64) -> io::Result<Option<i64>> {
    let h = log.read_at(position, LAST_OFFSET_PREFIX)?;
    Ok(entry_last_offset(h))
}

/// Checks time-index entries, in their order, against the log (and the offset index, for
/// where to start reading).
pub struct TimeIndexCheck<'i> {
    log: FileSource,
    offsets: Option<OffsetIndex<'i>>,
    previous: i64,
}

impl<'i> TimeIndexCheck<'i> {
    pub fn new(log: FileSource, offsets: Option<OffsetIndex<'i>>) -> Self {
        TimeIndexCheck {
            log,
            offsets,
            previous: -1,
        }
    }

    /// The problems of `entry` (at most two: a mismatch and an out-of-order), as kafka-dump-log
    /// finds them.
    pub fn check(
        &mut self,
        entry: &TimeEntry,
        scratch: &mut RecordScratch,
        mut problem: impl FnMut(TimeIndexProblem) -> io::Result<()>,
    ) -> io::Result<()> {
        let start = self
            .offsets
            .map_or(0, |i| i.lookup(entry.offset).position as u64);
        match batch_ending_at_or_after(&mut self.log, start, entry.offset, scratch)? {
            None => problem(TimeIndexProblem::NotFound {
                index_offset: entry.offset,
                found: -1,
            })?,
            Some((last, _)) if last != entry.offset => problem(TimeIndexProblem::NotFound {
                index_offset: entry.offset,
                found: last,
            })?,
            Some((_, max_ts)) => {
                if max_ts != entry.timestamp {
                    problem(TimeIndexProblem::Mismatch {
                        index_timestamp: entry.timestamp,
                        log_timestamp: max_ts,
                    })?;
                }
                if self.previous >= entry.timestamp {
                    problem(TimeIndexProblem::OutOfOrder {
                        index_timestamp: entry.timestamp,
                        previous: self.previous,
                    })?;
                }
            }
        }
        self.previous = entry.timestamp;
        Ok(())
    }
}

/// Finds the first batch at or after `start` whose last offset is ≥ `target`: its last offset and
/// the largest timestamp of its records (what kafka-dump-log compares a time-index entry with).
fn batch_ending_at_or_after(
    src: &mut FileSource,
    start: u64,
    target: i64,
    scratch: &mut RecordScratch,
) -> io::Result<Option<(i64, i64)>> {
    struct Find {
        target: i64,
        found: Option<(i64, i64)>,
    }
    impl LogSink for Find {
        fn batch(&mut self, _p: u64, _e: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
            if self.found.is_some() {
                return Ok(Flow::Stop);
            }
            if b.last_offset >= self.target {
                self.found = Some((b.last_offset, -1));
            }
            Ok(Flow::Continue)
        }
        fn record(&mut self, _p: u64, _b: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
            if let Some((_, max)) = self.found.as_mut() {
                *max = (*max).max(r.timestamp);
            }
            Ok(Flow::Continue)
        }
        fn problem(&mut self, _p: &LogProblem<'_>) -> io::Result<Flow> {
            Ok(Flow::Continue)
        }
    }
    // Every record of the batch counts for its maximum, so no offset filter here.
    let opts = ScanOptions {
        deep: true,
        start_position: start,
        ..Default::default()
    };
    let mut find = Find {
        target,
        found: None,
    };
    scan_log(src, &opts, scratch, &mut find)?;
    Ok(find.found)
}
