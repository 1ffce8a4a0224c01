//! kafka-dump-log's index-against-log checks: does the batch an `.index` entry points at end at
//! its offset, and does the batch a `.timeindex` entry names have its timestamp, in order.

use std::io;

use kseg_format::batch::{entry_last_offset, LAST_OFFSET_PREFIX};
use kseg_format::index::{OffsetIndex, TimeEntry};
use kseg_format::log::{BatchInfo, ByteSource, LogEntry, LogRecord, RecordScratch};
use kseg_scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use kseg_storage::source::FileSource;

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
    memo: FindMemos,
}

impl<'i> TimeIndexCheck<'i> {
    pub fn new(log: FileSource, offsets: Option<OffsetIndex<'i>>) -> Self {
        TimeIndexCheck {
            log,
            offsets,
            previous: -1,
            memo: FindMemos::default(),
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
        match batch_ending_at_or_after(&mut self.log, start, entry.offset, scratch, &mut self.memo)?
        {
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

/// The answer of one [`batch_ending_at_or_after`] scan and the targets it holds for: from
/// `start`, every target in `(above, up_to]` finds the same batch (no batch before it reaches
/// the target; it does). A garbage time index asks millions of times, nearly always the same.
#[derive(Clone, Copy)]
struct FindMemo {
    start: u64,
    above: i64,
    up_to: i64,
    found: Option<(i64, i64)>,
}

/// The last few answers (a garbage index alternates between start positions: below the first
/// entry, above the last).
#[derive(Default)]
struct FindMemos {
    slots: [Option<FindMemo>; 8],
    next: usize,
}

/// Finds the first batch at or after `start` whose last offset is ≥ `target`: its last offset and
/// the largest timestamp of its records (what kafka-dump-log compares a time-index entry with).
fn batch_ending_at_or_after(
    src: &mut FileSource,
    start: u64,
    target: i64,
    scratch: &mut RecordScratch,
    memo: &mut FindMemos,
) -> io::Result<Option<(i64, i64)>> {
    for m in memo.slots.iter().flatten() {
        if m.start == start && target > m.above && target <= m.up_to {
            return Ok(m.found);
        }
    }
    struct Find {
        target: i64,
        found: Option<(i64, i64)>,
        /// The largest last offset of the batches before the one found.
        max_before: i64,
    }
    impl LogSink for Find {
        fn batch(&mut self, _p: u64, _e: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
            if self.found.is_some() {
                return Ok(Flow::Stop);
            }
            if b.last_offset >= self.target {
                self.found = Some((b.last_offset, -1));
            } else {
                self.max_before = self.max_before.max(b.last_offset);
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
        max_before: i64::MIN,
    };
    scan_log(src, &opts, scratch, &mut find)?;
    memo.slots[memo.next % memo.slots.len()] = Some(FindMemo {
        start,
        above: find.max_before,
        up_to: find.found.map_or(i64::MAX, |(last, _)| last),
        found: find.found,
    });
    memo.next += 1;
    Ok(find.found)
}
