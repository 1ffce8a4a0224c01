//! Printers: Kafka-compatible text, NDJSON and tables. They format what the scanners and
//! analyses produce and never decode anything themselves.

pub mod diff;
pub mod dump_json;
pub mod dump_text;
pub mod escape;
pub mod groups;
pub mod lookup;
pub mod progress;
pub mod summary;
pub mod table;
pub mod verify;

use std::io;
use std::path::Path;

use serde_json::Value;

use crate::format::index::{OffsetEntry, TimeEntry};
use crate::format::internal::InternalDecoder;
use crate::format::producer_snapshot::ProducerEntry;
use crate::format::text_files::CheckpointEntry;
use crate::format::txn_index::AbortedTxn;
use crate::scan::LogSink;
use crate::storage::discover::Unrecognised;
use crate::storage::layout::FileKind;

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
}

/// What `kseg dump-log` needs from an output format.
pub trait DumpPrinter: LogSink {
    fn begin_file(&mut self, file: &Path, kind: &FileKind) -> io::Result<()>;
    /// The internal-topic decoder for the records of the current file, if any.
    fn set_decoder(&mut self, decoder: Option<InternalDecoder>);
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
}

/// The one-line stderr report every error gets: file, byte position, what is wrong.
pub fn report_error(file: &Path, position: Option<u64>, message: &str) {
    use std::io::Write;
    progress::suspend(|| {
        let stderr = io::stderr();
        let mut err = stderr.lock();
        let _ = match position {
            Some(p) => writeln!(err, "kseg: {}: byte {p}: {message}", file.display()),
            None => writeln!(err, "kseg: {}: {message}", file.display()),
        };
    });
}
