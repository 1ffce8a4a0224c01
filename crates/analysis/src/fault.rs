//! Why a file could not be used, as typed values shared by the analyses: an I/O error, text
//! that is not UTF-8, content that does not decode. These are errors (their `Display` is the
//! error's own text); findings about the data are worded by the printers.

use std::fmt;
use std::io;
use std::path::Path;
use std::sync::Arc;

use kseg_format::reader::DecodeError;
use kseg_format::text_files::{parse_checkpoint, Checkpoint};
use kseg_storage::source::read_small;

/// Why a file's content is unusable.
#[derive(Debug, Clone)]
pub enum FileFault {
    /// Reading it failed (shared: the error is kept whole, its kind for callers to branch on).
    Io(Arc<io::Error>),
    /// A text file that is not UTF-8.
    NotUtf8,
    /// Its content does not decode.
    Decode(DecodeError),
}

impl FileFault {
    pub fn io(e: io::Error) -> Self {
        FileFault::Io(Arc::new(e))
    }
}

impl From<io::Error> for FileFault {
    fn from(e: io::Error) -> Self {
        FileFault::io(e)
    }
}

impl fmt::Display for FileFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileFault::Io(e) => e.fmt(f),
            FileFault::NotUtf8 => f.write_str("not UTF-8 text"),
            FileFault::Decode(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FileFault {}

/// Reads and decodes a checkpoint file of at most `limit` bytes (`epochs`: a
/// `leader-epoch-checkpoint`).
pub fn read_checkpoint(path: &Path, limit: u64, epochs: bool) -> Result<Checkpoint, FileFault> {
    let bytes = read_small(path, limit)?;
    let text = String::from_utf8(bytes).map_err(|_| FileFault::NotUtf8)?;
    parse_checkpoint(&text, epochs).map_err(FileFault::Decode)
}

/// A record of a coordinator partition (`__consumer_offsets`, `__transaction_state`) that
/// could not be decoded, or a segment of one that could not be read (offset -1).
#[derive(Debug, Clone)]
pub struct Undecodable {
    /// The coordinator partition.
    pub partition: i32,
    pub offset: i64,
    pub why: UndecodableWhy,
}

#[derive(Debug, Clone)]
pub enum UndecodableWhy {
    /// A typed parser's error.
    Decode(DecodeError),
    /// The schema decoder's error.
    Schema(kseg_format::coordinator::ErrorKind),
    /// A key too short for a coordinator key (`len` bytes), found in `at` (file, batch byte).
    KeyTooShort {
        len: usize,
        at: Option<(std::path::PathBuf, u64)>,
    },
    /// A key whose group id is not UTF-8: the first invalid byte (of the key) and the id.
    IdNotUtf8 {
        byte: usize,
        id: Vec<u8>,
        at: Option<(std::path::PathBuf, u64)>,
    },
    /// A segment that could not be opened.
    CannotRead {
        file: std::path::PathBuf,
        error: Arc<io::Error>,
    },
}
