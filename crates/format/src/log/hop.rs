//! [`HeaderHop`]: a log's v2 batch headers without the records between them, for a pass that
//! needs only batch-level facts (a producer-state rebuild reads nothing else). It goes only as
//! far as the framing is clean and hands the rest to [`super::LogWalker`]: over clean framing
//! it yields exactly the batches a walk without checksums yields, reading a header (and a few
//! bytes of look-ahead) per large batch instead of the whole file.

use std::io;

use super::frame::frame_problem;
use super::{ByteSource, HEADER_SIZE_UP_TO_MAGIC, LARGE_FRAME};
use crate::batch::{BatchHeader, LOG_OVERHEAD, V2_HEADER_SIZE};

/// What [`HeaderHop::next`] found.
#[derive(Debug)]
pub enum Hop {
    /// A v2 batch of `header.size()` bytes at `position`, its header parsed.
    Batch {
        position: u64,
        header: BatchHeader,
    },
    /// From `position` on, something a walk must judge: a legacy entry, a frame that does not
    /// fit, one not followed by a plausible frame (the walk checks its checksum), a short tail.
    Unclean {
        position: u64,
    },
    End,
}

/// Batches at least this large are hopped over: a read of their header alone (the source
/// rounds it up to its smallest read); after a smaller one the read asks for [`LONG_READ`], so
/// that runs of small batches cost few reads.
const HOP_FROM: u64 = 8 << 10;
const LONG_READ: usize = 1 << 20;

/// Walks the headers of `[start, end)` of a log.
#[derive(Debug, Clone)]
pub struct HeaderHop {
    pos: u64,
    end: u64,
    /// The last batch was at least [`HOP_FROM`] bytes.
    large: bool,
}

impl HeaderHop {
    pub fn new(start: u64, end: u64) -> Self {
        HeaderHop {
            pos: start,
            end,
            large: false,
        }
    }

    pub fn next<S: ByteSource + ?Sized>(&mut self, src: &mut S) -> io::Result<Hop> {
        let end = self.end.min(src.len());
        let position = self.pos;
        if position >= end {
            return Ok(Hop::End);
        }
        let unclean = Ok(Hop::Unclean { position });
        if end - position <= HEADER_SIZE_UP_TO_MAGIC {
            return unclean;
        }
        let want = if self.large {
            V2_HEADER_SIZE
        } else {
            LONG_READ
        };
        let head = src.read_at(position, want)?;
        if head.len() < V2_HEADER_SIZE || head[16] != 2 {
            return unclean;
        }
        let total = match frame_problem(&head[..HEADER_SIZE_UP_TO_MAGIC as usize]) {
            Ok(total) if total <= end - position && total <= LARGE_FRAME => total,
            _ => return unclean,
        };
        let header = match BatchHeader::parse(&head[..V2_HEADER_SIZE]) {
            Ok(h) if h.batch_length >= (V2_HEADER_SIZE - LOG_OVERHEAD) as i32 => h,
            _ => return unclean,
        };
        // The walk believes a frame's length without its checksum only when the end, a frame
        // header or zeros follow it (`LogWalker::plausible_next`).
        let next = position + total;
        if next < end && end - next > HEADER_SIZE_UP_TO_MAGIC {
            let after = src.read_at(next, HEADER_SIZE_UP_TO_MAGIC as usize)?;
            let plausible = after.len() < HEADER_SIZE_UP_TO_MAGIC as usize
                || frame_problem(after).is_ok()
                || after.iter().all(|&b| b == 0);
            if !plausible {
                return unclean;
            }
        }
        self.large = total >= HOP_FROM;
        self.pos = next;
        Ok(Hop::Batch { position, header })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{encode_batch, NewBatch, NewRecord};
    use crate::log::{LogEntry, LogWalker, SliceSource, WalkEvent};

    /// The v2 batches a walk without checksums yields: (position, base offset, last offset).
    fn walked(data: &[u8], from: u64) -> Vec<(u64, i64, i64)> {
        let mut src = SliceSource(data);
        let mut w = LogWalker::starting_at(from, data.len() as u64).with_crc_check(false);
        let mut out = Vec::new();
        while let Some(ev) = w.next(&mut src).unwrap() {
            if let WalkEvent::Entry { position, bytes } = ev {
                if let Ok(LogEntry::V2(b)) = LogEntry::parse(bytes) {
                    out.push((position, b.header.base_offset, b.header.last_offset()));
                }
            }
        }
        out
    }

    /// The hop, then the walk from where the hop stopped.
    fn hopped(data: &[u8]) -> (Vec<(u64, i64, i64)>, Option<u64>) {
        let mut src = SliceSource(data);
        let mut hop = HeaderHop::new(0, data.len() as u64);
        let mut out = Vec::new();
        loop {
            match hop.next(&mut src).unwrap() {
                Hop::Batch { position, header } => {
                    out.push((position, header.base_offset, header.last_offset()))
                }
                Hop::End => return (out, None),
                Hop::Unclean { position } => {
                    out.extend(walked(data, position));
                    return (out, Some(position));
                }
            }
        }
    }

    /// Batches of `sizes[i]` records of 100-byte values each, offsets in a row.
    fn log(sizes: &[usize]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut scratch = Vec::new();
        let value = [7u8; 100];
        let mut next = 0i64;
        for &n in sizes {
            let recs: Vec<NewRecord> = (0..n)
                .map(|i| NewRecord {
                    timestamp: i as i64,
                    key: None,
                    value: Some(&value),
                    headers: &[],
                })
                .collect();
            let b = NewBatch {
                base_offset: next,
                producer_id: 9,
                ..NewBatch::default()
            };
            encode_batch(&mut out, &b, &recs, &mut scratch);
            next += n as i64;
        }
        out
    }

    #[test]
    fn a_clean_log_is_hopped_to_its_end() {
        // Large batches (hopped over) among small ones (read in runs).
        let data = log(&[1, 200, 3, 150, 150, 1, 90]);
        let (batches, stopped) = hopped(&data);
        assert_eq!(stopped, None);
        assert_eq!(batches, walked(&data, 0));
        assert_eq!(batches.len(), 7);
    }

    #[test]
    fn what_the_hop_does_not_judge_goes_to_the_walk() {
        let clean = log(&[2, 100, 2]);
        // A torn tail, a zeroed tail, garbage between batches, a flipped length.
        let mut torn = clean.clone();
        torn.truncate(clean.len() - 5);
        let mut zeroed = clean.clone();
        zeroed.extend([0u8; 300]);
        let mut garbage = log(&[2]);
        garbage.extend([0xA5u8; 40]);
        garbage.extend(log(&[3]));
        let mut flipped = clean.clone();
        flipped[log(&[2]).len() + 9] ^= 0x10;
        for data in [torn, zeroed, garbage, flipped] {
            let (batches, stopped) = hopped(&data);
            assert!(stopped.is_some());
            assert_eq!(batches, walked(&data, 0));
        }
    }

    /// Counts the bytes asked of a slice.
    struct Counting<'a>(SliceSource<'a>, u64);
    impl ByteSource for Counting<'_> {
        fn len(&self) -> u64 {
            self.0.len()
        }
        fn read_at(&mut self, pos: u64, len: usize) -> io::Result<&[u8]> {
            let bytes = self.0.read_at(pos, len)?;
            self.1 += bytes.len() as u64;
            Ok(bytes)
        }
    }

    #[test]
    fn large_batches_are_hopped_over_unread() {
        // 120 batches of ~16 KiB: after the first long read, a header and a look-ahead each.
        let data = log(&[150; 120]);
        let mut src = Counting(SliceSource(&data), 0);
        let mut hop = HeaderHop::new(0, data.len() as u64);
        let mut n = 0;
        while let Hop::Batch { .. } = hop.next(&mut src).unwrap() {
            n += 1;
        }
        assert_eq!(n, 120);
        assert!(
            src.1 < (1 << 20) + 120 * 100,
            "{} of {} bytes read",
            src.1,
            data.len()
        );
        assert!(data.len() > (3 << 20) / 2);
    }

    proptest::proptest! {
        /// Hop then walk yields the walk's batches, on clean logs and on damaged ones.
        #[test]
        fn hop_then_walk_is_the_walk(
            sizes in proptest::collection::vec(1usize..120, 0..12),
            damage in proptest::option::of((0usize..20_000, proptest::collection::vec(proptest::prelude::any::<u8>(), 1..40))),
            cut in proptest::option::of(0usize..20_000),
        ) {
            let mut data = log(&sizes);
            if let Some((at, bytes)) = damage {
                let at = at.min(data.len());
                let end = (at + bytes.len()).min(data.len());
                data[at..end].copy_from_slice(&bytes[..end - at]);
            }
            if let Some(c) = cut {
                data.truncate(c.min(data.len()));
            }
            proptest::prop_assert_eq!(hopped(&data).0, walked(&data, 0));
        }
    }
}
