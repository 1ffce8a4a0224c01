//! Printers: Kafka-compatible text, NDJSON and tables. They format what the scanners and
//! analyses produce and decode nothing themselves: a dump's batches and records arrive from
//! `analysis::dump::DumpFeed` (the scan's sink) with control records and internal-topic keys
//! and values decoded and offset gaps found (`DumpRecords`).

pub mod compact;
pub mod control;
pub mod coordinator;
pub mod diff;
pub mod dump_json;
pub mod dump_text;
pub use kseg_escape as escape;
pub mod export;
pub mod grep;
pub mod groups;
pub mod lookup;
pub mod ndjson;
pub mod progress;
pub mod rescue;
pub mod retention;
pub mod summary;
pub mod table;
pub mod transactions;
pub mod verify;
pub mod words;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use kseg_analysis::dump::DumpRecords;
use kseg_format::index::{OffsetEntry, TimeEntry};
use kseg_format::producer_snapshot::ProducerEntry;
use kseg_format::text_files::CheckpointEntry;
use kseg_format::txn_index::AbortedTxn;
use kseg_storage::discover::Unrecognised;
use kseg_storage::layout::FileKind;

/// A printer's output: lines are appended straight to `buf` (no `core::fmt`, no copy into a
/// second buffer) and `buf` goes to the writer whenever it holds [`LineOut::FLUSH_AT`] bytes
/// ([`LineOut::HAND_OFF_AT`] when handed off).
/// It is also a [`std::io::Write`] for the rare lines still written with `write!`.
pub struct LineOut<W: std::io::Write> {
    pub buf: Vec<u8>,
    inner: W,
    /// Set for a writer that takes whole buffers ([`TakesBuffers`]): the full buffer is handed
    /// over, not copied.
    hand_off: Option<HandOff<W>>,
    /// `buf` goes out once it holds this many bytes.
    flush_at: usize,
}

/// [`TakesBuffers`]' two methods, for the writer it is.
struct HandOff<W> {
    take: fn(&mut W, Vec<u8>) -> io::Result<Vec<u8>>,
    give_back: fn(&mut W, Vec<u8>),
}

/// A writer that takes a full buffer without copying it and gives an empty one back (the
/// parallel engine's channel of output chunks, which would otherwise copy every byte a second
/// time).
pub trait TakesBuffers: std::io::Write {
    fn take_buffer(&mut self, full: Vec<u8>) -> io::Result<Vec<u8>>;
    /// An empty buffer for a new printer to start with.
    fn spare(&mut self) -> Vec<u8>;
    /// The printer's last, empty buffer, when it is done: kept for the next printer (a buffer
    /// dropped is a fresh one's pages to fault in later).
    fn give_back(&mut self, empty: Vec<u8>);
}

impl<W: std::io::Write> LineOut<W> {
    pub const FLUSH_AT: usize = 128 * 1024;
    /// A handed-off buffer is a message to another thread, and each one may wake it: fewer,
    /// larger ones (with 128 KiB, the writer thread of `--threads 2` switched in ~22,000 times
    /// over a 2.8 GB dump, and the switches cost a tenth of the workers' time). 128 KiB short
    /// of 2 MiB: room in a 2 MiB buffer for the line that crosses it.
    pub const HAND_OFF_AT: usize = 2048 * 1024 - 128 * 1024;

    pub fn new(inner: W) -> Self {
        LineOut {
            buf: Vec::with_capacity(Self::FLUSH_AT + 4096),
            inner,
            hand_off: None,
            flush_at: Self::FLUSH_AT,
        }
    }

    /// Over a writer that takes whole buffers: each full buffer is handed to it.
    pub fn handing_off(mut inner: W) -> Self
    where
        W: TakesBuffers,
    {
        LineOut {
            buf: inner.spare(),
            inner,
            hand_off: Some(HandOff {
                take: <W as TakesBuffers>::take_buffer,
                give_back: <W as TakesBuffers>::give_back,
            }),
            flush_at: Self::HAND_OFF_AT,
        }
    }

    /// Call after each line: writes the buffer out once it is large enough.
    #[inline]
    pub fn line_done(&mut self) -> io::Result<()> {
        if self.buf.len() >= self.flush_at {
            self.drain()?;
        }
        Ok(())
    }

    /// Writes `bytes` rendered elsewhere after what is buffered, without copying them.
    pub fn write_through(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.drain()?;
        self.inner.write_all(bytes)
    }

    fn drain(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        match self.hand_off {
            Some(HandOff { take, .. }) => {
                let full = std::mem::take(&mut self.buf);
                self.buf = take(&mut self.inner, full)?;
                self.buf.clear();
            }
            None => {
                self.inner.write_all(&self.buf)?;
                self.buf.clear();
            }
        }
        Ok(())
    }
}

impl<W: std::io::Write> std::io::Write for LineOut<W> {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(b);
        self.line_done()?;
        Ok(b.len())
    }
    fn write_all(&mut self, b: &[u8]) -> io::Result<()> {
        self.write(b).map(|_| ())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.drain()?;
        self.inner.flush()
    }
}

/// Like `BufWriter`: what is still buffered is written when the printer is dropped, so a caller
/// that ends without `flush` (or `finish`) loses nothing; errors there are ignored, as
/// `BufWriter` ignores them (callers who care flush first).
impl<W: std::io::Write> Drop for LineOut<W> {
    fn drop(&mut self) {
        let _ = self.drain();
        if let Some(HandOff { give_back, .. }) = self.hand_off {
            give_back(&mut self.inner, std::mem::take(&mut self.buf));
        }
    }
}

pub use kseg_analysis::index_check::TimeIndexProblem;

/// Counts for the closing summary of a dump.
#[derive(Debug, Default, Clone, Copy)]
pub struct DumpSummary {
    pub files: u64,
    pub batches: u64,
    pub records: u64,
    pub errors: u64,
    pub crc_errors: u64,
    pub invalid_bytes: u64,
    pub unrecognised: u64,
    /// Of `errors`, the problems found in log data, graded by the one severity policy into
    /// `log_severity` (the rest are errors).
    pub log_problems: u64,
    pub log_severity: Option<kseg_analysis::severity::Severity>,
}

impl DumpSummary {
    pub fn add(&mut self, o: &DumpSummary) {
        self.log_problems += o.log_problems;
        self.log_severity = self.log_severity.max(o.log_severity);
        self.files += o.files;
        self.batches += o.batches;
        self.records += o.records;
        self.errors += o.errors;
        self.crc_errors += o.crc_errors;
        self.invalid_bytes += o.invalid_bytes;
        self.unrecognised += o.unrecognised;
    }
}

/// What the text dump reports on stderr at the end, per file (absolute path), as
/// kafka-dump-log does: gaps, index mismatches, kseg's notes, time-index problems.
#[derive(Debug, Default)]
pub struct TextDeferred {
    /// Previous offset → next offset.
    pub gaps: Vec<(PathBuf, BTreeMap<i64, i64>)>,
    pub mismatches: Vec<(PathBuf, BTreeMap<std::cmp::Reverse<i64>, i64>)>,
    pub notes: Vec<(PathBuf, String)>,
    pub time_problems: Vec<(PathBuf, TimeIndexProblem)>,
    /// Per file, how many index problems were past the per-file cap (counted, not held).
    pub unlisted: Vec<(PathBuf, u64)>,
}

impl TextDeferred {
    /// Appends `later` (the reports of files dumped after these), merging a file's maps when
    /// the same file continues, as one printer would have.
    pub fn append(&mut self, later: TextDeferred) {
        fn merge<K: Ord, V>(
            into: &mut Vec<(PathBuf, BTreeMap<K, V>)>,
            from: Vec<(PathBuf, BTreeMap<K, V>)>,
        ) {
            for (f, m) in from {
                match into.last_mut() {
                    Some((g, n)) if *g == f => n.extend(m),
                    _ => into.push((f, m)),
                }
            }
        }
        merge(&mut self.gaps, later.gaps);
        merge(&mut self.mismatches, later.mismatches);
        self.notes.extend(later.notes);
        for (f, n) in later.unlisted {
            match self.unlisted.last_mut() {
                Some((g, m)) if *g == f => *m += n,
                _ => self.unlisted.push((f, n)),
            }
        }
        self.time_problems.extend(later.time_problems);
    }
}

/// What `kseg dump-log` needs from an output format: a log's batches and records come through
/// [`DumpRecords`] (fed by `analysis::dump::DumpFeed`), the other files' contents here.
pub trait DumpPrinter: DumpRecords {
    /// Every file dumped starts here (a log's records are then fed for this file).
    fn begin_file(&mut self, file: &Path, kind: &FileKind) -> io::Result<()>;
    fn index_entry(&mut self, entry: &OffsetEntry) -> io::Result<()>;
    fn time_index_entry(&mut self, entry: &TimeEntry) -> io::Result<()>;
    /// An index with no entries (`<file> is empty.`).
    fn index_empty(&mut self) -> io::Result<()>;
    /// `--index-sanity-check` passed.
    fn sanity_passed(&mut self) -> io::Result<()>;
    /// An offset-index entry whose offset is not the last offset of the batch at its position.
    fn index_mismatch(&mut self, index_offset: i64, log_offset: i64) -> io::Result<()>;
    /// kseg's reading of a line Kafka's tool prints for the current file (its own line, never
    /// a change to Kafka's).
    fn note(&mut self, message: &str) -> io::Result<()>;
    /// A time-index entry that disagrees with the log, as kafka-dump-log checks it.
    fn time_index_problem(&mut self, problem: TimeIndexProblem) -> io::Result<()>;
    fn aborted_txn(&mut self, txn: &AbortedTxn) -> io::Result<()>;
    fn producer_entry(&mut self, entry: &ProducerEntry) -> io::Result<()>;
    fn checkpoint_entry(&mut self, entry: &CheckpointEntry) -> io::Result<()>;
    /// A decoded small file (partition.metadata, meta.properties, markers) as one JSON object.
    fn file_content(&mut self, content: &Value) -> io::Result<()>;
    /// A problem in a non-log file, or a file that could not be read.
    fn file_error(&mut self, position: Option<u64>, message: &str) -> io::Result<()>;
    fn unrecognised(&mut self, item: &Unrecognised) -> io::Result<()>;
    fn finish(&mut self, summary: &DumpSummary) -> io::Result<()>;
    /// Output rendered by a printer of the same kind on a worker thread (`--threads`).
    fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// The printer goes on with `file`, begun on another printer ([`DumpPrinter::begin_file`]):
    /// a piece of a large `.log` read on its own (`--threads`). Prints nothing.
    fn resume_file(&mut self, file: &Path) -> io::Result<()>;
    /// Takes the reports kept for [`DumpPrinter::finish`] (a worker's, for the main printer).
    fn take_deferred(&mut self) -> TextDeferred {
        TextDeferred::default()
    }
    /// Adds reports taken from a worker's printer, in file order.
    fn add_deferred(&mut self, _deferred: TextDeferred) {}
}

type ErrorCapture = Box<dyn FnMut(String)>;

thread_local! {
    /// Where this thread's error lines go instead of stderr (a `--threads` worker's output
    /// channel, so they keep their place after the output that preceded them).
    static CAPTURE: RefCell<Option<ErrorCapture>> = const { RefCell::new(None) };
}

/// Until the guard is dropped, [`report_error`] on this thread hands its lines to `to`.
pub fn capture_errors(to: ErrorCapture) -> CaptureGuard {
    CAPTURE.with(|c| *c.borrow_mut() = Some(to));
    CaptureGuard(())
}

pub struct CaptureGuard(());

impl Drop for CaptureGuard {
    fn drop(&mut self) {
        CAPTURE.with(|c| *c.borrow_mut() = None);
    }
}

/// Writes a finished line to stderr, out of the progress bar's way.
pub fn write_stderr(line: &str) {
    use std::io::Write;
    progress::suspend(|| {
        let _ = io::stderr().lock().write_all(line.as_bytes());
    });
}

/// The one-line stderr report every error gets: file, byte position, what is wrong.
pub fn report_error(file: &Path, position: Option<u64>, message: &str) {
    let line = match position {
        Some(p) => format!("kseg: {}: byte {p}: {message}\n", file.display()),
        None => format!("kseg: {}: {message}\n", file.display()),
    };
    let line = CAPTURE.with(|c| match c.borrow_mut().as_mut() {
        Some(to) => {
            to(line);
            None
        }
        None => Some(line),
    });
    if let Some(line) = line {
        write_stderr(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deferred_reports_merge_as_one_printer_keeps_them() {
        let a = PathBuf::from("/d/t-0/0.log");
        let b = PathBuf::from("/d/t-1/0.log");
        let mut main = TextDeferred {
            gaps: vec![(a.clone(), BTreeMap::from([(1, 5)]))],
            ..Default::default()
        };
        // The same file again (given twice), then another one.
        main.append(TextDeferred {
            gaps: vec![
                (a.clone(), BTreeMap::from([(7, 9)])),
                (b.clone(), BTreeMap::from([(0, 3)])),
            ],
            notes: vec![(b.clone(), "n".into())],
            ..Default::default()
        });
        assert_eq!(
            main.gaps,
            vec![
                (a, BTreeMap::from([(1, 5), (7, 9)])),
                (b.clone(), BTreeMap::from([(0, 3)]))
            ]
        );
        assert_eq!(main.notes, vec![(b, "n".to_string())]);
    }

    #[test]
    fn line_out_keeps_the_order_of_both_ways_of_writing() {
        use std::io::Write;
        let mut out = LineOut::new(Vec::new());
        out.buf.extend_from_slice(b"a\n");
        out.line_done().unwrap();
        writeln!(out, "b {}", 1).unwrap();
        out.buf
            .extend(std::iter::repeat_n(b'x', LineOut::<Vec<u8>>::FLUSH_AT));
        out.line_done().unwrap();
        assert!(out.buf.is_empty(), "a full buffer is written out");
        out.write_all(b"c\n").unwrap();
        out.flush().unwrap();
        let mut want = b"a\nb 1\n".to_vec();
        want.extend(std::iter::repeat_n(b'x', LineOut::<Vec<u8>>::FLUSH_AT));
        want.extend_from_slice(b"c\n");
        assert_eq!(out.inner, want);
    }
}
