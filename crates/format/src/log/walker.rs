//! [`LogWalker`]: frames entries one after the other and resynchronises past corruption, each
//! stretch of the file reported once as an entry, a corrupt region or the tail.

use std::io;

use super::frame::{
    checksum_valid, frame_crc_valid, frame_problem, header_fields_sane, streamed_crc_valid,
    FrameProblem,
};
use super::{ByteSource, HEADER_SIZE_UP_TO_MAGIC, LARGE_FRAME};
use crate::batch::{LOG_OVERHEAD, V2_HEADER_SIZE};

/// Why the walker stopped before the end of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TailKind {
    /// Only zero bytes remain: a preallocated or torn-then-zeroed tail.
    ZeroFilled,
    /// A batch header whose declared size runs past the end of the file: a torn write.
    Partial { declared: u64 },
    /// Too few bytes for a batch header (Kafka ignores up to 17).
    Short,
    /// Bytes that frame no batch at all.
    Garbage { reason: FrameProblem },
}

impl TailKind {
    pub fn describe(&self, length: u64) -> String {
        match self {
            TailKind::ZeroFilled => format!("zero-filled tail of {length} bytes"),
            TailKind::Partial { declared } => {
                format!("torn tail: batch declares {declared} bytes but only {length} remain")
            }
            TailKind::Short => format!("{length} trailing bytes, too few for a batch header"),
            TailKind::Garbage { reason } => {
                format!("{length} unframeable bytes at the end: {reason}")
            }
        }
    }
}

/// What the walker found next.
#[derive(Debug)]
pub enum WalkEvent<'b> {
    /// A complete, framed batch (v2) or legacy message, CRC not yet checked by the caller.
    Entry { position: u64, bytes: &'b [u8] },
    /// Bytes that frame no valid batch, followed by a valid batch at `position + length`.
    Corrupt {
        position: u64,
        length: u64,
        reason: FrameProblem,
    },
    /// The walk ended `length` bytes before the end of the file.
    Tail {
        position: u64,
        length: u64,
        kind: TailKind,
    },
}

/// Frames entries one after the other, resynchronising after corruption.
pub struct LogWalker {
    pos: u64,
    end: u64,
    check_crc: bool,
    last_crc: Option<bool>,
    /// Bytes checksummed so far for resynchronisation candidates (see [`RESYNC_CRC_BASE`]).
    resync_crc_bytes: u64,
}

/// Checksum work resynchronisation may spend over a whole walk: this much, plus
/// [`RESYNC_CRC_PER_BYTE`] times the position reached. Every candidate frame costs its declared
/// size, so without a bound garbage whose every byte starts a plausible multi-MiB frame costs
/// the square of its length (16.9 MB of 0x01 bytes took minutes); with it the walk stays linear
/// and a real batch after damage is still checked (real batches are far smaller).
pub const RESYNC_CRC_BASE: u64 = 256 << 20;
/// See [`RESYNC_CRC_BASE`].
pub const RESYNC_CRC_PER_BYTE: u64 = 16;

impl LogWalker {
    /// Walks `[0, limit)` of a source (`limit` = `--max-bytes`, or the file length).
    pub fn new(limit: u64) -> Self {
        Self::starting_at(0, limit)
    }

    /// Walks `[start, limit)`: for lookups that begin at an index entry's position.
    pub fn starting_at(start: u64, limit: u64) -> Self {
        LogWalker {
            pos: start,
            end: limit,
            check_crc: true,
            last_crc: None,
            resync_crc_bytes: 0,
        }
    }

    /// Whether to verify every entry's checksum (the default). Without it, a checksum is
    /// computed only where the framing is in doubt.
    pub fn with_crc_check(mut self, check: bool) -> Self {
        self.check_crc = check;
        self
    }

    /// The checksum verdict of the last entry returned, when it was computed.
    pub fn last_crc(&self) -> Option<bool> {
        self.last_crc
    }

    pub fn position(&self) -> u64 {
        self.pos
    }

    pub fn next<'s, S: ByteSource + ?Sized>(
        &mut self,
        src: &'s mut S,
    ) -> io::Result<Option<WalkEvent<'s>>> {
        self.end = self.end.min(src.len());
        if self.pos >= self.end {
            return Ok(None);
        }
        let remaining = self.end - self.pos;
        if remaining <= HEADER_SIZE_UP_TO_MAGIC {
            return self.tail(src, self.pos, TailKind::Short);
        }
        let start = self.pos;
        let header = src.read_at(start, HEADER_SIZE_UP_TO_MAGIC as usize)?;
        if (header.len() as u64) < HEADER_SIZE_UP_TO_MAGIC {
            self.end = start + header.len() as u64;
            return self.next(src);
        }
        let header: [u8; HEADER_SIZE_UP_TO_MAGIC as usize] =
            header.try_into().expect("length checked above");
        let header = &header;
        // Kafka reads any magic above 2 with the v2 layout and its recovery never checks the
        // magic, so such a frame whose CRC-32C is valid is a batch (printed with its magic).
        let magic = header[16] as i8;
        let size = i32::from_be_bytes(header[8..12].try_into().expect("4 bytes"));
        if magic > 2 && size >= (V2_HEADER_SIZE - LOG_OVERHEAD) as i32 {
            let total = LOG_OVERHEAD as u64 + size as u64;
            if total <= remaining && checksum_valid(src, start, total)? {
                self.last_crc = Some(true);
                return self.entry(src, start, total);
            }
        }
        let problem = match frame_problem(header) {
            Ok(total) if total > remaining => Some(TailKind::Partial { declared: total }),
            Ok(total) if total > LARGE_FRAME => {
                // Stricter than for small frames, as believing costs `total` bytes of memory:
                // what follows must be a whole frame with sane header fields (zeros or a bare
                // magic byte do not vouch for a size that a flipped bit may have inflated).
                let at = start + total;
                let plausible_next =
                    at >= self.end || self.end - at <= HEADER_SIZE_UP_TO_MAGIC || {
                        let next = src.read_at(at, V2_HEADER_SIZE)?;
                        next.len() as u64 > HEADER_SIZE_UP_TO_MAGIC
                            && frame_problem(next).is_ok_and(|n| n <= self.end - at)
                            && header_fields_sane(next)
                    };
                let crc = if self.check_crc || !plausible_next {
                    Some(streamed_crc_valid(src, start, total)?)
                } else {
                    None
                };
                self.last_crc = crc;
                if crc == Some(true) || plausible_next {
                    // Believed: read whole, as decoding it needs.
                    let available = src.read_at(start, total as usize)?.len() as u64;
                    if available < total {
                        self.end = start + available;
                        return self.tail(src, start, TailKind::Partial { declared: total });
                    }
                    return self.entry(src, start, total);
                }
                Some(TailKind::Garbage {
                    reason: FrameProblem::ChecksumMismatch,
                })
            }
            Ok(total) => {
                // One read covers this frame and the next frame's header, so a frame that
                // crosses the read buffer's end is fetched once, not twice.
                let with_next = (total + HEADER_SIZE_UP_TO_MAGIC).min(self.end - start);
                let window = src.read_at(start, with_next as usize)?;
                let available = window.len() as u64;
                if available < total {
                    // The file shrank under us (a live broker truncated it).
                    self.end = start + available;
                    return self.tail(src, start, TailKind::Partial { declared: total });
                }
                let plausible_next = self.plausible_after(window, start, total);
                // The checksum decides only when the framing is in doubt, unless it is wanted.
                let crc = if self.check_crc || !plausible_next {
                    Some(frame_crc_valid(&window[..total as usize]))
                } else {
                    None
                };
                self.last_crc = crc;
                if crc == Some(true) || plausible_next {
                    return self.entry(src, start, total);
                }
                Some(TailKind::Garbage {
                    reason: FrameProblem::ChecksumMismatch,
                })
            }
            Err(reason) => Some(TailKind::Garbage { reason }),
        };
        let kind = problem.expect("every path without an entry sets a problem");
        match self.resync(src, start + 1)? {
            Some(next) => {
                self.pos = next;
                let zero = self.all_zero(src, start, next)?;
                let reason = match kind {
                    _ if zero => FrameProblem::ZeroBytes {
                        length: next - start,
                    },
                    TailKind::Partial { declared } => FrameProblem::PastEndOfFile { declared },
                    TailKind::Garbage { reason } => reason,
                    // Not produced above: a frame problem is partial or garbage.
                    TailKind::ZeroFilled | TailKind::Short => FrameProblem::ZeroBytes {
                        length: next - start,
                    },
                };
                Ok(Some(WalkEvent::Corrupt {
                    position: start,
                    length: next - start,
                    reason,
                }))
            }
            None => self.tail(src, start, kind),
        }
    }

    /// Takes the `total`-byte frame at `start` as the next entry.
    fn entry<'s, S: ByteSource + ?Sized>(
        &mut self,
        src: &'s mut S,
        start: u64,
        total: u64,
    ) -> io::Result<Option<WalkEvent<'s>>> {
        self.pos = start + total;
        let bytes = src.read_at(start, total as usize)?;
        Ok(Some(WalkEvent::Entry {
            position: start,
            bytes,
        }))
    }

    fn tail<'s, S: ByteSource + ?Sized>(
        &mut self,
        src: &'s mut S,
        start: u64,
        kind: TailKind,
    ) -> io::Result<Option<WalkEvent<'s>>> {
        let length = self.end - start;
        // No byte left (the file shrank under the read) is not a zero-filled tail.
        let kind = if length > 0 && self.all_zero(src, start, self.end)? {
            TailKind::ZeroFilled
        } else {
            kind
        };
        self.pos = self.end;
        Ok(Some(WalkEvent::Tail {
            position: start,
            length,
            kind,
        }))
    }

    fn all_zero<S: ByteSource + ?Sized>(
        &self,
        src: &mut S,
        from: u64,
        to: u64,
    ) -> io::Result<bool> {
        let mut at = from;
        while at < to {
            let want = ((to - at) as usize).min(1 << 20);
            let chunk = src.read_at(at, want)?;
            if chunk.is_empty() {
                break;
            }
            if chunk.iter().any(|&b| b != 0) {
                return Ok(false);
            }
            at += chunk.len() as u64;
        }
        Ok(true)
    }

    /// True at the end of the walked range, or where a frame with a sane header starts.
    /// Whether what follows a frame of `total` bytes at `start` is the end of the walked range
    /// or a sane frame header. `window` holds the frame and, when present, the next header.
    fn plausible_after(&self, window: &[u8], start: u64, total: u64) -> bool {
        self.plausible_next(
            start + total,
            window.get(total as usize..(total + HEADER_SIZE_UP_TO_MAGIC) as usize),
        )
    }

    /// [`Self::plausible_after`] given the header read at `at` (`None` when not there).
    fn plausible_next(&self, at: u64, header: Option<&[u8]>) -> bool {
        if at >= self.end || self.end - at <= HEADER_SIZE_UP_TO_MAGIC {
            return true;
        }
        let Some(header) = header else {
            return true;
        };
        // A sane header follows (a torn one, running past the end, is the tail), or zeros do
        // (a preallocated or zeroed tail): either way this frame's length is believable.
        frame_problem(header).is_ok() || header.iter().all(|&b| b == 0)
    }

    /// The next position at or after `from` where a complete frame with a valid checksum starts.
    fn resync<S: ByteSource + ?Sized>(
        &mut self,
        src: &mut S,
        from: u64,
    ) -> io::Result<Option<u64>> {
        let mut at = from;
        // A copy of the window, so that candidates are judged without reading it again.
        let mut window = Vec::new();
        while self.end - at.min(self.end) > HEADER_SIZE_UP_TO_MAGIC {
            // Scan a window of headers in one read; candidates need a magic byte of 0..=2.
            window.clear();
            window
                .extend_from_slice(src.read_at(at, (1 << 16) + HEADER_SIZE_UP_TO_MAGIC as usize)?);
            if (window.len() as u64) <= HEADER_SIZE_UP_TO_MAGIC {
                return Ok(None);
            }
            let usable = window.len() - HEADER_SIZE_UP_TO_MAGIC as usize;
            for i in 0..usable {
                let h = &window[i..i + HEADER_SIZE_UP_TO_MAGIC as usize];
                if h[16] > 2 {
                    continue;
                }
                let Ok(total) = frame_problem(h) else {
                    continue;
                };
                let p = at + i as u64;
                if p + total <= self.end && self.candidate_valid(src, &window[i..], p, total)? {
                    return Ok(Some(p));
                }
            }
            at += usable as u64;
        }
        Ok(None)
    }

    /// Whether the `total`-byte frame at `p` (whose first bytes are `head`) is a real one. Cheap
    /// checks first, so that garbage never costs a CRC per byte: the header's fields, the walk's
    /// checksum budget, and for a frame over 1 MiB what follows it (the end, a frame header or
    /// zeros, as after every real batch but the last before damage).
    fn candidate_valid<S: ByteSource + ?Sized>(
        &mut self,
        src: &mut S,
        head: &[u8],
        p: u64,
        total: u64,
    ) -> io::Result<bool> {
        let sane = if head.len() >= V2_HEADER_SIZE {
            header_fields_sane(&head[..V2_HEADER_SIZE])
        } else {
            header_fields_sane(src.read_at(p, V2_HEADER_SIZE)?)
        };
        let allowance = RESYNC_CRC_BASE.saturating_add(p.saturating_mul(RESYNC_CRC_PER_BYTE));
        if !sane || self.resync_crc_bytes + total > allowance {
            return Ok(false);
        }
        if total > 1 << 20 {
            let next = p + total;
            let header = src.read_at(next, HEADER_SIZE_UP_TO_MAGIC as usize)?;
            let header = (header.len() as u64 == HEADER_SIZE_UP_TO_MAGIC).then_some(header);
            if !self.plausible_next(next, header) {
                return Ok(false);
            }
        }
        self.resync_crc_bytes += total;
        checksum_valid(src, p, total)
    }
}
