//! Walking a `.log` file the way Kafka frames it, but without ever giving up: every stretch of
//! bytes is either a batch, a corrupt region the walker resynchronised past, or the tail.
//!
//! The walker reads through a [`ByteSource`], so the same logic runs over an in-memory slice, a
//! buffered file or a memory map. It holds no data itself.
//!
//! The files: `frame` (what a frame's first bytes claim and its checksum), `walker`
//! ([`LogWalker`]: framing and resynchronisation), `entry` ([`LogEntry`], a framed batch of
//! any magic, and its [`BatchInfo`]) and `records` ([`for_each_record`] over any magic and
//! codec, into a reused [`RecordScratch`]) and `cuts` ([`batch_cuts`]: where a file can be cut
//! into pieces walked on their own).

use std::io;

mod cuts;
mod entry;
mod frame;
mod hop;
mod records;
#[cfg(test)]
mod tests;
mod walker;

pub use cuts::{batch_cuts, BatchCutter, Cuts, PieceCutter};
pub use entry::{BatchInfo, LogEntry};
pub use frame::{frame_crc_valid, FrameProblem, LARGE_FRAME};
pub use hop::{HeaderHop, Hop};
pub use records::{
    for_each_record, legacy_wrapper_extent, v2_record_bytes, LegacyChecksum, LogRecord,
    RecordScratch,
};
pub use walker::{LogWalker, TailKind, WalkEvent, RESYNC_CRC_BASE, RESYNC_CRC_PER_BYTE};

/// Kafka stops reading a file when this many bytes or fewer remain (`FileLogInputStream`).
pub const HEADER_SIZE_UP_TO_MAGIC: u64 = 17;

/// Random access to the bytes of one log file.
pub trait ByteSource {
    /// Current length of the source (a live file may shrink or grow).
    fn len(&self) -> u64;
    /// Up to `len` bytes at `pos`; fewer only when the source ends first.
    fn read_at(&mut self, pos: u64, len: usize) -> io::Result<&[u8]>;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes read from the underlying file so far, when counted (not for memory).
    fn bytes_read(&self) -> Option<u64> {
        None
    }
    /// Another reader of the same bytes, for another thread: the same open file (not the
    /// path, which a live broker may have renamed or deleted since), its length as this one
    /// has it. `None` when the source cannot give one.
    fn another(&self) -> Option<io::Result<Box<dyn ByteSource + Send>>> {
        None
    }
}

/// A [`ByteSource`] over bytes already in memory.
pub struct SliceSource<'a>(pub &'a [u8]);

impl ByteSource for SliceSource<'_> {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_at(&mut self, pos: u64, len: usize) -> io::Result<&[u8]> {
        let start = (pos as usize).min(self.0.len());
        let end = start.saturating_add(len).min(self.0.len());
        Ok(&self.0[start..end])
    }
}
