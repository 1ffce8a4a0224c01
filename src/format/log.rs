//! Walking a `.log` file the way Kafka frames it, but without ever giving up: every stretch of
//! bytes is either a batch, a corrupt region the walker resynchronised past, or the tail.
//!
//! The walker reads through a [`ByteSource`], so the same logic runs over an in-memory slice, a
//! buffered file or a memory map. It holds no data itself.

use std::io;

use super::batch::Headers;
use super::batch::{RecordBatch, TimestampType, LOG_OVERHEAD, V2_CRC_START, V2_HEADER_SIZE};
use super::compression::{Codec, Decompressor};
use super::legacy::{inner_messages, InnerMessages, LegacyMessage, V0_OVERHEAD};
use super::reader::DecodeError;

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
    Garbage { reason: String },
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
        reason: String,
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

/// The plausibility check on the first 17 bytes of a frame: Kafka's own size test plus the
/// magic byte, which Kafka does not check but which garbage rarely gets right.
fn frame_problem(header: &[u8]) -> Result<u64, String> {
    let size = i32::from_be_bytes(header[8..12].try_into().expect("4 bytes"));
    let magic = header[16] as i8;
    if size < V0_OVERHEAD as i32 {
        return Err(format!(
            "batch size {size} is below the minimum of {V0_OVERHEAD}"
        ));
    }
    if !(0..=2).contains(&magic) {
        return Err(format!("unknown magic byte {magic}"));
    }
    if magic == 2 && (size as usize) < V2_HEADER_SIZE - LOG_OVERHEAD {
        return Err(format!("v2 batch length {size} is below the minimum of 49"));
    }
    Ok(LOG_OVERHEAD as u64 + size as u64)
}

/// Field checks on a candidate frame's header (61 bytes for v2, 26 for v0/v1) that real
/// writers always satisfy: attribute bits Kafka never sets are clear, the codec exists, counts
/// and deltas are not negative. Used before a checksum when resynchronising.
fn header_fields_sane(h: &[u8]) -> bool {
    if h.len() < 17 {
        return false;
    }
    if h[16] >= 2 {
        if h.len() < V2_HEADER_SIZE {
            return false;
        }
        let delta = i32::from_be_bytes([h[23], h[24], h[25], h[26]]);
        let count = i32::from_be_bytes([h[57], h[58], h[59], h[60]]);
        let max_ts = i64::from_be_bytes(h[35..43].try_into().expect("8 bytes"));
        h[21] == 0
            && h[22] & 0x07 <= 4
            && h[22] & 0x80 == 0
            && delta >= 0
            && count >= 0
            && count as i64 <= delta as i64 + 1
            && max_ts >= -1
    } else {
        // v0/v1: the key length (after the attributes, and v1's timestamp) is -1 or fits in
        // the message.
        let size = i32::from_be_bytes([h[8], h[9], h[10], h[11]]) as i64;
        let (at, fixed) = if h[16] == 0 { (18, 14) } else { (26, 22) };
        let key_fits = h.get(at..at + 4).is_none_or(|k| {
            let key = i32::from_be_bytes([k[0], k[1], k[2], k[3]]) as i64;
            key == -1 || (0..=size - fixed).contains(&key)
        });
        h.len() >= 18 && h[17] & 0x07 <= 3 && h[17] & 0xf0 == 0 && key_fits
    }
}

/// Whether a complete frame passes its checksum.
pub fn frame_crc_valid(bytes: &[u8]) -> bool {
    if bytes.len() < 17 {
        return false;
    }
    if bytes[16] as i8 >= 2 {
        RecordBatch::parse(bytes)
            .map(|b| b.crc_valid())
            .unwrap_or(false)
    } else {
        LegacyMessage::parse(bytes)
            .map(|m| m.crc_valid())
            .unwrap_or(false)
    }
}

/// Frames larger than this are judged (the header after them, a checksum streamed in 1 MiB
/// pieces) before they are read whole: a flipped bit in a size field must not make kseg hold a
/// gigabyte of a segment in memory.
pub const LARGE_FRAME: u64 = 16 << 20;

/// [`frame_crc_valid`] for the `total`-byte frame at `start`, without holding it.
fn streamed_crc_valid<S: ByteSource + ?Sized>(
    src: &mut S,
    start: u64,
    total: u64,
) -> io::Result<bool> {
    let head = src.read_at(start, V2_HEADER_SIZE)?;
    if head.len() < 17 || (head[16] as i8 >= 2 && head.len() < V2_CRC_START) {
        return Ok(false);
    }
    // v2 (and later magics, read as v2): CRC-32C at 17..21 over byte 21 on; v0/v1: CRC-32 at
    // 12..16 over byte 16 on.
    let v2 = head[16] as i8 >= 2;
    let (stored, from) = if v2 {
        (
            u32::from_be_bytes([head[17], head[18], head[19], head[20]]),
            V2_CRC_START as u64,
        )
    } else {
        (
            u32::from_be_bytes([head[12], head[13], head[14], head[15]]),
            16,
        )
    };
    let mut crc32c_state = 0u32;
    let mut crc32 = crc32fast::Hasher::new();
    let (mut at, end) = (start + from, start + total);
    while at < end {
        let chunk = src.read_at(at, ((end - at) as usize).min(1 << 20))?;
        if chunk.is_empty() {
            return Ok(false);
        }
        if v2 {
            crc32c_state = crc32c::crc32c_append(crc32c_state, chunk);
        } else {
            crc32.update(chunk);
        }
        at += chunk.len() as u64;
    }
    Ok(stored == if v2 { crc32c_state } else { crc32.finalize() })
}

/// Whether the frame at `start` passes its checksum, streamed when it is large.
fn checksum_valid<S: ByteSource + ?Sized>(src: &mut S, start: u64, total: u64) -> io::Result<bool> {
    if total > LARGE_FRAME {
        streamed_crc_valid(src, start, total)
    } else {
        Ok(frame_crc_valid(src.read_at(start, total as usize)?))
    }
}

impl LogWalker {
    /// Walks `[0, limit)` of a source (`limit` = `--max-bytes`, or the file length).
    pub fn new(limit: u64) -> Self {
        LogWalker {
            pos: 0,
            end: limit,
            check_crc: true,
            last_crc: None,
            resync_crc_bytes: 0,
        }
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
                self.pos = start + total;
                let bytes = src.read_at(start, total as usize)?;
                return Ok(Some(WalkEvent::Entry {
                    position: start,
                    bytes,
                }));
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
                    self.pos = start + total;
                    let bytes = src.read_at(start, total as usize)?;
                    return Ok(Some(WalkEvent::Entry {
                        position: start,
                        bytes,
                    }));
                }
                Some(TailKind::Garbage {
                    reason: "checksum mismatch and no batch follows it".into(),
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
                    self.pos = start + total;
                    let bytes = src.read_at(start, total as usize)?;
                    return Ok(Some(WalkEvent::Entry {
                        position: start,
                        bytes,
                    }));
                }
                Some(TailKind::Garbage {
                    reason: "checksum mismatch and no batch follows it".into(),
                })
            }
            Err(reason) => Some(TailKind::Garbage { reason }),
        };
        let kind = problem.expect("every path without an entry sets a problem");
        match self.resync(src, start + 1)? {
            Some(next) => {
                self.pos = next;
                let reason = match &kind {
                    TailKind::Partial { declared } => {
                        format!(
                            "batch size field declares {declared} bytes, past the end of the file"
                        )
                    }
                    TailKind::Garbage { reason } => reason.clone(),
                    _ => String::new(),
                };
                let zero = self.all_zero(src, start, next)?;
                let reason = if zero {
                    format!("{} zero bytes", next - start)
                } else {
                    reason
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

/// A framed entry: a v2 batch or a legacy (v0/v1) message.
#[derive(Debug, Clone, Copy)]
pub enum LogEntry<'a> {
    V2(RecordBatch<'a>),
    Legacy(LegacyMessage<'a>),
}

/// Batch-level facts common to every magic, as `kafka-dump-log` prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchInfo {
    pub base_offset: i64,
    pub last_offset: i64,
    /// Record count: declared (v2), 1 for a plain legacy message, `None` for a legacy wrapper.
    pub count: Option<i32>,
    pub magic: i8,
    pub codec: Codec,
    pub timestamp_type: TimestampType,
    pub max_timestamp: i64,
    pub first_timestamp: i64,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub last_sequence: i32,
    pub partition_leader_epoch: i32,
    pub is_transactional: bool,
    pub is_control: bool,
    pub delete_horizon_ms: Option<i64>,
    pub crc: u32,
    pub crc_valid: bool,
    pub size: usize,
}

impl<'a> LogEntry<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<LogEntry<'a>, DecodeError> {
        if bytes.len() > 16 && (bytes[16] as i8) < 2 {
            LegacyMessage::parse(bytes).map(LogEntry::Legacy)
        } else {
            RecordBatch::parse(bytes).map(LogEntry::V2)
        }
    }

    pub fn info(&self) -> BatchInfo {
        self.info_with_crc(None)
    }

    /// Batch facts, reusing a checksum verdict already computed (`None`: compute it now).
    pub fn info_with_crc(&self, crc_valid: Option<bool>) -> BatchInfo {
        match self {
            LogEntry::V2(b) => {
                let h = &b.header;
                BatchInfo {
                    base_offset: h.base_offset,
                    last_offset: h.last_offset(),
                    count: Some(h.records_count),
                    magic: h.magic,
                    codec: h.codec(),
                    timestamp_type: h.timestamp_type(),
                    max_timestamp: h.max_timestamp,
                    first_timestamp: h.base_timestamp,
                    producer_id: h.producer_id,
                    producer_epoch: h.producer_epoch,
                    base_sequence: h.base_sequence,
                    last_sequence: h.last_sequence(),
                    partition_leader_epoch: h.partition_leader_epoch,
                    is_transactional: h.is_transactional(),
                    is_control: h.is_control(),
                    delete_horizon_ms: h.delete_horizon_ms(),
                    crc: h.crc,
                    crc_valid: crc_valid.unwrap_or_else(|| b.crc_valid()),
                    size: b.bytes.len(),
                }
            }
            LogEntry::Legacy(m) => BatchInfo {
                base_offset: m.offset,
                last_offset: m.offset,
                count: (m.codec() == Codec::None).then_some(1),
                magic: m.magic,
                codec: m.codec(),
                timestamp_type: m.timestamp_type(),
                max_timestamp: m.timestamp_or_none(),
                first_timestamp: m.timestamp_or_none(),
                producer_id: -1,
                producer_epoch: -1,
                base_sequence: -1,
                last_sequence: -1,
                partition_leader_epoch: -1,
                is_transactional: false,
                is_control: false,
                delete_horizon_ms: None,
                crc: m.crc,
                crc_valid: crc_valid.unwrap_or_else(|| m.crc_valid()),
                size: m.size(),
            },
        }
    }
}

/// The legacy per-message checksum Kafka prints on record lines of v0/v1 data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LegacyChecksum {
    pub crc: u32,
    pub valid: bool,
}

/// One record of any magic, borrowing from the entry or from the decompression buffer.
#[derive(Debug, Clone, Copy)]
pub struct LogRecord<'r> {
    pub offset: i64,
    pub timestamp: i64,
    pub timestamp_type: TimestampType,
    pub key: Option<&'r [u8]>,
    pub value: Option<&'r [u8]>,
    pub headers: Headers<'r>,
    /// v2 only.
    pub sequence: Option<i32>,
    /// v0/v1 only.
    pub legacy: Option<LegacyChecksum>,
}

/// Per-thread buffers for record decoding.
#[derive(Default)]
pub struct RecordScratch {
    pub decompressor: Decompressor,
    pub buffer: Vec<u8>,
    /// The legacy wrapper value whose decompression `buffer` holds (address and length).
    wrapper: Option<(usize, usize)>,
    /// Set by [`RecordScratch::reuse_wrapper`] for the next call of [`for_each_record`] only.
    reuse: bool,
}

impl RecordScratch {
    pub fn with_cap(max_decompressed: usize) -> Self {
        RecordScratch {
            decompressor: Decompressor::new(max_decompressed),
            ..Default::default()
        }
    }

    /// The next [`for_each_record`] visits the same entry as the last one: a legacy wrapper
    /// decompressed then is not decompressed again.
    pub fn reuse_wrapper(&mut self) {
        self.reuse = true;
    }
}

/// When records of an "uncompressed" batch fail to decode, say so if the payload starts with a
/// compression codec's magic: the attributes lie about the codec.
fn with_codec_hint(e: DecodeError, codec: Codec, payload: &[u8]) -> DecodeError {
    if codec != Codec::None {
        return e;
    }
    let looks_like = if payload.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        "zstd"
    } else if payload.starts_with(&[0x1f, 0x8b]) {
        "gzip"
    } else if payload.starts_with(b"\x82SNAPPY\0") {
        "snappy (xerial)"
    } else if payload.starts_with(&[0x04, 0x22, 0x4d, 0x18]) {
        "lz4"
    } else {
        return e;
    };
    DecodeError::new(
        e.position as usize,
        format!(
            "{} (the records look {looks_like}-compressed although the attributes say none)",
            e.message
        ),
    )
}

/// The checked inner message set of a compressed legacy wrapper, decompressed into `scratch`
/// (or, with `reuse`, the decompression already there when it is this wrapper's).
fn wrapper_inner<'s>(
    message: &LegacyMessage<'_>,
    scratch: &'s mut RecordScratch,
    reuse: bool,
) -> Result<InnerMessages<'s>, DecodeError> {
    let value = message.value.ok_or_else(|| {
        DecodeError::new(LOG_OVERHEAD, "compressed wrapper message with a null value")
    })?;
    let key = Some((value.as_ptr() as usize, value.len()));
    if !(reuse && scratch.wrapper == key) {
        scratch.wrapper = None;
        scratch
            .decompressor
            .decompress(message.codec(), message.magic, value, &mut scratch.buffer)
            .map_err(|e| DecodeError::new(LOG_OVERHEAD, format!("wrapper value: {}", e)))?;
        scratch.wrapper = key;
    }
    inner_messages(message, &scratch.buffer, 0)
        .map_err(|e| DecodeError::new(LOG_OVERHEAD, format!("in decompressed wrapper: {e}")))
}

/// The record count and first offset of a compressed legacy wrapper, which live inside its
/// compressed value: decompresses it into `scratch` and checks its inner messages without
/// visiting them. A [`for_each_record`] on the same entry right after, with
/// [`RecordScratch::reuse_wrapper`], does not decompress it again.
pub fn legacy_wrapper_extent(
    message: &LegacyMessage<'_>,
    scratch: &mut RecordScratch,
) -> Result<(usize, i64), DecodeError> {
    scratch.reuse = false;
    let inner = wrapper_inner(message, scratch, false)?;
    Ok((inner.message_count(), inner.first_offset()))
}

/// Calls `visit` for every record of `entry`, decompressing into `scratch` when needed. Records
/// decoded before an error are still visited; the error comes back with a position relative
/// to the start of the entry.
pub fn for_each_record<'e>(
    entry: &LogEntry<'e>,
    scratch: &mut RecordScratch,
    mut visit: impl FnMut(&LogRecord<'_>),
) -> Result<usize, DecodeError> {
    let mut seen = 0usize;
    let reuse = std::mem::take(&mut scratch.reuse);
    match entry {
        LogEntry::V2(batch) => {
            let codec = batch.header.codec();
            let payload: &[u8] = if codec == Codec::None {
                batch.payload()
            } else {
                scratch.wrapper = None;
                scratch
                    .decompressor
                    .decompress(codec, 2, batch.payload(), &mut scratch.buffer)
                    .map_err(|e| e.at(V2_HEADER_SIZE as u64))?;
                &scratch.buffer
            };
            // Positions inside decompressed data cannot point into the file; use the payload start.
            let origin = if codec == Codec::None {
                V2_HEADER_SIZE
            } else {
                0
            };
            let mut records = batch
                .records(payload, origin)
                .map_err(|e| with_codec_hint(e, codec, payload))?;
            let ts_type = batch.header.timestamp_type();
            for record in records.by_ref() {
                let record = record.map_err(|e| {
                    if codec == Codec::None {
                        with_codec_hint(e, codec, payload)
                    } else {
                        DecodeError::new(
                            V2_HEADER_SIZE,
                            format!(
                                "in decompressed records at byte {}: {}",
                                e.position, e.message
                            ),
                        )
                    }
                })?;
                seen += 1;
                visit(&LogRecord {
                    offset: record.offset,
                    timestamp: record.timestamp,
                    timestamp_type: ts_type,
                    key: record.key,
                    value: record.value,
                    headers: record.headers,
                    sequence: Some(record.sequence),
                    legacy: None,
                });
            }
            let trailing = records.trailing();
            if trailing > 0 {
                return Err(DecodeError::new(
                    V2_HEADER_SIZE,
                    format!("incorrect declared batch size, {trailing} bytes of records still remaining"),
                ));
            }
        }
        LogEntry::Legacy(message) => {
            if message.codec() == Codec::None {
                seen += 1;
                visit(&LogRecord {
                    offset: message.offset,
                    timestamp: message.timestamp_or_none(),
                    timestamp_type: message.timestamp_type(),
                    key: message.key,
                    value: message.value,
                    headers: Headers::empty(),
                    sequence: None,
                    legacy: Some(LegacyChecksum {
                        crc: message.crc,
                        valid: message.crc_valid(),
                    }),
                });
                return Ok(seen);
            }
            let inner = wrapper_inner(message, scratch, reuse)?;
            for m in inner {
                seen += 1;
                visit(&LogRecord {
                    offset: m.offset,
                    timestamp: m.timestamp,
                    timestamp_type: m.timestamp_type,
                    key: m.message.key,
                    value: m.message.value,
                    headers: Headers::empty(),
                    sequence: None,
                    legacy: Some(LegacyChecksum {
                        crc: m.message.crc,
                        valid: m.message.crc_valid(),
                    }),
                });
            }
        }
    }
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::batch::tests::{V1_BATCH, V2_BATCH};

    fn walk(data: &[u8]) -> Vec<String> {
        let mut src = SliceSource(data);
        let mut w = LogWalker::new(data.len() as u64);
        let mut out = Vec::new();
        while let Some(ev) = w.next(&mut src).unwrap() {
            out.push(match ev {
                WalkEvent::Entry { position, bytes } => format!("entry@{position}+{}", bytes.len()),
                WalkEvent::Corrupt {
                    position, length, ..
                } => format!("corrupt@{position}+{length}"),
                WalkEvent::Tail {
                    position,
                    length,
                    kind,
                } => format!("tail@{position}+{length}:{kind:?}"),
            });
        }
        out
    }

    fn two_batches() -> Vec<u8> {
        let mut data = hex::decode(V1_BATCH).unwrap();
        let mut second = hex::decode(V2_BATCH).unwrap();
        second[7] = 1;
        data.extend(second);
        data
    }

    /// A source over a slice that remembers the largest read asked of it.
    struct Tracking<'a> {
        data: &'a [u8],
        largest_read: usize,
        /// Bytes handed out by every read together.
        total: u64,
    }

    impl ByteSource for Tracking<'_> {
        fn len(&self) -> u64 {
            self.data.len() as u64
        }
        fn read_at(&mut self, pos: u64, len: usize) -> io::Result<&[u8]> {
            self.largest_read = self.largest_read.max(len);
            let from = (pos as usize).min(self.data.len());
            let to = (from + len).min(self.data.len());
            self.total += (to - from) as u64;
            Ok(&self.data[from..to])
        }
    }

    #[test]
    fn a_huge_declared_size_is_judged_without_reading_the_frame() {
        // A bit flip in the size field's high byte makes a 85-byte batch declare 32 MiB more,
        // and the file is long enough to hold that (zeros): the walker must not read it at once.
        let batch = hex::decode(V2_BATCH).unwrap();
        let mut data = batch.clone();
        data.extend(&batch);
        data[85 + 8] ^= 0x02;
        data.resize(40 << 20, 0);
        let tail = data.len();
        data.extend(&batch);
        let mut src = Tracking {
            data: &data,
            largest_read: 0,
            total: 0,
        };
        let mut w = LogWalker::new(data.len() as u64);
        let mut events = Vec::new();
        while let Some(ev) = w.next(&mut src).unwrap() {
            events.push(match ev {
                WalkEvent::Entry { position, .. } => format!("entry@{position}"),
                WalkEvent::Corrupt { position, .. } => format!("corrupt@{position}"),
                WalkEvent::Tail { position, .. } => format!("tail@{position}"),
            });
        }
        assert_eq!(
            events,
            ["entry@0", "corrupt@85", format!("entry@{tail}").as_str()]
        );
        assert!(src.largest_read <= 2 << 20, "{}", src.largest_read);
    }

    /// Issue 14 item 13: a file that shrinks under the walk (a source shorter than the limit
    /// the walk was given) was reported as a "zero-filled tail of 0 bytes".
    #[test]
    fn a_file_shrunk_under_the_walk_is_not_a_zero_filled_tail() {
        let batch = hex::decode(V2_BATCH).unwrap();
        let mut data = batch.clone();
        data.extend(&batch[..40]);
        for limit in [data.len() as u64 + 1000, batch.len() as u64 + 1000] {
            let src_data = if limit > data.len() as u64 + 500 {
                &data[..]
            } else {
                &batch[..]
            };
            let mut src = Tracking {
                data: src_data,
                largest_read: 0,
                total: 0,
            };
            let mut w = LogWalker::new(limit);
            while let Some(ev) = w.next(&mut src).unwrap() {
                if let WalkEvent::Tail { length, kind, .. } = ev {
                    assert!(
                        !(length == 0 && kind == TailKind::ZeroFilled),
                        "a zero-filled tail of 0 bytes"
                    );
                }
            }
        }
    }

    /// Walks `data` to its end and returns the bytes the walk read.
    fn bytes_read_by_walk(data: &[u8]) -> u64 {
        let mut src = Tracking {
            data,
            largest_read: 0,
            total: 0,
        };
        let mut w = LogWalker::new(data.len() as u64);
        while w.next(&mut src).unwrap().is_some() {}
        src.total
    }

    /// Issue 14 item 3: garbage where every byte declares a frame of 16.8 MB (0x01 bytes: magic
    /// 1, size 0x01010101) is walked reading each byte a few times, not once per candidate.
    #[test]
    fn resync_over_0x01_bytes_is_linear() {
        let data = vec![1u8; 16_900_000];
        let read = bytes_read_by_walk(&data);
        assert!(read <= 8 * data.len() as u64, "{read} bytes read");
    }

    /// Issue 14 item 3: crafted garbage whose every 64th byte starts a plausible 8 MiB v0 frame
    /// (followed by another such header) costs at most the walk's checksum budget.
    #[test]
    fn resync_checksum_work_is_bounded_by_the_budget() {
        let len = 32usize << 20;
        let mut data = vec![0xffu8; len];
        let total = 8usize << 20;
        for at in (64..len).step_by(64) {
            let h = &mut data[at..at + 26];
            h[0..8].copy_from_slice(&(at as i64).to_be_bytes());
            h[8..12].copy_from_slice(&((total - 12) as i32).to_be_bytes());
            h[12..16].copy_from_slice(&[1, 2, 3, 4]);
            h[16] = 0;
            h[17] = 0;
            h[18..22].copy_from_slice(&(-1i32).to_be_bytes());
            h[22..26].copy_from_slice(&0i32.to_be_bytes());
        }
        let read = bytes_read_by_walk(&data);
        let bound = RESYNC_CRC_BASE + RESYNC_CRC_PER_BYTE * len as u64 + 8 * len as u64;
        assert!(read <= bound, "{read} bytes read, bound {bound}");
    }

    #[test]
    fn a_large_valid_frame_is_still_a_batch() {
        // A v2 batch padded past LARGE_FRAME with a correct CRC: judged by the streamed
        // checksum, then read whole.
        let mut batch = hex::decode(V2_BATCH).unwrap();
        let extra = (LARGE_FRAME as usize) + 100;
        batch.extend(vec![0u8; extra]);
        let size = (batch.len() - 12) as i32;
        batch[8..12].copy_from_slice(&size.to_be_bytes());
        let crc = crc32c::crc32c(&batch[V2_CRC_START..]);
        batch[17..21].copy_from_slice(&crc.to_be_bytes());
        let mut src = SliceSource(&batch);
        let mut w = LogWalker::new(batch.len() as u64);
        match w.next(&mut src).unwrap() {
            Some(WalkEvent::Entry { position, bytes }) => {
                assert_eq!((position, bytes.len()), (0, batch.len()));
            }
            _ => panic!("not an entry"),
        }
        assert_eq!(w.last_crc(), Some(true));
    }

    #[test]
    fn clean_file() {
        assert_eq!(walk(&two_batches()), vec!["entry@0+76", "entry@76+85"]);
    }

    #[test]
    fn torn_tail_and_zero_tail() {
        let mut data = two_batches();
        data.truncate(120);
        assert_eq!(
            walk(&data),
            vec!["entry@0+76", "tail@76+44:Partial { declared: 85 }"]
        );
        let mut data = two_batches();
        data.extend(vec![0u8; 1000]);
        assert_eq!(
            walk(&data),
            vec!["entry@0+76", "entry@76+85", "tail@161+1000:ZeroFilled"]
        );
        let mut data = two_batches();
        data.extend(vec![0u8; 10]);
        assert_eq!(
            walk(&data),
            vec!["entry@0+76", "entry@76+85", "tail@161+10:ZeroFilled"]
        );
    }

    #[test]
    fn garbage_in_the_middle_is_skipped() {
        let mut data = hex::decode(V1_BATCH).unwrap();
        data.extend_from_slice(b"this is definitely not a kafka batch!!");
        let mut second = hex::decode(V2_BATCH).unwrap();
        second[7] = 1;
        data.extend(second);
        assert_eq!(
            walk(&data),
            vec!["entry@0+76", "corrupt@76+38", "entry@114+85"]
        );
    }

    #[test]
    fn a_future_magic_with_a_valid_crc_is_a_batch() {
        let mut data = hex::decode(V1_BATCH).unwrap();
        data[16] = 3;
        let crc = crc32c::crc32c(&data[21..]);
        data[17..21].copy_from_slice(&crc.to_be_bytes());
        let mut second = hex::decode(V2_BATCH).unwrap();
        second[7] = 1;
        data.extend(second);
        assert_eq!(walk(&data), vec!["entry@0+76", "entry@76+85"]);
        assert_eq!(LogEntry::parse(&data[..76]).unwrap().info().magic, 3);
    }

    #[test]
    fn bit_flip_keeps_framing() {
        let mut data = two_batches();
        data[70] ^= 0x10;
        let events = walk(&data);
        assert_eq!(events, vec!["entry@0+76", "entry@76+85"]);
        assert!(!frame_crc_valid(&data[..76]));
    }

    #[test]
    fn records_of_all_kinds() {
        let data = hex::decode(V2_BATCH).unwrap();
        let entry = LogEntry::parse(&data).unwrap();
        let mut scratch = RecordScratch::default();
        let mut offsets = Vec::new();
        let n = for_each_record(&entry, &mut scratch, |r| offsets.push(r.offset)).unwrap();
        assert_eq!(n, 2);
        assert_eq!(offsets, vec![0, 1]);
    }

    proptest::proptest! {
        #[test]
        fn walker_covers_every_byte_and_never_panics(data: Vec<u8>, cut in 0usize..200) {
            let mut file = two_batches();
            file.extend_from_slice(&data);
            file.truncate(file.len().saturating_sub(cut % 50));
            let mut src = SliceSource(&file);
            let mut w = LogWalker::new(file.len() as u64);
            let mut covered = 0u64;
            let mut scratch = RecordScratch::with_cap(1 << 20);
            while let Some(ev) = w.next(&mut src).unwrap() {
                match ev {
                    WalkEvent::Entry { position, bytes } => {
                        proptest::prop_assert_eq!(position, covered);
                        covered += bytes.len() as u64;
                        if let Ok(e) = LogEntry::parse(bytes) {
                            let _ = e.info();
                            let _ = for_each_record(&e, &mut scratch, |_| {});
                        }
                    }
                    WalkEvent::Corrupt { position, length, .. } | WalkEvent::Tail { position, length, .. } => {
                        proptest::prop_assert_eq!(position, covered);
                        covered += length;
                    }
                }
            }
            proptest::prop_assert_eq!(covered, file.len() as u64);
        }
    }
}
