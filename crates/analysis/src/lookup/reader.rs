//! A partition as a lookup reads it: each segment's `.log` opened when needed (positioned reads)
//! and its indexes read a page at a time ([`PagedIndex`]), at most [`OPEN_SEGMENTS`] segments'
//! files open at once (a year of daily segments must not exhaust `ulimit -n`), walks of a segment from a byte position
//! driven by [`scan_log`], and the bytes, batches and records that cost, kept in the [`Trace`].

use std::collections::VecDeque;
use std::io;
use std::path::Path;
use std::time::UNIX_EPOCH;

use kseg_format::index::{IndexKind, OffsetEntry, Offsets, Times};
use kseg_format::log::{BatchInfo, ByteSource, LogEntry, LogRecord, RecordScratch};
use kseg_scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use kseg_storage::paged_index::PagedIndex;
use kseg_storage::source::FileSource;

use super::explain::{RaisedTarget, SegmentMaxSource, Step};
use super::{BatchFacts, LookupError, PartitionTarget, SegmentFiles, Trace};

/// How many segments may have files open at once; the least recently opened is closed first
/// (a segment has up to three: `.log`, `.index`, `.timeindex`).
pub(super) const OPEN_SEGMENTS: usize = 8;

/// A batch met by a walk: the segment (its index in the partition), byte position and header.
#[derive(Debug, Clone, Copy)]
pub(super) struct BatchAt {
    pub segment: usize,
    pub position: u64,
    pub info: BatchInfo,
}

impl BatchAt {
    pub fn facts(&self) -> BatchFacts {
        BatchFacts::new(self.position, &self.info)
    }
}

/// What a walk does with a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Visit {
    /// On to the next batch, its records not decoded.
    Next,
    /// Decode its records (each to [`BatchVisitor::record`]), then ask
    /// [`BatchVisitor::batch_done`].
    Records,
    Stop,
}

/// What a walk of a segment reports to.
pub(super) trait BatchVisitor {
    fn batch(&mut self, batch: &BatchAt) -> Visit;
    fn record(&mut self, _batch: &BatchAt, _record: &LogRecord<'_>) {}
    /// After the records of a batch answered [`Visit::Records`] (also when they could not be
    /// decoded): whether to go on.
    fn batch_done(&mut self, _batch: &BatchAt) -> Flow {
        Flow::Continue
    }
}

/// A walk over batch headers only.
pub(super) struct Headers<F>(pub F);

impl<F: FnMut(&BatchAt) -> Flow> BatchVisitor for Headers<F> {
    fn batch(&mut self, batch: &BatchAt) -> Visit {
        match (self.0)(batch) {
            Flow::Stop => Visit::Stop,
            Flow::Continue | Flow::SkipRecords => Visit::Next,
        }
    }
}

/// The first record matching, in the first batch holding one.
#[derive(Debug, Clone, Copy)]
pub(super) struct RecordHit {
    pub batch: BatchAt,
    pub offset: i64,
    pub timestamp: i64,
}

/// A walk to the first record that `matches`, over the batches that `wanted` decodes. With
/// `stop_after_batch`, the walk ends after the first batch decoded, whether it held one or not.
pub(super) struct FirstRecord<W, M> {
    pub wanted: W,
    pub matches: M,
    pub stop_after_batch: bool,
    pub found: Option<RecordHit>,
    /// The last batch whose records were decoded.
    pub last_decoded: Option<BatchAt>,
}

impl<W, M> FirstRecord<W, M>
where
    W: FnMut(&BatchAt) -> Visit,
    M: Fn(&LogRecord<'_>) -> bool,
{
    pub fn new(wanted: W, matches: M) -> Self {
        FirstRecord {
            wanted,
            matches,
            stop_after_batch: false,
            found: None,
            last_decoded: None,
        }
    }
}

impl<W, M> BatchVisitor for FirstRecord<W, M>
where
    W: FnMut(&BatchAt) -> Visit,
    M: Fn(&LogRecord<'_>) -> bool,
{
    fn batch(&mut self, batch: &BatchAt) -> Visit {
        (self.wanted)(batch)
    }
    fn record(&mut self, batch: &BatchAt, r: &LogRecord<'_>) {
        if self.found.is_none() && (self.matches)(r) {
            self.found = Some(RecordHit {
                batch: *batch,
                offset: r.offset,
                timestamp: r.timestamp,
            });
        }
    }
    fn batch_done(&mut self, batch: &BatchAt) -> Flow {
        self.last_decoded = Some(*batch);
        if self.found.is_some() || self.stop_after_batch {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }
}

/// The largest timestamp of a segment and the offset that carries it (`maxTimestampSoFar`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SegmentMax {
    pub timestamp: i64,
    pub offset: i64,
    pub source: SegmentMaxSource,
}

/// One segment's files, opened when first needed.
pub(super) struct SegmentState<'t> {
    pub files: &'t SegmentFiles,
    source: Option<FileSource>,
    offset_index: Option<Option<PagedIndex<Offsets>>>,
    time_index: Option<Option<PagedIndex<Times>>>,
    /// [`SegmentMax`], once computed.
    pub max: Option<SegmentMax>,
}

impl SegmentState<'_> {
    fn open_log_bytes(&self) -> u64 {
        self.source.as_ref().map_or(0, |s| s.bytes_read)
    }

    fn open_index_bytes(&self) -> u64 {
        let o = self.offset_index.as_ref().and_then(|f| f.as_ref());
        let t = self.time_index.as_ref().and_then(|f| f.as_ref());
        o.map_or(0, |f| f.bytes_read()) + t.map_or(0, |f| f.bytes_read())
    }
}

/// Which of a segment's two indexes the kind `K` is: its path and its slot in
/// [`SegmentState`].
pub(super) trait SegmentIndex: IndexKind + Sized {
    fn path(files: &SegmentFiles) -> Option<&std::path::PathBuf>;
    fn cell<'s>(segment: &'s mut SegmentState<'_>) -> &'s mut Option<Option<PagedIndex<Self>>>;
}

impl SegmentIndex for Offsets {
    fn path(files: &SegmentFiles) -> Option<&std::path::PathBuf> {
        files.offset_index.as_ref()
    }
    fn cell<'s>(segment: &'s mut SegmentState<'_>) -> &'s mut Option<Option<PagedIndex<Self>>> {
        &mut segment.offset_index
    }
}

impl SegmentIndex for Times {
    fn path(files: &SegmentFiles) -> Option<&std::path::PathBuf> {
        files.time_index.as_ref()
    }
    fn cell<'s>(segment: &'s mut SegmentState<'_>) -> &'s mut Option<Option<PagedIndex<Self>>> {
        &mut segment.time_index
    }
}

pub(super) struct PartitionReader<'t> {
    pub target: &'t PartitionTarget,
    pub segments: Vec<SegmentState<'t>>,
    scratch: RecordScratch,
    pub trace: Trace,
    chunk: usize,
    /// Segments with files open, least recently opened first.
    open_order: VecDeque<usize>,
    /// Bytes read through files since closed (the trace counts them too).
    closed_log_bytes: u64,
    closed_index_bytes: u64,
}

impl<'t> PartitionReader<'t> {
    /// `chunk`: the read size of the `.log` files.
    pub fn new(target: &'t PartitionTarget, chunk: usize, max_decompressed: usize) -> Self {
        PartitionReader {
            target,
            segments: target
                .segments
                .iter()
                .map(|files| SegmentState {
                    files,
                    source: None,
                    offset_index: None,
                    time_index: None,
                    max: None,
                })
                .collect(),
            scratch: RecordScratch::with_cap(max_decompressed),
            trace: Trace::default(),
            chunk,
            open_order: VecDeque::new(),
            closed_log_bytes: 0,
            closed_index_bytes: 0,
        }
    }

    pub fn step(&mut self, step: Step) {
        self.trace.steps.push(step);
    }

    /// The trace, with the bytes read from the files.
    pub fn finish(mut self) -> Trace {
        self.trace.log_bytes_read = self.closed_log_bytes
            + self
                .segments
                .iter()
                .map(|s| s.open_log_bytes())
                .sum::<u64>();
        self.trace.index_bytes_read = self.closed_index_bytes
            + self
                .segments
                .iter()
                .map(|s| s.open_index_bytes())
                .sum::<u64>();
        self.trace
    }

    /// Segment `i` is about to open a file: it becomes the most recently opened, and the least
    /// recently opened beyond [`OPEN_SEGMENTS`] closes its files (reopened when needed again).
    fn make_room(&mut self, i: usize) {
        if self.open_order.contains(&i) {
            return;
        }
        while self.open_order.len() >= OPEN_SEGMENTS {
            let Some(old) = self.open_order.pop_front() else {
                break;
            };
            let s = &mut self.segments[old];
            self.closed_log_bytes += s.open_log_bytes();
            self.closed_index_bytes += s.open_index_bytes();
            s.source = None;
            // A missing or unreadable index (Some(None)) holds no file and is not retried.
            if matches!(s.offset_index, Some(Some(_))) {
                s.offset_index = None;
            }
            if matches!(s.time_index, Some(Some(_))) {
                s.time_index = None;
            }
        }
        self.open_order.push_back(i);
    }

    /// The `.log` of segment `i`.
    pub fn log(&self, i: usize) -> &'t Path {
        &self.segments[i].files.log
    }

    pub fn base_offset(&self, i: usize) -> i64 {
        self.segments[i].files.base_offset
    }

    /// The last segment whose base offset is at or below `offset` (the first when none is).
    pub fn segment_of(&self, offset: i64) -> usize {
        self.segments
            .iter()
            .rposition(|s| s.files.base_offset <= offset)
            .unwrap_or(0)
    }

    fn open(&mut self, i: usize) -> Result<(), LookupError> {
        if self.segments[i].source.is_none() {
            self.make_room(i);
            let path = self.log(i);
            let src = FileSource::with_chunk(path, self.chunk)
                .map_err(|e| LookupError::io(path, None, e))?;
            self.segments[i].source = Some(src);
        }
        Ok(())
    }

    fn log_len(&mut self, i: usize) -> Result<u64, LookupError> {
        self.open(i)?;
        Ok(self.segments[i].source.as_ref().map_or(0, |s| s.len()))
    }

    /// The segment's `.index` or `.timeindex`, opened once; `None` when it is missing or
    /// unreadable (an empty index, as Kafka rebuilds it; noted in the trace).
    fn index<K: SegmentIndex>(&mut self, i: usize) -> Option<&mut PagedIndex<K>> {
        if K::cell(&mut self.segments[i]).is_none() {
            self.make_room(i);
            let files = self.segments[i].files;
            let opened = match K::path(files) {
                None => {
                    self.step(Step::IndexMissing {
                        segment: files.log.clone(),
                        index: K::EXTENSION,
                    });
                    None
                }
                Some(p) => match PagedIndex::<K>::open(p, files.base_offset) {
                    Ok(f) => Some(f),
                    Err(e) => {
                        self.step(Step::IndexUnreadable {
                            index: p.clone(),
                            error: e.to_string(),
                        });
                        None
                    }
                },
            };
            *K::cell(&mut self.segments[i]) = Some(opened);
        }
        K::cell(&mut self.segments[i])
            .as_mut()
            .and_then(|f| f.as_mut())
    }

    fn index_error<K: SegmentIndex>(&self, i: usize, e: io::Error) -> LookupError {
        let files = self.segments[i].files;
        LookupError::io(K::path(files).unwrap_or(&files.log), None, e)
    }

    /// How many entries the segment's index of kind `K` holds (0 when missing or unreadable).
    pub fn index_entries<K: SegmentIndex>(&mut self, i: usize) -> usize {
        self.index::<K>(i).map_or(0, |f| f.entries())
    }

    /// Kafka's `lookup` in the segment's index of kind `K`, and the entry's slot (None for the
    /// index's default: `(base, 0)` in an `.index`, `(-1, base)` in a `.timeindex`).
    pub fn floor<K: SegmentIndex>(
        &mut self,
        i: usize,
        target: i64,
    ) -> Result<(K::Entry, Option<usize>), LookupError> {
        let base = self.base_offset(i);
        let found = match self.index::<K>(i) {
            None => Ok(K::lookup(base, &[], target)),
            Some(f) => f.lookup(target),
        };
        found.map_err(|e| self.index_error::<K>(i, e))
    }

    /// The offset-index floor of `target` in segment `i`, noted as a step (with how `target`
    /// was `raised` from a time-index entry, when it was).
    pub fn offset_floor_step(
        &mut self,
        i: usize,
        target: i64,
        raised: Option<RaisedTarget>,
    ) -> Result<OffsetEntry, LookupError> {
        let (entry, slot) = self.floor::<Offsets>(i, target)?;
        let entries = self.index_entries::<Offsets>(i);
        self.step(Step::OffsetIndexFloor {
            entries,
            target,
            entry,
            slot,
            raised,
        });
        Ok(entry)
    }

    /// The last real entry of the segment's index of kind `K`.
    pub fn last_entry<K: SegmentIndex>(
        &mut self,
        i: usize,
    ) -> Result<Option<K::Entry>, LookupError> {
        let found = match self.index::<K>(i) {
            None => Ok(None),
            Some(f) => f.last_entry(),
        };
        found.map_err(|e| self.index_error::<K>(i, e))
    }

    /// An index position to start a walk at, or 0 when it lies past the end of the `.log`.
    pub fn checked_position(&mut self, i: usize, position: u64) -> Result<u64, LookupError> {
        let len = self.log_len(i)?;
        if position > 0 && position >= len {
            self.step(Step::IndexPastLogEnd {
                segment: self.log(i).to_path_buf(),
                position,
                log_len: len,
            });
            return Ok(0);
        }
        Ok(position)
    }

    /// Where a walk of segment `i` starts to reach its last batch: its last offset-index
    /// entry's position (checked), or 0.
    pub fn last_indexed_position(&mut self, i: usize) -> Result<u64, LookupError> {
        let from = self
            .last_entry::<Offsets>(i)?
            .map_or(0, |e| e.position as u64);
        self.checked_position(i, from)
    }

    /// The `.log` file's mtime in epoch ms (`java.io.File.lastModified`: 0 when unknown).
    pub fn mtime_ms(&self, i: usize) -> i64 {
        match std::fs::metadata(self.log(i)).and_then(|m| m.modified()) {
            Ok(t) => match t.duration_since(UNIX_EPOCH) {
                Ok(d) => d.as_millis().min(i64::MAX as u128) as i64,
                Err(e) => -(e.duration().as_millis().min(i64::MAX as u128) as i64),
            },
            Err(_) => 0,
        }
    }

    /// Walks the batches of segment `i` from byte `from` with [`scan_log`], until `visitor`
    /// says stop. Undecodable entries and invalid bytes are noted in the trace.
    pub fn walk(
        &mut self,
        i: usize,
        from: u64,
        visitor: &mut dyn BatchVisitor,
    ) -> Result<Flow, LookupError> {
        self.open(i)?;
        let log = self.log(i);
        let PartitionReader {
            segments,
            scratch,
            trace,
            ..
        } = self;
        let src = segments[i].source.as_mut().expect("opened above");
        let opts = ScanOptions {
            deep: true,
            start_position: from,
            ..ScanOptions::default()
        };
        let mut sink = WalkSink {
            segment: i,
            log,
            trace,
            visitor,
            current: None,
            resume_at: from,
        };
        let stats = scan_log(src, &opts, scratch, &mut sink)
            .map_err(|e| LookupError::io(log, Some(sink.resume_at), e))?;
        Ok(if stats.stopped {
            Flow::Stop
        } else {
            Flow::Continue
        })
    }
}

/// [`scan_log`]'s sink for a walk: counts, notes problems as steps and hands batches and
/// records to the visitor.
struct WalkSink<'w> {
    segment: usize,
    log: &'w Path,
    trace: &'w mut Trace,
    visitor: &'w mut dyn BatchVisitor,
    /// The batch last handed to the visitor, and what it asked for it.
    current: Option<(BatchAt, Visit)>,
    /// Where the walk goes on after the last entry seen (named by an I/O error).
    resume_at: u64,
}

impl LogSink for WalkSink<'_> {
    fn batch(
        &mut self,
        position: u64,
        _entry: &LogEntry<'_>,
        info: &BatchInfo,
    ) -> io::Result<Flow> {
        self.trace.batches_scanned += 1;
        self.resume_at = position + info.size as u64;
        let batch = BatchAt {
            segment: self.segment,
            position,
            info: *info,
        };
        let visit = self.visitor.batch(&batch);
        self.current = Some((batch, visit));
        Ok(match visit {
            Visit::Next => Flow::SkipRecords,
            Visit::Records => Flow::Continue,
            Visit::Stop => Flow::Stop,
        })
    }

    fn record(&mut self, _: u64, _: &BatchInfo, record: &LogRecord<'_>) -> io::Result<Flow> {
        self.trace.records_decoded += 1;
        if let Some((batch, _)) = &self.current {
            self.visitor.record(batch, record);
        }
        Ok(Flow::Continue)
    }

    fn batch_done(&mut self, _: u64, _: &BatchInfo) -> io::Result<Flow> {
        Ok(match &self.current {
            Some((batch, _)) => self.visitor.batch_done(batch),
            None => Flow::Continue,
        })
    }

    fn problem(&mut self, problem: &LogProblem<'_>) -> io::Result<Flow> {
        let segment = self.log.to_path_buf();
        let step = match *problem {
            LogProblem::BadEntry {
                batch_position,
                error,
            } => match self.current {
                // The records (or a legacy wrapper's compressed value) of the batch just
                // visited: a step when they were wanted.
                Some((batch, visit)) if batch.position == batch_position => {
                    if visit != Visit::Records {
                        return Ok(Flow::Continue);
                    }
                    Step::RecordsUndecodable {
                        segment,
                        position: error.position,
                        batch_position,
                        message: error.message.to_string(),
                    }
                }
                _ => {
                    self.trace.batches_scanned += 1;
                    Step::UndecodableBatch {
                        segment,
                        position: error.position,
                        message: error.message.to_string(),
                    }
                }
            },
            LogProblem::Corrupt {
                position,
                length,
                reason,
            } => {
                self.resume_at = position + length;
                Step::InvalidBytes {
                    segment,
                    position,
                    length,
                    reason: *reason,
                }
            }
            LogProblem::Tail {
                position,
                length,
                kind,
            } => {
                self.resume_at = position + length;
                Step::Tail {
                    segment,
                    position,
                    length,
                    kind: kind.clone(),
                }
            }
        };
        self.trace.steps.push(step);
        Ok(Flow::Continue)
    }
}
