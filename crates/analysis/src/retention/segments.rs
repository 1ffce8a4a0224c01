//! A partition's segments as the retention rules need them, read as little as Kafka's decision
//! allows: each file's size and mtime (metadata), each `.timeindex`'s last entry (one page), and
//! a `.log` only where the broker's idea of it comes from its batches — the log end offset (the
//! batches after the last segment's last offset-index entry), the largest timestamp of a segment
//! the broker holds in memory or rebuilds (a live broker's active segment, a crashed broker's
//! segments from the recovery point, a segment with no `.index`), and the one record a blocking
//! timestamp names. Every `.log` byte read is counted.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use kseg_format::index::{Offsets, TimeEntry, Times};
use kseg_format::log::{BatchInfo, LogEntry, LogRecord, RecordScratch};
use kseg_scan::{scan_log, Flow, LogProblem, LogSink, ScanOptions};
use kseg_storage::discover::PartitionDir;
use kseg_storage::layout::{base_offset_of, FileKind};
use kseg_storage::paged_index::PagedIndex;
use kseg_storage::source::FileSource;

use super::rules::SegmentView;
use super::{DirState, Largest, RetentionNote, TimestampSource};

/// Read size of the few `.log` reads: a page.
const LOG_READ_CHUNK: usize = 4096;

/// One segment's files.
#[derive(Debug, Clone)]
pub(super) struct SegmentFiles {
    pub base: i64,
    pub log: PathBuf,
    pub log_bytes: u64,
    /// The `.log`, its indexes and its producer snapshot as stored (holes of sparse files left
    /// out): what deleting the segment frees.
    pub all_bytes: u64,
    pub mtime_ms: i64,
    pub offset_index: Option<PathBuf>,
    pub time_index: Option<PathBuf>,
}

/// The bytes a file holds on disk: its length, less the holes of a sparse file (a preallocated
/// index is 10 MiB long and holds a few pages).
fn stored(meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.len().min(meta.blocks().saturating_mul(512))
}

/// `File.lastModified`: milliseconds, 0 when unknown.
fn mtime_ms(meta: &std::fs::Metadata) -> i64 {
    match meta.modified() {
        Ok(t) => match t.duration_since(UNIX_EPOCH) {
            Ok(d) => d.as_millis().min(i64::MAX as u128) as i64,
            Err(e) => -(e.duration().as_millis().min(i64::MAX as u128) as i64),
        },
        Err(_) => 0,
    }
}

/// The partition's segments by base offset, with the bytes of files scheduled for deletion
/// (`.deleted`) beside them; files that vanished since discovery are left out.
pub(super) fn segment_files(
    p: &PartitionDir,
    notes: &mut Vec<RetentionNote>,
) -> (Vec<SegmentFiles>, u64) {
    let mut by_base: BTreeMap<i64, SegmentFiles> = BTreeMap::new();
    let mut extra: Vec<(i64, u64)> = Vec::new();
    let mut pending = 0u64;
    for f in &p.files {
        let len = || std::fs::metadata(&f.path).map(|m| stored(&m)).unwrap_or(0);
        let base = f
            .path
            .file_name()
            .and_then(|n| base_offset_of(&n.to_string_lossy()));
        match (&f.kind, base) {
            (FileKind::Log, Some(base)) => match std::fs::metadata(&f.path) {
                Ok(m) => {
                    by_base.insert(
                        base,
                        SegmentFiles {
                            base,
                            log: f.path.clone(),
                            log_bytes: m.len(),
                            all_bytes: stored(&m),
                            mtime_ms: mtime_ms(&m),
                            offset_index: None,
                            time_index: None,
                        },
                    );
                }
                Err(e) => notes.push(RetentionNote::Unreadable {
                    file: f.path.clone(),
                    error: e.to_string(),
                }),
            },
            (FileKind::OffsetIndex, Some(base)) => extra.push((base, len())),
            (FileKind::TimeIndex, Some(base)) => extra.push((base, len())),
            (FileKind::TxnIndex | FileKind::ProducerSnapshot, Some(base)) => {
                extra.push((base, len()))
            }
            (FileKind::Deleted(_), _) => pending += len(),
            _ => {}
        }
    }
    for f in &p.files {
        let Some(base) = f
            .path
            .file_name()
            .and_then(|n| base_offset_of(&n.to_string_lossy()))
        else {
            continue;
        };
        if let Some(s) = by_base.get_mut(&base) {
            match f.kind {
                FileKind::OffsetIndex => s.offset_index = Some(f.path.clone()),
                FileKind::TimeIndex => s.time_index = Some(f.path.clone()),
                _ => {}
            }
        }
    }
    for (base, len) in extra {
        if let Some(s) = by_base.get_mut(&base) {
            s.all_bytes += len;
        }
    }
    (by_base.into_values().collect(), pending)
}

/// What the batches walked from a position of a segment say.
#[derive(Debug, Clone, Copy, Default)]
struct Walked {
    batches: u64,
    /// The largest batch max timestamp and the last offset of its batch.
    max: Option<(i64, i64)>,
    last_offset: Option<i64>,
}

struct HeaderSink<'w>(&'w mut Walked);

impl LogSink for HeaderSink<'_> {
    fn batch(&mut self, _: u64, _: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        let w = &mut *self.0;
        w.batches += 1;
        if w.max.is_none_or(|(t, _)| b.max_timestamp > t) {
            w.max = Some((b.max_timestamp, b.last_offset));
        }
        w.last_offset = Some(b.last_offset);
        Ok(Flow::Continue)
    }

    fn problem(&mut self, _: &LogProblem<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// The record carrying a timestamp in the batch holding `offset`.
struct RecordSink {
    offset: i64,
    timestamp: i64,
    found: Option<i64>,
    in_batch: bool,
}

impl LogSink for RecordSink {
    fn batch(&mut self, _: u64, _: &LogEntry<'_>, b: &BatchInfo) -> io::Result<Flow> {
        self.in_batch = b.last_offset >= self.offset;
        Ok(if self.in_batch {
            Flow::Continue
        } else {
            Flow::SkipRecords
        })
    }

    fn record(&mut self, _: u64, _: &BatchInfo, r: &LogRecord<'_>) -> io::Result<Flow> {
        if self.in_batch && self.found.is_none() && r.timestamp == self.timestamp {
            self.found = Some(r.offset);
        }
        Ok(Flow::Continue)
    }

    fn batch_done(&mut self, _: u64, _: &BatchInfo) -> io::Result<Flow> {
        Ok(if self.in_batch {
            Flow::Stop
        } else {
            Flow::Continue
        })
    }

    fn problem(&mut self, _: &LogProblem<'_>) -> io::Result<Flow> {
        Ok(Flow::Continue)
    }
}

/// The partition's segments for [`SegmentView`], reading lazily.
pub(super) struct Segments<'f> {
    pub files: &'f [SegmentFiles],
    state: DirState,
    recovery_point: Option<i64>,
    /// Per segment: the last time-index entry (`Some(None)`: none; missing or empty index).
    time_entries: Vec<Option<Option<TimeEntry>>>,
    /// Per segment: the largest timestamp as the broker has it, once computed.
    exact: Vec<Option<Largest>>,
    leo: Option<i64>,
    /// The last segment's tail walk, when done (it gives both the log end and its largest).
    tail: Option<Walked>,
    pub log_bytes_read: u64,
    pub notes: Vec<RetentionNote>,
}

impl<'f> Segments<'f> {
    pub fn new(files: &'f [SegmentFiles], state: DirState, recovery_point: Option<i64>) -> Self {
        Segments {
            files,
            state,
            recovery_point,
            time_entries: vec![None; files.len()],
            exact: vec![None; files.len()],
            leo: None,
            tail: None,
            log_bytes_read: 0,
            notes: Vec::new(),
        }
    }

    fn unreadable(&mut self, file: &Path, e: &io::Error) {
        self.notes.push(RetentionNote::Unreadable {
            file: file.to_path_buf(),
            error: e.to_string(),
        });
    }

    /// The segment's last time-index entry (one page of the file).
    fn time_entry(&mut self, i: usize) -> Option<TimeEntry> {
        if let Some(e) = self.time_entries[i] {
            return e;
        }
        let s = &self.files[i];
        let entry = match &s.time_index {
            None => None,
            Some(path) => {
                match PagedIndex::<Times>::open(path, s.base).and_then(|mut f| f.last_entry()) {
                    Ok(e) => e,
                    Err(e) => {
                        let path = path.clone();
                        self.unreadable(&path, &e);
                        None
                    }
                }
            }
        };
        // TimeIndex.lastEntry: an entry with no timestamp (-1) is the empty index's.
        let entry = entry.filter(|e| e.timestamp >= 0);
        self.time_entries[i] = Some(entry);
        entry
    }

    /// Where a walk to the segment's end starts: its last offset-index entry's position.
    fn last_indexed_position(&mut self, i: usize) -> u64 {
        let s = &self.files[i];
        let Some(path) = &s.offset_index else {
            return 0;
        };
        match PagedIndex::<Offsets>::open(path, s.base).and_then(|mut f| f.last_entry()) {
            Ok(Some(e)) if (e.position as u64) < s.log_bytes => e.position as u64,
            Ok(_) => 0,
            Err(e) => {
                let path = path.clone();
                self.unreadable(&path, &e);
                0
            }
        }
    }

    /// Walks the batch headers of segment `i` from byte `from` (counted).
    fn walk(&mut self, i: usize, from: u64) -> Walked {
        let mut w = Walked::default();
        let path = &self.files[i].log;
        let mut src = match FileSource::with_chunk(path, LOG_READ_CHUNK) {
            Ok(s) => s,
            Err(e) => {
                let path = path.clone();
                self.unreadable(&path, &e);
                return w;
            }
        };
        let opts = ScanOptions {
            start_position: from,
            check_crc: false,
            ..ScanOptions::default()
        };
        let r = scan_log(
            &mut src,
            &opts,
            &mut RecordScratch::default(),
            &mut HeaderSink(&mut w),
        );
        self.log_bytes_read += src.bytes_read;
        if let Err(e) = r {
            let path = path.clone();
            self.unreadable(&path, &e);
        }
        w
    }

    /// The last segment's batches after its last offset-index entry, walked once.
    fn tail(&mut self) -> Walked {
        if let Some(t) = self.tail {
            return t;
        }
        let i = self.files.len() - 1;
        let from = self.last_indexed_position(i);
        let t = self.walk(i, from);
        self.tail = Some(t);
        t
    }

    /// Whether the broker's largest timestamp of segment `i` comes from its batches rather than
    /// its time index: a live broker's active segment (in memory), a crashed broker's segments
    /// from the recovery point (`LogLoader.recoverLog` rebuilds them), a segment with no `.index`
    /// (recovered whatever the shutdown).
    fn judged_by_batches(&self, i: usize) -> bool {
        let last = i + 1 == self.files.len();
        let s = &self.files[i];
        if s.offset_index.is_none() {
            return true;
        }
        match self.state {
            DirState::Live => last,
            DirState::Crashed => {
                last || self
                    .recovery_point
                    .is_none_or(|rp| self.files[i + 1].base > rp)
            }
            DirState::Clean | DirState::Unknown => false,
        }
    }

    /// The largest timestamp known without reading the `.log`: the time index's last entry,
    /// else the mtime. Exact unless the broker's comes from the batches.
    pub fn largest_known(&mut self, i: usize) -> Largest {
        if let Some(l) = &self.exact[i] {
            return l.clone();
        }
        let exact = !self.judged_by_batches(i);
        let entry = self.time_entry(i);
        self.largest_of(i, entry.map(|e| (e.timestamp, e.offset)), false, exact)
    }

    fn largest_of(&self, i: usize, max: Option<(i64, i64)>, raised: bool, exact: bool) -> Largest {
        match max {
            Some((timestamp, offset)) if timestamp >= 0 => Largest {
                timestamp,
                offset: Some(offset),
                source: if raised {
                    TimestampSource::Batches
                } else {
                    TimestampSource::TimeIndex
                },
                exact,
            },
            _ => Largest {
                timestamp: self.files[i].mtime_ms,
                offset: None,
                source: TimestampSource::ModifiedTime,
                exact,
            },
        }
    }

    /// Reads the record carrying segment `i`'s largest timestamp: its offset (the time index
    /// names only the batch's last offset). Reads the one batch, found through the offset index.
    pub fn record_of(&mut self, i: usize, largest: &Largest) -> Option<i64> {
        let batch_last = largest.offset?;
        let s = &self.files[i];
        let from = match &s.offset_index {
            Some(path) => PagedIndex::<Offsets>::open(path, s.base)
                .and_then(|mut f| f.lookup(batch_last))
                .map(|(e, _)| e.position as u64)
                .ok()
                .filter(|p| *p < s.log_bytes)
                .unwrap_or(0),
            None => 0,
        };
        let path = s.log.clone();
        let mut src = FileSource::with_chunk(&path, LOG_READ_CHUNK).ok()?;
        let mut sink = RecordSink {
            offset: batch_last,
            timestamp: largest.timestamp,
            found: None,
            in_batch: false,
        };
        let opts = ScanOptions {
            deep: true,
            start_position: from,
            check_crc: false,
            ..ScanOptions::default()
        };
        let _ = scan_log(&mut src, &opts, &mut RecordScratch::default(), &mut sink);
        self.log_bytes_read += src.bytes_read;
        sink.found.or(Some(batch_last))
    }

    /// The log end offset, if it was read.
    pub fn known_log_end(&self) -> Option<i64> {
        self.leo
    }
}

impl SegmentView for Segments<'_> {
    fn count(&self) -> usize {
        self.files.len()
    }

    fn base(&self, i: usize) -> i64 {
        self.files[i].base
    }

    fn size(&self, i: usize) -> u64 {
        self.files[i].log_bytes
    }

    fn largest(&mut self, i: usize) -> Largest {
        if let Some(l) = &self.exact[i] {
            return l.clone();
        }
        let l = if !self.judged_by_batches(i) {
            self.largest_known(i)
        } else {
            let last = i + 1 == self.files.len();
            let s = &self.files[i];
            // A segment without its `.index` (or `.timeindex`, when recovered) is rebuilt from
            // its first batch; otherwise the time index holds what came before the last
            // offset-index entry.
            let whole = s.offset_index.is_none() || s.time_index.is_none();
            let (walked, entry) = if whole {
                (self.walk(i, 0), None)
            } else if last {
                (self.tail(), self.time_entry(i))
            } else {
                let from = self.last_indexed_position(i);
                (self.walk(i, from), self.time_entry(i))
            };
            let from_index = entry.map(|e| (e.timestamp, e.offset));
            let raised = walked
                .max
                .is_some_and(|(t, _)| from_index.is_none_or(|(e, _)| t > e));
            let max = if raised { walked.max } else { from_index };
            self.largest_of(i, max, raised, true)
        };
        self.exact[i] = Some(l.clone());
        l
    }

    fn log_end_offset(&mut self) -> i64 {
        if let Some(leo) = self.leo {
            return leo;
        }
        let base = self.files.last().map_or(0, |s| s.base);
        let leo = match self.files.last() {
            Some(s) if s.log_bytes > 0 => self
                .tail()
                .last_offset
                .map_or(base, |l| l.saturating_add(1).max(base)),
            _ => base,
        };
        self.leo = Some(leo);
        leo
    }
}
