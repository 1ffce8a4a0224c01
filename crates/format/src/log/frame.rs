//! One frame's claims before it is believed: Kafka's size test plus the magic byte, the
//! header fields real writers always get right, and the checksum (streamed for large frames).

use std::fmt;
use std::io;

use super::ByteSource;
use crate::batch::{RecordBatch, LOG_OVERHEAD, V2_CRC_START, V2_HEADER_SIZE};
use crate::legacy::{LegacyMessage, V0_OVERHEAD};

/// Why bytes were not taken as a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameProblem {
    /// The size field is below the smallest message (v0's overhead).
    SizeBelowMinimum { size: i32 },
    /// The magic byte is not 0, 1 or 2.
    UnknownMagic(i8),
    /// A v2 batch whose length cannot hold its header.
    V2LengthBelowMinimum { size: i32 },
    /// The frame's checksum does not match, and no frame follows it to vouch for its size.
    ChecksumMismatch,
    /// The size field declares a frame running past the end of the file.
    PastEndOfFile { declared: u64 },
    /// Only zero bytes up to the next frame.
    ZeroBytes { length: u64 },
}

impl fmt::Display for FrameProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameProblem::SizeBelowMinimum { size } => {
                write!(f, "batch size {size} is below the minimum of {V0_OVERHEAD}")
            }
            FrameProblem::UnknownMagic(magic) => write!(f, "unknown magic byte {magic}"),
            FrameProblem::V2LengthBelowMinimum { size } => write!(
                f,
                "v2 batch length {size} is below the minimum of {}",
                V2_HEADER_SIZE - LOG_OVERHEAD
            ),
            FrameProblem::ChecksumMismatch => {
                f.write_str("checksum mismatch and no batch follows it")
            }
            FrameProblem::PastEndOfFile { declared } => write!(
                f,
                "batch size field declares {declared} bytes, past the end of the file"
            ),
            FrameProblem::ZeroBytes { length } => write!(f, "{length} zero bytes"),
        }
    }
}

/// The plausibility check on the first 17 bytes of a frame: Kafka's own size test plus the
/// magic byte, which Kafka does not check but which garbage rarely gets right.
pub(super) fn frame_problem(header: &[u8]) -> Result<u64, FrameProblem> {
    let size = i32::from_be_bytes(header[8..12].try_into().expect("4 bytes"));
    let magic = header[16] as i8;
    if size < V0_OVERHEAD as i32 {
        return Err(FrameProblem::SizeBelowMinimum { size });
    }
    if !(0..=2).contains(&magic) {
        return Err(FrameProblem::UnknownMagic(magic));
    }
    if magic == 2 && (size as usize) < V2_HEADER_SIZE - LOG_OVERHEAD {
        return Err(FrameProblem::V2LengthBelowMinimum { size });
    }
    Ok(LOG_OVERHEAD as u64 + size as u64)
}

/// Field checks on a candidate frame's header (61 bytes for v2, 26 for v0/v1) that real
/// writers always satisfy: attribute bits Kafka never sets are clear, the codec exists, counts
/// and deltas are not negative. Used before a checksum when resynchronising.
pub(super) fn header_fields_sane(h: &[u8]) -> bool {
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
pub(super) fn streamed_crc_valid<S: ByteSource + ?Sized>(
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
pub(super) fn checksum_valid<S: ByteSource + ?Sized>(
    src: &mut S,
    start: u64,
    total: u64,
) -> io::Result<bool> {
    if total > LARGE_FRAME {
        streamed_crc_valid(src, start, total)
    } else {
        Ok(frame_crc_valid(src.read_at(start, total as usize)?))
    }
}

#[cfg(test)]
mod wording {
    use super::FrameProblem;

    /// The words dump-log, verify and lookup print for each problem (the goldens show some).
    #[test]
    fn every_frame_problem_reads_as_before() {
        let cases = [
            (
                FrameProblem::SizeBelowMinimum { size: 3 },
                "batch size 3 is below the minimum of 14",
            ),
            (FrameProblem::UnknownMagic(97), "unknown magic byte 97"),
            (
                FrameProblem::V2LengthBelowMinimum { size: 20 },
                "v2 batch length 20 is below the minimum of 49",
            ),
            (
                FrameProblem::ChecksumMismatch,
                "checksum mismatch and no batch follows it",
            ),
            (
                FrameProblem::PastEndOfFile { declared: 900 },
                "batch size field declares 900 bytes, past the end of the file",
            ),
            (FrameProblem::ZeroBytes { length: 12 }, "12 zero bytes"),
        ];
        for (problem, text) in cases {
            assert_eq!(problem.to_string(), text);
        }
    }
}
